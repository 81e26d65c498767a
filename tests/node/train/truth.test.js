// What the lab says about a run is true of that run (web/src/claims/lab/ and
// web/src/train/series.js, pure): every caption rule is tried on a run that trained, one that
// stayed at chance and one that diverged; a run that stopped early is named with how it
// stopped, and the readout shows its last numbers; a loss that rose far above chance while it
// stayed finite is named; the learning-rate chart has each run's own schedule, and every run's
// numbers sit at the steps it logged them.
// Run: node --test tests/node/train/truth.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import * as V from '../../../web/src/claims/lab/index.js';
import { CLAIM_BY_ID } from '../../../web/src/claims/lab/index.js';
import * as S from '../../../web/src/train/series.js';
import { TEACHER, run } from './runs.js';

/** The three kinds of run every rule is tried on (reverse: chance 2.08). */
const TRAINED = () => run([1.5, 0.4, 0.05]);
const AT_CHANCE = () => run([2.07, 2.08, 2.079]);
const DIVERGED = () => run([2.0, NaN]);

/** A lesion of `n` blocks: contributions at the end and at init, each block's lesioned loss. */
const lesionOf = ({ base = 0.05, loss, now, init }) => ({
  base,
  loss: Float64Array.from(loss),
  increase: Float64Array.from(loss, (l) => l - base),
  relative: Float64Array.from(loss, (l) => (l - base) / base),
  contribution: Float64Array.from(now),
  contribution_init: Float64Array.from(init),
});

// ---- the depth sentence (after training, one per run)

test('depth sentence: "uses more of its depth" only for a run that trained and whose blocks mostly grew', () => {
  const grew = { now: [0.5, 0.6, 0.7, 0.8], init: [0.2, 0.2, 0.3, 0.3], loss: [0.1, 0.1, 0.1, 0.1] };
  const trained = V.depthSentence({ ...TRAINED(), arch: 'pre_ln', lesion: lesionOf(grew) }, 'Pre-LN');
  assert.equal(trained.deeper, true);
  assert.match(trained.text, /uses more of its depth/);

  // at chance: the same contributions say nothing about the depth it uses
  const stuck = V.depthSentence({ ...AT_CHANCE(), arch: 'post_ln', lesion: lesionOf(grew) }, 'Post-LN, 18 blocks');
  assert.equal(stuck.deeper, null);
  assert.doesNotMatch(stuck.text, /uses more of its depth|acts shallower|made the blocks count/);
  assert.match(stuck.text, /^Post-LN, 18 blocks: did not train \(held-out loss 2\.08, chance 2\.08\)/);

  // diverged: no contribution is read, and the sentence says when it diverged
  const nan = lesionOf({ base: NaN, now: [1.5e26, NaN, 0, 0], init: [1, 1, 1, 1], loss: [NaN, NaN, NaN, NaN] });
  const gone = V.depthSentence({ ...DIVERGED(), arch: 'residual', lesion: nan }, 'residual');
  assert.equal(gone.deeper, null);
  assert.match(gone.text, /^residual: diverged at step 20\b/);
  assert.doesNotMatch(gone.text, /acts shallower|uses more of its depth/);

  // trained, the median block 1.1 times its start but only half the blocks grew: no "more of its depth"
  const mixed = lesionOf({
    now: [0.98, 1.03, 0.89, 0.96, 1.3, 0.98, 1.16, 1.26].map(
      (r, i) => r * [1, 0.7, 0.6, 0.45, 0.44, 0.42, 0.4, 0.38][i],
    ),
    init: [1, 0.7, 0.6, 0.45, 0.44, 0.42, 0.4, 0.38],
    loss: [1, 1, 1, 1, 1, 1, 1, 1],
  });
  const half = V.depthSentence({ ...TRAINED(), arch: 'pre_ln', lesion: mixed }, 'Pre-LN');
  assert.equal(half.deeper, null, half.text);
  assert.doesNotMatch(half.text, /uses more of its depth/);
  assert.match(half.text, /4 of 8 blocks grew/);
});

