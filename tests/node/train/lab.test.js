// The training lab's pure parts: the viridis scale and the heatmaps' log
// extent, the line charts' series on one step axis, a heatmap's columns, the
// step ticks, the readout's and the heatmaps' number texts and the time left.
// Run: node --test tests/node/train/lab.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { VIRIDIS, cellKind, logExtent, scaleAt, viridis } from '../../../web/src/shared/colormap.js';
import {
  HEAT_METRICS,
  finiteValues,
  heatColumns,
  lineSeries,
  nonfiniteSteps,
  logValues,
  medianSeed,
  seedsRun,
} from '../../../web/src/train/series.js';
import { stepTicks } from '../../../web/src/train/heatmap.js';
import { fade } from '../../../web/src/train/charts.js';
import { cellText } from '../../../web/src/shared/heat-cells.js';
import { stepValue } from '../../../web/src/train/readout.js';
import { durationText } from '../../../web/src/train/progress.js';
import { MAX_ROWS, rowIndices, rowStride } from '../../../web/src/train/numbers.js';

test('viridis runs from dark purple to light yellow, its lightness rising all the way', () => {
  // matplotlib's ends: #440154 and #fde725
  const near = (a, b) => a.every((v, i) => Math.abs(v - b[i]) <= 6);
  assert.ok(near(viridis(0), [0x44, 0x01, 0x54]), String(viridis(0)));
  assert.ok(near(viridis(1), [0xfd, 0xe7, 0x25]), String(viridis(1)));
  assert.ok(near(viridis(0.5), [0x21, 0x91, 0x8c]), String(viridis(0.5)));
  const luma = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // lighter every 8 of the 256 steps, and never darker by more than the rounding to whole channels
  for (let i = 8; i < VIRIDIS.length; i += 8) assert.ok(luma(VIRIDIS[i]) > luma(VIRIDIS[i - 8]), `step ${i}`);
  for (let i = 1; i < VIRIDIS.length; i++) assert.ok(luma(VIRIDIS[i]) > luma(VIRIDIS[i - 1]) - 0.5, `step ${i}`);
  assert.deepEqual(viridis(-1), viridis(0));
  assert.deepEqual(viridis(2), viridis(1));
});

test('the log extent covers every positive finite value, at least a decade wide; zeros and non-finite are apart', () => {
  const cols = [new Float64Array([1e-3, 0, NaN]), new Float64Array([10, Infinity, 2])];
  assert.deepEqual(logExtent(cols), { lo: -3, hi: 1 });
  const flat = logExtent([[5, 5, 5]]);
  assert.ok(Math.abs(flat.hi - flat.lo - 1) < 1e-12 && Math.abs((flat.hi + flat.lo) / 2 - Math.log10(5)) < 1e-12);
  assert.equal(logExtent([[0, NaN, -1]]), null);
  assert.equal(scaleAt({ lo: -3, hi: 1 }, 1e-3), 0);
  assert.equal(scaleAt({ lo: -3, hi: 1 }, 10), 1);
  assert.equal(scaleAt({ lo: -3, hi: 1 }, 0.1), 0.5);
  assert.deepEqual([1, 0, -2, NaN, Infinity, -Infinity, undefined].map(cellKind), [
    'value',
    'zero',
    'zero',
    'nonfinite',
    'nonfinite',
    'nonfinite',
    'nonfinite',
  ]);
});

const log = (step, over = {}) => ({
  step,
  lr: 0.01,
  train_loss: 1 / step,
  heldout_loss: 2 / step,
  heldout_accuracy: 0.5,
  grad_norm_global: step,
  grad_norm: new Float64Array([step, step + 1, step + 2]),
  update_ratio: new Float64Array([0.1, 0.2]),
  first_nonfinite: null,
  ...over,
});

