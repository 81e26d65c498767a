// bench/js/engine.js: the resnorm model (docs/model.md, "The simulation") in plain JavaScript.
//
// A benchmark contender for the C++ engine in core/: the same math, written the
// way a careful author of an interactive explorable would write it. Float32Array
// buffers, plain loops over typed arrays, no dependencies, no SIMD.
//
// It computes the SAME numbers as the engine:
//  - random numbers: splitmix64 (BigInt) and the polar method in double, with the
//    engine's stream keys (core/include/resnorm/rng.h, core/src/model.cpp);
//  - weights are generated in double and stored as float32, base matrices B1 (d x m),
//    B2 (m x d) with W1 = s1 B1, W2 = s2 B2 (recipe() and Model::configure());
//  - arithmetic is float32 where the engine uses float: every product and sum is
//    rounded with Math.fround (or by the store into a Float32Array), and sums run in
//    the engine's order (gemm_nn: sequential over k; gemm_nt: four interleaved partial
//    sums, as the engine's 4-lane vectors, then the tail), so results agree bit for bit
//    up to the last-place differences of erf/tanh/exp/log between V8 and libm;
//  - metric norms are accumulated in double.
//
//   import { simulate } from './engine.js';
//   const res = simulate({ arch: ['plain', 'pre_ln'], depth: 96, gain: 1.2 });
//   res.results.pre_ln.grad_norm   // Float64Array(L + 1)
//
// An Engine keeps its weight bank (base weights per (seed, d, m, init), grown with
// depth, like core's WeightBank) and one workspace per arch slot between calls, so a
// call that changes only gain or arch regenerates nothing and allocates little.

const fround = Math.fround;

// ---------------------------------------------------------------- config

export const ARCHS = ['plain', 'residual', 'post_ln', 'post_rms', 'pre_ln', 'pre_rms', 'sandwich', 'deepnorm', 'gpt2'];
export const ACTIVATIONS = ['relu', 'gelu', 'tanh', 'linear'];
export const INITS = ['gaussian', 'orthogonal'];
export const FINAL_NORMS = ['none', 'layernorm', 'rmsnorm'];
export const DEFAULTS = Object.freeze({
  arch: Object.freeze(['plain', 'residual', 'post_ln', 'pre_ln']),
  depth: 96,
  width: 64,
  tokens: 8,
  expansion: 1,
  gain: 1.0,
  activation: 'relu',
  init: 'gaussian',
  final_norm: 'none',
  seed: 0,
});
const MAX_WEIGHTS = 64 * 1024 * 1024; // 2 L d m at most (docs/model.md, memory budget)
const EPS32 = fround(1e-5);

const NONE = 0,
  LAYERNORM = 1,
  RMSNORM = 2;
const RELU = 0,
  GELU = 1,
  TANH = 2,
  LINEAR = 3;

function choice(name, value, allowed) {
  const i = allowed.indexOf(value);
  if (i < 0) throw new RangeError(`${name}: '${value}' is not a known value (allowed ${allowed.join('|')})`);
  return i;
}

function number(name, value, min, max, whole) {
  const v = typeof value === 'string' ? Number(value) : value;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`${name}: '${value}' is not a finite number`);
  if (whole && !Number.isInteger(v)) throw new RangeError(`${name}: '${value}' is not a whole number`);
  if (v < min || v > max) throw new RangeError(`${name}: '${value}' is out of range (allowed ${min}..${max})`);
  return v;
}

// Fills in defaults and checks ranges; throws a RangeError naming the field.
export function normalizeConfig(config = {}) {
  const c = { ...DEFAULTS, ...config };
  let archs = typeof c.arch === 'string' ? c.arch.split(',') : [...c.arch];
  if (archs.length === 0) throw new RangeError('arch: the list is empty');
  const seen = [];
  for (const a of archs) {
    choice('arch', a, ARCHS);
    if (!seen.includes(a)) seen.push(a);
  }
  archs = seen;
  const out = {
    arch: archs,
    depth: number('depth', c.depth, 1, 1024, true),
    width: number('width', c.width, 2, 512, true),
    tokens: number('tokens', c.tokens, 1, 64, true),
    expansion: number('expansion', c.expansion, 1, 4, true),
    gain: number('gain', c.gain, 0, 4, false),
    activation: c.activation,
    init: c.init,
    final_norm: c.final_norm,
    seed: number('seed', c.seed, 0, 4294967295, true),
  };
  if (![1, 2, 4].includes(out.expansion))
    throw new RangeError(`expansion: '${c.expansion}' is not one of 1, 2, 4 (allowed 1, 2 or 4)`);
  choice('activation', out.activation, ACTIVATIONS);
  choice('init', out.init, INITS);
  choice('final_norm', out.final_norm, FINAL_NORMS);
  const perLayer = 2 * out.width * out.width * out.expansion;
  if (perLayer * out.depth > MAX_WEIGHTS)
    throw new RangeError(
      `depth: ${out.depth} is too deep for width ${out.width} and expansion ${out.expansion} ` +
        `(allowed 1..${Math.floor(MAX_WEIGHTS / perLayer)} there: at most ${MAX_WEIGHTS} weights in all)`,
    );
  return out;
}

// ---------------------------------------------------------------- architectures (recipe() in recipes.cpp)

