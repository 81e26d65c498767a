// The machine's own limit, and training measured against it (bench/run.js's parts `peak`
// and `claims`):
//   peak    the peak rate of f32x4 multiply-adds of one core in WebAssembly SIMD
//           (bench/peak_simd.cpp, build/bench-wasm/peak_simd.wasm), with 4, 8, 12 and 16
//           independent chains, in Node and in headless Chromium; the loop checked with
//           wasm-objdump (f32x4.mul and f32x4.add, one of each per chain, nothing scalar);
//   claims  the training throughput of one trainer (rn.trainer, the shipped WASM SIMD build,
//           in this Node process) at every run of every lab claim (web/src/claims/lab/),
//           in GFLOP/s from trainFlops() and as a fraction of the Node peak.
// Every figure carries the 1-minute load average at the time it was taken: on a shared
// machine a neighbour's load lowers both the peak and the training rate.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { fmtErr } from './procs.js';
import { median } from './stats.js';
import { tokensPerStep } from './train.js';
import { CLAIMS, claimConfig, runConfigs } from '../../web/src/claims/lab/index.js';
import { defaultTrainConfig } from '../../web/src/shared/train-fields.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PEAK_WASM = 'build/bench-wasm/peak_simd.wasm';
/** The chain counts peak_simd.cpp exports (peak_<N>). */
export const CHAINS = [4, 8, 12, 16];
/** The issue's target: the transformer claims' training at this fraction of the peak or more. */
export const PEAK_FRACTION_TARGET = 0.5;

const load1 = () => Math.round(os.loadavg()[0] * 100) / 100;
const round = (x, k = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** k) / 10 ** k : null);

/**
 * GEMM flops of one training update, forward and backward, from the shapes: the one place this
 * count is written. One multiply-add is 2 flops; every product of the forward has two in the
 * backward (dX and dW, or for attention dP, dV and dQ, dK), so an update is 3 forwards.
 * Norms, activations, softmax, the loss and the optimizer are not counted (no GEMM), nor a
 * logged update's held-out passes (the bench never logs).
 *
 * Language tasks (core/include/resnorm/network.h): B sequences of T tokens (T = the task's
 * context, tokensPerStep / B), width d, MLP hidden m = expansion d, H heads of dh = d / H,
 * vocabulary V, L blocks. Per block and sequence, forward:
 *   W_Q, W_K, W_V, W_O   (T, d)(d, d), four of them             8 T d^2
 *   scores Q K^T         (T, dh)(dh, T) per head, causal: the
 *                        lower triangle, T (T + 1) / 2 entries  H dh T (T + 1) = d T (T + 1)
 *   P V                  the same triangle times (T, dh)        d T (T + 1)
 *   W1, W2               (T, d)(d, m), (T, m)(m, d)             4 T d m
 * and the head, (T, d)(d, V): 2 T d V. An MLP block has W1 and W2 only.
 * Teacher task: the B examples are the B rows of one pass (T = 1 per example), the readout
 * (B, d)(d, 1): 2 B d.
 *   flops = 3 B [ L (8 T d^2 [transformer] + 2 d T (T + 1) [transformer] + 4 T d m) + 2 T d V ]
 *   (teacher: V = 1, T = 1)
 * Padded batches (seq_min) are counted at the full context T: an upper bound.
 *
 * Hand count, the warmup claim (reverse 4 of 8, T = 8, d = 16, m = 32, H = 4, V = 8, B = 16,
 * L = 6): per block 8*8*256 + 2*16*8*9 + 4*8*16*32 = 16384 + 2304 + 16384 = 35072; head
 * 2*8*16*8 = 2048; 3 * 16 * (6 * 35072 + 2048) = 10,199,040 flops an update.
 */
export function trainFlops(c) {
  const language = c.task !== 'teacher';
  const B = c.batch;
  const T = language ? tokensPerStep(c) / B : 1; // the context, as claimRuns() gives it
  const d = c.width;
  const m = c.expansion * d;
  const V = language ? c.vocab : 1;
  const attention = c.block === 'transformer' ? 8 * T * d * d + 2 * d * T * (T + 1) : 0;
  return 3 * B * (c.depth * (attention + 4 * T * d * m) + 2 * T * d * V);
}

