#!/usr/bin/env node
// The benchmark, in one process tree (`npm run bench` builds first, then runs this):
//   1. engine throughput on three scenes: native -march=x86-64-v2 and -march=native,
//      the WASM SIMD build, the scalar WASM build, plain JS and TensorFlow.js, each
//      checked against the WASM SIMD build's numbers;
//   2. the pages in headless Chromium (bench/browser.js): first chart, slider steps on
//      the default and the deep scene, the papers page's cold load, the worker pool;
//   3. LayerNorm against RMSNorm, d = 64 .. 4096, native and WASM;
//   4. where a recompute spends its time (bench/phases.h), native and WASM;
//   5. the cost of growth: time against L, d, T with fitted exponents, and the slowest
//      configs the engine's budgets allow, natively and in WASM (bench/lib/scaling.js);
//   6. training throughput of a small transformer natively, in WASM SIMD (Node and the
//      page) and in TensorFlow.js, and the wasm heap training needs (bench/lib/train.js);
//   7. the machine's own limit: the peak f32x4 multiply-add rate of one core in WASM SIMD
//      (Node and the page), and the lab claims' training as a fraction of it (bench/lib/peak.js);
//   8. the lab in the page (bench/lib/lab.js): every claim on its five seeds, Start to verdict,
//      against the ideal of its pool; the deep settings; the long tasks at 1x and with the page's
//      CPU slowed 3x; the page targets of part 2 at 1x and 3x.
// Judged against the targets of bench/lib/targets.js. Writes <out>/latest.json and
// <out>/latest.md and prints the Markdown.
//
//   node bench/run.js [--quick] [--out DIR] [--only engine,norms,profile,browser,scaling,training,peak,claims,lab]
//                     [--wait-quiet SECONDS] [--browser] [--merge] [--lab-pieces claims,deep,longtasks,page]
// --quick: tiny scenes and few repeats (seconds, for tests/node/bench/bench.test.js); the
// browser part, the page's training contender and the page's peak are skipped unless
// --browser is given. --only peak,claims runs part 7 alone (a minute); with --merge the
// other parts are kept from the latest.json already in --out, and the report says from when.
// --only lab --merge runs part 8 alone (about ten minutes), the same way. --lab-pieces names the
// pieces of part 8 to run (all four unless given): `--only lab --lab-pieces longtasks --out DIR`
// measures the lab's long tasks alone (about a minute), the others said not asked.
//
// Timing on a shared machine: every contender runs in rounds, interleaved with the
// others (the order rotates each round), so a burst of load from a neighbour lands
// on all of them; we report medians and p10/p90 of all steady-state calls, and the
// spread of the per-round ratios. The first call of each process is reported apart.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pageTargets, runBrowser, withBenchPage } from './browser.js';
import { LAB_PIECES, labPart } from './lib/lab.js';
import { renderMarkdown } from './lib/report.js';
import { targets } from './lib/targets.js';
import { training } from './lib/train.js';
import { claimsTraining, peak } from './lib/peak.js';
import { FLOP_FORMULA, QUICK_SCENES, SCENES, flops } from './lib/scenes.js';
import { addRatios, median, quantile, summarize } from './lib/stats.js';
import { limits, scaling } from './lib/scaling.js';
import { ForkedWorker as Worker, LineProcess, fmtErr, interleave, nativeArgs, startNative } from './lib/procs.js';
import { ENGINE_ARCHS } from '../web/src/shared/fields.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const run = promisify(execFile);

// ---------------------------------------------------------------- contenders

export const CONTENDERS = {
  'wasm-simd': {
    label: 'WASM SIMD (-O3 -msimd128, the shipped build), Node',
    kind: 'worker',
    tolerance: 0,
    needs: 'wasm/dist/resnorm_wasm.wasm',
    build: 'npm run build:wasm',
  },
  'native-v2': {
    label: 'native g++ 12 -O3 -march=x86-64-v2 (128-bit SIMD)',
    kind: 'native',
    dir: 'build/bench-v2',
    tolerance: 1e-4,
  },
  'native-v2-clang': {
    label: 'native clang 14 -O3 -march=x86-64-v2 (the LLVM inside emcc)',
    kind: 'native',
    dir: 'build/bench-v2-clang',
    tolerance: 1e-4,
  },
  native: { label: 'native g++ 12 -O3 -march=native', kind: 'native', dir: 'build/bench-native', tolerance: 1e-4 },
  'wasm-scalar': {
    label: 'WASM scalar (-O3, no -msimd128), Node',
    kind: 'worker',
    tolerance: 1e-4,
    needs: 'build/wasm-scalar/dist/resnorm_wasm.wasm',
    build: 'RESNORM_WASM_SIMD=OFF bash scripts/build-wasm.sh build/wasm-scalar',
  },
  js: { label: 'plain JavaScript, Float32Array (bench/js), Node', kind: 'worker', tolerance: 1e-4 },
  tfjs: { label: 'TensorFlow.js 4.22, wasm backend (SIMD, 1 thread), tf.grads, Node', kind: 'worker', tolerance: 1e-3 },
};
const REFERENCE = 'wasm-simd';