// ---- the Lesion preset's caption

test('lesion caption: a removal past chance is said to go past it; a run at chance or diverged is not measured', () => {
  const pre = run([0.5, 0.15], TEACHER, {
    lesion: lesionOf({ base: 0.15, loss: [0.6, 0.18, 0.19, 0.2, 0.17], now: [1], init: [1] }),
  });
  // trained plain stack whose median removal goes 1.4 times the way from its loss to chance
  const past = run([0.6, 0.3], TEACHER, {
    lesion: lesionOf({ base: 0.3, loss: [1.2, 1.28, 1.3, 1.5, 1.1], now: [1], init: [1] }),
  });
  const v = V.verdict('lesion', { pre_ln: pre, plain: past });
  assert.equal(v.holds, true);
  assert.doesNotMatch(v.caption, /1\.4 of the way to chance/);
  assert.match(v.caption, /past chance/);
  assert.match(v.caption, /0\.047 of the way to chance/, 'a removal short of chance keeps its share');

  // a plain stack at chance: nothing to remove a block from, and the caption says it did not train
  const stuck = run([1.0, 0.999], TEACHER, {
    lesion: lesionOf({ base: 0.999, loss: [1.0, 1.01, 0.998], now: [1], init: [1] }),
  });
  const c = V.verdict('lesion', { pre_ln: pre, plain: stuck });
  assert.equal(c.holds, false);
  assert.match(
    c.caption,
    /one layer removed from the plain stack: it did not train \(held-out loss 0\.999, chance 1\)/,
  );
  assert.doesNotMatch(c.caption.split('plain stack')[1], /of the way to chance/);

  // diverged: said, not "NaN of the way"
  const nan = run([0.6, NaN], TEACHER, {
    lesion: lesionOf({ base: NaN, loss: [NaN, NaN], now: [NaN], init: [1] }),
  });
  const d = V.verdict('lesion', { pre_ln: pre, plain: nan });
  assert.equal(d.holds, false);
  assert.match(d.caption, /plain stack: it diverged at step 20/);
});

// ---- the Late layers claim: the margin a ratio needs, runs that did not train, which parts fail

/** The Late layers runs: each lesion's increase per block (8 blocks), trained unless `over` says. */
function lateRuns(costs, over = {}) {
  const preset = CLAIM_BY_ID.late;
  return Object.fromEntries(
    preset.runs.map((p) => {
      const inc = costs[p.key];
      const r = over[p.key] ?? TRAINED();
      r.lesion = {
        base: 0.01,
        increase: Float64Array.from(inc),
        loss: Float64Array.from(inc, (x) => x + 0.01),
        contribution: Float64Array.from(inc, () => 0.5),
        contribution_init: Float64Array.from(inc, () => 0.5),
      };
      r.logs.at(-1).w_grad_norm = { pre_ln: [1, 3], post_ln_warmup: [1, 2], mix_ln: [1, 1.5] }[p.key] ?? [1, 1];
      return [p.key, r];
    }),
  );
}
const COSTS = {
  pre_ln: [3, 3, 1, 1, 1, 1, 0.096, 0.096], // ratio 0.032
  post_ln_warmup: [2, 2, 1, 1, 1, 1, 1, 1], // 0.5
  rezero: [0.1, 0.1, 0, 0, 0, 0, 0.1, 0.1], // 1
  layerscale: [0.4, 0.4, 0, 0, 0, 0, 0.1, 0.1], // 0.25
  lns: [2, 2, 0, 0, 0, 0, 0.01, 0.01], // 0.005
  mix_ln: [3, 3, 0, 0, 0, 0, 0.102, 0.102], // 0.034: higher than 0.032 by 6%
  dwa: [3, 3, 0, 0, 0, 0, 0.15, 0.15], // 0.05
  hyper: [3, 3, 0, 0, 0, 0, 0.15, 0.15], // 0.05
  mhc: [2, 2, 0, 0, 0, 0, 0.1, 0.1], // 0.05
  attn_res: [3, 3, 0, 0, 0, 0, 0.13, 0.13], // 0.043: 1.35 times Pre-LN's
  dyt: [3, 3, 1, 1, 1, 1, 0.048, 0.048], // 0.016: shown, not judged
  hybrid: [2, 2, 1, 1, 1, 1, 1, 1], // 0.5: shown, not judged
  ngpt: [4, 4, 1, 1, 1, 1, 0.2, 0.2], // 0.05: shown, not judged
};