export function recipe(arch, N) {
  const r = { skip: true, alpha: 1.0, inn: NONE, out: NONE, outer: NONE, w1: 1.0, w2: 1.0 };
  switch (arch) {
    case 'plain':
      r.skip = false;
      break;
    case 'residual':
      break;
    case 'post_ln':
      r.outer = LAYERNORM;
      break;
    case 'post_rms':
      r.outer = RMSNORM;
      break;
    case 'pre_ln':
      r.inn = LAYERNORM;
      break;
    case 'pre_rms':
      r.inn = RMSNORM;
      break;
    case 'sandwich':
      r.inn = RMSNORM;
      r.out = RMSNORM;
      break;
    case 'deepnorm':
      r.outer = LAYERNORM;
      r.alpha = Math.pow(2.0 * N, 0.25);
      r.w1 = r.w2 = Math.pow(8.0 * N, -0.25);
      break;
    case 'gpt2':
      r.inn = LAYERNORM;
      r.w2 = 1.0 / Math.sqrt(N);
      break;
    default:
      throw new RangeError(`arch: '${arch}' is not a known architecture`);
  }
  return r;
}

// ---------------------------------------------------------------- randomness (rng.h)

const GOLDEN = 0x9e3779b97f4a7c15n;
const MIX1 = 0xbf58476d1ce4e5b9n;
const MIX2 = 0x94d049bb133111ebn;
const TWO_M53 = 2 ** -53;

// splitmix64's output function of an already advanced state.
function mix64(z) {
  z = BigInt.asUintN(64, (z ^ (z >> 30n)) * MIX1);
  z = BigInt.asUintN(64, (z ^ (z >> 27n)) * MIX2);
  return z ^ (z >> 31n);
}

// stream_key({a, b, ...}): a key from a tuple of integers.
export function streamKey(parts) {
  let h = 0x6a09e667f3bcc909n;
  for (const p of parts) h = mix64(BigInt.asUintN(64, (h ^ BigInt(p)) + GOLDEN));
  return h;
}

/** One arch's result arrays for depth L (a simulation's metrics), zeroed; first_nonfinite null. */
export function emptyResult(L) {
  return {
    grad_norm: new Float64Array(L + 1),
    stream_rms: new Float64Array(L + 1),
    update_ratio: new Float64Array(L),
    w1_grad_norm: new Float64Array(L),
    w2_grad_norm: new Float64Array(L),
    first_nonfinite: null,
  };
}

export class NormalRng {
  constructor(key) {
    this.state = BigInt.asUintN(64, BigInt(key));
    this.spare = 0;
    this.hasSpare = false;
  }
  // Uniform in (0, 1], 53 bits.
  uniform() {
    this.state = BigInt.asUintN(64, this.state + GOLDEN);
    return (Number(mix64(this.state) >> 11n) + 1) * TWO_M53;
  }
  // Marsaglia's polar method, the spare returned on the next call.
  normal() {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    let u, v, s;
    do {
      u = 2.0 * this.uniform() - 1.0;
      v = 2.0 * this.uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s === 0.0);
    const f = Math.sqrt((-2.0 * Math.log(s)) / s);
    this.spare = v * f;
    this.hasSpare = true;
    return u * f;
  }
}

// Tags that keep the streams of different tensors apart (enum class Stream).
const STREAM_INPUT = 1,
  STREAM_READOUT = 2,
  STREAM_W1 = 3,
  STREAM_W2 = 4;

// rows x cols, row-major, i.i.d. N(0, 1) in double.
export function gaussianMatrix(key, rows, cols) {
  const rng = new NormalRng(key);
  const g = new Float64Array(rows * cols);
  for (let i = 0; i < g.length; ++i) g[i] = rng.normal();
  return g;
}

// (Semi-)orthogonal rows x cols (row-major, double): Householder QR of a (big x small)
// gaussian matrix, Q thin with the signs of R's diagonal made positive (Eigen's
// HouseholderQR, then q.col(j) = -q.col(j) where R(j,j) < 0), scaled so that
// ||W||_F^2 = rows * cols.
export function orthogonalMatrix(key, rows, cols) {
  const big = Math.max(rows, cols),
    small = Math.min(rows, cols);
  const g = gaussianMatrix(key, big, small);
  // Column-major copy: A[j * big + i] = G(i, j), so every column is contiguous.
  const A = new Float64Array(big * small);
  for (let i = 0; i < big; ++i) for (let j = 0; j < small; ++j) A[j * big + i] = g[i * small + j];
  const tau = new Float64Array(small);
  const rdiag = new Float64Array(small);
  for (let j = 0; j < small; ++j) {
    const cj = j * big;
    // Eigen's makeHouseholder: x = A(j:, j) -> beta e_1, v = (1, x(1:) / (x0 - beta)).
    const c0 = A[cj + j];
    let tail = 0;
    for (let i = j + 1; i < big; ++i) tail += A[cj + i] * A[cj + i];
    let beta, t;
    if (tail <= Number.MIN_VALUE * 2 ** 52) {
      // numeric_limits<double>::min()
      t = 0;
      beta = c0;
      for (let i = j + 1; i < big; ++i) A[cj + i] = 0;
    } else {
      beta = Math.sqrt(c0 * c0 + tail);
      if (c0 >= 0) beta = -beta;
      const inv = 1 / (c0 - beta);
      for (let i = j + 1; i < big; ++i) A[cj + i] *= inv;
      t = (beta - c0) / beta;
    }
    A[cj + j] = beta;
    tau[j] = t;
    rdiag[j] = beta;
    if (t === 0) continue;
    // A(j:, k) -= t v (v^T A(j:, k)) for the columns to the right.
    for (let k = j + 1; k < small; ++k) {
      const ck = k * big;
      let w = A[ck + j];
      for (let i = j + 1; i < big; ++i) w += A[cj + i] * A[ck + i];
      w *= t;
      A[ck + j] -= w;
      for (let i = j + 1; i < big; ++i) A[ck + i] -= w * A[cj + i];
    }
  }
  // Q thin = H_0 H_1 ... H_{small-1} I(big, small), accumulated backwards.
  const Q = new Float64Array(big * small); // column-major
  for (let j = 0; j < small; ++j) Q[j * big + j] = 1;
  for (let j = small - 1; j >= 0; --j) {
    const t = tau[j];
    if (t === 0) continue;
    const cj = j * big;
    for (let k = j; k < small; ++k) {
      const ck = k * big;
      let w = Q[ck + j];
      for (let i = j + 1; i < big; ++i) w += A[cj + i] * Q[ck + i];
      w *= t;
      Q[ck + j] -= w;
      for (let i = j + 1; i < big; ++i) Q[ck + i] -= w * A[cj + i];
    }
  }
  const scale = Math.sqrt((rows * cols) / small);
  const W = new Float64Array(rows * cols);
  for (let j = 0; j < small; ++j) {
    const s = rdiag[j] < 0 ? -scale : scale;
    const cj = j * big;
    if (rows >= cols)
      for (let i = 0; i < big; ++i) W[i * cols + j] = s * Q[cj + i]; // W = Q
    else for (let i = 0; i < big; ++i) W[j * cols + i] = s * Q[cj + i]; // W = Q^T
  }
  return W;
}