// Per scene: rounds, warm-up calls after the first (JS side), and the calls per
// contender over all rounds, spread evenly (a contender with fewer calls than
// rounds sits some rounds out). Every contender is a long-lived process, so the
// rounds interleave them a few calls at a time.
const PLAN = {
  default: {
    rounds: 20,
    warmup: 5,
    n: { 'wasm-simd': 200, 'native-v2': 300, 'native-v2-clang': 300, native: 300, 'wasm-scalar': 40, js: 30, tfjs: 20 },
  },
  deep: {
    rounds: 10,
    warmup: 1,
    n: { 'wasm-simd': 50, 'native-v2': 50, 'native-v2-clang': 50, native: 50, 'wasm-scalar': 15, js: 10, tfjs: 4 },
  },
  wide: {
    rounds: 8,
    warmup: 1,
    n: { 'wasm-simd': 24, 'native-v2': 24, 'native-v2-clang': 24, native: 24, 'wasm-scalar': 8, js: 4, tfjs: 4 },
  },
};
const QUICK_PLAN = { rounds: 2, warmup: 1, n: Object.fromEntries(Object.keys(CONTENDERS).map((c) => [c, 2])) };

// core's enum Arch order, for the profile module's mask: the engine's arch choices are its names in that order.
const ARCH_ENUM = ENGINE_ARCHS;

// ---------------------------------------------------------------- plumbing

// A native contender: resnorm_bench --serve 1 for one scene, with ForkedWorker's call() API.
class NativeWorker extends LineProcess {
  constructor(name, bin, config) {
    super(name, bin, [...nativeArgs(config), '--serve', '1']);
  }
  async call(cmd, args = {}) {
    if (cmd === 'run') {
      // The first call of the process is timed apart; warm-up calls are not
      // needed natively (no JIT): `warmup` is ignored.
      const out = await this.send(`run ${args.repeat}`);
      return { first_ms: out.first_ms, warmup_ms: [], samples_ms: out.samples_ms };
    }
    if (cmd === 'results') return this.send(`results ${args.file}`);
    throw new Error(`native contender: no command ${cmd}`);
  }
}

// Max relative difference of every finite value against the reference; non-finite
// values (null in native JSON, NaN/Infinity in JS) must sit at the same places.
export function compareResults(got, ref) {
  let worst = 0,
    where = null,
    values = 0,
    mismatches = 0;
  for (const [arch, r] of Object.entries(ref)) {
    const g = got[arch];
    if (!g) return { ok: false, max_rel: null, values, reason: `no results for ${arch}` };
    if ((g.first_nonfinite ?? null) !== (r.first_nonfinite ?? null)) mismatches++;
    for (const [k, ref] of Object.entries(r)) {
      if (!Array.isArray(ref)) continue;
      const arr = g[k];
      if (!arr || arr.length !== ref.length)
        return { ok: false, max_rel: null, values, reason: `${arch}.${k}: length differs` };
      ref.forEach((b, i) => {
        const a = arr[i];
        const fa = a !== null && Number.isFinite(a),
          fb = b !== null && Number.isFinite(b);
        if (fa !== fb) {
          mismatches++;
          return;
        }
        if (!fb) return;
        values++;
        const rel = a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(b), 1e-300);
        if (rel > worst) {
          worst = rel;
          where = `${arch}.${k}[${i}]`;
        }
      });
    }
  }
  return { max_rel: worst, where, values, nonfinite_mismatches: mismatches };
}

// ---------------------------------------------------------------- part 1: engine throughput

async function startContender(name, config) {
  const c = CONTENDERS[name];
  if (c.kind === 'native') {
    return startNative(NativeWorker, name, `${ROOT}${c.dir}/resnorm_bench`, config, 'npm run bench builds it');
  }
  if (c.needs && !existsSync(`${ROOT}${c.needs}`)) return { skipped: `${c.needs} is not built (${c.build})` };
  const w = new Worker(name);
  try {
    const init = await w.call('init');
    return { name, worker: w, load_ms: init.load_ms, info: init.info };
  } catch (e) {
    w.close();
    return { skipped: `could not load: ${fmtErr(e)}` };
  }
}

async function engineScene(sceneName, scene, plan, log, tmp) {
  const state = {};
  try {
    return await measureScene(sceneName, scene, plan, log, tmp, state);
  } finally {
    for (const s of Object.values(state)) s.worker?.close();
  }
}

