// What the lab's charts draw, from the session's runs (session.js): the line
// charts' arrays on one step axis, and each heatmap's columns. Pure
// functions, no DOM; the page's test hook holds their output.
import { log10OrNull } from '../shared/log-axis.js';
import { logExtent } from '../shared/colormap.js';

/** The per-step numbers of the line charts, by key: what the readout prints and the charts plot. */
export const LINE_KEYS = ['train_loss', 'heldout_loss', 'heldout_accuracy', 'grad_norm_global', 'lr'];

/**
 * The logged steps of every run on one axis (the runs log the same steps;
 * one that stopped early has fewer) and, per run's key (its arch unless the
 * run has a key of its own), each LINE_KEYS
 * series aligned to it, null past the run's last log: {x, lr, series: {arch:
 * {key: values}}, logged: {arch: logs}}. `lr` is the learning rate at each
 * step, the same for every run (one schedule), from whichever run got that
 * far; `logged` how many logs each run had (a run's logs grow after this
 * returns, so a frame drawn later tells from it what it holds).
 */
export function lineSeries(runs) {
  const longest = runs.reduce((a, r) => (r.logs.length > a.length ? r.logs : a), []);
  const x = longest.map((l) => l.step);
  const series = {};
  for (const r of runs) {
    series[r.key ?? r.arch] = Object.fromEntries(
      LINE_KEYS.map((k) => [k, x.map((_, i) => (i < r.logs.length ? r.logs[i][k] : null))]),
    );
  }
  const lr = x.map((_, i) => runs.find((r) => i < r.logs.length)?.logs[i].lr ?? null);
  const logged = Object.fromEntries(runs.map((r) => [r.key ?? r.arch, r.logs.length]));
  return { x, lr, series, logged };
}

/** Values for a log axis: log10 of each positive finite value, null for the rest (a gap in the line). */
export const logValues = (values) => values.map((v) => (v === null ? null : log10OrNull(v)));

/** Values for a linear axis: finite values, null for the rest. */
export const finiteValues = (values) => values.map((v) => (Number.isFinite(v) ? v : null));

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

/**
 * The metrics a heatmap can draw: per layer (L + 1 entries) or per block (L
 * entries); `rows(depth)` is how many. A step's array can be shorter (the
 * step that stopped a run made no update: its update ratios are empty); its
 * missing cells are drawn as not finite.
 */
export const HEAT_METRICS = {
  grad_norm: { title: 'Gradient norm', metric: 'gradient norm', rowLabel: 'layer', firstRow: 0, rows: (L) => L + 1 },
  update_ratio: { title: 'Update ratio', metric: 'update ratio', rowLabel: 'block', firstRow: 1, rows: (L) => L },
};

/** One run's heatmap of `metric`: {steps, columns}, each column that step's array as the engine gave it. */
export function heatColumns(run, metric) {
  return { steps: run.logs.map((l) => l.step), columns: run.logs.map((l) => l[metric]) };
}

/** The colour scale of `metric`'s maps, shared by every run: colormap.js's log extent over every value logged. */
export const heatScale = (runs, metric) => logExtent(runs.flatMap((r) => heatColumns(r, metric).columns));