// h_0: (T, d) i.i.d. N(0, 1).
export function inputStream(seed, T, d) {
  return gaussianMatrix(streamKey([seed, STREAM_INPUT, T, d]), T, d);
}

// r = z / ||z||_F.
export function readout(seed, T, d) {
  const z = gaussianMatrix(streamKey([seed, STREAM_READOUT, T, d]), T, d);
  let sq = 0;
  for (let i = 0; i < z.length; ++i) sq += z[i] * z[i];
  const norm = Math.sqrt(sq);
  for (let i = 0; i < z.length; ++i) z[i] /= norm;
  return z;
}

// Base weights per layer for one (seed, d, m, init), generated once and grown as
// depth grows (WeightBank in model.cpp). Layer l's weights never depend on L.
export class WeightBank {
  constructor() {
    this.key = '';
    this.layers = []; // layers[l - 1] = {B1: Float32Array(d m), B2: Float32Array(m d)}
  }
  prepare(seed, d, m, init, depth) {
    const key = `${seed},${d},${m},${init}`;
    if (key !== this.key) {
      this.key = key;
      this.layers = [];
    }
    const initIndex = INITS.indexOf(init);
    const make = initIndex === 0 ? gaussianMatrix : orthogonalMatrix;
    while (this.layers.length < depth) {
      const l = this.layers.length + 1;
      const k1 = streamKey([seed, STREAM_W1, l, d, m, initIndex]);
      const k2 = streamKey([seed, STREAM_W2, l, d, m, initIndex]);
      this.layers.push({ B1: Float32Array.from(make(k1, d, m)), B2: Float32Array.from(make(k2, m, d)) });
    }
  }
}

// ---------------------------------------------------------------- products (kernels.h)

// C[M x N] = scale * A[M x K] B[K x N], i-k-j: each C(i, j) is summed over k in order.
function gemmNN(A, B, C, M, K, N, scale) {
  for (let i = 0; i < M; ++i) {
    const ci = i * N,
      ai = i * K;
    for (let j = 0; j < N; ++j) C[ci + j] = 0;
    for (let k = 0; k < K; ++k) {
      const a = A[ai + k];
      const bk = k * N;
      for (let j = 0; j < N; ++j) C[ci + j] += fround(a * B[bk + j]);
    }
    if (scale !== 1) for (let j = 0; j < N; ++j) C[ci + j] *= scale;
  }
}

// C[M x N] = scale * A[M x K] B[N x K]^T: dot products of rows, with four partial
// sums over k = 0, 1, 2, 3 mod 4 added as (s0 + s2) + (s1 + s3), then the tail.
function gemmNT(A, B, C, M, K, N, scale) {
  const Kv = K - (K % 4);
  for (let i = 0; i < M; ++i) {
    const ai = i * K;
    for (let j = 0; j < N; ++j) {
      const bj = j * K;
      let s0 = 0,
        s1 = 0,
        s2 = 0,
        s3 = 0;
      for (let k = 0; k < Kv; k += 4) {
        s0 = fround(s0 + fround(A[ai + k] * B[bj + k]));
        s1 = fround(s1 + fround(A[ai + k + 1] * B[bj + k + 1]));
        s2 = fround(s2 + fround(A[ai + k + 2] * B[bj + k + 2]));
        s3 = fround(s3 + fround(A[ai + k + 3] * B[bj + k + 3]));
      }
      let s = fround(fround(s0 + s2) + fround(s1 + s3));
      for (let k = Kv; k < K; ++k) s = fround(s + fround(A[ai + k] * B[bj + k]));
      C[i * N + j] = s * scale;
    }
  }
}

