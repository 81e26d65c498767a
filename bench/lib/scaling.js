// Two parts of `npm run bench` about the cost of growth (bench/run.js calls them):
//   scaling  recompute time of one arch (pre_ln) against depth L, width d and tokens T,
//            one variable at a time, in the WASM SIMD build, with the fitted exponent
//            of each (the slope of log time on log size over the points): about 1 in L,
//            about 2 in d once the products dominate, between 1 and 2 in T
//            (attention-free MLP blocks: linear, plus the T^2 Gram terms of the
//            weight-gradient norms);
//   limits   the slowest configs the engine's budgets allow (core/src/limits.cpp): each
//            shape at the largest depth its refusal names, timed natively (the CLI, one
//            process per call) and in the WASM SIMD build, against the 10 s the issue
//            allows natively.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median } from './stats.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = `${ROOT}build/native/resnorm`;

/** Least-squares slope of log(y) on log(x). */
export function logSlope(xs, ys) {
  const lx = xs.map(Math.log);
  const ly = ys.map(Math.log);
  const mx = lx.reduce((a, b) => a + b, 0) / lx.length;
  const my = ly.reduce((a, b) => a + b, 0) / ly.length;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < lx.length; i++) {
    sxy += (lx[i] - mx) * (ly[i] - my);
    sxx += (lx[i] - mx) ** 2;
  }
  return sxy / sxx;
}

const BASE = { arch: ['pre_ln'], depth: 96, width: 64, tokens: 8, expansion: 1, gain: 1 };

/** The sweeps: each varies one field from BASE. */
export function sweeps(quick) {
  return quick
    ? { depth: [24, 48], width: [16, 32], tokens: [1, 4] }
    : {
        depth: [24, 48, 96, 192, 384, 768, 1000],
        width: [16, 32, 64, 128, 256, 512],
        tokens: [1, 2, 4, 8, 16, 32, 64],
      };
}

/**
 * Times each sweep point with `worker` (bench/lib/worker.js, wasm-simd): the median of
 * `repeat` calls after a warm-up, the call count scaled down for slow points.
 */
export async function scaling(worker, { quick, log }) {
  const out = { base: BASE, sweeps: {} };
  // Past V8's tier-up first: the base config until its calls are TurboFan code.
  await worker.call('run', { config: BASE, repeat: 0, warmup: quick ? 2 : 60 });
  for (const [field, values] of Object.entries(sweeps(quick))) {
    const points = [];
    for (const v of values) {
      const config = { ...BASE, [field]: v };
      const probe = await worker.call('run', { config, repeat: 1, warmup: 1 });
      const once = probe.samples_ms[0];
      const repeat = quick ? 2 : Math.max(3, Math.min(40, Math.round(400 / Math.max(once, 0.1))));
      const r = await worker.call('run', { config, repeat, warmup: 1 });
      points.push({ value: v, ms: median(r.samples_ms), calls: repeat });
    }
    const exponent = logSlope(
      points.map((p) => p.value),
      points.map((p) => p.ms),
    );
    out.sweeps[field] = { points, exponent };
    log(`  scaling in ${field}: exponent ${exponent.toFixed(2)}`);
  }
  return out;
}

/** The shapes whose largest allowed depth is timed (each at depth 1024, refused, then at its .max). */
export const LIMIT_SHAPES = [
  { name: 'ten archs, narrow, long', config: { arch: 'all', width: 8, tokens: 64, expansion: 1 } },
  { name: 'ten archs, d=64, e=4, T=64', config: { arch: 'all', width: 64, tokens: 64, expansion: 4 } },
  { name: 'one arch, d=512, e=4, T=64', config: { arch: ['pre_ln'], width: 512, tokens: 64, expansion: 4 } },
  {
    name: 'ten archs, transformer, d=64, 8 heads, T=64',
    config: { arch: 'all', width: 64, tokens: 64, expansion: 4, block: 'transformer', heads: 8 },
  },
  {
    name: 'one arch, orthogonal, d=512, e=4',
    config: { arch: ['pre_ln'], width: 512, tokens: 8, expansion: 4, init: 'orthogonal' },
  },
];

/** Largest allowed depth of each shape (from `rn`'s refusal), timed natively and in wasm. */
export async function limits(rn, worker, { quick, log }) {
  const all = rn.fields.find((f) => f.name === 'arch').choices;
  const rows = [];
  for (const shape of quick ? LIMIT_SHAPES.slice(0, 1) : LIMIT_SHAPES) {
    const config = { ...shape.config, arch: shape.config.arch === 'all' ? all : shape.config.arch, depth: 1024 };
    try {
      rn.simulate(config);
    } catch (e) {
      if (e.field !== 'depth' || !(e.max > 0)) throw e;
      config.depth = quick ? Math.min(e.max, 16) : e.max;
    }
    const row = { name: shape.name, config, native_ms: null, wasm_ms: null };
    if (existsSync(CLI)) {
      const args = ['simulate'];
      for (const [k, v] of Object.entries(config))
        args.push(`--${k.replace(/_/g, '-')}`, Array.isArray(v) ? v.join(',') : String(v));
      const times = [];
      for (let i = 0; i < (quick ? 1 : 3); i++) {
        const t0 = performance.now();
        execFileSync(CLI, args, { stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 1 << 28 });
        times.push(performance.now() - t0);
      }
      row.native_ms = median(times);
    }
    const r = await worker.call('run', { config, repeat: quick ? 1 : 2, warmup: 0 });
    row.wasm_ms = median([r.first_ms ?? r.samples_ms[0], ...r.samples_ms].filter(Number.isFinite));
    log(
      `  limit ${shape.name}: depth ${config.depth}, native ${row.native_ms?.toFixed(0)} ms, wasm ${row.wasm_ms.toFixed(0)} ms`,
    );
    rows.push(row);
  }
  return { rows, native_limit_ms: 10000 };
}