async function measureScene(sceneName, scene, plan, log, tmp, state) {
  const config = scene.config;
  const flop = flops(config);
  const names = Object.keys(CONTENDERS);
  for (const n of names) {
    state[n] = await startContender(n, config);
    Object.assign(state[n], { first_ms: null, warmup_ms: [], samples: [], rounds: [], loadavg: [] });
  }
  const live = names.filter((n) => !state[n].skipped);
  await interleave(
    state,
    live,
    plan,
    (s, k, warmup) => s.worker.call('run', { config, repeat: k, warmup }),
    (r) => {
      const load = os.loadavg()[0];
      for (const n of live) state[n].loadavg.push(load);
      if (r === plan.rounds - 1 || (r + 1) % Math.ceil(plan.rounds / 4) === 0)
        log(
          `  ${sceneName} round ${r + 1}/${plan.rounds} (load ${load.toFixed(1)}): ` +
            live
              .filter((n) => !state[n].skipped)
              .map((n) => `${n} ${median(state[n].samples)?.toFixed(2)}`)
              .join(', '),
        );
    },
  );

  // First call with warm code: a new engine object in the same process (weight bank
  // and workspaces cold, compilers done). The wasm builds on every scene, the JS
  // side on the default scene (a new JS or TF.js bank regenerates every weight).
  for (const n of names) {
    const s = state[n];
    if (s.skipped || s.native || !(n.startsWith('wasm') || sceneName === 'default')) continue;
    try {
      s.fresh_ms = (await s.worker.call('fresh', { config })).first_ms;
    } catch (e) {
      s.fresh_error = fmtErr(e);
    }
  }
  // Where the shipped build spends a recompute: V8's sampling profiler.
  const cpuprofile = {};
  for (const n of ['wasm-simd', 'wasm-scalar']) {
    const s = state[n];
    if (s.skipped || (n === 'wasm-scalar' && sceneName !== 'default')) continue;
    const repeat = Math.max(2, Math.min(200, Math.round(plan.n[n] * (n === 'wasm-simd' ? 1 : 2))));
    try {
      cpuprofile[n] = summarizeProfile((await s.worker.call('cpuprofile', { config, repeat })).profile);
    } catch (e) {
      cpuprofile[n] = { skipped: fmtErr(e) };
    }
  }

  // Same numbers: every contender against the reference, at config.gain.
  let reference = null,
    referenceError = null;
  if (!state[REFERENCE].skipped) {
    try {
      reference = (await state[REFERENCE].worker.call('check', { config })).results;
    } catch (e) {
      referenceError = fmtErr(e);
    }
  }
  let split = null;
  if (!state[REFERENCE].skipped) {
    try {
      const out = await state[REFERENCE].worker.call('split', {
        config,
        repeat: Math.max(3, Math.min(50, plan.n[REFERENCE])),
      });
      split = { engine_call: summarize(out.run_ms), simulate: summarize(out.simulate_ms) };
    } catch (e) {
      split = { skipped: fmtErr(e) };
    }
  }
  const results = {};
  for (const n of names) {
    const s = state[n];
    const entry = { label: CONTENDERS[n].label };
    if (s.skipped) {
      results[n] = { ...entry, skipped: s.skipped };
      s.worker?.close();
      continue;
    }
    let check = null;
    try {
      if (n === REFERENCE) check = { reference: true };
      else if (!reference)
        check = {
          skipped: `no reference (the WASM SIMD build ${referenceError ? `failed: ${referenceError}` : 'did not run'})`,
        };
      else {
        let got;
        if (s.native) {
          const file = `${tmp}/${sceneName}-${n}.json`;
          await s.worker.call('results', { file });
          got = JSON.parse(readFileSync(file, 'utf8')).results;
        } else got = (await s.worker.call('check', { config })).results;
        check = compareResults(got, reference);
        check.tolerance = CONTENDERS[n].tolerance;
        check.ok = check.max_rel !== null && check.max_rel <= check.tolerance && !check.nonfinite_mismatches;
      }
    } catch (e) {
      check = { ok: false, error: fmtErr(e) };
    }
    s.worker?.close();
    const st = summarize(s.samples);
    results[n] = {
      ...entry,
      first_ms: s.first_ms,
      ...(s.fresh_ms !== undefined ? { first_ms_warm_code: Math.round(s.fresh_ms * 1e4) / 1e4 } : {}),
      ...(s.native ? { isa: s.info.isa, compiler: s.info.compiler } : {}),
      ...(s.load_ms !== undefined ? { load_ms: Math.round(s.load_ms * 1e4) / 1e4, info: s.info } : {}),
      warmup_ms: s.warmup_ms.map((x) => Math.round(x * 1e4) / 1e4),
      ...st,
      round_medians_ms: s.rounds.map((x) => (x === null ? null : Math.round(x * 1e4) / 1e4)),
      gflops: st.median_ms ? Math.round((flop / (st.median_ms * 1e6)) * 1e3) / 1e3 : null,
      check,
    };
  }
  // Ratios to the WASM SIMD build: time / WASM SIMD time (> 1: slower than WASM SIMD),
  // and the range of the same ratio per round (both ran in that round).
  addRatios(results, results[REFERENCE]);
  return {
    title: scene.title,
    config,
    flops: flop,
    rounds: plan.rounds,
    loadavg_per_round: state[REFERENCE]?.loadavg,
    warmup_calls: plan.warmup,
    contenders: results,
    wasm_copy_out: split,
    cpuprofile,
  };
}

