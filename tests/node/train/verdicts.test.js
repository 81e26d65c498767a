// The lab's claims' verdicts (web/src/claims/lab/) on hand-made logs: each
// claim holds on runs that show its claim and does not hold on runs that do
// not; a run that diverged (a non-finite loss, the CLI's null) counts as
// failed, never as trained, and never crashes a caption; the CLI's JSON lines
// read as the page's runs (stopping where the session stops a run that
// trained); the lesion shares and the depth sentence come from the numbers.
// Run: node --test tests/node/train/verdicts.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import {
  belowHalfway,
  comparisonCaption,
  depthSentence,
  fromCli,
  median,
  runOutcome,
  summarize,
  verdict,
  CLAIMS,
  CLAIM_BY_ID,
  claimConfig,
  runConfigs,
} from '../../../web/src/claims/lab/index.js';
import { lesionShares } from '../../../web/src/claims/lab/lesion.js';
import { runSpecs } from '../../../web/src/train/session.js';
import { defaultTrainConfig } from '../../../web/src/shared/train-fields.js';
import { REVERSE, TEACHER, run } from './runs.js';

test('warmup holds when Post-LN without warmup stays near chance and the other two train', () => {
  const v = verdict('warmup', {
    post_ln: run([2.0, 1.9, 1.89]),
    post_ln_warmup: run([2.0, 0.5, 0.004]),
    pre_ln: run([1.0, 0.01, 0.0008]),
  });
  assert.equal(v.holds, true);
  assert.ok(v.checks.every((c) => c.holds));
  assert.equal(
    v.caption,
    'Post-LN without warmup ended at held-out loss 1.89 (chance 2.08); with 200 warmup steps 0.004; Pre-LN without warmup 0.0008.',
  );
  assert.deepEqual(v.numbers, { 'post_ln.heldout': 1.89, 'post_ln_warmup.heldout': 0.004, 'pre_ln.heldout': 0.0008 });
});

test('warmup does not hold when Post-LN trains without warmup', () => {
  const v = verdict('warmup', {
    post_ln: run([1.0, 0.3]),
    post_ln_warmup: run([1.0, 0.4]),
    pre_ln: run([1.0, 0.01]),
  });
  assert.equal(v.holds, false);
  assert.deepEqual(
    v.checks.map((c) => c.holds),
    [false, false, true, true],
  );
});

test('a diverged run fails and is never trained; its caption says "not finite"', () => {
  const v = verdict('warmup', {
    post_ln: run([2.0, NaN]),
    post_ln_warmup: run([2.0, 0.1]),
    pre_ln: run([1.0, 0.01]),
  });
  assert.equal(v.holds, true, 'diverging without warmup is what the claim says can happen');
  assert.match(v.caption, /without warmup ended at held-out loss not finite/);
  const bad = verdict('warmup', {
    post_ln: run([2.0, 1.9]),
    post_ln_warmup: run([2.0, Infinity]),
    pre_ln: run([1.0, NaN]),
  });
  assert.equal(bad.holds, false);
  assert.deepEqual(
    bad.checks.map((c) => c.holds),
    [true, false, false, false],
  );
  const s = summarize(run([0.1, NaN]));
  assert.equal(s.finite, false);
  assert.equal(s.trained, false);
  assert.equal(s.fails, true);
  // the CLI's null for a non-finite value reads as NaN, not as 0
  assert.equal(summarize({ logs: [{ step: 1, heldout_loss: null }], task: REVERSE }).trained, false);
  assert.equal(belowHalfway({ heldout_loss: NaN }, REVERSE), false);
});

test('depth: Post-LN trains at 6 and fails at 18 with every value finite; the others train at 18', () => {
  const good = {
    post_ln_6: run([2.0, 0.9]),
    post_ln: run([2.07, 2.08]),
    pre_ln: run([1.2, 0.8]),
    deepnorm: run([0.9]),
    admin: run([1.5, 1.0]),
  };
  const v = verdict('depth', good);
  assert.equal(v.holds, true);
  assert.match(v.caption, /Post-LN at 6 blocks step 20 \(0\.9\)/);
  // Post-LN at 18 diverging is a failure, but not the claimed one (every value finite)
  const diverged = verdict('depth', { ...good, post_ln: run([2.0, NaN]) });
  assert.equal(diverged.holds, false);
  assert.deepEqual(
    diverged.checks.map((c) => c.holds),
    [true, true, false, true, true, true],
  );
  // 1.8 of chance 2.08 is within 14%: not "within 10% of chance"
  assert.equal(verdict('depth', { ...good, post_ln: run([1.8]) }).holds, false);
  assert.equal(verdict('depth', { ...good, admin: run([1.5, 1.2]) }).holds, false);
});

test('degradation: plain 56 above plain 20, Pre-LN 56 below both', () => {
  const runs = { plain_20: run([0.5, 0.33], TEACHER), plain: run([1, 1], TEACHER), pre_ln: run([0.4, 0.17], TEACHER) };
  assert.equal(verdict('degradation', runs).holds, true);
  const v = verdict('degradation', { ...runs, pre_ln: run([0.4, 0.35], TEACHER) });
  assert.equal(v.holds, false);
  assert.deepEqual(
    v.checks.map((c) => c.holds),
    [true, false, true],
  );
  // a diverged plain 56 is above plain 20 (finite below not finite)
  assert.equal(verdict('degradation', { ...runs, plain: run([NaN], TEACHER) }).checks[0].holds, true);
});

