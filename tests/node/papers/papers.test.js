// The papers page's engine side under Node: rn.pathGradients (the path
// expansion of Veit et al.), and the reproductions of web/src/engine/experiments.js (each claim's
// compute(), web/src/claims/papers/)
// run on the shipped wasm module with the verdicts their captions state
// (the six of the article's papers and five answers to its open question;
// DenseFormer's trains the training lab's run of it).
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { loadWasm } from '../helpers.js';
import { reproduce, timeRecompute, PERF_CONFIG } from '../../../web/src/engine/experiments.js';
import {
  fit,
  layerscaleEpsilon,
  largestDifference,
  dwaStack,
  DWA_TRAIN,
  trainLabRuns,
} from '../../../web/src/claims/papers/compute.js';
import { MIXLN_TRAINED } from '../../../web/src/claims/papers/mixln.js';
import { LAYERSCALE_TRAINED } from '../../../web/src/claims/papers/layerscale.js';
import {
  summarize,
  spread,
  quantileLength,
  sci,
  ARTICLE_PANELS,
  PANEL_IDS,
  PANELS,
  TRAINING_PANELS,
} from '../../../web/src/papers/repro.js';
import { decimals, fixed, fmtFactor, percent } from '../../../web/src/shared/format.js';
import { caption } from '../../../web/src/papers/captions.js';
import { panelEmbed } from '../../../web/src/papers/embed-views.js';
import { dwaFacts } from '../../../web/src/shared/dwa-weights.js';
import { CLAIM_BY_ID } from '../../../web/src/claims/lab/index.js';

let rn;
before(async () => {
  rn = await loadWasm();
});

const binomial = (n) => {
  const row = [1];
  for (let i = 1; i <= n; i++) {
    row.push(0);
    for (let k = i; k >= 1; k--) row[k] += row[k - 1];
  }
  return row;
};

test('pathGradients: per-length statistics with the binomial counts, for every arch asked', () => {
  const out = rn.pathGradients({
    arch: ['pre_ln', 'residual'],
    depth: 12,
    width: 16,
    tokens: 4,
    samples: 8,
    path_seed: 3,
  });
  assert.deepEqual(Object.keys(out.results), ['pre_ln', 'residual']);
  assert.equal(out.samples, 8);
  assert.equal(out.path_seed, 3);
  assert.equal(out.config.depth, 12);
  const C = binomial(12);
  for (const r of Object.values(out.results)) {
    assert.equal(r.units, 12);
    for (const key of ['count', 'measured', 'mean_norm', 'sd_norm', 'total']) {
      assert.ok(r[key] instanceof Float64Array, key);
      assert.equal(r[key].length, 13, key);
    }
    assert.deepEqual(Array.from(r.count), C);
    r.count.forEach((c, k) => {
      assert.equal(r.measured[k], Math.min(8, c), `measured[${k}]`); // all paths where there are at most 8
      assert.equal(r.total[k], c * r.mean_norm[k]);
      assert.ok(r.mean_norm[k] > 0 && Number.isFinite(r.mean_norm[k]));
    });
    assert.ok(Math.abs(r.mean_norm[0] - 1) < 1e-6, 'the identity path carries r, ||r|| = 1');
    assert.ok(r.full_norm > 0);
  }
  // Transformer blocks: two units per block.
  const t = rn.pathGradients({
    arch: 'pre_ln',
    block: 'transformer',
    depth: 3,
    width: 16,
    tokens: 4,
    heads: 2,
    samples: 4,
  });
  assert.equal(t.results.pre_ln.units, 6);
  assert.deepEqual(Array.from(t.results.pre_ln.count), binomial(6));
});

test('pathGradients: deterministic; the path seed picks other paths; lengths with few paths are exact', () => {
  const cfg = { arch: ['pre_ln'], depth: 10, width: 16, tokens: 4, samples: 12 };
  const a = rn.pathGradients({ ...cfg, path_seed: 1 }).results.pre_ln;
  const b = rn.pathGradients({ ...cfg, path_seed: 1 }).results.pre_ln;
  const c = rn.pathGradients({ ...cfg, path_seed: 2 }).results.pre_ln;
  assert.deepEqual(Array.from(a.mean_norm), Array.from(b.mean_norm));
  assert.equal(c.mean_norm[1], a.mean_norm[1]); // 10 paths of length 1 <= 12: all of them, no draw
  assert.equal(c.mean_norm[9], a.mean_norm[9]);
  assert.notEqual(c.mean_norm[5], a.mean_norm[5]); // 252 paths: 12 drawn
  // simulate() still works and still returns what it did.
  const s1 = rn.simulate({ depth: 8 });
  rn.pathGradients({ ...cfg });
  const s2 = rn.simulate({ depth: 8 });
  assert.deepEqual(Array.from(s1.results.pre_ln.grad_norm), Array.from(s2.results.pre_ln.grad_norm));
});

test('pathGradients: a bad option is a RangeError naming it, and the module stays usable', () => {
  const cases = [
    [{ samples: 0 }, 'samples', 'samples: 0 is out of range (allowed 1..4096)'],
    [{ samples: 2.5 }, 'samples', 'samples: 2.5 is not a whole number (allowed 1..4096)'],
    [{ samples: 'many' }, 'samples', null],
    [{ path_seed: -1 }, 'path_seed', 'path_seed: -1 is out of range (allowed 0..4294967295)'],
    [{ depth: 600 }, 'depth', 'depth: 600 is out of range for path sampling (allowed 1..512 with mlp blocks)'],
    [{ depth: 0 }, 'depth', null],
    [{ bogus: 1 }, 'bogus', null],
  ];
  for (const [opts, field, message] of cases) {
    assert.throws(
      () => rn.pathGradients({ depth: 4, ...opts }),
      (e) => {
        assert.ok(e instanceof RangeError, JSON.stringify(opts));
        assert.equal(e.field, field);
        if (message) assert.equal(e.message, message);
        return true;
      },
    );
  }
  assert.throws(() => rn.pathGradients(null), TypeError);
  assert.equal(rn.pathGradients({ depth: 4, samples: 2 }).results.pre_ln.units, 4);
});