// Buckets of a wasm CPU profile, by function name (first match wins).
const PROFILE_BUCKETS = [
  ['GEMM kernels (kernels.h)', /kernels::/],
  ['weight-gradient norms (grad_sq: Gram matrices + dot)', /grad_sq/],
  ['norms (LayerNorm / RMSNorm)', /Norm<|layernorm_|rmsnorm_/],
  ['MLP glue (activation, masks)', /Mlp</],
  ['stream glue (skip sums, update ratios, zeroing)', /Model<float>::(forward|backward)|forward_unit|backward_unit/],
  [
    'engine call with what it inlines (Engine::simulate, Model::result metrics)',
    /Simulation::run|Engine<|Model<float>::result|Model<float>::configure/,
  ],
  ['weight bank (RNG, first call only)', /gaussian_matrix|orthogonal_matrix|WeightBank|NormalRng/],
  ['memset / memcpy / malloc', /^wasm: (memset|memcpy|memmove|dlmalloc|dlfree|malloc|free|sbrk|emscripten_builtin)/],
  ['attention glue (softmax, heads, masks)', /Attention</],
  ["the trainer's own (optimizer, embedding, head and loss)", /Trainer|Network<|Adam|Optimizer|optim/],
  ['other wasm', /^wasm: /],
  ['JS: wrapper, Embind, copies out of the heap', /^js: |JSToWasm|WasmToJS|^\(garbage collector\)$/],
  ['idle / program / other', /.*/],
];

function summarizeProfile(p) {
  const buckets = PROFILE_BUCKETS.map(([label]) => ({ label, share: 0, ms_per_call: 0 }));
  for (const f of p.functions) {
    const i = PROFILE_BUCKETS.findIndex(([, re]) => re.test(f.name));
    buckets[i].share += f.share;
    buckets[i].ms_per_call += f.ms_per_call;
  }
  const round = (x, k = 4) => Math.round(x * 10 ** k) / 10 ** k;
  return {
    calls: p.calls,
    samples: p.samples,
    interval_us: p.interval_us,
    ms_per_call: round(p.wall_ms / p.calls),
    buckets: buckets.map((b) => ({ ...b, share: round(b.share), ms_per_call: round(b.ms_per_call) })),
    top: p.functions
      .slice(0, 15)
      .map((f) => ({ name: f.name.slice(0, 160), share: round(f.share), ms_per_call: round(f.ms_per_call) })),
  };
}

// V8 runs wasm first through Liftoff (baseline) and tiers hot functions up to
// TurboFan: the first calls against the steady state, and each compiler alone.
async function tiering(scene, quick, log) {
  const config = scene.config;
  const n = quick ? 2 : 30;
  const out = {};
  for (const [key, flags, label] of [
    ['liftoff_only', ['--liftoff-only'], 'Liftoff only (--liftoff-only): the baseline compiler, never optimized'],
    ['turbofan_only', ['--no-liftoff'], 'TurboFan only (--no-liftoff): optimized before the first call'],
  ]) {
    const w = new Worker(REFERENCE, flags);
    try {
      const init = await w.call('init');
      const r = await w.call('run', { config, repeat: n, warmup: 3 });
      out[key] = {
        label,
        flags,
        load_ms: init.load_ms,
        first_ms: r.first_ms,
        warmup_ms: r.warmup_ms,
        ...summarize(r.samples_ms),
      };
      log(`  wasm-simd ${key}: first ${r.first_ms.toFixed(1)} ms, steady ${out[key].median_ms} ms`);
    } catch (e) {
      out[key] = { label, skipped: fmtErr(e) };
    } finally {
      w.close();
    }
  }
  return out;
}

// ---------------------------------------------------------------- part 3: norms

function normRow(d, T, get) {
  const names = ['ln_fwd', 'ln_bwd', 'rms_fwd', 'rms_bwd'];
  const row = { d, T };
  names.forEach((k, i) => {
    row[k] = { median_ms: get(3 * i), p10_ms: get(3 * i + 1), p90_ms: get(3 * i + 2) };
  });
  return row;
}