function sqNorm(x) {
  let s = 0;
  for (let i = 0; i < x.length; ++i) s += x[i] * x[i];
  return s;
}

function frobDot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; ++i) s += a[i] * b[i];
  return s;
}

// ||A^T B||_F^2 from float Gram matrices, redone in double (scaled) when the
// float squares overflow or underflow with finite inputs: model.cpp's grad_sq.
function gradSq(A, Ka, B, Kb, T, gA, gB) {
  gemmNT(A, A, gA, T, Ka, T, 1);
  gemmNT(B, B, gB, T, Kb, T, 1);
  const r = frobDot(gA, gB);
  if (Number.isFinite(r) && r > 1e-60) return r;
  const finite = (X, K) => {
    for (let i = 0; i < T * K; ++i) if (!Number.isFinite(X[i])) return false;
    return true;
  };
  if (!finite(A, Ka) || !finite(B, Kb)) return Number.isFinite(r) ? NaN : r;
  const maxabs = (X, K) => {
    let m = 0;
    for (let i = 0; i < T * K; ++i) m = Math.max(m, Math.abs(X[i]));
    return m > 0 ? m : 1;
  };
  const sa = maxabs(A, Ka),
    sb = maxabs(B, Kb);
  let sum = 0;
  for (let i = 0; i < T; ++i)
    for (let j = 0; j < T; ++j) {
      let gi = 0,
        gj = 0;
      for (let k = 0; k < Ka; ++k) gi += (A[i * Ka + k] / sa) * (A[j * Ka + k] / sa);
      for (let k = 0; k < Kb; ++k) gj += (B[i * Kb + k] / sb) * (B[j * Kb + k] / sb);
      sum += gi * gj;
    }
  return sum * (sa * sa) * (sb * sb);
}

// ---------------------------------------------------------------- norms (norms.h)

class Norm {
  constructor(T, d) {
    this.kind = NONE;
    this.gamma = new Float32Array(d);
    this.beta = new Float32Array(d);
    this.dgamma = new Float32Array(d);
    this.dbeta = new Float32Array(d);
    this.mean = new Float32Array(T);
    this.rstd = new Float32Array(T);
  }
  reset(kind) {
    this.kind = kind;
    if (kind === NONE) return;
    this.gamma.fill(1);
    this.beta.fill(0);
    this.dgamma.fill(0);
    this.dbeta.fill(0);
  }
  zeroGrad() {
    if (this.kind === NONE) return;
    this.dgamma.fill(0);
    this.dbeta.fill(0);
  }
  forward(y, x, T, d) {
    if (this.kind === LAYERNORM) layernormForward(y, this.mean, this.rstd, x, this.gamma, this.beta, T, d);
    else rmsnormForward(y, this.rstd, x, this.gamma, T, d);
  }
  // dx +=
  backward(dx, dy, x, T, d) {
    if (this.kind === LAYERNORM)
      layernormBackward(dx, this.dgamma, this.dbeta, dy, x, this.gamma, this.mean, this.rstd, T, d);
    else rmsnormBackward(dx, this.dgamma, dy, x, this.gamma, this.rstd, T, d);
  }
}

// The norms sum over a token's d features in the core's order (norms.h): four
// lanes, lane j adding the features i = j mod 4 of the vector part (the first
// d - d mod 4) in order, the lanes combined as (l0 + l2) + (l1 + l3), then the
// tail features one by one. lanes4(l) combines the four lanes l = [l0, l1, l2, l3].
const lanes4 = (l) => fround(fround(l[0] + l[2]) + fround(l[1] + l[3]));

// y = (x - mean) * rstd * gamma + beta,  rstd = 1 / sqrt(var + eps).
function layernormForward(y, mean, rstd, x, gamma, beta, T, d) {
  const n = d - (d % 4);
  const l = [0, 0, 0, 0];
  for (let t = 0; t < T; ++t) {
    const o = t * d;
    l.fill(0);
    for (let i = 0; i < n; ++i) l[i & 3] = fround(l[i & 3] + x[o + i]);
    let m = lanes4(l);
    for (let i = n; i < d; ++i) m = fround(m + x[o + i]);
    m = fround(m / d);
    l.fill(0);
    for (let i = 0; i < n; ++i) {
      const c = fround(x[o + i] - m);
      l[i & 3] = fround(l[i & 3] + fround(c * c));
    }
    let v = lanes4(l);
    for (let i = n; i < d; ++i) {
      const c = fround(x[o + i] - m);
      v = fround(v + fround(c * c));
    }
    v = fround(v / d);
    const r = fround(1 / fround(Math.sqrt(fround(v + EPS32))));
    for (let i = 0; i < d; ++i) y[o + i] = fround(fround(fround(x[o + i] - m) * r) * gamma[i]) + beta[i];
    mean[t] = m;
    rstd[t] = r;
  }
}