test('helpers: fit, spread, quantiles, ratio text', () => {
  const f = fit([0, 1, 2, 3], [1, 3, 5, 7]);
  assert.ok(Math.abs(f.slope - 2) < 1e-12 && Math.abs(f.intercept - 1) < 1e-12);
  assert.equal(spread([2, 4, 8]), 4);
  assert.equal(spread([0, 1]), Infinity);
  assert.equal(quantileLength([1, 1, 1, 1], 0.5), 1);
  assert.equal(quantileLength([0, 0, 10, 0], 0.95), 2);
  assert.equal(fmtFactor(1.234), '1.23×');
  assert.equal(fmtFactor(390587), '3.9×10⁵×');
  assert.equal(fmtFactor(3.2e-4), '3.2×10⁻⁴×');
  assert.equal(fmtFactor(Infinity), '∞ (a value is 0)');
});

test('caption numbers: decimals by magnitude, percentages, real minus signs', () => {
  assert.equal(decimals(0.5432), '0.54');
  assert.equal(decimals(12.345), '12.3');
  assert.equal(decimals(157.4), '157');
  assert.equal(decimals(-0.25), '−0.25');
  assert.equal(decimals(0), '0');
  assert.equal(decimals(390587), '3.9×10⁵');
  assert.equal(decimals(0.0012), '1.2×10⁻³');
  assert.equal(percent(0.034), '3.4%');
  assert.equal(percent(0.12), '12%');
  assert.equal(fixed(-0.0001, 2), '0.00');
  assert.equal(fixed(-1.5, 1), '−1.5');
});

// The verdicts each panel states at its default settings, and why (see
// tests/core/test_papers.cpp for the same claims in C++).
const EXPECTED = {
  theorem1: 'holds', // slopes ~0.00 and ~-0.56
  figure3: 'partly', // Post-LN rises (~1.6x); Pre-LN falls (~0.54x) instead of staying level
  lemma2: 'holds', // slope ~0.49, within a few % of 1 + l/2
  deepnet: 'holds', // DeepNorm within 2x, Post-LN's gradient spans ~4e5 (its unit stream is shown, not judged)
  gpt2: 'holds', // GPT-2 ~1.3x at every depth; Pre-LN slope ~0.51
  veit: 'holds', // 95% of the gradient from paths <= 15 of 54
  rezero: 'holds', // at init exactly 0 off the identity at 96 blocks; trained (the lab's preset) ReZero 0.092, plain 1.0, residual not finite
  lns: 'holds', // slope 0.22 against Pre-LN's 0.99; LNS at most 0.25x Pre-LN's variance
  mixln: 'fails', // max/min 4.35 against Post-LN's 1.62 and Pre-LN's 4.36: no 10% better; trained 9.5 against 2.0 and 3.2
  layerscale: 'holds', // ratio / eps 0.98-1.19 over the 12 blocks; block 1's attention exactly eps x Pre-LN's; the lab's run 1.03-1.48
  dwa: 'holds', // Pre-LN's numbers to the bit at init; trained, reuse 0.19 and the embedding 2.2x the others
  batchnorm: 'holds', // worst/best over batch 2-64: BatchNorm 1.85x, LayerNorm 1.59x; against LayerNorm 1.06x at batch 2, 0.92x at 64; one sequence +49%; pads counted +2.2%
  rmsnorm: 'holds', // seeds 0-4: held-out loss means 0.021 (LN) and 0.019 (RMS), spread 0.0047; times not judged
};

test('the article\u2019s six papers and the panels that train are named in the panel table, not by their order', () => {
  assert.deepEqual(ARTICLE_PANELS, ['theorem1', 'figure3', 'lemma2', 'deepnet', 'gpt2', 'veit']);
  assert.deepEqual(TRAINING_PANELS, ['rezero', 'mixln', 'layerscale', 'dwa', 'batchnorm', 'rmsnorm']);
  assert.deepEqual(
    PANEL_IDS.filter((id) => !ARTICLE_PANELS.includes(id)),
    ['rezero', 'lns', 'mixln', 'layerscale', 'dwa', 'batchnorm', 'rmsnorm'],
  );
});

