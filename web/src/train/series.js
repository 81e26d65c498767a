// What the lab's charts draw, from the session's runs (session.js): the line
// charts' arrays on one step axis, and each heatmap's columns. Pure
// functions, no DOM; the page's test hook holds their output.
import { log10OrNull } from '../shared/log-axis.js';
import { logExtent } from '../shared/colormap.js';
import { bnCount, bnRowLabels, hasBatchnorm } from './bn-layers.js';
import { median } from '../claims/lab/common.js';
import { runLook } from './looks.js';

/** The per-step numbers of the line charts, by key: what the readout prints and the charts plot. */
export const LINE_KEYS = [
  'train_loss',
  'heldout_loss',
  'heldout_accuracy',
  'grad_norm_global',
  'lr',
  'max_logit',
  'hc_gain_fwd',
  'hc_gain_bwd',
];

/** The numbers drawn as a band from the lowest seed to the highest: `${key}_low` and `${key}_high` of a seeds' run. */
export const BAND_KEYS = ['heldout_loss', 'train_loss', 'grad_norm_global', 'max_logit', 'hc_gain_fwd'];

/** The architectures whose stream mixing the engine logs (hc_gain_fwd, hc_gain_bwd: Hyper-Connections and mHC). */
const MIXING_ARCHS = new Set(['hyper', 'mhc']);

/**
 * The line keys only some runs log, and which: the largest attention logit a run with transformer
 * blocks (an MLP block has no attention: the engine logs NaN), the composite gain of the stream
 * mixing a Hyper-Connections or mHC run (NaN for the others).
 */
const LOGGED_BY = {
  max_logit: (r) => r.config?.block === 'transformer',
  hc_gain_fwd: (r) => MIXING_ARCHS.has(r.arch),
  hc_gain_bwd: (r) => MIXING_ARCHS.has(r.arch),
};

/** Whether run `run` logs line key `key` (LOGGED_BY): every other key, every run. */
export const logsKey = (run, key) => !LOGGED_BY[key] || LOGGED_BY[key](run);

/** Whether a value is a finite number. */
const finite = (v) => typeof v === 'number' && Number.isFinite(v);

/**
 * A run's seeds (session.js: `run.seeds`, every seed's run) as one run for the line charts and the
 * readout: at each step a seed logged, the median of LINE_KEYS over the seeds that logged it, and
 * for BAND_KEYS the lowest and highest (`<key>_low`, `<key>_high`). A non-finite value is left out
 * of the median and the band (`<key>_nonfinite` counts the seeds it was not finite on at that step;
 * NaN where no seed's is finite). `seedCount` and the label say how many seeds; the run's own (one
 * seed) as it is.
 */
export function seedsRun(run) {
  const seeds = run.seeds ?? [run];
  if (seeds.length <= 1) return run;
  const steps = [...new Set(seeds.flatMap((r) => r.logs.map((l) => l.step)))].sort((a, b) => a - b);
  const byStep = seeds.map((r) => new Map(r.logs.map((l) => [l.step, l])));
  const logs = steps.map((step) => {
    const at = byStep.map((m) => m.get(step)).filter(Boolean);
    const log = { step, first_nonfinite: null, seeds_logged: at.length };
    for (const k of LINE_KEYS) log[k] = median(at.map((l) => l[k]));
    for (const k of BAND_KEYS) {
      const vals = at.map((l) => l[k]).filter(finite);
      log[`${k}_low`] = vals.length ? Math.min(...vals) : NaN;
      log[`${k}_high`] = vals.length ? Math.max(...vals) : NaN;
      log[`${k}_nonfinite`] = at.length - vals.length;
    }
    return log;
  });
  return {
    ...run,
    label: `${run.label ?? runLabelOf(run)}, median of ${seeds.length} seeds`,
    logs,
    seedCount: seeds.length,
    firstNonfinite: null,
    trainedAt: null,
    stopped: false,
  };
}

/** A run's own label when it has none (its arch's): looks.js names it the same way. */
const runLabelOf = (run) => runLook(run).label;

/** The steps of a run's logs. */
const stepsOf = (r) => r.logs.map((l) => l.step);

/**
 * The steps of every run on one axis: the longest run's when every other run logged a first
 * part of them (the usual case: the runs log the same steps, one that stopped early fewer),
 * else every step any run logged (a run that diverged between two logged steps logs the step
 * it diverged at), ascending.
 */