// dx += rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dy * gamma.
function layernormBackward(dx, dgamma, dbeta, dy, x, gamma, mean, rstd, T, d) {
  const n = d - (d % 4);
  const gl = [0, 0, 0, 0],
    gxl = [0, 0, 0, 0];
  for (let t = 0; t < T; ++t) {
    const o = t * d;
    const m = mean[t],
      r = rstd[t];
    gl.fill(0);
    gxl.fill(0);
    let gMean = 0,
      gxMean = 0;
    for (let i = 0; i < d; ++i) {
      const xhat = fround(fround(x[o + i] - m) * r);
      const g = fround(dy[o + i] * gamma[i]);
      if (i < n) {
        gl[i & 3] = fround(gl[i & 3] + g);
        gxl[i & 3] = fround(gxl[i & 3] + fround(g * xhat));
        if (i === n - 1) {
          gMean = lanes4(gl);
          gxMean = lanes4(gxl);
        }
      } else {
        gMean = fround(gMean + g);
        gxMean = fround(gxMean + fround(g * xhat));
      }
    }
    gMean = fround(gMean / d);
    gxMean = fround(gxMean / d);
    for (let i = 0; i < d; ++i) {
      const xhat = fround(fround(x[o + i] - m) * r);
      const g = fround(dy[o + i] * gamma[i]);
      dbeta[i] += dy[o + i];
      dgamma[i] += fround(dy[o + i] * xhat);
      dx[o + i] += fround(r * fround(fround(g - gMean) - fround(xhat * gxMean)));
    }
  }
}

// y = x * rstd * gamma,  rstd = 1 / sqrt(mean(x^2) + eps).
function rmsnormForward(y, rstd, x, gamma, T, d) {
  const n = d - (d % 4);
  const l = [0, 0, 0, 0];
  for (let t = 0; t < T; ++t) {
    const o = t * d;
    l.fill(0);
    for (let i = 0; i < n; ++i) l[i & 3] = fround(l[i & 3] + fround(x[o + i] * x[o + i]));
    let ms = lanes4(l);
    for (let i = n; i < d; ++i) ms = fround(ms + fround(x[o + i] * x[o + i]));
    ms = fround(ms / d);
    const r = fround(1 / fround(Math.sqrt(fround(ms + EPS32))));
    for (let i = 0; i < d; ++i) y[o + i] = fround(x[o + i] * r) * gamma[i];
    rstd[t] = r;
  }
}

// dx += rstd * (g - xhat * mean(g * xhat)),  g = dy * gamma.
function rmsnormBackward(dx, dgamma, dy, x, gamma, rstd, T, d) {
  const n = d - (d % 4);
  const l = [0, 0, 0, 0];
  for (let t = 0; t < T; ++t) {
    const o = t * d;
    const r = rstd[t];
    const term = (i) => fround(fround(fround(dy[o + i] * gamma[i]) * x[o + i]) * r);
    l.fill(0);
    for (let i = 0; i < n; ++i) l[i & 3] = fround(l[i & 3] + term(i));
    let gxMean = lanes4(l);
    for (let i = n; i < d; ++i) gxMean = fround(gxMean + term(i));
    gxMean = fround(gxMean / d);
    for (let i = 0; i < d; ++i) {
      const xhat = fround(x[o + i] * r);
      dgamma[i] += fround(dy[o + i] * xhat);
      dx[o + i] += fround(r * fround(fround(dy[o + i] * gamma[i]) - fround(xhat * gxMean)));
    }
  }
}

// ---------------------------------------------------------------- activations

// erf in double: fdlibm's s_erf.c (|error| < 1 ulp), the algorithm of glibc's erf.
const ERX = 8.45062911510467529297e-1;
const EFX = 1.28379167095512586316e-1;
const PP0 = 1.28379167095512558561e-1,
  PP1 = -3.2504210724700149937e-1,
  PP2 = -2.84817495755985104766e-2,
  PP3 = -5.77027029648944159157e-3,
  PP4 = -2.37630166566501626084e-5;
const QQ1 = 3.97917223959155352819e-1,
  QQ2 = 6.50222499887672944485e-2,
  QQ3 = 5.08130628187576562776e-3,
  QQ4 = 1.32494738004321644526e-4,
  QQ5 = -3.9602282787753681232e-6;
const PA0 = -2.36211856075265944077e-3,
  PA1 = 4.14856118683748331666e-1,
  PA2 = -3.72207876035701323847e-1,
  PA3 = 3.18346619901161753674e-1,
  PA4 = -1.10894694282396677476e-1,
  PA5 = 3.54783043256182359371e-2,
  PA6 = -2.166375594868790843e-3;
const QA1 = 1.06420880400844228286e-1,
  QA2 = 5.40397917702171048937e-1,
  QA3 = 7.18286544141962662868e-2,
  QA4 = 1.26171219808761642112e-1,
  QA5 = 1.36370839120290507362e-2,
  QA6 = 1.1984499846799107417e-2;
const RA0 = -9.86494403484714822705e-3,
  RA1 = -6.93858572707181764372e-1,
  RA2 = -1.05586262253232909814e1,
  RA3 = -6.23753324503260060396e1,
  RA4 = -1.62396669462573470355e2,
  RA5 = -1.84605092906711035994e2,
  RA6 = -8.12874355063065934246e1,
  RA7 = -9.81432934416914548592;
const SA1 = 1.96512716674392571292e1,
  SA2 = 1.376577541435190426e2,
  SA3 = 4.34565877475229228821e2,
  SA4 = 6.45387271733267880336e2,
  SA5 = 4.29008140027567833386e2,
  SA6 = 1.08635005541779435134e2,
  SA7 = 6.57024977031928170135,
  SA8 = -6.04244152148580987438e-2;
const RB0 = -9.86494292470009928597e-3,
  RB1 = -7.99283237680523006574e-1,
  RB2 = -1.77579549177547519889e1,
  RB3 = -1.60636384855821916062e2,
  RB4 = -6.37566443368389627722e2,
  RB5 = -1.02509513161107724954e3,
  RB6 = -4.83519191608651397019e2;
