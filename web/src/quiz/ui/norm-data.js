// The norm panel's inputs, as pure functions (tested in Node): the token the learner starts from,
// and the padded batch for BatchNorm against LayerNorm. The batch's real values are fixed (a seeded
// draw), so changing a length, the padding or the batch size changes only which positions exist
// and count, never the tokens themselves.

import { mulberry32 } from '../random.js';

export const TOKEN_WIDTH = 6;
export const DEFAULT_TOKEN = Object.freeze([1.2, -0.4, 2.1, 0.3, -1.5, 0.8]);
export const TOKEN_RANGE = Object.freeze({ min: -5, max: 5, step: 0.1 });
export const GAMMA_RANGE = Object.freeze({ min: -2, max: 3, step: 0.05 });
export const BETA_RANGE = Object.freeze({ min: -3, max: 3, step: 0.05 });

export const BATCH = Object.freeze({
  maxBatch: 6,
  maxLength: 8, // real tokens per sequence, at most
  maxPadding: 6, // padding positions after the longest sequence, at most
  width: 4,
  seed: 250, // the watched token is 0.46, -1.67, 0.69, -2.73; every control moves its BatchNorm output by 0.3 or more
});
export const DEFAULT_BATCH = Object.freeze({
  batch: 4,
  lengths: Object.freeze([5, 3, 7, 4, 6, 2]),
  padding: 1,
  countPadding: true,
});

/**
 * The real token values: maxBatch x maxLength x width, row-major. Each sequence has its own offset
 * and scale per feature, so the batch statistics depend on which sequences and tokens are in.
 * @returns {Float64Array}
 */
export function batchValues(seed = BATCH.seed) {
  const { maxBatch, maxLength, width } = BATCH;
  const rand = mulberry32(seed);
  const normal = () => {
    // Box-Muller; 1 - rand() is in (0, 1], so the log is finite.
    const u = 1 - rand();
    const v = rand();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  const out = new Float64Array(maxBatch * maxLength * width);
  for (let b = 0; b < maxBatch; b++) {
    const offset = Array.from({ length: width }, () => Math.round((rand() - 0.5) * 40) / 10);
    const scale = 0.5 + rand() * 1.5;
    for (let t = 0; t < maxLength; t++) {
      for (let i = 0; i < width; i++)
        out[(b * maxLength + t) * width + i] = Math.round((offset[i] + scale * normal()) * 100) / 100;
    }
  }
  return out;
}

/**
 * The engine's input for a batch setting: the first `batch` sequences, padded with zeros to the
 * longest one plus `padding`.
 * @param {Float64Array} values from batchValues()
 * @param {{batch: number, lengths: number[], padding: number, countPadding: boolean}} s
 * @returns {{x: number[], batch: number, length: number, width: number, lengths: number[], countPadding: boolean}}
 */
export function batchInput(values, s) {
  const { maxLength, width } = BATCH;
  const batch = clampInt(s.batch, 1, BATCH.maxBatch);
  const lengths = Array.from({ length: batch }, (_, b) => clampInt(s.lengths[b], 1, maxLength));
  const length = Math.max(...lengths) + clampInt(s.padding, 0, BATCH.maxPadding);
  const x = new Array(batch * length * width).fill(0);
  for (let b = 0; b < batch; b++) {
    for (let t = 0; t < lengths[b]; t++) {
      for (let i = 0; i < width; i++) x[(b * length + t) * width + i] = values[(b * maxLength + t) * width + i];
    }
  }
  return { x, batch, length, width, lengths, countPadding: !!s.countPadding };
}

/** Positions BatchNorm's statistics count: {real, padding, total}. */
export function countedPositions(input) {
  const real = input.lengths.reduce((a, b) => a + b, 0);
  const padding = input.batch * input.length - real;
  return { real, padding: input.countPadding ? padding : 0, total: real + (input.countPadding ? padding : 0) };
}

/** One token's d values out of a (B, T, d) array. */
export function tokenAt(array, input, b, t) {
  const start = (b * input.length + t) * input.width;
  return Array.from(array).slice(start, start + input.width);
}

/** Mean and (population) variance of a list of numbers. */
export function moments(values) {
  const a = Array.from(values);
  const n = a.length;
  if (n === 0) return { mean: NaN, var: NaN };
  const mean = a.reduce((s, v) => s + v, 0) / n;
  return { mean, var: a.reduce((s, v) => s + (v - mean) ** 2, 0) / n };
}

/** max |a_i - b_i|, or null when there is nothing to compare. */
export function maxAbsDiff(a, b) {
  if (!a || !b || a.length !== b.length || a.length === 0) return null;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** Whether every entry equals the first. */
export const isConstant = (values) => values.length > 0 && values.every((v) => v === values[0]);

export function clampInt(v, lo, hi) {
  const n = Math.round(Number(v));
  return Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : lo;
}

/** A typed value clamped into a slider's range (any precision); null if it is not a number. */
export function clampNumber(v, { min, max }) {
  const text = String(v)
    .trim()
    .replace(/\u2212/g, '-');
  const n = Number(text);
  if (text === '' || !Number.isFinite(n)) return null;
  return Math.min(max, Math.max(min, n));
}
