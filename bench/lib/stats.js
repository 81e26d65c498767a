// Order statistics of timing samples (ms).

/** q-quantile of an array (linear interpolation between order statistics). */
export function quantile(values, q) {
  if (!values.length) return null;
  const v = [...values].sort((a, b) => a - b);
  const pos = (v.length - 1) * q;
  const lo = Math.floor(pos),
    hi = Math.ceil(pos);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

export const median = (values) => quantile(values, 0.5);

/** {n, median_ms, p10_ms, p90_ms, min_ms, max_ms} of a list of samples. */
export function summarize(samples) {
  const r = (x) => (x === null ? null : Math.round(x * 1e4) / 1e4);
  return {
    n: samples.length,
    median_ms: r(median(samples)),
    p10_ms: r(quantile(samples, 0.1)),
    p90_ms: r(quantile(samples, 0.9)),
    p95_ms: r(quantile(samples, 0.95)),
    min_ms: r(samples.length ? Math.min(...samples) : null),
    max_ms: r(samples.length ? Math.max(...samples) : null),
  };
}

/** Calls in round r of `rounds` when n calls are spread evenly over them (some rounds get none when n < rounds). */
export const perRound = (n, rounds, r) => Math.floor(((r + 1) * n) / rounds) - Math.floor((r * n) / rounds);

/**
 * Each entry of `results` that ran ({median_ms, round_medians_ms}) against `ref`:
 * ratio_to_wasm_simd = its median / the reference's (> 1: slower), and
 * ratio_round_range, the same ratio per round where both ran in that round.
 */
export function addRatios(results, ref) {
  if (!ref || ref.skipped) return;
  for (const e of Object.values(results)) {
    if (e.skipped) continue;
    e.ratio_to_wasm_simd = Math.round((e.median_ms / ref.median_ms) * 1e4) / 1e4;
    const per = e.round_medians_ms
      .map((x, i) => (x === null || ref.round_medians_ms[i] === null ? NaN : x / ref.round_medians_ms[i]))
      .filter(Number.isFinite);
    e.ratio_round_range = per.length
      ? [Math.min(...per), Math.max(...per)].map((x) => Math.round(x * 1e3) / 1e3)
      : null;
  }
}