function stepAxis(runs) {
  const longest = runs.reduce((a, r) => (r.logs.length > a.length ? r.logs : a), []);
  if (runs.every((r) => r.logs.every((l, i) => l.step === longest[i].step))) return longest.map((l) => l.step);
  return [...new Set(runs.flatMap(stepsOf))].sort((a, b) => a - b);
}

/**
 * The logged steps of every run on one axis (stepAxis) and, per run's key
 * (its arch unless the run has a key of its own), each LINE_KEYS series
 * aligned to it: {x, lr, lrShared, series: {key: {name: values}}, at: {key:
 * the run's log index at each step, -1 where it logged none}, logged: {key:
 * logs}}. A run's value is null before its first and past its last log, and
 * undefined at a step only another run logged between two of its own (a line
 * goes on through it). `lr` is the learning rate of each step when every run
 * that logged it had the same one (null where they differ: each run's own is
 * its series' `lr`), and `lrShared` says whether they agreed at every step;
 * `logged` how many logs each run had (a run's logs grow after this returns,
 * so a frame drawn later tells from it what it holds); `has` which line keys each run logs at all
 * (logsKey: a run without attention logs no largest logit).
 */
export function lineSeries(runs) {
  const x = stepAxis(runs);
  const series = {};
  const at = {};
  for (const r of runs) {
    const key = r.key ?? r.arch;
    const index = new Array(x.length).fill(-1);
    let j = 0;
    for (let i = 0; i < x.length && j < r.logs.length; i++) if (r.logs[j].step === x[i]) index[i] = j++;
    const first = r.logs.length ? r.logs[0].step : Infinity;
    const last = r.logs.length ? r.logs.at(-1).step : -Infinity;
    at[key] = index;
    series[key] = Object.fromEntries(
      [...LINE_KEYS, ...(r.seedCount > 1 ? BAND_KEYS.flatMap((b) => [`${b}_low`, `${b}_high`]) : [])].map((k) => [
        k,
        x.map((step, i) => (index[i] >= 0 ? r.logs[index[i]][k] : step > first && step < last ? undefined : null)),
      ]),
    );
  }
  let lrShared = true;
  const lr = x.map((_, i) => {
    let rate = null;
    for (const r of runs) {
      const j = at[r.key ?? r.arch][i];
      if (j < 0) continue;
      const v = r.logs[j].lr;
      if (rate === null) rate = v;
      else if (!Object.is(v, rate)) {
        lrShared = false;
        return null;
      }
    }
    return rate;
  });
  const logged = Object.fromEntries(runs.map((r) => [r.key ?? r.arch, r.logs.length]));
  const has = Object.fromEntries(
    runs.map((r) => [r.key ?? r.arch, Object.fromEntries(LINE_KEYS.map((k) => [k, logsKey(r, k)]))]),
  );
  // the runs drawn as a median of seeds with a band
  const bands = Object.fromEntries(runs.filter((r) => r.seedCount > 1).map((r) => [r.key ?? r.arch, r.seedCount]));
  return { x, lr, lrShared, series, at, logged, bands, has };
}

/**
 * The index on data.x whose numbers the readout shows for run `key` at step index `i`: `i`
 * where the run logged that step; its last log when the step is past its end and the run has
 * ended (`end`: claims/lab/common.js's runEnd, a run that stopped early or diverged); null where
 * it has no number (not logged there, or not yet).
 */
export function readoutIndex(data, key, i, end) {
  const at = data.at?.[key];
  if (!at || i < 0 || i >= at.length) return null;
  if (at[i] >= 0) return i;
  if (!end) return null;
  let last = -1;
  for (let k = at.length - 1; k >= 0 && last < 0; k--) if (at[k] >= 0) last = k;
  return last >= 0 && last < i ? last : null;
}

/**
 * Values for a log axis: log10 of each positive finite value, null for the rest (a gap in the
 * line); undefined stays undefined (a step only another run logged: the line goes on through it).
 */
export const logValues = (values) => values.map((v) => (v === undefined ? undefined : log10OrNull(v)));

/** Values for a linear axis: finite values, undefined kept (as logValues), null for the rest. */
export const finiteValues = (values) =>
  values.map((v) => (v === undefined ? undefined : Number.isFinite(v) ? v : null));