function withSavings(rows) {
  const pct = (rms, ln) => Math.round((1 - rms / ln) * 1000) / 10;
  return rows.map((r) => ({
    ...r,
    saving_pct: {
      fwd: pct(r.rms_fwd.median_ms, r.ln_fwd.median_ms),
      bwd: pct(r.rms_bwd.median_ms, r.ln_bwd.median_ms),
      fwd_bwd: pct(r.rms_fwd.median_ms + r.rms_bwd.median_ms, r.ln_fwd.median_ms + r.ln_bwd.median_ms),
    },
  }));
}

async function norms(quick, log) {
  const widths = quick ? [64, 256] : [64, 128, 256, 512, 1024, 2048, 4096];
  const samples = quick ? 3 : 41;
  const out = { elements_per_call: 65536, samples, widths, runtimes: {} };
  for (const [key, dir, label] of [
    ['native-v2', 'build/bench-v2', 'native g++ -O3 -march=x86-64-v2'],
    ['native-v2-clang', 'build/bench-v2-clang', 'native clang -O3 -march=x86-64-v2'],
    ['native', 'build/bench-native', 'native g++ -O3 -march=native'],
  ]) {
    const bin = `${ROOT}${dir}/resnorm_norm_bench`;
    if (!existsSync(bin)) {
      out.runtimes[key] = { label, skipped: `${dir}/resnorm_norm_bench is not built (npm run bench builds it)` };
      continue;
    }
    try {
      const { stdout } = await run(bin, ['--samples', String(samples), '--widths', widths.join(',')]);
      out.runtimes[key] = { label, rows: withSavings(JSON.parse(stdout).rows) };
    } catch (e) {
      out.runtimes[key] = { label, skipped: `failed: ${fmtErr(e)}` };
    }
  }
  const require = createRequire(import.meta.url);
  for (const [key, file, label] of [
    ['wasm-simd', 'norm_simd', 'WASM -O3 -msimd128, Node'],
    ['wasm-scalar', 'norm_scalar', 'WASM -O3 scalar, Node'],
  ]) {
    const js = `${ROOT}build/bench-wasm/${file}.js`;
    if (!existsSync(js)) {
      out.runtimes[key] = { label, skipped: `build/bench-wasm/${file}.js is not built (bash bench/wasm/build.sh)` };
      continue;
    }
    try {
      const m = await require(js)({ wasmBinary: readFileSync(`${ROOT}build/bench-wasm/${file}.wasm`) });
      const rows = widths.map((d) => {
        const T = m._norm_bench_setup(d);
        // Warm-up: V8 runs each function through Liftoff first and tiers it up to
        // TurboFan after some use; the next call runs the optimized code.
        for (let i = 0; i < 20; i++) for (let k = 0; k < 4; k++) m._norm_bench_time(k, 2);
        const per = m._norm_bench_time(0, 8) / 8;
        const inner = Math.max(1, Math.min(1000, Math.round(1 / Math.max(per, 1e-6))));
        const ms = [[], [], [], []];
        for (let s = 0; s < samples; s++) for (let k = 0; k < 4; k++) ms[k].push(m._norm_bench_time(k, inner) / inner);
        const q = (v, p) => Math.round(quantile(v, p) * 1e6) / 1e6;
        return normRow(d, T, (i) => q(ms[Math.floor(i / 3)], [0.5, 0.1, 0.9][i % 3]));
      });
      out.runtimes[key] = { label, rows: withSavings(rows) };
    } catch (e) {
      out.runtimes[key] = { label, skipped: `failed: ${fmtErr(e)}` };
    }
  }
  for (const [k, v] of Object.entries(out.runtimes))
    if (v.rows)
      log(
        `  norms ${k}: RMSNorm saves ${v.rows.map((r) => `${r.saving_pct.fwd_bwd}%`).join(' ')} (fwd+bwd, d=${widths.join(',')})`,
      );
  return out;
}

// ---------------------------------------------------------------- part 4: profile