for (const id of PANEL_IDS) {
  test(`reproduction ${id}: default settings give the expected verdict, with a caption from the numbers`, () => {
    const r = reproduce(rn, id);
    const s = summarize(id, r);
    const msg = s.rows.map((x) => `${x.key}=${x.measured}`).join(', ');
    assert.equal(s.verdict, EXPECTED[id], msg);
    const c = caption(id, r);
    assert.equal(c.verdict, s.verdict);
    assert.ok(c.text.length > 80, c.text);
    assert.ok(!/NaN|undefined/.test(c.text), c.text);
    // Every measured number appears in the caption or the table as the page prints it.
    for (const row of s.rows)
      assert.ok(Number.isFinite(row.value) || row.value === Infinity, `${row.key}: ${row.value}`);
    switch (id) {
      case 'theorem1':
        assert.ok(Math.abs(r.data.fit.post_ln.slope) <= 0.15, msg);
        assert.ok(Math.abs(r.data.fit.pre_ln.slope + 0.5) <= 0.15, msg);
        break;
      case 'figure3':
        assert.ok(s.rows[0].ok && !s.rows[1].ok, msg);
        assert.ok(s.rows[1].value < 1, 'Pre-LN falls toward the top');
        break;
      case 'deepnet':
        assert.deepEqual(
          s.rows.map((x) => x.ok),
          [true, true, true, null],
          msg,
        );
        assert.ok(Math.abs(r.data.alpha - 2000 ** 0.25) < 1e-12 && Math.abs(r.data.beta - 8000 ** -0.25) < 1e-12);
        break;
      case 'veit':
        assert.ok(s.facts.pre.k95 < 27 && s.facts.res.k95 > 27, msg);
        break;
      case 'rezero':
        assert.equal(s.facts.grad, 0, 'the identity: bit for bit');
        assert.ok(r.data.rezero.rel_grad.every((g) => g === 1));
        // trained: the lab's ReZero claim, its verdict as the lab states it
        assert.deepEqual(Object.keys(r.data.trained), ['plain', 'residual', 'rezero']);
        assert.equal(s.facts.lab.holds, true, 'the lab’s verdict holds');
        assert.ok(
          s.rows.filter((x) => x.key.startsWith('trained_')).every((x) => x.ok === true),
          msg,
        );
        break;
      case 'mixln':
        assert.equal(r.data.early, 6, 'floor(24 / 4) Post-LN blocks');
        // after training Mix-LN's spread is above both, as the lab's Late layers check finds
        assert.ok(s.facts.trainedSpread.mix_ln > s.facts.trainedSpread.pre_ln, msg);
        assert.ok(s.facts.trainedSpread.mix_ln > s.facts.trainedSpread.post_ln_warmup, msg);
        break;
      case 'layerscale':
        assert.equal(r.data.epsilon, 0.1);
        assert.ok(
          r.data.trained.layerscale.gates.init.every((v) => v === 0.1),
          'the lab’s 8 blocks: eps = 0.1',
        );
        assert.ok(s.facts.trained.endMedian > 1.1, 'the update ratios grow with training');
        break;
      case 'dwa': {
        // 9 + 9 layer values, 8 blocks x 8 per-block arrays; the loss, 9 + 9 + 3 x 8 of the first step
        assert.deepEqual(r.data.init.simulate, { max: 0, count: 90 });
        assert.deepEqual(r.data.init.firstStep, { max: 0, count: 43 });
        assert.ok(r.data.init.mixGrad > 0, 'the averaging weights have a gradient at init');
        assert.equal(r.data.trained.outcome, 'trained');
        assert.deepEqual(
          r.data.trained.weights.map((row) => row.length),
          [2, 3, 4, 5, 6, 7, 8, 9],
        );
        break;
      }
      case 'batchnorm': {
        // LayerNorm's three held-out losses are one number by construction, at every batch size
        for (const run of r.data.layernorm) assert.ok(run.eval === run.train && run.eval === run.one_seq, msg);
        assert.ok(s.facts.bn > s.facts.ln, msg);
        assert.ok(r.data.batchnorm.every((run) => run.one_seq !== run.eval));
        break;
      }
      case 'rmsnorm': {
        // the same seeds for both norms, every run trained; the verdict from the losses alone
        assert.deepEqual(r.data.config.seeds, [0, 1, 2, 3, 4]);
        for (const run of [...r.data.layernorm, ...r.data.rmsnorm]) assert.equal(run.outcome, 'trained', msg);
        assert.ok(Math.abs(s.facts.diff) <= s.facts.spread, msg);
        assert.deepEqual(
          s.rows.map((x) => x.ok),
          [true, null, null],
          'the times are reported, never judged',
        );
        // each width's four kernels timed: finite positive medians (a measurement: no speed is asserted)
        assert.deepEqual(
          r.data.timing.map((t) => t.config.width),
          r.data.config.widths,
        );
        for (const t of r.data.timing)
          for (const k of ['ln_forward', 'ln_backward', 'rms_forward', 'rms_backward'])
            assert.ok(Number.isFinite(t[k].median_ms) && t[k].median_ms > 0, `${t.config.width} ${k}`);
        break;
      }
      default:
    }
  });
}

test('the transformer recompute the page times: four archs, L = 96, d = 64, T = 16, 4 heads', () => {
  assert.deepEqual(PERF_CONFIG.arch, ['plain', 'residual', 'post_ln', 'pre_ln']);
  const t = timeRecompute(rn, { runs: 5, warmup: 1 });
  assert.equal(t.runs.length, 5);
  assert.ok(t.min > 0 && t.min <= t.median && t.median <= t.p90);
  // Reported, not asserted here (Node on a shared machine); the browser test checks the budget.
  console.log(
    `# four-arch transformer recompute under Node: median ${t.median.toFixed(1)} ms, fastest ${t.min.toFixed(1)} ms`,
  );
});