/**
 * The measuring loop, self-contained so that Node and a page (page.evaluate) run the same
 * code: instantiates the module from `bytes` (an array of byte values or a Uint8Array), and
 * for each chain count N calibrates `iters` to about `callMs` a call, warms up (V8 compiles
 * with Liftoff first, TurboFan once a function has run a while: the calibration's calls and
 * three more), then times `samples` calls. GFLOP/s of a
 * call = 8 N iters / time (4 lanes, a mul and an add each).
 */
export async function measurePeak({ bytes, chains, samples, callMs }) {
  const { instance } = await WebAssembly.instantiate(new Uint8Array(bytes), {});
  const out = {};
  let sink = 0;
  for (const N of chains) {
    const f = instance.exports[`peak_${N}`];
    // Calibration: the fastest of three calls (a neighbour's burst slows one call, not three),
    // iters grown until a call takes a quarter of callMs; then warm-up calls at that size.
    const fastest = (n) => {
      let best = Infinity;
      for (let k = 0; k < 3; k++) {
        const t = performance.now();
        sink += f(n, 1 + k * 1e-3);
        best = Math.min(best, performance.now() - t);
      }
      return best;
    };
    let iters = 1000;
    for (;;) {
      const ms = fastest(iters);
      if (ms >= callMs / 4 || iters > 2 ** 27) {
        iters = Math.max(1000, Math.round((iters * callMs) / Math.max(ms, 1e-3)));
        break;
      }
      iters *= 4;
    }
    fastest(iters);
    const gflops = [];
    for (let s = 0; s < samples; s++) {
      const t = performance.now();
      sink += f(iters, 1 + s * 1e-3);
      gflops.push((8 * N * iters) / ((performance.now() - t) * 1e6));
    }
    out[N] = { iters, gflops };
  }
  return { chains: out, finite: Number.isFinite(sink) };
}

// Median and best of each chain count's samples; the peak is the best chain count's median.
function summarizePeak(raw, loadavg) {
  const chains = {};
  let best = null;
  for (const [N, r] of Object.entries(raw.chains)) {
    const s = [...r.gflops].sort((a, b) => a - b);
    chains[N] = { iters: r.iters, n: s.length, median_gflops: round(median(s)), max_gflops: round(s.at(-1)) };
    if (!best || chains[N].median_gflops > chains[best].median_gflops) best = N;
  }
  return {
    chains,
    best_chains: Number(best),
    peak_gflops: chains[best].median_gflops,
    // The fastest call of any chain count: a neighbour's load only slows calls, so on a shared
    // machine this is the nearer estimate of the limit (set against the fastest training batches).
    peak_fastest_gflops: Math.max(...Object.values(chains).map((c) => c.max_gflops)),
    chains_finite: raw.finite,
    loadavg,
  };
}

/**
 * The loop of each peak_<N> as wasm-objdump -d prints it: {N: {mul, add, scalar}}, the f32x4.mul,
 * f32x4.add and scalar f32 arithmetic instructions of the function's innermost loop that holds
 * f32x4.mul (the timed loop), or {skipped} without wasm-objdump.
 */
