// From the engine's per-layer arrays to what the charts draw (pure functions,
// no DOM).
//
// Log axes cannot show 0, NaN or Infinity, and uPlot must never see the latter
// two. Every point is classed as
//   OK       drawn at its value;
//   ZERO     exactly 0 (gain 0 gives these): drawn on a "zero" lane one decade
//            below the smallest positive value, and labelled so;
//   OVERFLOW not finite, or computed from a stream that already overflowed:
//            drawn on an "overflow" lane one decade above the largest finite
//            value, as a dotted line of the arch's colour, never as a gap.
// Once the forward stream overflows at layer k, every later stream value and
// block update is meaningless (ReLU(NaN) = 0 etc.), and so is every gradient
// below the top, since backprop starts above k; those are classed OVERFLOW
// even when the float that came out happens to be finite.

import { decadeRange } from '../shared/log-axis.js';

export const OK = 0;
export const ZERO = 1;
export const OVERFLOW = 2;

export const METRICS = {
  grad: { key: 'grad_norm', offset: 0 },
  stream: { key: 'stream_rms', offset: 0 },
  update: { key: 'update_ratio', offset: 1 },
};

const firstBad = (a) => a.findIndex((v) => !Number.isFinite(v));
function lastBad(a) {
  for (let i = a.length - 1; i >= 0; i--) if (!Number.isFinite(a[i])) return i;
  return -1;
}

/** Where each arch's numbers stop meaning anything (null where they never do). */
export function overflowInfo(r) {
  const L = r.update_ratio.length;
  const s = firstBad(r.stream_rms);
  const stream = s < 0 ? null : s; // layer index
  const u = firstBad(r.update_ratio);
  let update = u < 0 ? null : u + 1; // block number
  if (stream !== null) update = Math.min(update ?? Infinity, Math.max(stream, 1));
  const g = lastBad(r.grad_norm);
  // the highest layer whose gradient is unusable (everything below it is too)
  let grad = g < 0 ? null : g;
  if (stream !== null) grad = Math.max(grad ?? -1, Number.isFinite(r.grad_norm[L]) ? L - 1 : L);
  const weights = firstBad(r.w1_grad_norm) >= 0 || firstBad(r.w2_grad_norm) >= 0;
  return { stream, update, grad, weights, engine: r.first_nonfinite };
}

/** The class of every point of one metric of one arch. */
export function classify(metric, values, info) {
  const cls = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    let bad = !Number.isFinite(v);
    if (metric === 'stream' && info.stream !== null && i >= info.stream) bad = true;
    if (metric === 'update' && info.update !== null && i + 1 >= info.update) bad = true;
    if (metric === 'grad' && info.grad !== null && i <= info.grad) bad = true;
    cls[i] = bad ? OVERFLOW : v <= 0 ? ZERO : OK;
  }
  return cls;
}

/**
 * Everything one chart needs. `results` is the engine's `out.results`, `archs`
 * the order to draw them in.
 *   x:      layer (or block) numbers
 *   raw:    {arch: number[]}  the engine's values, untouched (the test hook)
 *   cls:    {arch: Uint8Array}
 *   main:   {arch: (number|null)[]}  log10 of OK values, ZERO on the zero lane, null where OVERFLOW
 *   over:   {arch: (number|null)[]}  the overflow lane where OVERFLOW, joined to its neighbours
 *   scale:  [min, max] of the y axis in decades; lanes: {top, bottom} in decades (null if unused)
 */
export function prepareChart(metric, results, archs, reference = null) {
  const { key, offset } = METRICS[metric];
  const n = archs.length ? results[archs[0]][key].length : 0;
  const x = Array.from({ length: n }, (_, i) => i + offset);
  const raw = {},
    cls = {};
  let lo = Infinity,
    hi = -Infinity,
    anyZero = false,
    anyOver = false;
  const see = (v) => {
    if (v > 0 && Number.isFinite(v)) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  };
  for (const arch of archs) {
    const r = results[arch];
    const values = r[key];
    raw[arch] = Array.from(values);
    cls[arch] = classify(metric, values, overflowInfo(r));
    for (let i = 0; i < n; i++) {
      if (cls[arch][i] === OK) see(values[i]);
      else if (cls[arch][i] === ZERO) anyZero = true;
      else anyOver = true;
    }
  }
  if (reference) reference.forEach(see);

  // The charts plot log10 of the values on a linear axis (uPlot's own log axis
  // gives up past 1e17), so ranges and lanes are in decades.
  const [bottom, top] = decadeRange(lo, hi);
  const lanes = { bottom: anyZero ? bottom - 1 : null, top: anyOver ? top + 1 : null };
  const lower = anyZero ? lanes.bottom : bottom,
    upper = anyOver ? lanes.top : top;
  const pad = (upper - lower) * 0.035; // keeps a lane's line fully inside the plot
  const scale = [anyZero ? lower - pad : lower, anyOver ? upper + pad : upper];

  const main = {},
    over = {};
  for (const arch of archs) {
    const c = cls[arch],
      v = raw[arch];
    const m = new Array(n),
      o = new Array(n).fill(null);
    for (let i = 0; i < n; i++) m[i] = c[i] === OK ? Math.log10(v[i]) : c[i] === ZERO ? lanes.bottom : null;
    if (anyOver) {
      for (let i = 0; i < n; i++) {
        if (c[i] !== OVERFLOW) continue;
        o[i] = lanes.top;
        if (i > 0 && c[i - 1] !== OVERFLOW) o[i - 1] = m[i - 1];
        if (i + 1 < n && c[i + 1] !== OVERFLOW) o[i + 1] = m[i + 1];
      }
    }
    main[arch] = m;
    over[arch] = o;
  }
  return { metric, x, raw, cls, main, over, scale, lanes };
}

/** 1/sqrt(l) for blocks 1..L: the size of a unit update on a stream of size sqrt(l). */
export const sqrtReference = (L) => Array.from({ length: L }, (_, i) => 1 / Math.sqrt(i + 1));

/** The same, as drawn (log10). */
export const logOf = (values) => values.map((v) => Math.log10(v));