// A verdict judges the paper's claim: DeepNorm's gradient and stream within 2x,
// Post-LN's gradient beyond. Post-LN's stream spread is a row of the page's own
// (1 by construction): shown, never judged, so it cannot move the verdict.
test('DeepNet: the verdict comes from the claim rows only and says what they say', () => {
  const CLAIM = ['deepnorm_grad_norm', 'deepnorm_stream_rms', 'post_ln_grad_norm'];
  const verdictOf = (oks) => (oks.every(Boolean) ? 'holds' : oks.some(Boolean) ? 'partly' : 'fails');
  const result = (deepGrad, postGrad, postStream, deepStream = [1, 1.1, 1, 1]) => ({
    params: { depth: 3 },
    data: {
      deepnorm: { grad_norm: deepGrad, stream_rms: deepStream },
      post_ln: { grad_norm: postGrad, stream_rms: postStream },
    },
  });
  const cases = [
    [result([1, 1.2, 1.1, 1], [1, 10, 100, 1e3], [1, 1, 1, 1]), 'holds'],
    [result([1, 1.2, 1.1, 1], [1, 10, 100, 1e3], [1, 5, 1, 1]), 'holds'],
    [result([1, 3, 1.1, 1], [1, 10, 100, 1e3], [1, 5, 1, 1]), 'partly'],
    [result([1, 3, 1.1, 1], [1, 1.1, 1, 1], [1, 1, 1, 1], [1, 4, 1, 1]), 'fails'],
  ];
  for (const [r, want] of cases) {
    const s = summarize('deepnet', r);
    const byKey = Object.fromEntries(s.rows.map((x) => [x.key, x]));
    assert.deepEqual(Object.keys(byKey).sort(), [...CLAIM, 'post_ln_stream_rms'].sort());
    assert.equal(byKey.post_ln_stream_rms.ok, null, 'the added row carries no ok/fail mark');
    for (const k of CLAIM) assert.equal(typeof byKey[k].ok, 'boolean', k);
    assert.equal(s.verdict, verdictOf(CLAIM.map((k) => byKey[k].ok)));
    assert.equal(s.verdict, want, s.rows.map((x) => `${x.key}=${x.measured} ${x.ok}`).join(', '));
  }
  // and at the panel's defaults, on the engine's numbers
  const s = summarize('deepnet', reproduce(rn, 'deepnet'));
  const oks = s.rows.filter((x) => CLAIM.includes(x.key)).map((x) => x.ok);
  assert.equal(s.verdict, verdictOf(oks));
  assert.equal(s.rows.find((x) => x.key === 'post_ln_stream_rms').ok, null);
});

// The four answers to the article's open question: each verdict from synthetic
// numbers, so every branch of holds / partly / fails is reached by the rows it names.
test('ReZero: exact identity holds; a gradient or stream off by more than 1e-6 is partly', () => {
  const result = (grad, stream) => ({
    params: { depth: 3 },
    data: {
      rezero: { grad_norm: grad, rel_grad: grad.map((g) => g / grad[3]), stream_rms: stream },
      pre_ln: { grad_norm: [4, 3, 2, 1], rel_grad: [4, 3, 2, 1], stream_rms: [1, 1.2, 1.4, 1.6] },
    },
  });
  const byKey = (s) => Object.fromEntries(s.rows.map((x) => [x.key, x]));
  let s = summarize('rezero', result([2, 2, 2, 2], [1, 1, 1, 1]));
  assert.equal(s.verdict, 'holds');
  assert.equal(byKey(s).pre_ln_grad.ok, null, 'the contrast is not judged');
  assert.equal(byKey(s).pre_ln_grad.value, 3);
  s = summarize('rezero', result([2, 2.00001, 2, 2], [1, 1, 1, 1]));
  assert.equal(s.verdict, 'partly');
  assert.ok(Math.abs(byKey(s).rezero_grad.value - 5e-6) < 1e-12);
  assert.equal(summarize('rezero', result([3, 2, 2, 2], [1, 1, 1.5, 1])).verdict, 'fails');
});

test('LNS: the slope at most half Pre-LN\u2019s and below it at every depth; either alone is partly', () => {
  const result = (pre, lns) => ({
    params: { seeds: 1 },
    data: {
      depths: [12, 24, 48],
      variance: { pre_ln: pre, lns },
      fit: {
        pre_ln: fit([12, 24, 48].map(Math.log), pre.map(Math.log)),
        lns: fit([12, 24, 48].map(Math.log), lns.map(Math.log)),
      },
    },
  });
  assert.equal(summarize('lns', result([6, 12, 24], [2, 2.2, 2.4])).verdict, 'holds');
  assert.equal(summarize('lns', result([6, 12, 24], [5, 10, 20])).verdict, 'partly'); // below, same slope
  assert.equal(summarize('lns', result([6, 12, 24], [7, 7.1, 7.2])).verdict, 'partly'); // flat, above
  assert.equal(summarize('lns', result([6, 12, 24], [7, 14, 28])).verdict, 'fails');
  const s = summarize('lns', result([6, 12, 24], [2, 2.2, 2.4]));
  assert.equal(s.rows.find((x) => x.key === 'pre_ln_slope').ok, null);
  assert.ok(Math.abs(s.rows.find((x) => x.key === 'lns_over_pre').value - 2 / 6) < 1e-12);
});