test('lesion: the median removal of a residual block costs little, of a plain layer nearly all', () => {
  const lesion = (base, loss) => ({
    base,
    loss: Float64Array.from(loss),
    increase: Float64Array.from(loss, (l) => l - base),
    relative: Float64Array.from(loss, (l) => (l - base) / base),
    contribution: Float64Array.from(loss, () => 0.5),
    contribution_init: Float64Array.from(loss, () => 0.25),
  });
  const pre = run([0.5, 0.15], TEACHER, { arch: 'pre_ln', lesion: lesion(0.15, [0.6, 0.18, 0.19, 0.2, 0.17]) });
  const plain = run([0.6, 0.3], TEACHER, { arch: 'plain', lesion: lesion(0.3, [1.2, 0.9, 1.3, 0.5, 1.1]) });
  const v = verdict('lesion', { pre_ln: pre, plain });
  assert.equal(v.holds, true);
  assert.ok(Math.abs(v.numbers['pre_ln.lesion_median'] - (0.19 - 0.15) / 0.85) < 1e-12);
  assert.match(v.caption, /largest 0\.6 \(block 1\)/);
  const shares = lesionShares(pre.lesion, 1);
  assert.equal(shares.largest.block, 1);
  assert.equal(shares.medianLoss, 0.19);
  // no lesion yet: no verdict (the preset needs one)
  assert.equal(verdict('lesion', { pre_ln: { ...pre, lesion: null }, plain }), null);
  // a lesion that is not finite: the verdict does not hold, and says so without a crash
  const nan = run([0.5, 0.15], TEACHER, { lesion: lesion(NaN, [NaN, NaN]) });
  const w = verdict('lesion', { pre_ln: nan, plain });
  assert.equal(w.holds, false);
  assert.match(w.caption, /NaN/);
  // a plain stack whose median removal goes under 0.7 of the way: does not hold
  const mild = run([0.6, 0.3], TEACHER, { lesion: lesion(0.3, [0.5, 0.4, 0.6]) });
  assert.equal(verdict('lesion', { pre_ln: pre, plain: mild }).holds, false);
});

test('rezero: ReZero trains where plain stays at chance and the unnormalized residual stack diverges', () => {
  const v = verdict('rezero', {
    plain: run([1.0, 0.9998], TEACHER),
    residual: run([NaN], TEACHER),
    rezero: run([0.6, 0.09], TEACHER),
  });
  assert.equal(v.holds, true);
  assert.deepEqual(
    v.checks.map((c) => c.holds),
    [true, true, true],
  );
  assert.match(v.caption, /ReZero ended at held-out loss 0\.09 .*without a norm or a gate not finite \(from step 10\)/);
  // a plain stack that trains: the claim does not hold here
  const w = verdict('rezero', {
    plain: run([0.3], TEACHER),
    residual: run([NaN], TEACHER),
    rezero: run([0.09], TEACHER),
  });
  assert.equal(w.holds, false);
});

test('late layers: each answer against Pre-LN by last-quarter over first-quarter lesion cost, Mix-LN by its gradient spread', () => {
  const preset = CLAIM_BY_ID.late;
  const lesion = (inc) => ({
    base: 0.01,
    increase: Float64Array.from(inc),
    loss: Float64Array.from(inc, (x) => x + 0.01),
  });
  // 8 blocks: quarters are blocks 1-2 and 7-8
  const costs = {
    pre_ln: [3, 3, 1, 1, 1, 1, 0.1, 0.1], // ratio 0.033
    post_ln_warmup: [2, 2, 1, 1, 1, 1, 1, 1], // 0.5
    rezero: [0.1, 0.1, 0, 0, 0, 0, 0.1, 0.1], // 1
    layerscale: [0.4, 0.4, 0, 0, 0, 0, 0.1, 0.1], // 0.25
    lns: [2, 2, 0, 0, 0, 0, 0.01, 0.01], // 0.005
    mix_ln: [3, 3, 0, 0, 0, 0, 0.1, 0.1], // 0.033: equal to Pre-LN's is not higher
    dwa: [3, 3, 0, 0, 0, 0, 0.15, 0.15], // 0.05
    hyper: [1, 1, 0, 0, 0, 0, 0.2, 0.2], // 0.2
    mhc: [1, 1, 0, 0, 0, 0, 0.1, 0.1], // 0.1
    attn_res: [3, 3, 0, 0, 0, 0, 0.05, 0.05], // 0.017: lower than Pre-LN's
    dyt: [3, 3, 1, 1, 1, 1, 0.2, 0.2], // 0.067: shown, not judged
    hybrid: [3, 3, 1, 1, 1, 1, 0.05, 0.05], // 0.017: shown, not judged
    ngpt: [3, 3, 1, 1, 1, 1, 0.1, 0.1], // 0.033: shown, not judged
  };
  // the setting's words name Hyper-Connections' and mHC's streams: the lab's default, which the claim does not set
  assert.equal(claimConfig(preset, defaultTrainConfig()).hc_streams, 4);
  assert.match(preset.setting, /Hyper-Connections and mHC with 4 streams/);
  const w = { pre_ln: [1, 3], post_ln_warmup: [1, 2], mix_ln: [1, 9] };
  const runs = Object.fromEntries(
    preset.runs.map((p) => {
      const r = run([1.5, 0.02], REVERSE, { lesion: lesion(costs[p.key]) });
      r.logs.at(-1).w_grad_norm = w[p.key] ?? [1, 1];
      return [p.key, r];
    }),
  );
  const v = verdict('late', runs);
  assert.equal(v.holds, false);
  const by = Object.fromEntries(v.checks.map((c) => [c.claimed.split(':')[0], c.holds]));
  assert.deepEqual(by, {
    'every stack the checks read trains first (held-out loss below halfway from chance)': true,
    ReZero: true,
    LayerScale: true,
    LNS: false,
    'Mix-LN': false,
    DenseFormer: true,
    'Hyper-Connections': true,
    mHC: true,
    AttnRes: false,
  });
  assert.ok(Math.abs(v.numbers['rezero.late_over_early'] - 1) < 1e-12);
  assert.equal(v.numbers['mix_ln.grad_spread'], 9);
  assert.match(
    v.caption,
    /A higher ratio than Pre-LN\u2019s: ReZero, LayerScale, DenseFormer, Hyper-Connections, mHC; not higher: LNS, Mix-LN, AttnRes\. Shown beside them, not judged: DyT \(2 times Pre-LN\u2019s ratio\), HybridNorm \(0\.5 times Pre-LN\u2019s ratio\), nGPT \(1 times Pre-LN\u2019s ratio\)\.$/,
  );
  assert.ok(Math.abs(v.numbers['dyt.late_over_early'] - 0.2 / 3) < 1e-12, 'a shown run\u2019s ratio is in the numbers');
  // a first quarter that costs nothing gives no ratio, never a crash
  const none = { ...runs, rezero: { ...runs.rezero, lesion: lesion([0, 0, 0, 0, 0, 0, 0.1, 0.1]) } };
  const n = verdict('late', none);
  assert.match(n.caption, /ReZero 0\.1 against 0 \(not measured\)/);
  assert.equal(n.checks.find((c) => c.claimed.startsWith('ReZero')).holds, false);
});