test('the line series share one step axis; each run\u2019s numbers sit at the steps it logged them', () => {
  const runs = [
    { arch: 'post_ln', logs: [log(2), log(3, { heldout_loss: NaN, first_nonfinite: 3 })] },
    { arch: 'pre_ln', logs: [log(2), log(4), log(6)] },
  ];
  const d = lineSeries(runs);
  // post_ln diverged at step 3, between two of pre_ln's logs: the axis has every step either logged
  assert.deepEqual(d.x, [2, 3, 4, 6]);
  // both runs logged the rate 0.01 wherever they logged: one rate per step, shared
  assert.deepEqual(d.lr, [0.01, 0.01, 0.01, 0.01]);
  assert.equal(d.lrShared, true);
  // null past a run's last log (a gap); undefined at a step only the other run logged, between
  // two of its own (the line goes on through it)
  assert.deepEqual(d.series.post_ln.heldout_loss, [1, NaN, null, null]);
  assert.deepEqual(d.series.pre_ln.train_loss, [0.5, undefined, 0.25, 1 / 6]);
  assert.deepEqual(d.at, { post_ln: [0, 1, -1, -1], pre_ln: [0, -1, 1, 2] });
  assert.deepEqual(logValues(d.series.post_ln.heldout_loss), [0, null, null, null]);
  // what the charts plot keeps that difference: uPlot breaks a line at null, joins it across undefined
  assert.deepEqual(logValues(d.series.pre_ln.heldout_loss), [0, undefined, Math.log10(0.5), Math.log10(1 / 3)]);
  assert.deepEqual(finiteValues(d.series.pre_ln.train_loss), [0.5, undefined, 0.25, 1 / 6]);
  assert.deepEqual(finiteValues(d.series.post_ln.heldout_loss), [1, null, null, null]);
  assert.deepEqual(d.logged, { post_ln: 2, pre_ln: 3 });
  const keys = [
    'train_loss',
    'heldout_loss',
    'heldout_accuracy',
    'grad_norm_global',
    'lr',
    'max_logit',
    'hc_gain_fwd',
    'hc_gain_bwd',
  ];
  // an MLP run logs no largest logit and (not HC or mHC) no composite gain
  assert.deepEqual(lineSeries([{ arch: 'plain', config: { block: 'mlp' }, logs: [] }]), {
    x: [],
    lr: [],
    lrShared: true,
    at: { plain: [] },
    logged: { plain: 0 },
    bands: {},
    has: {
      plain: Object.fromEntries(keys.map((k) => [k, !['max_logit', 'hc_gain_fwd', 'hc_gain_bwd'].includes(k)])),
    },
    series: { plain: Object.fromEntries(keys.map((k) => [k, []])) },
  });
});

test('which runs log the largest logit (transformer blocks) and the composite gain (HC, mHC); where a line is not finite', () => {
  const has = (arch, block) => lineSeries([{ arch, config: { block }, logs: [] }]).has[arch];
  assert.equal(has('pre_ln', 'transformer').max_logit, true);
  assert.equal(has('pre_ln', 'mlp').max_logit, false);
  for (const arch of ['hyper', 'mhc'])
    for (const block of ['mlp', 'transformer']) {
      assert.equal(has(arch, block).hc_gain_fwd, true, `${arch} ${block}`);
      assert.equal(has(arch, block).hc_gain_bwd, true);
    }
  assert.equal(has('pre_ln', 'transformer').hc_gain_fwd, false);
  assert.equal(has('post_ln', 'transformer').heldout_loss, true);
  const d = lineSeries([
    { arch: 'pre_ln', config: { block: 'transformer' }, logs: [log(2, { max_logit: 3 }), log(4, { max_logit: 5 })] },
    {
      arch: 'post_ln',
      config: { block: 'transformer' },
      logs: [log(2, { max_logit: 4 }), log(4, { max_logit: NaN }), log(6, { max_logit: Infinity })],
    },
  ]);
  assert.deepEqual(nonfiniteSteps(d, ['pre_ln', 'post_ln'], 'max_logit'), [{ key: 'post_ln', step: 4, count: 2 }]);
  assert.deepEqual(nonfiniteSteps(d, ['pre_ln'], 'max_logit'), []);
});