test('Mix-LN: more uniform (a max/min 10% lower) than both holds, than one is partly, than neither fails', () => {
  const result = (mix) => ({
    params: { depth: 4, seeds: 1 },
    data: { blocks: [1, 2, 3, 4], early: 1, norms: { post_ln: [1, 2, 4, 8], pre_ln: [3, 2, 1.5, 1], mix_ln: mix } },
  });
  assert.equal(summarize('mixln', result([1, 1.2, 1.1, 1])).verdict, 'holds');
  assert.equal(summarize('mixln', result([1, 2, 4, 4])).verdict, 'partly'); // 4x: below Post-LN's 8, above Pre-LN's 3
  assert.equal(summarize('mixln', result([1, 2, 4, 10])).verdict, 'fails');
  assert.equal(summarize('mixln', result([1, 2, 2.9, 2.9])).verdict, 'partly', '2.9x against 3x is a tie, not a win');
  const s = summarize('mixln', result([1, 1.2, 1.1, 1]));
  for (const a of ['post_ln', 'pre_ln', 'mix_ln']) assert.equal(s.rows.find((x) => x.key === `${a}_spread`).ok, null);
  assert.equal(s.rows.find((x) => x.key === 'mix_over_post_ln').value, 1.2 / 8);
  assert.ok(
    Math.abs(s.facts.cv.post_ln - Math.sqrt(((1 - 3.75) ** 2 + 1.75 ** 2 + 0.25 ** 2 + 4.25 ** 2) / 4) / 3.75) < 1e-12,
  );
});

test('LayerScale: every ratio within 2x of eps and block 1 exactly eps x Pre-LN\u2019s', () => {
  const result = (ls, attn0) => ({
    params: { depth: 3 },
    data: {
      epsilon: 0.1,
      layerscale: { update_ratio: ls, attn_update_ratio: [attn0, 0, 0], mlp_update_ratio: [0, 0, 0] },
      pre_ln: { update_ratio: [1, 0.7, 0.5], attn_update_ratio: [0.5, 0, 0], mlp_update_ratio: [0, 0, 0] },
    },
  });
  assert.equal(summarize('layerscale', result([0.1, 0.12, 0.09], 0.05)).verdict, 'holds');
  assert.equal(summarize('layerscale', result([0.1, 0.3, 0.09], 0.05)).verdict, 'partly');
  assert.equal(summarize('layerscale', result([0.1, 0.12, 0.09], 0.06)).verdict, 'partly');
  assert.equal(summarize('layerscale', result([1, 1, 1], 0.5)).verdict, 'fails');
  const s = summarize('layerscale', result([0.1, 0.12, 0.04], 0.05));
  assert.ok(Math.abs(s.rows[0].value - 2.5) < 1e-12, 'the farthest factor, 1/0.4');
  assert.equal(s.rows.find((x) => x.key === 'pre_ln_range').ok, null);
  assert.equal(layerscaleEpsilon(18), 0.1);
  assert.equal(layerscaleEpsilon(24), 1e-5);
  assert.equal(layerscaleEpsilon(36), 1e-6);
});

test('sci(): powers of ten as 10⁻ⁿ, anything else as decimals()', () => {
  assert.equal(sci(1e-6), '10⁻⁶');
  assert.equal(sci(1e-5), '10⁻⁵');
  assert.equal(sci(0.1), '0.10');
  assert.equal(sci(3e-8), '3.0×10⁻⁸');
});

// DenseFormer's panel trains the training lab's run of it: the Late layers claim's DenseFormer run
// at the panel's depth and seed, and the weights it shows are that trainer's.
test('DenseFormer: the panel trains the lab\u2019s Late layers run, and its weights are that trainer\u2019s', () => {
  const late = CLAIM_BY_ID.late;
  assert.deepEqual(late.config, { ...DWA_TRAIN, depth: PANELS.dwa.defaults.depth });
  assert.deepEqual(
    late.runs.find((x) => x.arch === 'dwa'),
    { key: 'dwa', arch: 'dwa', label: 'DenseFormer' },
    'no overrides',
  );
  const params = { depth: 4, seed: 3 };
  const r = reproduce(rn, 'dwa', params);
  const tr = rn.trainer({ ...DWA_TRAIN, ...params, arch: 'dwa' });
  tr.step(DWA_TRAIN.steps);
  assert.deepEqual(
    r.data.trained.weights,
    tr.dwaWeights().map((row) => Array.from(row)),
  );
  assert.deepEqual(r.data.trained.config, tr.config);
  assert.equal(r.data.trained.steps, DWA_TRAIN.steps);
  // the stack compared at init is the trainer's, and the Embed shows that stack
  assert.deepEqual(r.data.init.config, { ...r.data.init.config, ...dwaStack(tr.config), arch: ['dwa', 'pre_ln'] });
  const embed = panelEmbed('dwa', params).config;
  for (const [k, v] of Object.entries(dwaStack(tr.config))) assert.deepEqual(embed[k], v, k);
  assert.deepEqual(embed.arch, ['pre_ln', 'dwa']);
  tr.delete();
});

test('largestDifference: equal values (NaNs, infinities too) differ by 0; a NaN beside a number or a length does not', () => {
  assert.deepEqual(
    largestDifference([
      [
        [1, 2],
        [1, 2.5],
      ],
      [[3], [2]],
    ]),
    { max: 1, count: 3 },
  );
  assert.deepEqual(
    largestDifference([
      [
        [NaN, Infinity, -0],
        [NaN, Infinity, 0],
      ],
    ]),
    { max: 0, count: 3 },
  );
  assert.ok(Number.isNaN(largestDifference([[[NaN], [1]]]).max));
  assert.equal(largestDifference([[[1], [Infinity]]]).max, Infinity);
  assert.ok(Number.isNaN(largestDifference([[[1, 2], [1]]]).max));
});

// A trained matrix by hand (L = 4; late blocks 3 and 4):
//   block 3 reads 0.3 + 0.1 of layers 0..1 against 1.2 of itself; block 4 0.2 + 0 + 0.1 against 0.8;
//   their embedding weights 0.3, 0.2 (mean 0.25) against their other earlier ones 0.1, 0.1, 0, 0.1, 0.2 (mean 0.1).
const HAND = [
  [0.1, 1.0],
  [0.2, 0.05, 0.9],
  [-0.3, 0.1, 0.1, 1.2],
  [-0.2, 0.0, 0.1, 0.2, 0.8],
];
const near = (a, b) => Math.abs(a - b) < 1e-12;

