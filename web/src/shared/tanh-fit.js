// Least-squares fits of points (x, y): a straight line y = m x + k, and an S-curve
// y = a tanh(b x) + c, each with its R^2 (1 - residual / total sum of squares about the mean
// of y), and the words of how the two compare. For a fixed b the S-curve is linear in a and c, so
// its best a and c are a line's fit of y on tanh(b x); b (taken > 0: a carries the sign) is the one
// number searched, on a log grid of b max|x| from 10^-3 to 10^3, then refined by golden section
// around the best grid point. At small b the S-curve tends to the line (a b = m), so its R^2 is
// the line's or more, up to the search's precision. Only the finite pairs count; `dropped` says
// how many were not.
//
//   const f = fitTanh(xs, ys);   // {a, b, c, r2, line: {slope, intercept, r2}, n, dropped, bend}
//   shapeOf(f)                   // 'S-shaped' | 'close to a line' | 'scattered' | 'not defined'

/** The finite pairs of x and y (any array-likes of one length). */
function finitePairs(x, y) {
  const xs = [];
  const ys = [];
  for (let i = 0; i < x.length; i++)
    if (Number.isFinite(x[i]) && Number.isFinite(y[i])) {
      xs.push(x[i]);
      ys.push(y[i]);
    }
  return { xs, ys };
}

/** Mean and sum of squares about it. */
function moments(v) {
  let s = 0;
  for (const a of v) s += a;
  const mean = s / v.length;
  let ss = 0;
  for (const a of v) ss += (a - mean) * (a - mean);
  return { mean, ss };
}

/**
 * The least-squares line of ys on us: {slope, intercept, sse}; the slope NaN when every u is the
 * same. `my`, `syy`: ys's mean and sum of squares (given, so a search need not compute them again).
 */
function regress(us, ys, my, syy) {
  const { mean: mu, ss: suu } = moments(us);
  let suy = 0;
  for (let i = 0; i < us.length; i++) suy += (us[i] - mu) * (ys[i] - my);
  if (!(suu > 0)) return { slope: NaN, intercept: NaN, sse: syy };
  const slope = suy / suu;
  return { slope, intercept: my - slope * mu, sse: Math.max(0, syy - (suy * suy) / suu) };
}

const rSquared = (sse, syy) => (syy > 0 ? 1 - sse / syy : NaN);

/** The least-squares line through the finite pairs: {slope, intercept, r2, n}. */
export function fitLine(x, y) {
  const { xs, ys } = finitePairs(x, y);
  const { mean, ss } = moments(ys);
  const l = xs.length >= 2 ? regress(xs, ys, mean, ss) : { slope: NaN, intercept: NaN, sse: NaN };
  return {
    slope: l.slope,
    intercept: l.intercept,
    r2: Number.isFinite(l.slope) ? rSquared(l.sse, ss) : NaN,
    n: xs.length,
  };
}

/** Grid points of b max|x| per decade, and the golden-section steps after. */
const PER_DECADE = 12;
const GOLDEN_STEPS = 60;

/**
 * The least-squares S-curve a tanh(b x) + c through the finite pairs of x and y, and the line's
 * fit of the same pairs: {a, b, c, r2, line, n, dropped, bend}; `bend` is b max|x|, how far into
 * tanh's bend the points reach (below about 1 the curve is nearly straight over them). Every number
 * NaN when there are fewer than 3 finite pairs, every x is the same, or every y.
 */
export function fitTanh(x, y) {
  const { xs, ys } = finitePairs(x, y);
  const n = xs.length;
  const dropped = Math.max(x.length, y.length) - n;
  const line = fitLine(xs, ys);
  const none = { a: NaN, b: NaN, c: NaN, r2: NaN, line, n, dropped, bend: NaN };
  if (n < 3) return none;
  const { mean: my, ss: syy } = moments(ys);
  let xmax = 0;
  for (const v of xs) xmax = Math.max(xmax, Math.abs(v));
  if (!(xmax > 0) || !(syy > 0) || !Number.isFinite(line.slope)) return none;
  const us = new Float64Array(n);
  const at = (logB) => {
    const b = 10 ** logB;
    for (let i = 0; i < n; i++) us[i] = Math.tanh(b * xs[i]);
    return regress(us, ys, my, syy);
  };
  // log10 of b: b max|x| from 10^-3 to 10^3
  const lo = -3 - Math.log10(xmax);
  const steps = 6 * PER_DECADE;
  let best = 0;
  const sse = [];
  for (let j = 0; j <= steps; j++) {
    sse.push(at(lo + j / PER_DECADE).sse);
    if (sse[j] < sse[best]) best = j;
  }
  // golden section between the best grid point's neighbours
  let p = lo + Math.max(0, best - 1) / PER_DECADE;
  let q = lo + Math.min(steps, best + 1) / PER_DECADE;
  const g = (Math.sqrt(5) - 1) / 2;
  let u = q - g * (q - p);
  let v = p + g * (q - p);
  let fu = at(u).sse;
  let fv = at(v).sse;
  for (let k = 0; k < GOLDEN_STEPS; k++) {
    if (fu <= fv) {
      q = v;
      v = u;
      fv = fu;
      u = q - g * (q - p);
      fu = at(u).sse;
    } else {
      p = u;
      u = v;
      fu = fv;
      v = p + g * (q - p);
      fv = at(v).sse;
    }
  }
  let logB = fu <= fv ? u : v;
  let fit = at(logB);
  const grid = lo + best / PER_DECADE;
  if (sse[best] < fit.sse) {
    logB = grid;
    fit = at(grid);
  }
  const b = 10 ** logB;
  return { a: fit.slope, b, c: fit.intercept, r2: rSquared(fit.sse, syy), line, n, dropped, bend: b * xmax };
}

/** The S-curve counts as S-shaped when it leaves at most this share of what the line leaves unexplained... */
export const RESIDUAL_SHARE = 0.75;
/** ...and bends within the points: b max|x| at least this. */
export const MIN_BEND = 1;
/** Below this R^2 of the S-curve, neither curve describes the points. */
export const MIN_R2 = 0.5;

/** How the points look from the two fits (fitTanh's): 'S-shaped', 'close to a line', 'scattered' or 'not defined'. */
export function shapeOf(f) {
  if (!Number.isFinite(f.r2) || !Number.isFinite(f.line.r2)) return 'not defined';
  if (f.r2 < MIN_R2) return 'scattered';
  return 1 - f.r2 <= RESIDUAL_SHARE * (1 - f.line.r2) && f.bend >= MIN_BEND ? 'S-shaped' : 'close to a line';
}