test('late layers: a ratio counts as higher than Pre-LN\u2019s only by the margin the check names', () => {
  const v = V.verdict('late', lateRuns(COSTS));
  const mix = v.checks.find((c) => c.claimed.startsWith('Mix-LN: its last quarter'));
  assert.equal(mix.holds, false, `0.034 against 0.032 is within the margin: ${mix.measured}`);
  assert.match(mix.claimed, /at least 1\.25 times Pre-LN\u2019s/);
  assert.equal(v.checks.find((c) => c.claimed.startsWith('DenseFormer')).holds, true);
  // the caption does not call 0.034 "not higher" than 0.032: it names the margin it missed
  assert.doesNotMatch(v.caption, /not higher: [^.;]*Mix-LN/);
  assert.match(v.caption, /higher by less than the margin \(1\.25 times\): Mix-LN/);
});

test('late layers: a run at chance or diverged is not compared, and the caption says what it did', () => {
  const v = V.verdict('late', lateRuns(COSTS, { rezero: AT_CHANCE(), layerscale: DIVERGED() }));
  const check = (name) => v.checks.find((c) => c.claimed.startsWith(`${name}: its last quarter`));
  assert.equal(check('ReZero').holds, false);
  assert.match(check('ReZero').measured, /^did not train \(held-out loss 2\.08/);
  assert.equal(check('LayerScale').holds, false);
  assert.match(check('LayerScale').measured, /^diverged at step 20$/);
  assert.doesNotMatch(v.caption, /A higher ratio than Pre-LN\u2019s: [^.;]*(ReZero|LayerScale)/);
  assert.match(v.caption, /did not train: ReZero/);
  assert.match(v.caption, /diverged: LayerScale/);
  assert.match(v.caption, /LayerScale diverged at step 20/);
});

test('late layers: DyT, HybridNorm and nGPT are shown, not judged: no check reads them, the caption says what each did', () => {
  const v = V.verdict('late', lateRuns(COSTS));
  assert.equal(v.checks.find((c) => c.claimed.startsWith('AttnRes: its last quarter')).holds, true);
  for (const name of ['DyT', 'HybridNorm', 'nGPT']) {
    assert.ok(!v.checks.some((c) => c.claimed.startsWith(`${name}:`)), `${name} has no check`);
    assert.ok(!v.checks.some((c) => c.measured.includes(name)), `${name} in no check's measure`);
  }
  assert.match(
    v.caption,
    /DyT 0\.048 against 3 \(0\.016\); HybridNorm 1 against 2 \(0\.5\); nGPT 0\.2 against 4 \(0\.05\)\./,
  );
  assert.match(
    v.caption,
    /Shown beside them, not judged: DyT \(0\.5 times Pre-LN\u2019s ratio\), HybridNorm \(16 times Pre-LN\u2019s ratio\), nGPT \(1\.6 times Pre-LN\u2019s ratio\)\.$/,
  );
  // a shown run that did not train or diverged changes no part of the verdict: the caption says so
  const w = V.verdict('late', lateRuns(COSTS, { dyt: AT_CHANCE(), hybrid: DIVERGED(), ngpt: AT_CHANCE() }));
  assert.deepEqual(
    w.checks.map((c) => [c.claimed, c.holds, c.measured]),
    v.checks.map((c) => [c.claimed, c.holds, c.measured]),
  );
  assert.match(w.caption, /HybridNorm diverged at step 20/);
  assert.match(
    w.caption,
    /Shown beside them, not judged: DyT \(did not train\), HybridNorm \(diverged\), nGPT \(did not train\)\.$/,
  );
  assert.doesNotMatch(w.caption, /(did not train|diverged): [^.]*(DyT|HybridNorm|nGPT)/);
});

test('a verdict that does not hold says how many parts hold and names those that do not', () => {
  const v = V.verdict('late', lateRuns(COSTS));
  assert.equal(v.holds, false);
  const failing = v.checks.filter((c) => !c.holds).map((c) => c.claimed);
  assert.deepEqual(
    failing.map((c) => c.split(':')[0]),
    ['LNS', 'Mix-LN'],
  );
  assert.equal(v.summary, `${v.checks.length - 2} of ${v.checks.length} parts hold; not: ${failing.join('; ')}.`);
  const good = V.verdict('warmup', { post_ln: AT_CHANCE(), post_ln_warmup: TRAINED(), pre_ln: TRAINED() });
  assert.equal(good.holds, true);
  assert.equal(good.summary, 'All 4 parts hold.');
});

// ---- the other presets' captions, on the three kinds of run

test('warmup, depth, degradation and rezero captions: each run\u2019s own number, "not finite" or its divergence', () => {
  const w = V.verdict('warmup', { post_ln: AT_CHANCE(), post_ln_warmup: TRAINED(), pre_ln: DIVERGED() });
  assert.equal(
    w.caption,
    'Post-LN without warmup ended at held-out loss 2.08 (chance 2.08); with 200 warmup steps 0.05; Pre-LN without warmup not finite.',
  );
  const d = V.verdict('depth', {
    post_ln_6: TRAINED(),
    post_ln: AT_CHANCE(),
    pre_ln: DIVERGED(),
    deepnorm: TRAINED(),
    admin: TRAINED(),
  });
  assert.match(d.caption, /Post-LN at 6 blocks step 20 \(0\.05\)/);
  assert.match(d.caption, /Pre-LN diverged at step 20/);
  assert.match(d.caption, /Post-LN at 18 blocks ended at 2\.08 after 30 steps \(chance 2\.08/);
  const g = V.verdict('degradation', {
    plain_20: run([0.5, 0.3], TEACHER),
    plain: run([1, 0.999], TEACHER),
    pre_ln: run([0.4, NaN], TEACHER),
  });
  assert.match(
    g.caption,
    /^Plain at 20 layers ended at held-out loss 0\.3, plain at 56 layers 0\.999 .*Pre-LN at 56 layers not finite\.$/,
  );
  const z = V.verdict('rezero', {
    plain: run([1, 0.9998], TEACHER),
    residual: run([NaN], TEACHER),
    rezero: run([0.6, 0.09], TEACHER),
  });
  assert.match(z.caption, /ReZero ended at held-out loss 0\.09 .*the plain stack at 1;.*not finite \(from step 10\)/);
});

// ---- a loss far above chance, and how a run ended

test('a loss that rose far above chance while finite is named; a trained, at-chance or diverged run is not', () => {
  assert.equal(V.farAboveChance(TRAINED()), null);
  assert.equal(V.farAboveChance(AT_CHANCE()), null);
  assert.equal(V.farAboveChance(DIVERGED()), null);
  const chance = Math.log(16);
  const blown = run([3, 6000, 900], { chance, optimal: 0 });
  assert.deepEqual(V.farAboveChance(blown), { step: 20, loss: 6000, chance });
  assert.equal(V.FAR_ABOVE_TEXT, 'the loss rose far above chance: the learning rate is too large');
  // twice chance is a bad start, not a learning rate that threw the run off
  assert.equal(V.farAboveChance(run([5.5, 2], { chance, optimal: 0 })), null);
});

test('how a run ended: stopped once trained, diverged, or (running or ran every step) nothing to say', () => {
  assert.deepEqual(V.runEnd({ ...TRAINED(), trainedAt: 70, firstNonfinite: null }), {
    kind: 'trained',
    step: 70,
    text: 'stopped at step 70 (trained)',
  });
  assert.deepEqual(V.runEnd({ logs: [{ step: 2, first_nonfinite: 2 }], firstNonfinite: 2, trainedAt: null }), {
    kind: 'diverged',
    step: 2,
    text: 'diverged at step 2',
  });
  assert.equal(V.runEnd({ ...AT_CHANCE(), trainedAt: null, firstNonfinite: null }), null);
});

// ---- the line charts' series

const log = (step, over = {}) => ({
  step,
  lr: 0.012,
  train_loss: 1,
  heldout_loss: 1,
  heldout_accuracy: 0.5,
  grad_norm_global: 1,
  first_nonfinite: null,
  ...over,
});

test('the learning-rate series are each run\u2019s own schedule; no run\u2019s is drawn for another', () => {
  const runs = [
    { key: 'post_ln', arch: 'post_ln', logs: [log(10), log(20)] },
    { key: 'post_ln_warmup', arch: 'post_ln', logs: [log(10, { lr: 0.0006 }), log(20, { lr: 0.0012 })] },
    { key: 'pre_ln', arch: 'pre_ln', logs: [log(10), log(20)] },
  ];
  const d = S.lineSeries(runs);
  assert.deepEqual(d.series.post_ln_warmup.lr, [0.0006, 0.0012]);
  assert.equal(d.lrShared, false);
  // where the runs' rates differ there is no one rate of the step
  assert.deepEqual(d.lr, [null, null]);
  const same = S.lineSeries([runs[0], runs[2]]);
  assert.equal(same.lrShared, true);
  assert.deepEqual(same.lr, [0.012, 0.012]);
});

test('every run\u2019s numbers sit at the steps it logged them: a run that diverged at step 2 is at step 2', () => {
  const runs = [
    { key: 'plain', arch: 'plain', logs: [log(10, { heldout_loss: 1 }), log(20, { heldout_loss: 0.99 })] },
    { key: 'residual', arch: 'residual', logs: [log(2, { heldout_loss: NaN, train_loss: 5, first_nonfinite: 2 })] },
  ];
  const d = S.lineSeries(runs);
  assert.deepEqual(d.x, [2, 10, 20]);
  assert.deepEqual(d.series.residual.train_loss, [5, null, null]);
  assert.deepEqual(d.series.plain.heldout_loss.slice(1), [1, 0.99]);
  // plain logged nothing at step 2: no number of its own there
  assert.equal(d.series.plain.heldout_loss[0] ?? null, null);
});

test('the readout at a step past a run\u2019s end shows that run\u2019s last log; a run still going has none yet', () => {
  const runs = [
    { key: 'post_ln', arch: 'post_ln', logs: [log(10), log(20), log(30)] },
    { key: 'pre_ln', arch: 'pre_ln', trainedAt: 20, logs: [log(10), log(20, { heldout_loss: 0.7 })] },
    { key: 'admin', arch: 'admin', trainedAt: null, logs: [log(10)] },
  ];
  const d = S.lineSeries(runs);
  // step 30 (index 2): pre_ln stopped at 20 (trained): its last log; admin is behind: none
  assert.equal(S.readoutIndex(d, 'pre_ln', 2, V.runEnd(runs[1])), 1);
  assert.equal(S.readoutIndex(d, 'admin', 2, V.runEnd(runs[2])), null);
  assert.equal(S.readoutIndex(d, 'pre_ln', 0, V.runEnd(runs[1])), 0);
  assert.equal(S.readoutIndex(d, 'post_ln', 2, null), 2);
});
