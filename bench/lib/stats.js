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