async function profile(scenes, quick, log) {
  const reps = quick ? 2 : 15;
  const out = { reps, scenes: {} };
  const require = createRequire(import.meta.url);
  const js = `${ROOT}build/bench-wasm/profile.js`;
  let mod = null,
    modError = null;
  if (existsSync(js)) {
    try {
      mod = await require(js)({ wasmBinary: readFileSync(`${ROOT}build/bench-wasm/profile.wasm`) });
    } catch (e) {
      modError = fmtErr(e);
    }
  } else modError = 'build/bench-wasm/profile.js is not built (bash bench/wasm/build.sh)';
  for (const [name, scene] of Object.entries(scenes)) {
    const c = scene.config;
    const entry = {};
    const r = name === 'wide' ? Math.max(2, Math.round(reps / 3)) : reps;
    for (const [key, dir] of [
      ['native-v2', 'build/bench-v2'],
      ['native-v2-clang', 'build/bench-v2-clang'],
    ]) {
      const bin = `${ROOT}${dir}/resnorm_bench`;
      if (!existsSync(bin)) {
        entry[key] = { skipped: `${dir}/resnorm_bench is not built` };
        continue;
      }
      try {
        const { stdout } = await run(bin, [...nativeArgs(c), '--phases', String(r)]);
        entry[key] = JSON.parse(stdout);
      } catch (e) {
        entry[key] = { skipped: fmtErr(e) };
      }
    }
    if (mod) {
      const mask = c.arch.reduce((m, a) => m | (1 << ARCH_ENUM.indexOf(a)), 0);
      mod._profile_run(mask, c.depth, c.width, c.tokens, c.expansion, 2); // warm-up (Liftoff -> TurboFan)
      if (!mod._profile_run(mask, c.depth, c.width, c.tokens, c.expansion, r))
        entry['wasm-simd'] = { skipped: 'config refused' };
      else {
        const v = (i) => Math.round(mod._profile_value(i) * 1e4) / 1e4;
        entry['wasm-simd'] = {
          configure_ms: v(0),
          forward_ms: v(1),
          backward_ms: v(2),
          result_ms: v(3),
          total_ms: v(4),
          kernels_ms: v(5),
          norms_ms: v(6),
          repeat: r,
        };
      }
    } else entry['wasm-simd'] = { skipped: modError };
    out.scenes[name] = entry;
    const w = entry['wasm-simd'];
    if (w.total_ms)
      log(
        `  profile ${name} wasm: total ${w.total_ms} ms, kernels ${w.kernels_ms}, norms ${w.norms_ms}, result ${w.result_ms}`,
      );
  }
  return out;
}

// ---------------------------------------------------------------- machine

function version(cmd, args, pick = (s) => s.split('\n')[0]) {
  try {
    return pick(
      execFileSync(cmd, args, {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        env: { ...process.env, NODE_PATH: '/usr/share/nodejs' },
      }).trim(),
    );
  } catch {
    return null;
  }
}

function machine() {
  const cpus = os.cpus();
  const pkg = (name) => {
    try {
      return JSON.parse(readFileSync(`${ROOT}node_modules/${name}/package.json`, 'utf8')).version;
    } catch {
      return null;
    }
  };
  let osName = os.type();
  try {
    osName = /PRETTY_NAME="([^"]+)"/.exec(readFileSync('/etc/os-release', 'utf8'))[1];
  } catch {
    /* keep */
  }
  const git = version('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']);
  const dirty = version('git', ['-C', ROOT, 'status', '--porcelain'], (s) => s.length > 0);
  return {
    cpu: cpus[0]?.model || 'unknown',
    cores: cpus.length,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    os: `${osName}, Linux ${os.release()}`,
    loadavg_start: os.loadavg().map((x) => Math.round(x * 100) / 100),
    node: process.version,
    v8: process.versions.v8,
    gcc: version('g++', ['--version']),
    emcc: version('emcc', ['--version']),
    chromium: version('/usr/bin/chromium', ['--version']),
    tfjs: pkg('@tensorflow/tfjs-core'),
    tfjs_backend_wasm: pkg('@tensorflow/tfjs-backend-wasm'),
    playwright_core: pkg('playwright-core'),
    git: git ? `${git}${dirty ? ' (working tree with uncommitted changes)' : ''}` : null,
  };
}

// ---------------------------------------------------------------- part 5

async function growth(quick, log) {
  const w = new Worker('wasm-simd');
  try {
    await w.call('init');
    const { Resnorm } = await import('../wasm/resnorm.js');
    const { default: create } = await import(`${ROOT}wasm/dist/resnorm_wasm.js`);
    const rn = new Resnorm(await create({ wasmBinary: readFileSync(`${ROOT}wasm/dist/resnorm_wasm.wasm`) }));
    const out = { scaling: await scaling(w, { quick, log }) };
    w.close();
    const w2 = new Worker('wasm-simd');
    try {
      await w2.call('init');
      out.limits = await limits(rn, w2, { quick, log });
    } finally {
      w2.close();
    }
    rn.dispose();
    return out;
  } catch (e) {
    return { status: 'failed', reason: fmtErr(e) };
  } finally {
    w.close();
  }
}

// ---------------------------------------------------------------- parts 6 and 7