/** A run whose last log carries the three held-out losses [train mode, eval mode, one sequence] (null: not finite). */
function modesRun(losses, [train, evalMode, oneSeq]) {
  const r = run(losses);
  Object.assign(r.logs.at(-1), {
    heldout_loss_train_mode: train,
    heldout_loss_eval_mode: evalMode,
    heldout_loss_one_seq: oneSeq,
  });
  return r;
}

test('batchnorm: LayerNorm and RMSNorm equal in the three modes; BatchNorm alone above eval mode, eval mode above train mode', () => {
  const good = {
    layernorm: modesRun([2.0, 0.5], [0.5, 0.5, 0.5]),
    rmsnorm: modesRun([2.0, 0.52], [0.52, 0.52, 0.52]),
    bn_mask: modesRun([2.0, 0.4], [0.35, 0.4, 1.9]),
    bn_count: modesRun([2.0, 0.45], [0.4, 0.45, 2.0]),
  };
  const v = verdict('batchnorm', good);
  assert.equal(v.holds, true);
  assert.deepEqual(
    v.checks.map((c) => c.holds),
    [true, true, true, true, true, true, true, true],
  );
  assert.equal(
    v.caption,
    'Held-out loss at the end (chance 2.08). LayerNorm trained: train mode 0.5, eval mode 0.5, one sequence alone 0.5. ' +
      'RMSNorm trained: train mode 0.52, eval mode 0.52, one sequence alone 0.52. ' +
      'BatchNorm, pads masked trained: train mode 0.35, eval mode 0.4, one sequence alone 1.9. ' +
      'BatchNorm, pads counted trained: train mode 0.4, eval mode 0.45, one sequence alone 2.',
  );
  assert.equal(v.numbers['bn_mask.one_seq'], 1.9);
  assert.equal(v.numbers['layernorm.train_mode'], 0.5);
  assert.equal(v.numbers['rmsnorm.one_seq'], 0.52);
  // what this scale measures: eval mode below train mode, and a one-sequence gap of less than 10% of chance (0.208)
  const w = verdict('batchnorm', {
    ...good,
    bn_mask: modesRun([2.0, 0.4], [0.5, 0.4, 0.6]),
    bn_count: modesRun([2.0, 0.45], [0.5, 0.45, 2.0]),
  });
  assert.equal(w.holds, false);
  assert.deepEqual(
    w.checks.map((c) => c.holds),
    [true, true, true, true, false, false, true, false],
  );
  assert.match(w.checks[4].measured, /0\.6 against 0\.4 \(a gap of 0\.2; 10% of chance 0\.208\)/);
  // LayerNorm's losses apart: not the same at train and test time
  const apart = verdict('batchnorm', { ...good, layernorm: modesRun([2.0, 0.5], [0.5, 0.5, 0.51]) });
  assert.deepEqual(
    apart.checks.map((c) => c.holds),
    [true, false, true, true, true, true, true, true],
  );
  // RMSNorm's losses apart, the same way
  const rmsApart = verdict('batchnorm', { ...good, rmsnorm: modesRun([2.0, 0.5], [0.5, 0.51, 0.5]) });
  assert.deepEqual(
    rmsApart.checks.map((c) => c.holds),
    [true, true, true, false, true, true, true, true],
  );
});

test('batchnorm: a BatchNorm run that diverged fails its checks and its caption says so', () => {
  const v = verdict('batchnorm', {
    layernorm: modesRun([2.0, 0.5], [0.5, 0.5, 0.5]),
    rmsnorm: modesRun([2.0, 0.52], [0.52, 0.52, 0.52]),
    bn_mask: modesRun([2.0, NaN], [null, null, null]),
    bn_count: modesRun([2.0, 0.45], [0.4, 0.45, 2.0]),
  });
  assert.equal(v.holds, false);
  assert.deepEqual(
    v.checks.map((c) => c.holds),
    [true, true, true, true, false, false, true, true],
  );
  assert.match(
    v.caption,
    /BatchNorm, pads masked diverged at step 20: train mode not finite, eval mode not finite, one sequence alone not finite\./,
  );
  // LayerNorm diverged: neither trained nor equal in its modes
  const ln = verdict('batchnorm', {
    layernorm: modesRun([NaN], [null, null, null]),
    rmsnorm: modesRun([2.0, 0.52], [0.52, 0.52, 0.52]),
    bn_mask: modesRun([2.0, 0.4], [0.35, 0.4, 1.9]),
    bn_count: modesRun([2.0, 0.45], [0.4, 0.45, 2.0]),
  });
  assert.deepEqual(
    ln.checks.slice(0, 2).map((c) => c.holds),
    [false, false],
  );
  assert.match(ln.caption, /LayerNorm diverged at step 10:/);
});