test('dwaFacts: reuse of layers two or more back, the embedding against the other earlier layers', () => {
  const f = dwaFacts(HAND);
  assert.equal(f.from, 3);
  assert.deepEqual(f.late, [3, 4]);
  assert.ok(near(f.reuseRows[0], 0.4 / 1.2) && near(f.reuseRows[1], 0.3 / 0.8), String(f.reuseRows));
  assert.ok(near(f.reuse, (0.4 / 1.2 + 0.3 / 0.8) / 2));
  assert.ok(near(f.embedding, 2.5), String(f.embedding));
  assert.deepEqual(f.embeddingWeights, [-0.3, -0.2]);
  assert.equal(f.diagLo, 0.8);
  assert.equal(f.diagHi, 1.2);
  assert.deepEqual(f.off, { w: -0.3, l: 3, j: 0 });
  // the identity: nothing reused, the embedding no more than the rest (0 / 0)
  const id = dwaFacts([
    [0, 1],
    [0, 0, 1],
    [0, 0, 0, 1],
  ]);
  assert.equal(id.reuse, 0);
  assert.ok(Number.isNaN(id.embedding));
  assert.equal(id.off.w, 0);
});

/** A DenseFormer result as experiments.js gives it, with the weights `weights` and the init differences given. */
const dwaResult = (weights, { sim = 0, step = 0, outcome = 'trained' } = {}) => ({
  params: { depth: weights.length, seed: 0 },
  data: {
    init: {
      simulate: { max: sim, count: 46 },
      firstStep: { max: step, count: 23 },
      gradGlobal: { dwa: 1.25, pre_ln: 1.2 },
      mixGrad: Math.sqrt(1.25 ** 2 - 1.2 ** 2),
    },
    trained: {
      config: { seq: 4, vocab: 8 },
      steps: 300,
      outcome,
      chance: Math.log(8),
      optimal: 0,
      heldout_loss: 0.02,
      heldout_accuracy: 1,
      weights,
    },
  },
});

test('DenseFormer: exact at init and both trained measures hold; each one alone missing is partly; none is fails', () => {
  const byKey = (s) => Object.fromEntries(s.rows.map((x) => [x.key, x]));
  let s = summarize('dwa', dwaResult(HAND));
  assert.equal(s.verdict, 'holds');
  for (const k of ['init_mix_grad', 'trained_loss']) assert.equal(byKey(s)[k].ok, null, `${k} is not judged`);
  assert.ok(near(byKey(s).late_embedding.value, 2.5));
  assert.ok(near(byKey(s).init_mix_grad.value, 0.35));
  assert.equal(summarize('dwa', dwaResult(HAND, { sim: 1e-7 })).verdict, 'partly');
  assert.equal(summarize('dwa', dwaResult(HAND, { step: 2e-9 })).verdict, 'partly');
  // the embedding read no more than the other earlier layers
  const flat = HAND.map((row) => row.map((w, j) => (j === 0 ? 0.1 * Math.sign(w || 1) : w)));
  assert.ok(summarize('dwa', dwaResult(flat)).rows.find((x) => x.key === 'late_embedding').value <= 1);
  assert.equal(summarize('dwa', dwaResult(flat)).verdict, 'partly');
  // nothing read from two or more back: reuse 0 and no embedding
  const near0 = [
    [0, 1],
    [0, 0.01, 1],
    [0, 0, 0.02, 1],
    [0, 0, 0, 0.03, 1],
  ];
  const s0 = summarize('dwa', dwaResult(near0, { sim: 1, step: 1 }));
  assert.equal(s0.verdict, 'fails', s0.rows.map((x) => `${x.key}=${x.measured} ${x.ok}`).join(', '));
});

test('DenseFormer\u2019s caption: exact or not, the embedding weights\u2019 signs, a run that did not train', () => {
  let c = caption('dwa', dwaResult(HAND));
  assert.match(c.text, /agree to the bit on all 46 per-layer numbers/);
  assert.match(c.text, /all 22 per-layer numbers it logs/);
  assert.match(c.text, /Those weights on h₀ are all negative \(−0\.3 to −0\.2\): the late blocks subtract/);
  assert.match(c.text, /The largest weight off the diagonal is −0\.3 \(block 3 reading the embedding\)/);
  assert.match(c.text, /blocks 3–4 take on average 0\.35 of their own weight/);
  assert.match(c.text, /trains this run at 8 blocks/);
  assert.doesNotMatch(c.text, /did not train/);
  const positive = HAND.map((row) => row.map((w, j) => (j === 0 ? Math.abs(w) : w)));
  assert.match(caption('dwa', dwaResult(positive)).text, /all positive \(0\.2 to 0\.3\): the late blocks add/);
  const mixed = HAND.map((row, r) => row.map((w, j) => (j === 0 && r === 3 ? 0.2 : w)));
  assert.match(caption('dwa', dwaResult(mixed)).text, /have both signs \(−0\.3 to 0\.2\)/);
  c = caption('dwa', dwaResult(HAND, { sim: 1e-7, outcome: 'slow' }));
  assert.match(c.text, /differ by up to 1\.0×10⁻⁷ over the 46 per-layer numbers/);
  assert.match(c.text, /does not start exactly as Pre-LN here/);
  assert.match(c.text, /The run did not train \(slow\)/);
  assert.equal(c.verdict, 'partly');
});