// `run(page)` with a bench page in a browser of its own ({page, worker} of bench/browser.js's
// benchPage), or with {skipped: reason} when `noPage` or when no page opens: the training
// part's page contender and the page's peak.
async function withOptionalPage(noPage, run) {
  try {
    if (noPage) return await run({ skipped: '--quick: the page runs in the full benchmark only (or with --browser)' });
    if (!existsSync(process.env.CHROMIUM || '/usr/bin/chromium'))
      return await run({ skipped: '/usr/bin/chromium is not installed (npm run setup installs it)' });
    let ran = false;
    try {
      return await withBenchPage((page) => {
        ran = true;
        return run(page);
      });
    } catch (e) {
      if (ran) throw e;
      return await run({ skipped: `the bench page did not open: ${fmtErr(e)}` });
    }
  } catch (e) {
    return { status: 'failed', reason: fmtErr(e) };
  }
}

// Where one update of each lab claim's first timed run goes: V8's sampling profiler in a
// worker of the shipped build, bucketed as part 1's profiles are.
async function claimProfiles(claims, quick, log) {
  if (!claims?.runs) return claims;
  for (const c of claims.claims) {
    const run = claims.runs.find((r) => r.claim === c.claim && !r.skipped);
    if (!run) continue;
    const w = new Worker(REFERENCE);
    try {
      await w.call('init');
      await w.call('trainer', { config: run.config });
      await w.call('train', { repeat: 0, warmup: quick ? 2 : 20 });
      const p = summarizeProfile((await w.call('trainprofile', { repeat: quick ? 3 : 40 })).profile);
      const top = [...p.buckets].sort((a, b) => b.share - a.share)[0];
      c.profile = { run: run.key, ms_per_update: p.ms_per_call, top_bucket: top, top_functions: p.top.slice(0, 3) };
      log(`  claims ${c.claim} profile (${run.key}): ${top.label} ${(100 * top.share).toFixed(0)}%`);
    } catch (e) {
      c.profile = { skipped: fmtErr(e) };
    } finally {
      w.close();
    }
  }
  return claims;
}

// ---------------------------------------------------------------- main