/**
 * Where line key `key` of the runs `keys` (those of lineSeries's `data` that log it) is not a finite
 * number: per run, its first such logged step and how many logged steps are, in the runs' order
 * ([{key, step, count}]; a run whose every value is finite is left out).
 */
export function nonfiniteSteps(data, keys, key) {
  const out = [];
  for (const k of keys) {
    const values = data.series[k]?.[key] ?? [];
    let step = null;
    let count = 0;
    values.forEach((v, i) => {
      if (typeof v !== 'number' || Number.isFinite(v)) return;
      if (step === null) step = data.x[i];
      count++;
    });
    if (count) out.push({ key: k, step, count });
  }
  return out;
}

/** The y range of plotted values (log10 units on a log chart) and reference levels, a little padded. */
export function yRange(columns, refs, log) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const col of [...columns, refs])
    for (const v of col)
      if (v !== null && Number.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
  if (lo > hi) return log ? [-1, 1] : [0, 1];
  if (!log) return [Math.min(0, lo), hi > 0 ? hi * 1.08 : 1];
  const span = Math.max(hi - lo, 0.3);
  const mid = (hi + lo) / 2;
  return [mid - span * 0.55, mid + span * 0.55];
}

/** A BatchNorm distance's heat metric: one row per BatchNorm layer, only for runs that have them. */
const bnMetric = (what, metric) => ({
  title: `BatchNorm\u2019s batch-vs-running distance of the ${what}`,
  metric,
  rowLabel: 'BatchNorm layer',
  firstRow: 1,
  only: hasBatchnorm,
  rows: (L, run) => bnCount(run),
  labels: (run) => bnRowLabels(run.config, bnCount(run)),
});

/**
 * The metrics a heatmap can draw: per layer (L + 1 entries), per block (L
 * entries) or per BatchNorm layer (bn-layers.js: only runs with BatchNorm
 * have a map, `only` says which). `rows(depth, run)` is how many rows a
 * run's map has and `labels(run)`, when given, names them (else they are
 * numbered from `firstRow`). A step's array can be shorter (the step that
 * stopped a run made no update: its update ratios are empty); its missing
 * cells are drawn as not finite.
 */
export const HEAT_METRICS = {
  grad_norm: { title: 'Gradient norm', metric: 'gradient norm', rowLabel: 'layer', firstRow: 0, rows: (L) => L + 1 },
  update_ratio: { title: 'Update ratio', metric: 'update ratio', rowLabel: 'block', firstRow: 1, rows: (L) => L },
  bn_mean_distance: bnMetric('mean', 'mean distance (1/d)\u2016\u03bc_B \u2212 \u03bc\u2016'),
  bn_var_distance: bnMetric('variance', 'variance distance (1/d)\u2016\u03c3\u00b2_B \u2212 \u03c3\u00b2\u2016'),
};

/** The id of metric `metric`'s section on the page (train-heat-grad-norm). */
export const heatSectionId = (metric) => `train-heat-${metric.replaceAll('_', '-')}`;

/** The runs of `runs` that have a map of metric `info` (all but those its `only` leaves out). */
export const heatRuns = (info, runs) => (info.only ? runs.filter(info.only) : runs);

/**
 * One run's heatmap of `metric`: {steps, columns}, each column that step's array as the engine
 * gave it (a log without the array, an empty one: its cells are drawn as missing).
 */
export function heatColumns(run, metric) {
  return { steps: run.logs.map((l) => l.step), columns: run.logs.map((l) => l[metric] ?? []) };
}

/** The colour scale of `metric`'s maps, shared by every run: colormap.js's log extent over every value logged. */
export const heatScale = (runs, metric) => logExtent(runs.flatMap((r) => heatColumns(r, metric).columns));

/**
 * The median seed of a run on several seeds (session.js: `run.seeds`) by its held-out loss at its
 * last logged step: the seeds ordered by it (a non-finite or missing loss after every finite one,
 * ties by seed), the middle one (the lower middle of an even count). The run itself on one seed.
 */
export function medianSeed(run) {
  const seeds = run.seeds ?? [run];
  if (seeds.length <= 1) return seeds[0] ?? run;
  const last = (r) => {
    const v = r.logs.at(-1)?.heldout_loss;
    return typeof v === 'number' && Number.isFinite(v) ? v : Infinity;
  };
  const order = [...seeds].sort((a, b) => last(a) - last(b) || a.seed - b.seed);
  return order[(order.length - 1) >> 1];
}
