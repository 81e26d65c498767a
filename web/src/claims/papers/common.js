// What the claims' modules (./<id>.js) share: the verdict of a table of rows and
// the few numeric measures more than one claim judges by. No DOM, and no import
// of the papers page's views (../../papers/), which read the claims through ./index.js.
import { decimals, powerOfTen } from '../../shared/format.js';

/** A power of ten below 0.01 as 10⁻⁶, any other number as decimals() writes it. */
export function sci(v) {
  const e = Math.round(Math.log10(v));
  return v < 0.01 && Math.abs(v / 10 ** e - 1) < 1e-9 ? powerOfTen(e) : decimals(v);
}

/** max/min of the values. */
export function spread(values) {
  let lo = Infinity,
    hi = -Infinity;
  for (const v of values) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return hi / lo; // Infinity when a value is 0
}

/** Coefficient of variation, the standard deviation over the mean (population SD). */
export function variation(values) {
  const m = values.reduce((s, v) => s + v, 0) / values.length;
  const v = values.reduce((s, x) => s + (x - m) ** 2, 0) / values.length;
  return Math.sqrt(v) / m;
}

/** The largest |v / ref - 1| over `values`. */
export const worstDeviation = (values, ref) => values.reduce((m, v) => Math.max(m, Math.abs(v / ref - 1)), 0);

/** How far the values stray from 1, as a factor: max over values of max(v, 1/v). */
export const worstFactor = (values) => values.reduce((m, v) => Math.max(m, v, 1 / v), 1);

const verdictOf = (oks) => (oks.every(Boolean) ? 'holds' : oks.some(Boolean) ? 'partly' : 'fails');

/**
 * A summary from its rows: the verdict of the judged rows (ok not null) with the rows and the facts.
 * 'holds' (every criterion met), 'partly' (some), 'fails' (none).
 */
export const judged = (rows, facts) => ({
  rows,
  verdict: verdictOf(rows.filter((r) => r.ok !== null).map((r) => r.ok)),
  facts,
});

/** The subtitle "‖∂L/∂h‖, log scale" of the gradient-by-layer charts (pageFigures). */
export const GRAD_BY_LAYER =
  '<span class="nw">\\(\\lVert \\partial \\mathcal{L} / \\partial h_l \\rVert\\),</span> log scale';

/** The stream-size chart beside a gradient chart (pageFigures): RMS of h_l for `who`. */
export const streamFigure = (id, who) => ({
  chart: `${id}-stream`,
  title: 'Size of the stream',
  sub: 'RMS of <span class="nw">\\(h_l\\),</span> log scale',
  short: true,
  legend: false,
  aria: `Chart: stream RMS at each layer for ${who}.`,
});
