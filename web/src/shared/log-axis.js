// Log axes as every chart draws them: log10 of the values on a linear scale
// (uPlot's own log scale stops drawing its axis near 1e17; a float stream
// reaches 1e38), ticks at whole decades labelled as powers of ten, or 1-2-5
// steps where the range spans about one decade. Pure functions, no DOM.
import { fmtValue, powerOfTen } from './format.js';

/** Steps, in decades, a thinned decade axis may take. */
const DECADE_STEPS = [1, 2, 3, 5, 10, 20, 25, 50, 100];

/** The whole decades (as exponents) around [lo, hi] (values, not logs), at least two of them. */
export function decadeRange(lo, hi) {
  if (!(lo <= hi)) return [-1, 1];
  let a = Math.floor(Math.log10(lo) + 1e-9);
  let b = Math.ceil(Math.log10(hi) - 1e-9);
  if (b - a < 2) {
    const mid = (Math.log10(lo) + Math.log10(hi)) / 2;
    a = Math.min(a, Math.round(mid) - 1);
    b = Math.max(b, Math.round(mid) + 1);
  }
  return [a, b];
}

/** Whole-decade ticks (exponents) within [lo, hi] (in log10 units), at most about `room` of them. */
export function decadeTicks(lo, hi, room) {
  const a = Math.ceil(lo - 1e-9);
  const b = Math.floor(hi + 1e-9);
  const need = (b - a + 1) / room;
  const step = DECADE_STEPS.find((s) => s >= need) ?? Math.ceil(need);
  const out = [];
  for (let e = Math.ceil(a / step) * step; e <= b; e += step) out.push(e + 0); // + 0: no -0
  return out;
}

// Mantissas tried, in order, when the range is about a decade or less.
const MANTISSAS = [
  [1, 2, 5],
  [1, 1.5, 2, 3, 5, 7],
  [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8],
];

/**
 * Ticks of a log axis over [lo, hi] (log10 units): whole decades when the
 * range spans more than about one, else the first mantissa set that gives at
 * least 3 ticks and fits in `room`; where even 1-2-5 is too many (a short
 * chart), every second (third, ...) of them, so an axis never goes unlabelled.
 */
export function logTicks(lo, hi, room) {
  if (hi - lo > 1.3) return decadeTicks(lo, hi, room);
  let best = [];
  for (const set of MANTISSAS) {
    const out = [];
    for (let e = Math.floor(lo); e <= Math.ceil(hi); e++)
      for (const m of set) {
        const v = e + Math.log10(m);
        if (v >= lo - 1e-9 && v <= hi + 1e-9) out.push(v);
      }
    if (out.length > room) {
      if (!best.length) best = out.filter((_, i) => i % Math.ceil(out.length / room) === 0);
      break;
    }
    best = out;
    if (out.length >= 3) break;
  }
  return best;
}

/** A tick's label: 10⁻⁴ at a whole decade, else the value (3 significant digits). */
export const logLabel = (e) => (Math.abs(e - Math.round(e)) < 1e-9 ? powerOfTen(Math.round(e)) : fmtValue(10 ** e));

/** log10 of a positive finite number; null for anything a log axis cannot show. */
export const log10OrNull = (v) => (typeof v === 'number' && v > 0 && Number.isFinite(v) ? Math.log10(v) : null);
