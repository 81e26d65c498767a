// What the lab's charts draw, from the session's runs (session.js): the line
// charts' arrays on one step axis, and each heatmap's columns. Pure
// functions, no DOM; the page's test hook holds their output.
import { log10OrNull } from '../shared/log-axis.js';

/** The per-step numbers of the line charts, by key: what the readout prints and the charts plot. */
export const LINE_KEYS = ['train_loss', 'heldout_loss', 'heldout_accuracy', 'grad_norm_global', 'lr'];

/**
 * The logged steps of every run on one axis (the runs log the same steps;
 * one that stopped early has fewer) and, per run's key (its arch unless the
 * run has a key of its own), each LINE_KEYS
 * series aligned to it, null past the run's last log: {x, lr, series: {arch:
 * {key: values}}}. `lr` is the learning rate at each step, the same for every
 * run (one schedule), from whichever run got that far.
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
  return { x, lr, series };
}

/** Values for a log axis: log10 of each positive finite value, null for the rest (a gap in the line). */
export const logValues = (values) => values.map((v) => (v === null ? null : log10OrNull(v)));

/** Values for a linear axis: finite values, null for the rest. */
export const finiteValues = (values) => values.map((v) => (Number.isFinite(v) ? v : null));

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