export async function main(argv = process.argv.slice(2)) {
  const has = (f) => argv.includes(f);
  const opt = (f, d) => (argv.indexOf(f) >= 0 ? argv[argv.indexOf(f) + 1] : d);
  const quick = has('--quick');
  const out = opt('--out', `${ROOT}bench/results`);
  const only = new Set(opt('--only', 'engine,norms,profile,browser,scaling,training,peak,claims,lab').split(','));
  const log = has('--silent') ? () => {} : (s) => process.stderr.write(`${s}\n`);
  const scenes = quick ? QUICK_SCENES : SCENES;
  // --wait-quiet S: wait up to S seconds for the 1-minute load average to drop to
  // the number of cores (a shared machine: let a neighbour's build finish first).
  let waited = 0;
  const quietFor = Number(opt('--wait-quiet', 0));
  while (waited < quietFor && os.loadavg()[0] > os.cpus().length) {
    if (waited % 60 === 0)
      log(`waiting for a quieter machine: load ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
    await new Promise((r) => setTimeout(r, 10000));
    waited += 10;
  }
  const t0 = Date.now();
  const tmp = mkdtempSync(`${os.tmpdir()}/resnorm-bench-`);
  const report = {
    schema: 'resnorm-bench/1',
    date: new Date().toISOString(),
    quick,
    machine: machine(),
    method: {
      flops: FLOP_FORMULA,
      timing:
        'ms per recompute = one simulate() call: forward, backward and every per-layer metric of every arch in the scene, ' +
        'the gain alternating g, g + 1e-3 as a slider would; each contender in its own process, interleaved in rounds; ' +
        'steady state = every call after the first (native) or after the first and the warm-up calls (JS side)',
      ratio: 'time / WASM SIMD time, ratio of medians; the range is that ratio per round',
      check: 'max relative difference of every per-layer value against the WASM SIMD build at the same config',
    },
  };
  // The parts in the order they run: [name, what the log says, fn filling the report].
  const parts = [
    [
      'engine',
      'part 1: engine throughput',
      async () => {
        report.engine = { plan: quick ? QUICK_PLAN : PLAN, scenes: {} };
        for (const [name, scene] of Object.entries(scenes))
          report.engine.scenes[name] = await engineScene(name, scene, quick ? QUICK_PLAN : PLAN[name], log, tmp);
        report.engine.tiering = await tiering(scenes.default, quick, log);
      },
    ],
    ['norms', 'part 3: LayerNorm against RMSNorm', async () => (report.norms = await norms(quick, log))],
    ['profile', 'part 4: profile', async () => (report.profile = await profile(scenes, quick, log))],
    ['scaling', 'part 5: the cost of growth', async () => (report.scaling = await growth(quick, log))],
    [
      'browser',
      'part 2: browser',
      async () => {
        if (quick && !has('--browser'))
          report.browser = { status: 'skipped', reason: '--quick: the browser part runs in the full benchmark only' };
        else
          report.browser = await runBrowser({
            loads: quick ? 1 : 5,
            steps: quick ? 4 : 100,
            deepSteps: quick ? 4 : 40,
            papersLoads: quick ? 1 : 3,
            poolRounds: quick ? 1 : 5,
            labLoads: quick ? 1 : 3,
            defaultConfig: scenes.default.config,
            deepConfig: scenes.deep.config,
            log,
          }).catch((e) => ({ status: 'failed', reason: fmtErr(e) }));
      },
    ],
    [
      'training',
      'part 6: training',
      async () =>
        (report.training = await withOptionalPage(quick && !has('--browser'), (page) =>
          training({ quick, page, log }),
        )),
    ],
    [
      'peak',
      'part 7: the peak f32x4 multiply-add rate',
      async () =>
        (report.peak = await withOptionalPage(quick && !has('--browser'), (page) => peak({ quick, page, log }))),
    ],
    [
      'claims',
      'part 7: the lab claims against the peak',
      async () =>
        (report.claims = await claimsTraining({
          quick,
          peakGflops: report.peak?.node?.peak_gflops ?? null,
          peakFastestGflops: report.peak?.node?.peak_fastest_gflops ?? null,
          log,
        })
          .then((c) => claimProfiles(c, quick, log))
          .catch((e) => ({ status: 'failed', reason: fmtErr(e) }))),
    ],
    [
      'lab',
      'part 8: the lab with seeds, long tasks and the CPU slowed 3x',
      async () => {
        if (quick && !has('--browser'))
          report.lab = { status: 'skipped', reason: '--quick: the lab part runs in the full benchmark only' };
        else if (!existsSync(process.env.CHROMIUM || '/usr/bin/chromium'))
          report.lab = { status: 'skipped', reason: '/usr/bin/chromium is not installed (npm run setup installs it)' };
        else
          report.lab = await labPart({
            quick,
            log,
            pieces: opt('--lab-pieces', LAB_PIECES.join(',')).split(','),
            runPage: (browser, server, o) =>
              pageTargets(browser, server, {
                rates: [1, o.rate],
                loads: quick ? 1 : 3,
                steps: quick ? 4 : 50,
                papersLoads: quick ? 1 : 2,
                log,
              }),
          }).catch((e) => ({ status: 'failed', reason: fmtErr(e) }));
      },
    ],
  ];
  // Seconds each part took, in the order they ran.
  report.part_durations_s = {};
  try {
    for (const [name, what, fn] of parts) {
      if (!only.has(name)) continue;
      log(what);
      const t = Date.now();
      try {
        await fn();
      } finally {
        report.part_durations_s[name] = Math.round((Date.now() - t) / 100) / 10;
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  // --merge: the parts not run this time come from the report already in `out` (its date and
  // machine kept beside them), so `--only peak,claims --merge` adds part 7 to a full report.
  const prevFile = `${out}/latest.json`;
  if (has('--merge') && existsSync(prevFile)) {
    const prev = JSON.parse(readFileSync(prevFile, 'utf8'));
    const kept = parts.map(([name]) => name).filter((name) => !only.has(name) && prev[name]);
    for (const name of kept) report[name] = prev[name];
    // Each kept part's own run: a part the previous report had merged in comes from that report's source.
    const own = { date: prev.date, loadavg_start: prev.machine?.loadavg_start, git: prev.machine?.git };
    const from = (name) => prev.merged?.from?.[name] ?? (prev.merged?.parts?.includes(name) ? prev.merged : own);
    const sources = [];
    for (const name of kept) {
      const src = from(name);
      let entry = sources.find((x) => x.date === src.date);
      if (!entry) sources.push((entry = { parts: [], date: src.date, loadavg_start: src.loadavg_start, git: src.git }));
      entry.parts.push(name);
    }
    report.merged = {
      parts: kept,
      sources,
      from: Object.fromEntries(
        sources.flatMap((x) =>
          x.parts.map((name) => [name, { date: x.date, loadavg_start: x.loadavg_start, git: x.git }]),
        ),
      ),
    };
    report.part_durations_s = {
      ...Object.fromEntries(kept.map((k) => [k, prev.part_durations_s?.[k]])),
      ...report.part_durations_s,
    };
  }
  report.targets = targets(report);
  report.machine.loadavg_end = os.loadavg().map((x) => Math.round(x * 100) / 100);
  report.machine.waited_for_quiet_s = waited;
  report.duration_s = Math.round((Date.now() - t0) / 100) / 10;
  mkdirSync(out, { recursive: true });
  writeFileSync(`${out}/latest.json`, JSON.stringify(report, null, 1) + '\n');
  const md = renderMarkdown(report);
  writeFileSync(`${out}/latest.md`, md);
  if (!has('--silent')) process.stdout.write(md);
  return report;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