test('no verdict while a run has no log, or for an unknown preset', () => {
  assert.equal(verdict('warmup', { post_ln: run([2]), post_ln_warmup: run([]), pre_ln: run([1]) }), null);
  assert.equal(verdict('warmup', { post_ln: run([2]) }), null);
  assert.equal(verdict('nope', {}), null);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

test('the CLI JSON lines read as a run: null is NaN, the task from the final line, a stop where the session stops', () => {
  const lines = [
    { arch: 'pre_ln', step: 10, heldout_loss: 2.0, train_loss: 2.1, first_nonfinite: null },
    { arch: 'post_ln', step: 10, heldout_loss: null, train_loss: null, first_nonfinite: 7 },
    { arch: 'pre_ln', step: 20, heldout_loss: 0.9, train_loss: 1.0, first_nonfinite: null },
    { arch: 'pre_ln', step: 30, heldout_loss: 0.5, train_loss: 0.6, first_nonfinite: null },
    {
      config: { depth: 2 },
      chance_loss: 2.0794,
      optimal_loss: 0,
      summary: { pre_ln: { lesion: { base: 0.5, loss: [0.6, null], increase: [0.1, null] } } },
    },
  ];
  const r = fromCli(lines, 'pre_ln');
  assert.deepEqual(
    r.logs.map((l) => l.step),
    [10, 20, 30],
  );
  assert.deepEqual(r.task, { chance: 2.0794, optimal: 0 });
  assert.equal(r.lesion.base, 0.5);
  assert.ok(Number.isNaN(r.lesion.loss[1]));
  const stopped = fromCli(lines, 'pre_ln', { stopWhenTrained: true });
  assert.deepEqual(
    stopped.logs.map((l) => l.step),
    [10, 20],
  );
  const post = fromCli(lines, 'post_ln');
  assert.ok(Number.isNaN(post.logs[0].heldout_loss));
  assert.equal(post.lesion, null);
  assert.equal(summarize(post).finite, false);
});

test('the depth sentence answers from the contributions, and says when it cannot', () => {
  const l = (now, init) => ({
    lesion: { contribution: Float64Array.from(now), contribution_init: Float64Array.from(init) },
  });
  const up = depthSentence({ arch: 'pre_ln', ...l([0.4, 0.5, 0.6], [0.2, 0.2, 0.3]) }, 'Pre-LN');
  assert.equal(up.deeper, true);
  assert.match(
    up.text,
    /^Pre-LN: the median block adds 0\.5 of the stream it reads at the end, 0\.2 at initialization \(2\.5×; 3 of 3 blocks grew\)/,
  );
  assert.equal(depthSentence({ arch: 'post_ln', ...l([0.1, 0.1], [0.3, 0.3]) }, 'Post-LN').deeper, false);
  assert.equal(depthSentence({ arch: 'post_ln', ...l([0.3], [0.29]) }, 'Post-LN').deeper, null);
  assert.match(depthSentence({ arch: 'plain', ...l([1], [0.5]) }, 'plain').text, /no skip path/);
  assert.match(depthSentence({ arch: 'pre_ln', ...l([NaN], [0.5]) }, 'Pre-LN').text, /not finite/);
  assert.equal(depthSentence({ lesion: null }, 'x'), null);
  // ReZero: nothing at initialization (every gate at 0), so no ratio, and the sentence says why
  const rz = depthSentence({ arch: 'rezero', ...l([0.2, 0.3, 0.25], [0, 0, 0]) }, 'ReZero');
  assert.equal(rz.deeper, true);
  assert.match(rz.text, /^ReZero: the median block adds 0\.25 .* nothing at initialization \(its gate starts at 0\)/);
  // a run that did not train says so
  const stuck = { ...run([2.0, 2.07]), arch: 'post_ln', ...l([0.6], [0.3]) };
  assert.match(depthSentence(stuck, 'Post-LN').text, /did not train/);
  assert.doesNotMatch(depthSentence({ ...stuck, logs: run([2.0, 0.1]).logs }, 'Post-LN').text, /did not train/);
});

test('every preset is a valid session: unique run keys, its settings and overrides as the runs take them', () => {
  const defaults = { task: 'copy', depth: 4, warmup: 0, steps: 100, log_every: 10, arch: ['pre_ln'], seed: 0 };
  for (const p of CLAIMS) {
    const config = claimConfig(p, defaults);
    const specs = runSpecs(config, p.runs);
    assert.equal(specs.length, p.runs.length);
    assert.deepEqual(
      specs.map((s) => s.config),
      runConfigs(p, config),
    );
    assert.deepEqual([...new Set(p.runs.map((r) => r.arch))].sort(), [...config.arch].sort());
  }
  const warm = runSpecs(claimConfig(CLAIM_BY_ID.warmup, defaults), CLAIM_BY_ID.warmup.runs);
  assert.deepEqual(
    warm.map((s) => [s.key, s.arch, s.config.warmup, s.config.depth]),
    [
      ['post_ln', 'post_ln', 0, 6],
      ['post_ln_warmup', 'post_ln', 200, 6],
      ['pre_ln', 'pre_ln', 0, 6],
    ],
  );
  assert.throws(() => runSpecs(defaults, [{ arch: 'pre_ln' }, { arch: 'pre_ln' }]), /same key/);
});

// A custom comparison's line: every run's clause is true of that run's own last log.
test('a custom comparison is named from each run: trained, at chance, above chance, partway, diverged, far above chance, stopped', () => {
  const trained = { ...run([2.0, 0.4, 0.012]), label: 'Pre-LN' };
  const atChance = { ...run([2.1, 2.08, 2.07]), label: 'Post-LN' };
  const diverged = { ...run([2.0, NaN]), label: 'residual, no norm' };
  const partway = { ...run([2.0, 1.5]), label: 'plain' };
  const above = { ...run([2.0, 3.1]), label: 'sandwich (Gemma 2)' };
  const far = { ...run([2.0, 6000, 2.5]), label: 'DeepNorm (DeepNet)' };
  const error = { ...run([2.0]), label: 'Admin', error: new Error('refused') };
  assert.deepEqual(
    [trained, atChance, diverged, partway, above, far, error].map((r) => runOutcome(r).kind),
    ['trained', 'chance', 'diverged', 'partway', 'above', 'far', 'error'],
  );
  assert.equal(
    comparisonCaption([trained, atChance, diverged]),
    'Held-out loss at the end (chance 2.08; below 1.04 is trained): Pre-LN trained (0.012); Post-LN ended at ' +
      'chance (2.07); and residual, no norm diverged at step 20.',
  );
  assert.equal(
    comparisonCaption([partway, above, far, error]),
    'Held-out loss at the end (chance 2.08; below 1.04 is trained): plain learned part of the task (1.5, not below ' +
      'halfway); sandwich (Gemma 2) ended above chance (3.1); DeepNorm (DeepNet) rose far above chance (a loss of ' +
      '6000 at step 20) and ended at 2.5; and Admin stopped at step 10 (an error).',
  );
  // each clause from its own run: the same run says the same whatever runs are beside it
  const alone = comparisonCaption([atChance]);
  assert.match(alone, /: Post-LN ended at chance \(2\.07\)\.$/);
  // the teacher task: chance 1, trained below 0.5
  assert.match(
    comparisonCaption([{ ...run([0.9, 0.2], TEACHER), label: 'ReZero' }]),
    /chance 1; below 0\.5 is trained\): ReZero trained \(0\.2\)/,
  );
  // nothing before every run has a log
  assert.equal(comparisonCaption([trained, { ...run([]), label: 'x' }]), null);
  assert.equal(comparisonCaption([]), null);
});

/** A QK-norm claim run: held-out losses as run() takes them and each logged step's largest logit. */
const qkRun = (losses, logits) => {
  const r = run(losses);
  r.logs.forEach((l, i) => (l.max_logit = logits[i]));
  return r;
};

test('qknorm: holds when the logits grow without QK-norm, its top rate fails and QK-norm trains at every rate', () => {
  const { RATES, peakLogit, sensitivity } = CLAIM_BY_ID.qknorm;
  const runs = {};
  const keys = (arm) => CLAIM_BY_ID.qknorm.runs.filter((r) => r.key.startsWith(arm)).map((r) => r.key);
  // without: the loss at 0.2, 0.01, 0.001 and, at the top rate, near chance; logits 5, 10, 20, 9000
  const noneLoss = [0.2, 0.01, 0.001, 1.9];
  const noneLogit = [5, 10, 20, 9000];
  keys('none_').forEach((k, i) => (runs[k] = qkRun([1, noneLoss[i]], [3, noneLogit[i]])));
  // with: every rate trains; logits 2.5, 3.5, 6, 12
  const qkLoss = [0.4, 0.003, 0.0003, 0.0001];
  const qkLogit = [2.5, 3.5, 6, 12];
  keys('qk_').forEach((k, i) => (runs[k] = qkRun([1, qkLoss[i]], [2, qkLogit[i]])));
  assert.equal(RATES.length, 4);
  assert.equal(keys('none_').length, 4);
  assert.equal(peakLogit(runs[keys('none_')[3]]), 9000);
  const v = verdict('qknorm', runs);
  assert.deepEqual(
    v.checks.map((c) => c.holds),
    [true, true, true, true],
  );
  assert.equal(v.holds, true);
  // Wortsman et al.'s sensitivity: mean over rates of the loss above the best one's
  const best = Math.min(...noneLoss);
  const want = noneLoss.reduce((a, x) => a + x - best, 0) / 4;
  assert.ok(Math.abs(v.numbers['sensitivity.none'] - want) < 1e-12, `${v.numbers['sensitivity.none']} against ${want}`);
  assert.ok(v.numbers['sensitivity.qk'] < v.numbers['sensitivity.none']);
  assert.equal(v.numbers['none_1e1.max_logit'], 9000);
  assert.equal(v.numbers['qk_1e3.max_logit'], 2.5);
  assert.match(
    v.caption,
    /without QK-norm: 5 at 10⁻³, 10 at 5×10⁻³, 20 at 2×10⁻², 9000 at 10⁻¹; with QK-norm: 2\.5 at 10⁻³,/,
  );
  assert.match(v.caption, /sensitivity .*: 0\.527 without QK-norm, 0\.101 with\./);
  // a diverged run counts at chance in the sensitivity, and its non-finite logit above any finite one
  const diverged = { ...runs, [keys('none_')[3]]: qkRun([1, NaN], [3, NaN]) };
  const d = verdict('qknorm', diverged);
  assert.equal(d.holds, true);
  assert.match(d.checks[2].measured, /not finite at 10⁻¹/);
  assert.match(d.caption, /not finite at 10⁻¹/);
  assert.equal(
    sensitivity([
      { finite: false, chance: 2, loss: NaN },
      { finite: true, chance: 2, loss: 1 },
    ]),
    0.5,
  );
  // logits that grow as much with QK-norm, and a top rate that trains without it: does not hold
  const flat = { ...runs };
  keys('qk_').forEach((k, i) => (flat[k] = qkRun([1, qkLoss[i]], [2, noneLogit[i] + 1])));
  flat[keys('none_')[3]] = qkRun([1, 0.0002], [3, 9000]);
  const w = verdict('qknorm', flat);
  assert.equal(w.holds, false);
  assert.deepEqual(
    w.checks.map((c) => c.holds),
    [false, true, false, false],
  );
  // runs with no logged logit (MLP-like logs): the logit check cannot hold
  const bare = Object.fromEntries(Object.entries(runs).map(([k, r]) => [k, run(r.logs.map((l) => l.heldout_loss))]));
  assert.equal(verdict('qknorm', bare).checks[2].holds, false);
});

test('dyt: holds when both train and DyT ends within 5% of chance of Pre-LN, either side; not when further or diverged', () => {
  const margin = CLAIM_BY_ID.dyt.MARGIN * REVERSE.chance;
  const v = verdict('dyt', { pre_ln: run([1, 0.004]), dyt: run([1, 0.07]) });
  assert.deepEqual(
    v.checks.map((c) => c.holds),
    [true, true, true],
  );
  assert.ok(Math.abs(v.numbers.gap - 0.066) < 1e-12);
  assert.match(
    v.caption,
    /^Held-out loss at the end: DyT 0\.07, Pre-LN 0\.004 \(chance 2\.08\); DyT above by 0\.066, within the margin of 0\.104/,
  );
  // below Pre-LN counts the same
  assert.equal(verdict('dyt', { pre_ln: run([1, 0.2]), dyt: run([1, 0.15]) }).holds, true);
  // just past the margin: both train, the match fails
  const far = verdict('dyt', { pre_ln: run([1, 0.01]), dyt: run([1, 0.01 + margin * 1.01]) });
  assert.deepEqual(
    far.checks.map((c) => c.holds),
    [true, true, false],
  );
  assert.match(far.caption, /outside the margin/);
  // a DyT run that diverged: not trained, no match, its gap not finite
  const d = verdict('dyt', { pre_ln: run([1, 0.01]), dyt: run([1, NaN]) });
  assert.deepEqual(
    d.checks.map((c) => c.holds),
    [true, false, false],
  );
  assert.match(d.caption, /DyT not finite, .*; not finite, outside the margin/);
});

test('hybrid: holds when Post-LN does not train, HybridNorm trains and ends at most 5% of chance above Pre-LN; not otherwise', () => {
  const margin = CLAIM_BY_ID.hybrid.MARGIN * REVERSE.chance;
  const v = verdict('hybrid', { post_ln: run([2, 1.97]), pre_ln: run([1, 0.0008]), hybrid: run([1, 0.0295]) });
  assert.deepEqual(
    v.checks.map((c) => c.holds),
    [true, true, true],
  );
  assert.equal(v.holds, true);
  assert.ok(Math.abs(v.numbers.gap - 0.0287) < 1e-12);
  assert.match(
    v.caption,
    /^Held-out loss at the end, no warmup: Post-LN 1\.97, HybridNorm 0\.0295, Pre-LN 0\.0008 \(chance 2\.08, halfway 1\.04\); HybridNorm trained; HybridNorm above Pre-LN by 0\.0287, within the margin of 0\.104/,
  );
  // below Pre-LN holds too, and says so
  const low = verdict('hybrid', { post_ln: run([2, 2.05]), pre_ln: run([1, 0.2]), hybrid: run([1, 0.15]) });
  assert.equal(low.holds, true);
  assert.match(low.caption, /HybridNorm below Pre-LN by 0\.05/);
  // just past the margin: it trains, the comparison fails
  const far = verdict('hybrid', {
    post_ln: run([2, 2.05]),
    pre_ln: run([1, 0.01]),
    hybrid: run([1, 0.01 + margin * 1.01]),
  });
  assert.deepEqual(
    far.checks.map((c) => c.holds),
    [true, true, false],
  );
  assert.match(far.caption, /outside the margin/);
  // Post-LN trains (no failure to rescue): the first part fails
  const both = verdict('hybrid', { post_ln: run([1, 0.5]), pre_ln: run([1, 0.01]), hybrid: run([1, 0.01]) });
  assert.deepEqual(
    both.checks.map((c) => c.holds),
    [false, true, true],
  );
  // the 18-block picture: HybridNorm at chance like Post-LN
  const deep = verdict('hybrid', { post_ln: run([2, 2.08]), pre_ln: run([1, 0.01]), hybrid: run([2, 2.07]) });
  assert.deepEqual(
    deep.checks.map((c) => c.holds),
    [true, false, false],
  );
  assert.match(deep.caption, /HybridNorm did not train; HybridNorm above Pre-LN by 2\.06, outside the margin/);
  // Post-LN diverged counts as not training; HybridNorm diverged is neither trained nor compared
  const d = verdict('hybrid', { post_ln: run([2, NaN]), pre_ln: run([1, 0.01]), hybrid: run([1, NaN]) });
  assert.deepEqual(
    d.checks.map((c) => c.holds),
    [true, false, false],
  );
  assert.match(d.caption, /^Held-out loss at the end, no warmup: Post-LN diverged at step 20, HybridNorm not finite,/);
  assert.match(d.caption, /not compared \(a loss is not finite\), outside the margin/);
});

/** A run of two logged steps whose stream RMS and block weight gradients are `first` and `last` ({stream, grad} arrays). */
function spreadRun(losses, first, last) {
  const r = run(losses);
  r.logs[0] = { ...r.logs[0], stream_rms: first.stream, w_grad_norm: first.grad };
  r.logs[1] = { ...r.logs[1], stream_rms: last.stream, w_grad_norm: last.grad };
  return r;
}

test('attnres: holds when every run trains and AttnRes\u2019s stream RMS and weight gradients spread least across depth at the first and last logged steps', () => {
  // Pre-LN's stream grows with depth, AttnRes's averages stay level
  const pre = { stream: [1, 2, 3, 4], grad: [3, 2, 1] };
  const rms = { stream: [1, 2, 3, 5], grad: [4, 2, 1] };
  const ar = { stream: [1, 0.5, 0.5, 0.5], grad: [2, 1.5, 1] };
  const runs = {
    pre_ln: spreadRun([1, 0.01], pre, pre),
    pre_rms: spreadRun([1, 0.01], rms, rms),
    attn_res: spreadRun([1, 0.01], ar, ar),
  };
  const v = verdict('attnres', runs);
  assert.equal(v.holds, true);
  assert.equal(v.checks.length, 5);
  assert.equal(v.numbers['attn_res.stream.first'], 2);
  assert.equal(v.numbers['pre_ln.stream.last'], 4);
  assert.equal(v.numbers['pre_rms.grad.first'], 4);
  assert.equal(v.numbers['attn_res.grad.last'], 2);
  assert.equal(v.numbers['attn_res.topOverBottom.last'], 0.5);
  assert.match(v.checks[1].claimed, /at step 10/);
  assert.equal(v.checks[0].measured, 'held-out loss: Pre-LN 0.01, Pre-RMS 0.01, AttnRes 0.01');
  assert.equal(v.checks[1].measured, 'largest over smallest: AttnRes 2\u00d7, Pre-LN 4\u00d7, Pre-RMS 5\u00d7');
  assert.match(v.checks[2].claimed, /at the end \(step 20\)/);
  assert.match(
    v.caption,
    /^Largest over smallest across depth, at step 10 and at the end \(step 20\): the stream\u2019s RMS Pre-LN 4\u00d7 and 4\u00d7, Pre-RMS 5\u00d7 and 5\u00d7, AttnRes 2\u00d7 and 2\u00d7; the blocks\u2019 weight gradients Pre-LN 3\u00d7 and 3\u00d7, Pre-RMS 4\u00d7 and 4\u00d7, AttnRes 2\u00d7 and 2\u00d7\. The stream\u2019s RMS at the top over the bottom at the end: Pre-LN 4, Pre-RMS 5, AttnRes 0\.5\./,
  );
  // gradients more uneven than Pre-LN's at the first step only: that part alone fails
  const uneven = { ...runs, attn_res: spreadRun([1, 0.01], { ...ar, grad: [3.5, 1, 1] }, ar) };
  assert.deepEqual(
    verdict('attnres', uneven).checks.map((c) => c.holds),
    [true, true, true, false, true],
  );
  // between Pre-LN and Pre-RMS is not below both
  const mid = { ...runs, attn_res: spreadRun([1, 0.01], ar, { ...ar, stream: [1, 2, 3, 4.5] }) };
  assert.deepEqual(
    verdict('attnres', mid).checks.map((c) => c.holds),
    [true, true, false, true, true],
  );
  // a run that does not train fails the first part
  const stuck = { ...runs, pre_rms: spreadRun([2, 2.07], rms, rms) };
  assert.deepEqual(
    verdict('attnres', stuck).checks.map((c) => c.holds),
    [false, true, true, true, true],
  );
  // AttnRes diverged: its spreads are not finite, nothing holds, the caption says so
  const nan = { stream: [1, NaN, null, 0.5], grad: [NaN, 1, 1] };
  const d = verdict('attnres', { ...runs, attn_res: spreadRun([1, NaN], ar, nan) });
  assert.deepEqual(
    d.checks.map((c) => c.holds),
    [false, true, false, true, false],
  );
  assert.match(d.caption, /AttnRes 2\u00d7 and not finite/);
  assert.match(d.caption, /AttnRes not finite\.$/);
  assert.ok(Number.isNaN(d.numbers['attn_res.grad.last']));
});

/** A run of `run(losses)` whose logs carry the composite gain `fwd[i]`, `bwd[i]` (null: none logged). */
const gainRun = (losses, fwd, bwd = fwd) => {
  const r = run(losses);
  r.logs.forEach((l, i) => Object.assign(l, { hc_gain_fwd: fwd[i], hc_gain_bwd: bwd[i] }));
  return r;
};

test('hc: holds when mHC\u2019s gain stays in the band, HC\u2019s grows past it and both train near Pre-LN', () => {
  const { BAND, MARGIN, gainReach } = CLAIM_BY_ID.hc;
  const pre = run([1, 0.01, 0.002]);
  const hyper = gainRun([1, 0.01, 0.003], [1, 1.4, 1.25], [1, 1.1, 1.3]);
  const mhc = gainRun([1, 0.01, 0.004], [1.001, 1.02, 1.01], [1, 1, 1]);
  const reach = gainReach(hyper);
  assert.deepEqual(
    { ...reach, dev: Math.round(reach.dev * 1e12) / 1e12 },
    { dev: 0.4, peak: 1.4, last: 1.3, step: 20 },
  );
  const v = verdict('hc', { pre_ln: pre, hyper, mhc });
  assert.deepEqual(
    v.checks.map((c) => c.holds),
    [true, true, true, true, true],
  );
  assert.equal(v.numbers['hyper.gain_peak'], 1.4);
  assert.ok(Math.abs(v.numbers['mhc.gain_dev'] - 0.02) < 1e-12);
  assert.match(v.checks[0].claimed, new RegExp(`within \\[${1 - BAND}, ${1 + BAND}\\]`));
  assert.match(
    v.caption,
    /over training: Hyper-Connections largest 1\.4 \(step 20\), at the end 1\.3, furthest from 1 by 0\.4; mHC largest 1\.02 \(step 20\)/,
  );
  assert.match(
    v.caption,
    /Held-out loss at the end: Pre-LN 0\.002, Hyper-Connections 0\.003, mHC 0\.004 \(chance 2\.08\)\.$/,
  );
  // mHC's gain past the band at one step, below it at another, or HC's that never leaves it: not
  const out = verdict('hc', { pre_ln: pre, hyper, mhc: gainRun([1, 0.01, 0.004], [1, 1 + 1.5 * BAND, 1], [1, 1, 1]) });
  assert.deepEqual(
    out.checks.map((c) => c.holds),
    [false, true, true, true, true],
  );
  const low = verdict('hc', { pre_ln: pre, hyper, mhc: gainRun([1, 0.01, 0.004], [1, 1, 1], [1, 1 - 1.5 * BAND, 1]) });
  assert.equal(low.checks[0].holds, false);
  const flat = verdict('hc', { pre_ln: pre, hyper: gainRun([1, 0.01, 0.003], [1, 1.01, 1]), mhc });
  assert.deepEqual(
    flat.checks.map((c) => c.holds),
    [true, false, true, true, true],
  );
  // a loss further from Pre-LN's than the margin
  const far = verdict('hc', {
    pre_ln: pre,
    hyper: gainRun([1, 0.01, 0.002 + 1.01 * MARGIN * REVERSE.chance], [1, 1.4, 1.3]),
    mhc,
  });
  assert.deepEqual(
    far.checks.map((c) => c.holds),
    [true, true, true, true, false],
  );
  // HC diverged: its gain not finite (the CLI's null), no growth claimed from it, not trained
  const d = verdict('hc', { pre_ln: pre, hyper: gainRun([1, 0.5, NaN], [1, 3, null]), mhc });
  assert.deepEqual(
    d.checks.map((c) => c.holds),
    [true, false, false, true, false],
  );
  assert.match(d.caption, /Hyper-Connections not finite; mHC largest/);
  // runs that logged no gain (another architecture's logs): the gain checks cannot hold
  const bare = verdict('hc', { pre_ln: pre, hyper: run([1, 0.01, 0.003]), mhc: run([1, 0.01, 0.004]) });
  assert.deepEqual(
    bare.checks.map((c) => c.holds),
    [false, false, true, true, true],
  );
});

test('ngpt: holds when nGPT reaches Pre-LN\u2019s final loss in at most a quarter of its steps; not when slower, untrained or not finite', () => {
  const { FACTOR } = CLAIM_BY_ID.ngpt;
  assert.equal(FACTOR, 4);
  // Pre-LN ends at 0.01, first there at step 80; nGPT (alpha 0.05) below it at step 20: 4 times fewer
  const pre = run([2, 1.5, 1, 0.5, 0.2, 0.1, 0.05, 0.01]);
  const fast = run([1, 0.009, 0.005, 0.004, 0.004, 0.004, 0.004, 0.004]);
  const low = run([2, 1, 0.5, 0.3, 0.2, 0.1, 0.05, 0.02]);
  const high = run([1.5, 0.5, 0.01, 0.005, 0.005, 0.005, 0.005, 0.005]);
  const v = verdict('ngpt', { pre_ln: pre, ngpt: fast, ngpt_low: low, ngpt_high: high });
  assert.deepEqual(
    v.checks.map((c) => c.holds),
    [true, true, true],
  );
  assert.equal(v.numbers.target, 0.01);
  assert.equal(v.numbers['pre_ln.steps'], 80);
  assert.equal(v.numbers['ngpt.steps'], 20);
  assert.equal(v.numbers.ratio, 4);
  assert.equal(v.numbers['ngpt_high.steps'], 30);
  assert.ok(Number.isNaN(v.numbers['ngpt_low.steps']), 'alpha 0.01 never reaches 0.01');
  assert.match(
    v.checks[2].measured,
    /target 0\.01: Pre-LN at step 80, nGPT at step 20: Pre-LN\u2019s steps over nGPT\u2019s 4$/,
  );
  assert.match(v.caption, /nGPT, alpha 0\.01 not within its 80 steps \(ends at 0\.02\)/);
  assert.match(v.caption, /at least the claim\u2019s 4\.$/);
  // at step 30 instead of 20: 80 / 30, short of 4
  const slower = verdict('ngpt', { pre_ln: pre, ngpt: high, ngpt_low: low, ngpt_high: fast });
  assert.deepEqual(
    slower.checks.map((c) => c.holds),
    [true, true, false],
  );
  assert.ok(Math.abs(slower.numbers.ratio - 8 / 3) < 1e-12);
  assert.match(slower.caption, /short of the claim\u2019s 4\.$/);
  // nGPT never reaches the target: no ratio
  const never = verdict('ngpt', { pre_ln: pre, ngpt: low, ngpt_low: low, ngpt_high: high });
  assert.deepEqual(
    never.checks.map((c) => c.holds),
    [true, true, false],
  );
  assert.ok(Number.isNaN(never.numbers.ratio));
  assert.match(never.checks[2].measured, /nGPT at not within its 80 steps: no ratio$/);
  // Pre-LN not trained: no target it ends at counts, nothing holds but nGPT's own training
  const untrained = verdict('ngpt', { pre_ln: run([2, 2.05]), ngpt: run([2, 0.01]), ngpt_low: low, ngpt_high: high });
  assert.deepEqual(
    untrained.checks.map((c) => c.holds),
    [false, true, false],
  );
  // a non-finite nGPT: not trained, no steps
  const nan = verdict('ngpt', { pre_ln: pre, ngpt: run([1, NaN]), ngpt_low: low, ngpt_high: high });
  assert.deepEqual(
    nan.checks.map((c) => c.holds),
    [true, false, false],
  );
  assert.ok(Number.isNaN(nan.numbers['ngpt.steps']));
  assert.match(nan.caption, /nGPT not finite/);
});