// ---------------------------------------------------------------- the trained halves

// A run as trainLabRuns() returns it, by hand: its logged held-out losses (step 10, 20, ...), its
// last step's block gradients, and for LayerScale its lesion's contributions and its gates.
const handRun = (key, arch, losses, { config = {}, w = [1, 1], extra = {} } = {}) => ({
  key,
  arch,
  label: key,
  config: { depth: 56, width: 32, steps: 10 * losses.length, warmup: 0, seq: 4, vocab: 8, ...config },
  task: { chance: 1, optimal: 0 },
  logs: losses.map((l, i) => ({
    step: 10 * (i + 1),
    heldout_loss: l,
    train_loss: l,
    top_cosine: 0.5,
    first_nonfinite: Number.isFinite(l) ? null : 10 * i + 2,
    w_grad_norm: Float64Array.from(w),
  })),
  gates: null,
  lesion: null,
  ...extra,
});
const rezeroResult = (trained) => ({
  params: { depth: 3 },
  data: {
    rezero: { grad_norm: [2, 2, 2, 2], rel_grad: [1, 1, 1, 1], stream_rms: [1, 1, 1, 1] },
    pre_ln: { grad_norm: [4, 3, 2, 1], rel_grad: [4, 3, 2, 1], stream_rms: [1, 1.2, 1.4, 1.6] },
    trained,
  },
});
const rezeroRuns = (z, plain, residual) => ({
  plain: handRun('plain', 'plain', plain),
  residual: handRun('residual', 'residual', residual),
  rezero: handRun('rezero', 'rezero', z),
});

test('ReZero trained: the lab\u2019s checks judge the rows (ReZero below halfway, plain within 10% of chance)', () => {
  const byKey = (s) => Object.fromEntries(s.rows.map((x) => [x.key, x]));
  let s = summarize('rezero', rezeroResult(rezeroRuns([0.8, 0.1], [1, 0.99], [NaN])));
  assert.equal(s.verdict, 'holds');
  assert.equal(byKey(s).trained_rezero.value, 0.1);
  assert.equal(byKey(s).trained_plain.value, 0.99);
  assert.equal(byKey(s).trained_residual.value, Infinity, 'a loss that is not finite');
  assert.equal(byKey(s).trained_residual.measured, 'not finite (from step 2)');
  assert.equal(s.facts.lab.holds, true);
  let c = caption('rezero', rezeroResult(rezeroRuns([0.8, 0.1], [1, 0.99], [NaN])));
  assert.match(c.text, /trains where the plain stack of the same depth does not, and the residual stack/);
  assert.match(c.text, /ReZero ended at held-out loss 0\.1 \(chance 1\); the plain stack at 0\.99/);
  // ReZero above halfway: its row fails, the verdict is partly and the caption says ReZero does not train
  s = summarize('rezero', rezeroResult(rezeroRuns([0.8, 0.6], [1, 0.99], [NaN])));
  assert.equal(byKey(s).trained_rezero.ok, false);
  assert.equal(s.verdict, 'partly');
  assert.match(
    caption('rezero', rezeroResult(rezeroRuns([0.8, 0.6], [1, 0.99], [NaN]))).text,
    /ReZero does not train here/,
  );
  // the plain stack at 0.8 of chance trains some: that check fails
  s = summarize('rezero', rezeroResult(rezeroRuns([0.1], [0.8], [NaN])));
  assert.equal(byKey(s).trained_plain.ok, false);
  assert.equal(s.verdict, 'partly');
  c = caption('rezero', rezeroResult(rezeroRuns([0.1], [0.8], [0.3])));
  assert.match(
    c.text,
    /but so does the plain stack of the same depth here, while the residual stack without its gates trains too\./,
  );
  // without the trained half (the hand-made results above) only the init rows
  assert.ok(!summarize('rezero', rezeroResult(undefined)).rows.some((x) => x.key.startsWith('trained_')));
});

const mixResult = (spreads) => ({
  params: { depth: 4, seeds: 1 },
  data: {
    blocks: [1, 2, 3, 4],
    early: 1,
    norms: { post_ln: [1, 2, 4, 8], pre_ln: [3, 2, 1.5, 1], mix_ln: [1, 1.2, 1.1, 1] },
    trained: {
      post_ln_warmup: handRun('post_ln_warmup', 'post_ln', [0.5], {
        w: [1, spreads[0]],
        config: { depth: 2, warmup: 100 },
      }),
      pre_ln: handRun('pre_ln', 'pre_ln', [0.1], { w: [spreads[1], 1], config: { depth: 2 } }),
      mix_ln: handRun('mix_ln', 'mix_ln', [0.1], { w: [1, spreads[2]], config: { depth: 2 } }),
    },
  },
});