const SB1 = 3.03380607434824582924e1,
  SB2 = 3.25792512996573918826e2,
  SB3 = 1.53672958608443695994e3,
  SB4 = 3.19985821950859553908e3,
  SB5 = 2.55305040643316442583e3,
  SB6 = 4.74528541206955367215e2,
  SB7 = -2.24409524465858183362e1;
const erfScratch = new DataView(new ArrayBuffer(8));

export function erf(x) {
  if (Number.isNaN(x)) return x;
  const ax = Math.abs(x);
  if (ax < 0.84375) {
    if (ax < 3.725290298461914e-9) return x + EFX * x; // |x| < 2^-28
    const z = x * x;
    const r = PP0 + z * (PP1 + z * (PP2 + z * (PP3 + z * PP4)));
    const s = 1 + z * (QQ1 + z * (QQ2 + z * (QQ3 + z * (QQ4 + z * QQ5))));
    return x + x * (r / s);
  }
  if (ax < 1.25) {
    const s = ax - 1;
    const P = PA0 + s * (PA1 + s * (PA2 + s * (PA3 + s * (PA4 + s * (PA5 + s * PA6)))));
    const Q = 1 + s * (QA1 + s * (QA2 + s * (QA3 + s * (QA4 + s * (QA5 + s * QA6)))));
    return x >= 0 ? ERX + P / Q : -ERX - P / Q;
  }
  if (ax >= 6) return x >= 0 ? 1 : -1; // 1 - tiny rounds to 1
  const s = 1 / (ax * ax);
  let R, S;
  if (ax < 1 / 0.35) {
    R = RA0 + s * (RA1 + s * (RA2 + s * (RA3 + s * (RA4 + s * (RA5 + s * (RA6 + s * RA7))))));
    S = 1 + s * (SA1 + s * (SA2 + s * (SA3 + s * (SA4 + s * (SA5 + s * (SA6 + s * (SA7 + s * SA8)))))));
  } else {
    R = RB0 + s * (RB1 + s * (RB2 + s * (RB3 + s * (RB4 + s * (RB5 + s * RB6)))));
    S = 1 + s * (SB1 + s * (SB2 + s * (SB3 + s * (SB4 + s * (SB5 + s * (SB6 + s * SB7))))));
  }
  // exp(-x^2 - 0.5625 + R/S) as exp(-z^2 - 0.5625) exp((z - x)(z + x) + R/S), z = x with
  // the low 32 bits cleared, so -z^2 is exact.
  erfScratch.setFloat64(0, ax);
  erfScratch.setUint32(4, 0);
  const z = erfScratch.getFloat64(0);
  const r = Math.exp(-z * z - 0.5625) * Math.exp((z - ax) * (z + ax) + R / S);
  return x >= 0 ? 1 - r / ax : r / ax - 1;
}

const SQRT1_2_F = fround(0.7071067811865475244);
const INV_SQRT_2PI_F = fround(0.39894228040143267794);

// x Phi(x) in float arithmetic: 0.5 x (1 + erf(x / sqrt 2)).
function gelu(x) {
  const e = fround(erf(fround(x * SQRT1_2_F)));
  return fround(fround(0.5 * x) * fround(1 + e));
}
// Phi(x) + x phi(x).
function geluGrad(x) {
  const cdf = fround(0.5 * fround(1 + fround(erf(fround(x * SQRT1_2_F)))));
  const pdf = fround(INV_SQRT_2PI_F * fround(Math.exp(fround(fround(-0.5 * x) * x))));
  return fround(cdf + fround(x * pdf));
}

// ---------------------------------------------------------------- MLP sublayer f(x) = phi(x W1) W2

class Mlp {
  constructor(T, d, m) {
    this.T = T;
    this.d = d;
    this.m = m;
    this.base = null;
    this.s1 = 1;
    this.s2 = 1;
    this.act = RELU;
    this.p = new Float32Array(T * m); // pre-activation
    this.a = new Float32Array(T * m); // activation
    this.dp = new Float32Array(T * m);
    this.gramIn = new Float32Array(T * T);
    this.gramOut = new Float32Array(T * T);
    this.w1GradSq = 0;
    this.w2GradSq = 0;
  }
  // p = s1 x B1;  a = phi(p);  y = s2 a B2
  forward(y, x) {
    const { T, d, m, p, a } = this;
    gemmNN(x, this.base.B1, p, T, d, m, this.s1);
    const n = T * m;
    switch (this.act) {
      case RELU:
        for (let i = 0; i < n; ++i) a[i] = p[i] > 0 || p[i] !== p[i] ? p[i] : 0;
        break; // NaN stays NaN
      case GELU:
        for (let i = 0; i < n; ++i) a[i] = gelu(p[i]);
        break;
      case TANH:
        for (let i = 0; i < n; ++i) a[i] = Math.tanh(p[i]);
        break;
      case LINEAR:
        a.set(p);
        break;
    }
    gemmNN(a, this.base.B2, y, T, m, d, this.s2);
  }
  // dp = (s2 dy B2^T) * phi'(p);  dx = s1 dp B1^T (overwrites dx);
  // ||dW2||^2 = <a a^T, dy dy^T>,  ||dW1||^2 = <x x^T, dp dp^T>.
  backward(dx, dy, x) {
    const { T, d, m, p, a, dp, gramIn, gramOut } = this;
    gemmNT(dy, this.base.B2, dp, T, d, m, this.s2);
    const n = T * m;
    switch (this.act) {
      case RELU:
        for (let i = 0; i < n; ++i) dp[i] *= p[i] > 0 || p[i] !== p[i] ? 1 : 0;
        break; // non-finite stays
      case GELU:
        for (let i = 0; i < n; ++i) dp[i] *= geluGrad(p[i]);
        break;
      case TANH:
        for (let i = 0; i < n; ++i) dp[i] *= fround(1 - fround(a[i] * a[i]));
        break;
      case LINEAR:
        break;
    }
    gemmNT(dp, this.base.B1, dx, T, m, d, this.s1);
    this.w2GradSq = gradSq(a, m, dy, d, T, gramIn, gramOut);
    this.w1GradSq = gradSq(x, d, dp, m, T, gramIn, gramOut);
  }
}

