// The papers' reproductions run by the engine: reproduce(rn, id, params) runs the computation of
// claim `id` (its compute() and defaults, web/src/claims/) and returns plain data; timeRecompute(rn)
// times the explorer's transformer scene. No DOM and no view code: the engine worker runs them, the
// Node tests call them directly, and web/src/papers/ turns their data into charts, tables and captions.
// tests/core/test_papers.cpp checks the same settings in C++.
import { claimOf } from '../claims/index.js';

/** Runs reproduction `id` with `params` (defaults filled in): {id, params, data, ms}. */
export function reproduce(rn, id, params = {}) {
  const claim = claimOf(id); // a RangeError for an id no claim has
  const p = { ...claim.defaults, ...params };
  const t0 = performance.now();
  const data = claim.compute(rn, p);
  return { id, params: p, data, ms: performance.now() - t0 };
}

// ---------------------------------------------------------------- the transformer recompute budget

export const PERF_CONFIG = {
  arch: ['plain', 'residual', 'post_ln', 'pre_ln'],
  block: 'transformer',
  depth: 96,
  width: 64,
  tokens: 16,
  heads: 4,
};

/** Times `runs` full four-arch recomputes (after `warmup`): {median, p90, min, runs}. */
export function timeRecompute(rn, { runs = 15, warmup = 3 } = {}) {
  for (let i = 0; i < warmup; i++) rn.simulate(PERF_CONFIG);
  const t = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    rn.simulate(PERF_CONFIG);
    t.push(performance.now() - t0);
  }
  const s = [...t].sort((a, b) => a - b);
  return {
    median: s[Math.floor(s.length / 2)],
    p90: s[Math.min(s.length - 1, Math.floor(0.9 * s.length))],
    min: s[0],
    runs: t,
  };
}