test('Mix-LN trained: the same max/min at the last step, Mix-LN below both holds, above one or both does not', () => {
  const byKey = (s) => Object.fromEntries(s.rows.map((x) => [x.key, x]));
  let s = summarize('mixln', mixResult([2, 3, 1.5]));
  assert.equal(s.verdict, 'holds');
  assert.equal(byKey(s).trained_mix_ln_spread.value, 1.5);
  assert.equal(byKey(s).trained_post_ln_warmup_spread.value, 2);
  assert.equal(byKey(s).trained_mix_over_pre_ln.value, 0.5);
  for (const k of ['post_ln_warmup', 'pre_ln', 'mix_ln']) assert.equal(byKey(s)[`trained_${k}_spread`].ok, null);
  assert.match(caption('mixln', mixResult([2, 3, 1.5])).text, /Mix-LN’s are the most uniform after training too\./);
  s = summarize('mixln', mixResult([2, 3, 2.5]));
  assert.equal(s.verdict, 'partly');
  assert.deepEqual([byKey(s).trained_mix_over_post_ln_warmup.ok, byKey(s).trained_mix_over_pre_ln.ok], [false, true]);
  assert.match(caption('mixln', mixResult([2, 3, 2.5])).text, /more uniform than Pre-LN’s only\./);
  s = summarize('mixln', mixResult([2, 3, 9]));
  assert.equal(s.verdict, 'partly'); // the init rows still hold
  const c = caption('mixln', mixResult([2, 3, 9]));
  assert.match(c.text, /2\.00× for Post-LN \(warmup 100\), 3\.00× for Pre-LN and 9\.00× for Mix-LN: after training/);
  assert.match(c.text, /the least uniform of the three/);
  assert.equal(summarize('mixln', mixResult([2, 3, 3])).rows.at(-1).ok, false, 'a tie is not more uniform');
});

const lsResult = (init, end, gates) => ({
  params: { depth: 3 },
  data: {
    epsilon: 0.1,
    layerscale: { update_ratio: [0.1, 0.12, 0.09], attn_update_ratio: [0.05, 0, 0], mlp_update_ratio: [0, 0, 0] },
    pre_ln: { update_ratio: [1, 0.7, 0.5], attn_update_ratio: [0.5, 0, 0], mlp_update_ratio: [0, 0, 0] },
    trained: {
      layerscale: handRun('layerscale', 'layerscale', [0.5, 0.2], {
        config: { depth: init.length, width: 16 },
        extra: {
          gates: {
            width: 16,
            units: gates.length,
            init: Float64Array.from(gates, () => 0.1),
            magnitude: Float64Array.from(gates),
          },
          lesion: { contribution_init: Float64Array.from(init), contribution: Float64Array.from(end) },
        },
      }),
    },
  },
});

test('LayerScale trained: the run\u2019s update ratios at init within 2x of eps are judged; at the end and the gates shown', () => {
  const byKey = (s) => Object.fromEntries(s.rows.map((x) => [x.key, x]));
  let s = summarize('layerscale', lsResult([0.1, 0.15], [0.3, 0.4], [0.12, 0.15, 0.2, 0.14]));
  assert.equal(s.verdict, 'holds');
  assert.ok(Math.abs(byKey(s).trained_init_about_eps.value - 1.5) < 1e-12);
  assert.ok(Math.abs(byKey(s).trained_end_over_eps.value - 3.5) < 1e-12, 'the median of 3 and 4');
  assert.ok(Math.abs(byKey(s).trained_gate_over_eps.value - 1.45) < 1e-12, 'the median of 1.2, 1.4, 1.5, 2');
  assert.equal(byKey(s).trained_end_over_eps.ok, null);
  assert.equal(byKey(s).trained_gate_over_eps.ok, null);
  let c = caption('layerscale', lsResult([0.1, 0.15], [0.3, 0.4], [0.12, 0.15, 0.2, 0.14]));
  assert.match(
    c.text,
    /start at 1\.00–1\.50 × ε and end at 3\.00–4\.00 × ε \(median 3\.50×\): the blocks come to add more/,
  );
  assert.match(c.text, /the gates move less: each unit's mean \|λ\| ends at a median 1\.45× ε \(1\.20–2\.00\)/);
  s = summarize('layerscale', lsResult([0.1, 0.25], [0.1, 0.1], [0.1, 0.1]));
  assert.equal(byKey(s).trained_init_about_eps.ok, false);
  assert.equal(s.verdict, 'partly');
  c = caption('layerscale', lsResult([0.1, 0.1], [0.05, 0.06], [0.1, 0.1]));
  assert.match(
    c.text,
    /add less of the stream than at initialization; each unit's mean \|λ\| ends at a median 1\.00× ε/,
  );
});

// The trained halves train the lab's runs: the same configs (presets.js, over the engine's defaults)
// and so the same numbers, to the bit, as a trainer of that config made here.
test('trainLabRuns: the lab\u2019s runs of a preset with their overrides, numbers equal to a trainer\u2019s', () => {
  const runs = trainLabRuns(rn, 'late', ['post_ln_warmup', 'layerscale']);
  assert.deepEqual(Object.keys(runs), ['post_ln_warmup', 'layerscale']);
  assert.deepEqual(MIXLN_TRAINED, ['post_ln_warmup', 'pre_ln', 'mix_ln']);
  assert.deepEqual(LAYERSCALE_TRAINED, ['layerscale']);
  assert.equal(runs.post_ln_warmup.config.warmup, 100);
  assert.equal(runs.layerscale.config.warmup, 0);
  for (const [key, run] of Object.entries(runs)) {
    const spec = CLAIM_BY_ID.late.runs.find((r) => r.key === key);
    const tr = rn.trainer({ ...CLAIM_BY_ID.late.config, ...(spec.overrides ?? {}), arch: spec.arch });
    const logs = tr.step(300);
    assert.deepEqual(run.config, tr.config);
    assert.deepEqual(run.logs, logs, key);
    assert.deepEqual(run.gates, tr.gates());
    assert.deepEqual(run.lesion, tr.lesion(), 'the lab lesions the Late layers runs');
    tr.delete();
  }
  assert.equal(runs.post_ln_warmup.gates, null);
  assert.equal(trainLabRuns(rn, 'rezero', ['rezero']).rezero.lesion, null, 'the ReZero claim has no lesion');
});