// ---------------------------------------------------------------- the stack

// x = Nin(h);  u = Nout(f(x));  s = alpha h + u (or u);  h' = Nouter(s)
class Unit {
  constructor(T, d, m) {
    const n = T * d;
    this.rec = null;
    this.inn = new Norm(T, d);
    this.out = new Norm(T, d);
    this.outer = new Norm(T, d);
    this.f = new Mlp(T, d, m);
    this.x = new Float32Array(n);
    this.y = new Float32Array(n);
    this.u = new Float32Array(n);
    this.s = new Float32Array(n);
    this.updateRatio = 0;
  }
}

class Model {
  constructor() {
    this.L = 0;
    this.T = 0;
    this.d = 0;
    this.m = 0;
    this.seed = -1;
    this.units = [];
  }

  configure(cfg, arch, bank) {
    const L = cfg.depth,
      T = cfg.tokens,
      d = cfg.width,
      m = cfg.width * cfg.expansion;
    const resized = L !== this.L || T !== this.T || d !== this.d || m !== this.m;
    const newInputs = resized || cfg.seed !== this.seed;
    Object.assign(this, { L, T, d, m, seed: cfg.seed, arch });
    const n = T * d;
    if (resized) {
      this.units = [];
      for (let l = 0; l < L; ++l) this.units.push(new Unit(T, d, m));
      this.H = new Float32Array((L + 1) * n);
      this.dH = new Float32Array((L + 1) * n);
      this.h = [];
      this.dh = [];
      for (let l = 0; l <= L; ++l) {
        this.h.push(this.H.subarray(l * n, (l + 1) * n));
        this.dh.push(this.dH.subarray(l * n, (l + 1) * n));
      }
      this.final = new Norm(T, d);
      this.out = new Float32Array(n);
      this.ds = new Float32Array(n);
      this.dy = new Float32Array(n);
      this.dx = new Float32Array(n);
    }
    if (newInputs) {
      this.h0 = Float32Array.from(inputStream(cfg.seed, T, d));
      this.r = Float32Array.from(readout(cfg.seed, T, d));
    }
    const rec = recipe(arch, L);
    const c = cfg.activation === 'relu' || cfg.activation === 'gelu' ? 2.0 : 1.0;
    const s1 = fround(Math.sqrt(c / d) * rec.w1);
    const s2 = fround((cfg.gain / Math.sqrt(m)) * rec.w2);
    const act = ACTIVATIONS.indexOf(cfg.activation);
    for (let l = 1; l <= L; ++l) {
      const u = this.units[l - 1];
      u.rec = rec;
      u.inn.reset(rec.inn);
      u.out.reset(rec.out);
      u.outer.reset(rec.outer);
      Object.assign(u.f, { base: bank.layers[l - 1], s1, s2, act });
    }
    this.final.reset(FINAL_NORMS.indexOf(cfg.final_norm));
  }

  forwardUnit(u, hout, hin) {
    const { T, d } = this;
    const n = T * d;
    let x = hin;
    if (u.inn.kind !== NONE) {
      u.inn.forward(u.x, hin, T, d);
      x = u.x;
    }
    u.f.forward(u.y, x);
    let branch = u.y;
    if (u.out.kind !== NONE) {
      u.out.forward(u.u, u.y, T, d);
      branch = u.u;
    }
    const sum = u.outer.kind !== NONE ? u.s : hout;
    if (u.rec.skip) {
      const alpha = fround(u.rec.alpha);
      for (let i = 0; i < n; ++i) sum[i] = fround(alpha * hin[i]) + branch[i];
    } else {
      sum.set(branch);
    }
    if (u.outer.kind !== NONE) u.outer.forward(hout, sum, T, d);
    const skipScale = u.rec.skip ? u.rec.alpha : 1.0;
    const num = Math.sqrt(sqNorm(branch)),
      den = skipScale * Math.sqrt(sqNorm(hin));
    u.updateRatio = num === 0 && den === 0 ? 0.0 : num / den;
  }

  forward() {
    this.h[0].set(this.h0);
    for (let l = 1; l <= this.L; ++l) this.forwardUnit(this.units[l - 1], this.h[l], this.h[l - 1]);
    // The loss <r, out> itself is not reported; only the final norm's cache is needed.
    if (this.final.kind !== NONE) this.final.forward(this.out, this.h[this.L], this.T, this.d);
  }

