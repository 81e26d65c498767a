// The heat maps' colour scales, the training lab's and the papers page's:
// viridis (perceptually uniform, readable with every common colour-vision
// deficiency and in greyscale, dark to light), from the degree-6 polynomial
// fit of matplotlib's table (Matt Zucker's, within about 1% of it), and the
// log scale that places a value on it; the diverging scale of DenseFormer's
// signed averaging weights (below). Pure functions, no DOM.
import { log10OrNull } from './log-axis.js';

const C = [
  [0.2777273272234177, 0.005407344544966578, 0.3340998053353061],
  [0.1050930431085774, 1.404613529898575, 1.384590162594685],
  [-0.3308618287255563, 0.214847559468213, 0.09509516302823659],
  [-4.634230498983486, -5.799100973351585, -19.33244095627987],
  [6.228269936347081, 14.17993336680509, 56.69055260068105],
  [4.776384997670288, -13.74514537774601, -65.35303263337234],
  [-5.435455855934631, 4.645852612178535, 26.3124352495832],
];

const clamp01 = (t) => Math.min(1, Math.max(0, t));

/** viridis at t in [0, 1]: [r, g, b], each 0..255. */
export function viridis(t) {
  const x = clamp01(t);
  return [0, 1, 2].map((k) => {
    let v = C[6][k];
    for (let i = 5; i >= 0; i--) v = v * x + C[i][k];
    return Math.round(255 * clamp01(v));
  });
}

/** The colours at 256 points, [r, g, b] each, for drawing many cells quickly. */
export const VIRIDIS = Array.from({ length: 256 }, (_, i) => viridis(i / 255));

/** How a value is drawn: 'value' (on the scale), 'zero' (exactly 0, off a log scale), 'nonfinite' (NaN, Infinity). */
export function cellKind(v) {
  if (!Number.isFinite(v)) return 'nonfinite';
  return v > 0 ? 'value' : 'zero';
}

/**
 * A log scale that grows with the values added: add(values) takes an array
 * of numbers; scale() is {lo, hi} in log10 units over every positive finite
 * value added, at least one decade wide (a flat map still reads as one
 * colour in the middle), or null before there is one.
 */
export function createLogExtent() {
  let lo = Infinity;
  let hi = -Infinity;
  return {
    add(values) {
      for (const v of values) {
        const l = log10OrNull(v);
        if (l === null) continue;
        if (l < lo) lo = l;
        if (l > hi) hi = l;
      }
    },
    scale() {
      if (lo > hi) return null;
      if (hi - lo >= 1) return { lo, hi };
      const mid = (hi + lo) / 2;
      return { lo: mid - 0.5, hi: mid + 0.5 };
    },
  };
}

/** The log scale over every positive finite value of `columns` (arrays of numbers), as createLogExtent's. */
export function logExtent(columns) {
  const e = createLogExtent();
  for (const col of columns) e.add(col);
  return e.scale();
}

/** Where a positive finite value sits on `scale`, 0..1. */
export const scaleAt = (scale, v) => clamp01((Math.log10(v) - scale.lo) / (scale.hi - scale.lo));

// A diverging scale for signed values (DenseFormer's averaging weights):
// purple for negative, a light neutral at 0, orange for positive (ColorBrewer's
// PuOr, readable with the common colour-vision deficiencies), linear between
// its five anchors.
const PUOR = [
  [94, 60, 153],
  [178, 171, 210],
  [247, 247, 247],
  [253, 184, 99],
  [230, 97, 1],
];

/** PuOr at t in [0, 1] (0.5 the neutral middle): [r, g, b], each 0..255. */
export function diverging(t) {
  const x = clamp01(t) * (PUOR.length - 1);
  const i = Math.min(PUOR.length - 2, Math.floor(x));
  const f = x - i;
  return [0, 1, 2].map((k) => Math.round(PUOR[i][k] + f * (PUOR[i + 1][k] - PUOR[i][k])));
}

/** Where a finite value sits on a symmetric linear scale of half-width `max`: 0..1, 0.5 for 0. */
export const signedAt = (max, v) => clamp01(0.5 + (max > 0 ? v / (2 * max) : 0));