export function checkPeakLoop(file = `${ROOT}${PEAK_WASM}`) {
  let text;
  try {
    text = execFileSync('wasm-objdump', ['-d', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (e) {
    return { skipped: `wasm-objdump -d failed: ${fmtErr(e)}` };
  }
  const out = {};
  for (const N of CHAINS) {
    const start = text.indexOf(`<peak_${N}>:`);
    if (start < 0) {
      out[N] = { error: `no function peak_${N}` };
      continue;
    }
    const end = text.indexOf('\n\n', start);
    const ops = text
      .slice(start, end < 0 ? undefined : end)
      .split('\n')
      .map((l) => (l.split('|')[1] ?? '').trim().split(/\s+/)[0]);
    // The loops: each `loop` to its matching `end`; the timed one is the first holding f32x4.mul
    // and no inner loop.
    let loop = null;
    for (let i = 0; i < ops.length && !loop; i++) {
      if (ops[i] !== 'loop') continue;
      let depth = 0,
        inner = false;
      const body = [];
      for (let j = i + 1; j < ops.length; j++) {
        const op = ops[j];
        if (op === 'loop') inner = true;
        if (op === 'loop' || op === 'block' || op === 'if') depth++;
        if (op === 'end') {
          if (depth === 0) break;
          depth--;
        }
        body.push(op);
      }
      if (!inner && body.includes('f32x4.mul')) loop = body;
    }
    const count = (re) => (loop ?? []).filter((op) => re.test(op)).length;
    out[N] = loop
      ? {
          mul: count(/^f32x4\.mul$/),
          add: count(/^f32x4\.add$/),
          scalar: count(/^f32\.(mul|add|sub)$/),
          memory: count(/^v128\.(load|store)/),
        }
      : { error: 'no loop with f32x4.mul: the compiler folded or scalarized it' };
    out[N].ok = Boolean(loop) && out[N].mul % N === 0 && out[N].mul === out[N].add && !out[N].scalar && !out[N].memory;
  }
  return out;
}

/**
 * Part `peak`: the Node figure in this process, the page's in `page` ({page} of bench/browser.js's
 * benchPage, or {skipped: reason}), the loop check.
 */
export async function peak({ quick, page, log }) {
  const file = `${ROOT}${PEAK_WASM}`;
  if (!existsSync(file)) return { status: 'skipped', reason: `${PEAK_WASM} is not built (bash bench/wasm/build.sh)` };
  const bytes = [...readFileSync(file)];
  const args = { chains: CHAINS, samples: quick ? 3 : 15, callMs: quick ? 5 : 40 };
  const out = {
    status: 'ok',
    fma: 'none: WebAssembly SIMD 128 (emcc 3.1.6) has no fused multiply-add; one multiply-add is f32x4.mul then f32x4.add',
    flops_per_pair: 8,
    loop: checkPeakLoop(file),
  };
  try {
    const before = load1();
    out.node = { ...summarizePeak(await measurePeak({ ...args, bytes }), [before, load1()]) };
    log(`  peak, Node: ${out.node.peak_gflops} GFLOP/s with ${out.node.best_chains} chains (load ${before})`);
  } catch (e) {
    out.node = { skipped: fmtErr(e) };
  }
  if (page.skipped) out.page = { skipped: page.skipped };
  else
    try {
      const before = load1();
      const raw = await page.page.evaluate(
        // The same function, as source: the page has no module of the bench.
        async ({ src, args }) => (0, eval)(`(${src})`)(args),
        { src: measurePeak.toString(), args: { ...args, bytes } },
      );
      out.page = summarizePeak(raw, [before, load1()]);
      log(`  peak, page: ${out.page.peak_gflops} GFLOP/s with ${out.page.best_chains} chains (load ${before})`);
    } catch (e) {
      out.page = { skipped: fmtErr(e) };
    }
  return out;
}

/** Every run of every lab claim: {claim, key, config, transformer}. */
export function claimRuns() {
  const defaults = defaultTrainConfig();
  return CLAIMS.flatMap((claim) => {
    const base = claimConfig(claim, defaults);
    return runConfigs(claim, base).map((config, i) => ({
      claim: claim.id,
      key: claim.runs[i].key,
      // T: tokens of one sequence (1 for teacher: an example is one row).
      context: config.task === 'teacher' ? 1 : tokensPerStep(config) / config.batch,
      // Far more updates than timed, logged never: the timed updates are plain ones.
      config: { ...config, steps: 1000000, log_every: 1000000 },
      transformer: config.block === 'transformer',
    }));
  });
}

// One trainer of `config`: `warmup` updates, then updates timed in batches of `per` until
// `samples` batches: {ms: ms per update of each batch, stopped: the updates done when the
// trainer stopped at a non-finite step (it computes no update after it), or null}.
function timeTrainer(rn, config, { warmup, samples, per }) {
  const tr = rn.trainer(config);
  try {
    tr.step(warmup);
    const ms = [];
    for (let s = 0; s < samples && !tr.stopped; s++) {
      const before = tr.stepsDone;
      const t = performance.now();
      tr.step(per);
      const took = performance.now() - t;
      // A batch cut short by a non-finite step is not timed: it did less than `per` updates' work.
      if (!tr.stopped) ms.push(took / (tr.stepsDone - before));
    }
    return { ms, stopped: tr.stopped ? tr.stepsDone : null };
  } finally {
    tr.delete();
  }
}

/**
 * Part `claims`: every claim's runs, one trainer at a time in this process, against the Node peak
 * `peakGflops` (null when not measured). Per claim, the runs' flops over their time together.
 */
export async function claimsTraining({ quick, peakGflops, peakFastestGflops = null, log }) {
  const { Resnorm } = await import('../../wasm/resnorm.js');
  const { default: create } = await import(`${ROOT}wasm/dist/resnorm_wasm.js`);
  const rn = new Resnorm(await create({ wasmBinary: readFileSync(`${ROOT}wasm/dist/resnorm_wasm.wasm`) }));
  const plan = quick ? { warmup: 2, samples: 2, per: 2 } : { warmup: 20, samples: 9, per: 10 };
  const rows = [];
  try {
    for (const r of claimRuns()) {
      const flops = trainFlops(r.config);
      const loadavg = load1();
      try {
        const { ms, stopped } = timeTrainer(rn, r.config, plan);
        const stop = stopped === null ? {} : { stopped_at_update: stopped };
        if (!ms.length) {
          rows.push({
            ...r,
            flops_per_update: flops,
            ...stop,
            skipped: `not finite at update ${stopped}, before the timed ones`,
            loadavg,
          });
          continue;
        }
        const med = median(ms);
        const fastest = Math.min(...ms);
        const gflops = flops / (med * 1e6);
        rows.push({
          ...r,
          flops_per_update: flops,
          ...stop,
          median_ms: round(med, 4),
          fastest_ms: round(fastest, 4),
          n: ms.length,
          gflops: round(gflops),
          fraction_of_peak: peakGflops ? round(gflops / peakGflops, 4) : null,
          fraction_of_peak_fastest: peakFastestGflops ? round(flops / (fastest * 1e6) / peakFastestGflops, 4) : null,
          loadavg,
        });
      } catch (e) {
        rows.push({ ...r, flops_per_update: flops, skipped: fmtErr(e), loadavg });
      }
    }
  } finally {
    rn.dispose();
  }
  const claims = CLAIMS.map((c) => {
    const mine = rows.filter((r) => r.claim === c.id && !r.skipped);
    const flops = mine.reduce((s, r) => s + r.flops_per_update, 0);
    const ms = mine.reduce((s, r) => s + r.median_ms, 0);
    const fastestMs = mine.reduce((s, r) => s + r.fastest_ms, 0);
    const gflops = ms ? flops / (ms * 1e6) : null;
    const row = {
      claim: c.id,
      transformer: rows.some((r) => r.claim === c.id && r.transformer),
      runs: mine.length,
      gflops: round(gflops),
      fraction_of_peak: gflops && peakGflops ? round(gflops / peakGflops, 4) : null,
      fraction_of_peak_fastest:
        fastestMs && peakFastestGflops ? round(flops / (fastestMs * 1e6) / peakFastestGflops, 4) : null,
    };
    log(`  claims ${c.id}: ${row.gflops} GFLOP/s, ${row.fraction_of_peak ?? 'n/a'} of the peak`);
    return row;
  });
  return {
    plan,
    peak_gflops: peakGflops,
    peak_fastest_gflops: peakFastestGflops,
    target_fraction: PEAK_FRACTION_TARGET,
    claims,
    runs: rows,
  };
}