test('a run on several seeds: its median at each step, a band from the lowest seed to the highest, non-finite left out and counted', () => {
  const seed = (n, losses) => ({
    seed: n,
    logs: losses.map((v, i) => log(2 * (i + 1), { heldout_loss: v, first_nonfinite: Number.isFinite(v) ? null : 2 })),
  });
  const seeds = [seed(7, [1, 0.5]), seed(8, [3, NaN]), seed(9, [2, 0.25])];
  const run = { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN', ...seeds[0], seeds };
  seeds[0] = run;
  const m = seedsRun(run);
  assert.equal(m.label, 'Pre-LN, median of 3 seeds');
  assert.equal(m.seedCount, 3);
  assert.deepEqual(
    m.logs.map((l) => [l.step, l.heldout_loss, l.heldout_loss_low, l.heldout_loss_high, l.heldout_loss_nonfinite]),
    [
      [2, 2, 1, 3, 0],
      // seed 8 not finite at step 4: the median and the band of the other two, and the count of one
      [4, 0.375, 0.25, 0.5, 1],
    ],
  );
  const d = lineSeries([m]);
  assert.deepEqual(d.bands, { pre_ln: 3 });
  assert.deepEqual(d.series.pre_ln.heldout_loss_low, [1, 0.25]);
  assert.deepEqual(d.series.pre_ln.heldout_loss_high, [3, 0.5]);
  // every seed not finite at a step: no median, no band (NaN: the chart's gap, never a crash)
  const gone = seedsRun({ ...run, seeds: [seed(1, [NaN]), seed(2, [NaN])] });
  assert.ok(Number.isNaN(gone.logs[0].heldout_loss) && Number.isNaN(gone.logs[0].heldout_loss_low));
  // one seed: the run itself
  const one = { key: 'a', arch: 'pre_ln', logs: [log(2)] };
  assert.equal(seedsRun(one), one);
  // the heatmaps' median seed, by held-out loss at its last step: seed 7 (0.5) between seed 9 (0.25) and 8 (not finite)
  assert.equal(medianSeed(run).seed, 7);
  assert.equal(medianSeed({ ...run, seeds: [seed(1, [0.3]), seed(2, [0.1])] }).seed, 2, 'the lower middle of two');
});

test('a heatmap\u2019s columns are the engine\u2019s arrays themselves, one per logged step', () => {
  const logs = [log(2), log(4)];
  const h = heatColumns({ logs }, 'grad_norm');
  assert.deepEqual(h.steps, [2, 4]);
  assert.equal(h.columns[1], logs[1].grad_norm);
  assert.equal(HEAT_METRICS.grad_norm.rows(6), 7);
  assert.equal(HEAT_METRICS.update_ratio.rows(6), 6);
});

test('step ticks: round numbers from 0, about the room given', () => {
  assert.deepEqual(stepTicks(1000, 700), [0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
  assert.deepEqual(stepTicks(1000, 300), [0, 500, 1000]);
  assert.deepEqual(stepTicks(1, 300), [0, 1]);
  assert.deepEqual(stepTicks(20, 280), [0, 5, 10, 15, 20]);
  assert.deepEqual(stepTicks(0, 300), [0]);
  // a narrow map (five in a printed row) still names a step besides 0
  assert.deepEqual(stepTicks(40, 90), [0, 20, 40]);
  assert.deepEqual(stepTicks(300, 110), [0, 200]);
  for (const max of [1, 7, 33, 999, 123456]) {
    const t = stepTicks(max, 300);
    assert.equal(t[0], 0);
    assert.ok(t.at(-1) <= max && t.length >= 2 && t.length <= 6, `${max}: ${t}`);
    assert.ok(
      t.every((v, i) => Number.isInteger(v) && (i === 0 || v > t[i - 1])),
      `${max}: ${t}`,
    );
  }
});

test('numbers as the readout and the heatmaps say them', () => {
  assert.equal(stepValue('heldout_loss', 1.23456), '1.23');
  assert.equal(stepValue('heldout_loss', NaN), 'NaN');
  assert.equal(stepValue('grad_norm_global', Infinity), '\u221e');
  assert.equal(stepValue('heldout_accuracy', 0.725), '73%');
  assert.equal(stepValue('heldout_accuracy', NaN), '\u2014');
  assert.equal(stepValue('train_loss', null), '\u2014');
  assert.equal(cellText(0.000123), '1.23×10⁻⁴');
  assert.equal(cellText(0.5), '0.5');
  assert.equal(cellText(NaN), 'NaN (not finite)');
  assert.equal(cellText(-Infinity), '\u2212\u221e (not finite)');
  assert.match(cellText(undefined), /no update/);
});

test('the time left in words', () => {
  assert.equal(durationText(0.4), 'under a second');
  assert.equal(durationText(12.4), '12 s');
  assert.equal(durationText(185), '3 min 05 s');
  assert.equal(durationText(7800), '2 h 10 min');
  assert.equal(durationText(Infinity), 'unknown');
});

test('the numbers table: every logged step while they fit, then one in k (1, 2, 5, 10, ...) and always the latest', () => {
  assert.equal(rowStride(0), 1);
  assert.equal(rowStride(MAX_ROWS), 1);
  assert.equal(rowStride(MAX_ROWS + 1), 2);
  assert.equal(rowStride(2 * MAX_ROWS + 1), 5);
  assert.equal(rowStride(50 * MAX_ROWS), 50);
  assert.equal(rowStride(50 * MAX_ROWS + 1), 100);
  assert.deepEqual(rowIndices(0), []);
  assert.deepEqual(rowIndices(3), [0, 1, 2]);
  for (const n of [1, 99, 100, 101, 240, 999, 5000, 123457]) {
    const idx = rowIndices(n);
    const k = rowStride(n);
    assert.ok(idx.length <= MAX_ROWS + 1, `${n}: ${idx.length} rows`);
    assert.equal(idx[0], 0);
    assert.equal(idx.at(-1), n - 1, `${n}: the latest is the last row`);
    for (let p = 1; p < idx.length - 1; p++) assert.equal(idx[p] - idx[p - 1], k, `${n}: row ${p}`);
    if (idx.length > 1) assert.ok(idx.at(-1) - idx.at(-2) <= k, `${n}: the latest within k of the row before`);
  }
});

test('a colour faded for a band or a thin line: #rrggbb and #rgb (the built CSS writes #00ff00 as #0f0)', () => {
  assert.equal(fade('#0f0', 0.16), 'rgba(0, 255, 0, 0.16)');
  assert.equal(fade('#00ff00', 0.16), 'rgba(0, 255, 0, 0.16)');
  assert.equal(fade('#4B0078'), 'rgba(75, 0, 120, 0.55)');
  assert.equal(fade('rgb(1, 2, 3)'), 'rgb(1, 2, 3)', 'any other form as it is');
});