  // dhin must be zero on entry; it receives the skip and the branch paths.
  backwardUnit(u, dhin, dhout, hin) {
    const { T, d } = this;
    const n = T * d;
    let ds = dhout;
    if (u.outer.kind !== NONE) {
      this.ds.fill(0);
      u.outer.backward(this.ds, dhout, u.s, T, d);
      ds = this.ds;
    }
    if (u.rec.skip) {
      const alpha = fround(u.rec.alpha);
      for (let i = 0; i < n; ++i) dhin[i] += fround(alpha * ds[i]);
    }
    let dy = ds;
    if (u.out.kind !== NONE) {
      this.dy.fill(0);
      u.out.backward(this.dy, ds, u.y, T, d);
      dy = this.dy;
    }
    const x = u.inn.kind !== NONE ? u.x : hin;
    u.f.backward(this.dx, dy, x);
    if (u.inn.kind !== NONE) {
      u.inn.backward(dhin, this.dx, hin, T, d);
    } else {
      const dx = this.dx;
      for (let i = 0; i < n; ++i) dhin[i] += dx[i];
    }
  }

  backward() {
    const { L, T, d } = this;
    this.dH.fill(0);
    this.final.zeroGrad();
    for (const u of this.units) {
      u.inn.zeroGrad();
      u.out.zeroGrad();
      u.outer.zeroGrad();
    }
    if (this.final.kind !== NONE) this.final.backward(this.dh[L], this.r, this.h[L], T, d);
    else this.dh[L].set(this.r);
    for (let l = L; l >= 1; --l) this.backwardUnit(this.units[l - 1], this.dh[l - 1], this.dh[l], this.h[l - 1]);
  }

  result() {
    const { L, T, d } = this;
    const n = T * d;
    const r = emptyResult(L);
    for (let l = 0; l <= L; ++l) {
      r.grad_norm[l] = Math.sqrt(sqNorm(this.dh[l]));
      r.stream_rms[l] = Math.sqrt(sqNorm(this.h[l]) / n);
    }
    for (let l = 1; l <= L; ++l) {
      const u = this.units[l - 1];
      r.update_ratio[l - 1] = u.updateRatio;
      r.w1_grad_norm[l - 1] = Math.sqrt(u.f.w1GradSq);
      r.w2_grad_norm[l - 1] = Math.sqrt(u.f.w2GradSq);
    }
    applyOverflowRule(r, L);
    return r;
  }
}

// The engine's overflow rule (core/src/results.cpp, docs/model.md, "Per-layer results"):
// a value not finite or beyond float32's range is overflow, written +Infinity,
// and so is every value that depends on one.
const FLOAT32_MAX = 3.4028234663852886e38;
const over = (v) => !(Math.abs(v) <= FLOAT32_MAX);

function applyOverflowRule(r, L) {
  for (const a of [r.grad_norm, r.stream_rms, r.update_ratio, r.w1_grad_norm, r.w2_grad_norm])
    for (let i = 0; i < a.length; ++i) if (over(a[i])) a[i] = Infinity;
  let k = r.stream_rms.findIndex(over);
  if (k < 0) k = L + 1;
  r.stream_rms.fill(Infinity, k);
  let from = k <= L ? Math.max(k, 1) : L + 1; // the first overflowed block
  for (let b = 1; b < from; ++b) if (over(r.update_ratio[b - 1])) from = b;
  r.update_ratio.fill(Infinity, from - 1);
  let g = -1; // the highest overflowed gradient
  for (let l = L; l >= 0 && g < 0; --l) if (over(r.grad_norm[l])) g = l;
  if (k <= L) g = Math.max(g, L - 1);
  r.grad_norm.fill(Infinity, 0, g + 1);
  for (let b = 1; b <= L; ++b)
    if (over(r.grad_norm[b]) || over(r.stream_rms[b - 1])) r.w1_grad_norm[b - 1] = r.w2_grad_norm[b - 1] = Infinity;
  r.first_nonfinite = null;
  for (let l = 0; l <= L && r.first_nonfinite === null; ++l) {
    let bad = over(r.grad_norm[l]) || over(r.stream_rms[l]);
    if (l >= 1) bad = bad || over(r.update_ratio[l - 1]) || over(r.w1_grad_norm[l - 1]) || over(r.w2_grad_norm[l - 1]);
    if (bad) r.first_nonfinite = l;
  }
}

// ---------------------------------------------------------------- engine

export class Engine {
  constructor() {
    this.bank = new WeightBank();
    this.models = []; // one workspace per slot of config.arch
  }
  simulate(config) {
    const cfg = normalizeConfig(config);
    this.bank.prepare(cfg.seed, cfg.width, cfg.width * cfg.expansion, cfg.init, cfg.depth);
    while (this.models.length < cfg.arch.length) this.models.push(new Model());
    const results = {};
    cfg.arch.forEach((arch, i) => {
      const model = this.models[i];
      model.configure(cfg, arch, this.bank);
      model.forward();
      model.backward();
      results[arch] = model.result();
    });
    return { config: cfg, results };
  }
}

const defaultEngine = new Engine();

// The whole API: {config, results: {<arch>: {grad_norm, stream_rms, update_ratio,
// w1_grad_norm, w2_grad_norm, first_nonfinite}}}, arrays as Float64Array, non-finite
// values as NaN/Infinity, first_nonfinite null when everything is finite.
export function simulate(config = {}) {
  return defaultEngine.simulate(config);
}
