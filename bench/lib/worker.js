// One JavaScript-side contender in its own Node process (forked by bench/run.js):
//   node bench/lib/worker.js <wasm-simd | wasm-scalar | js | tfjs>
// A fresh process per contender and scene, so the first call is a first call:
// module compiled and instantiated (wasm: V8's baseline compiler, Liftoff, then
// tier-up to TurboFan of the hot functions), weight bank cold.
//
// Messages (IPC): {id, cmd, ...} -> {id, ok, ...}
//   init                      load the engine; {load_ms, info}
//   run {config, repeat, warmup}
//                             the first call of the process is timed alone (first_ms),
//                             then `warmup` calls (warmup_ms, not in the samples),
//                             then `repeat` timed calls (samples_ms). The gain
//                             alternates config.gain, config.gain + 1e-3 as a slider would.
//   check {config}            results at config (arrays as plain arrays)
//   split {config, repeat}    wasm only: the engine call alone against simulate(),
//                             which adds the copies of the results out of the wasm heap
//   fresh {config}            a new engine object in this (warm) process: its first call
//                             pays the weight bank and the workspaces, not the compilers
//   cpuprofile {config, repeat}
//                             V8's sampling profiler over `repeat` calls: self time per
//                             function, wasm functions named from the build's symbol map
// Training (bench/lib/train.js), wasm-simd and tfjs:
//   trainer {config}          a trainer of `config` (rn.trainer, or bench/tfjs/train.js's
//                             TfTrainer): {heap_bytes}
//   train {repeat, warmup}    the trainer's first update is timed alone (first_ms), then
//                             `warmup` updates (warmup_ms), then `repeat` (samples_ms), each
//                             timed alone; the train loss of the first and the last
//   losses {config, steps}    wasm: a new trainer of `config` logging every update: the
//                             train_loss of its first `steps` updates
//   heap                      wasm: the heap's size now, in bytes (it only grows)
//   trainprofile {repeat}     V8's sampling profiler over `repeat` updates of the trainer
//                             (after 3 unprofiled ones), as cpuprofile reports it
import { existsSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const WASM_DIRS = { 'wasm-simd': `${ROOT}wasm/dist`, 'wasm-scalar': `${ROOT}build/wasm-scalar/dist` };

async function load(name) {
  if (name in WASM_DIRS) {
    const dir = WASM_DIRS[name];
    const { Resnorm } = await import('../../wasm/resnorm.js');
    const { default: create } = await import(pathToFileURL(`${dir}/resnorm_wasm.js`).href);
    const wasmBinary = readFileSync(`${dir}/resnorm_wasm.wasm`);
    const t0 = performance.now();
    const rn = new Resnorm(await create({ wasmBinary }));
    const load_ms = performance.now() - t0;
    const symbols = `${dir}/resnorm_wasm.js.symbols`;
    return {
      engine: rn,
      load_ms,
      symbols: existsSync(symbols) ? symbols : null,
      fresh: () => new Resnorm(rn._module),
      info: { wasm_bytes: wasmBinary.length, node: process.version, v8: process.versions.v8, flags: process.execArgv },
    };
  }
  if (name === 'js') {
    const { Engine } = await import('../js/engine.js');
    return {
      engine: new Engine(),
      fresh: () => new Engine(),
      load_ms: 0,
      info: { node: process.version, v8: process.versions.v8 },
    };
  }
  if (name === 'tfjs') {
    const t0 = performance.now();
    const { initTf, TfEngine } = await import('../tfjs/engine.js');
    const { tf, info } = await initTf();
    return { engine: new TfEngine(tf), tf, fresh: () => new TfEngine(tf), load_ms: performance.now() - t0, info };
  }
  throw new Error(`unknown contender ${name}`);
}

const name = process.argv[2];
let state = null;
let calls = 0; // calls made in this process: the first one is the cold call
let trainer = null; // {step(n) -> train losses, delete(), first: whether no update ran yet}

const heapBytes = () => state.engine._module?.HEAP8.buffer.byteLength ?? null;

async function newTrainer(config) {
  if (name === 'tfjs') {
    const { TfTrainer } = await import('../tfjs/train.js');
    const tr = new TfTrainer(state.tf, config);
    return { step: (n) => tr.step(n), delete: () => tr.dispose() };
  }
  const rn = state.engine;
  if (typeof rn.trainer !== 'function') throw new Error('the JS trainer API is not built (rn.trainer is missing)');
  const tr = rn.trainer(config);
  return { step: (n) => tr.step(n).map((log) => log.train_loss), delete: () => tr.delete() };
}

// One update, timed; its train loss is the first logged one (every update is logged in `losses`).
function timedStep(losses) {
  const t = performance.now();
  const out = trainer.step(1);
  const ms = performance.now() - t;
  if (out.length) losses.push(out[out.length - 1]);
  return ms;
}

function call(config) {
  const gain = (config.gain ?? 1) + (calls % 2 ? 1e-3 : 0);
  calls++;
  const t = performance.now();
  state.engine.simulate({ ...config, gain });
  return performance.now() - t;
}

function plain(out) {
  const results = {};
  for (const [arch, r] of Object.entries(out.results)) {
    results[arch] = { first_nonfinite: r.first_nonfinite };
    for (const [k, v] of Object.entries(r)) if (v && v.length !== undefined) results[arch][k] = Array.from(v);
  }
  return results;
}

async function handle(msg) {
  switch (msg.cmd) {
    case 'init': {
      state = await load(name);
      return { load_ms: state.load_ms, info: state.info };
    }
    case 'run': {
      const out = {};
      if (calls === 0) out.first_ms = call(msg.config);
      out.warmup_ms = [];
      for (let i = 0; i < (msg.warmup || 0); i++) out.warmup_ms.push(call(msg.config));
      out.samples_ms = [];
      for (let i = 0; i < msg.repeat; i++) out.samples_ms.push(call(msg.config));
      return out;
    }
    case 'check':
      return { results: plain(state.engine.simulate(msg.config)) };
    case 'split': {
      // The engine call is timed inside simulate() by wrapping the Embind method,
      // so the wrapper's own conversions are whatever wasm/resnorm.js does today.
      const rn = state.engine;
      const sim = rn._sim;
      const inner = [],
        full = [];
      const run = sim.run;
      sim.run = function timed(...args) {
        const t = performance.now();
        try {
          return run.apply(this, args);
        } finally {
          inner.push(performance.now() - t);
        }
      };
      try {
        for (let i = 0; i < msg.repeat; i++) full.push(call(msg.config));
      } finally {
        delete sim.run; // back to the prototype's method
      }
      return { run_ms: inner, simulate_ms: full };
    }
    case 'fresh': {
      const engine = state.fresh();
      const t = performance.now();
      engine.simulate(msg.config);
      const ms = performance.now() - t;
      engine.dispose?.();
      return { first_ms: ms };
    }
    case 'trainer': {
      trainer?.delete();
      trainer = await newTrainer(msg.config);
      trainer.first = true;
      return { heap_bytes: heapBytes() };
    }
    case 'train': {
      const out = { warmup_ms: [], samples_ms: [] };
      const losses = [];
      if (trainer.first) {
        out.first_ms = timedStep(losses);
        trainer.first = false;
      }
      for (let i = 0; i < (msg.warmup || 0); i++) out.warmup_ms.push(timedStep(losses));
      for (let i = 0; i < msg.repeat; i++) out.samples_ms.push(timedStep(losses));
      return { ...out, losses, heap_bytes: heapBytes() };
    }
    case 'losses': {
      const tr = await newTrainer({ ...msg.config, log_every: 1 });
      try {
        return { losses: tr.step(msg.steps) };
      } finally {
        tr.delete();
      }
    }
    case 'heap':
      return { heap_bytes: heapBytes() };
    case 'cpuprofile':
      return { profile: await cpuProfile(() => call(msg.config), msg.repeat, msg.interval_us || 100) };
    case 'trainprofile':
      return { profile: await cpuProfile(() => trainer.step(1), msg.repeat, msg.interval_us || 100) };
    default:
      throw new Error(`unknown command ${msg.cmd}`);
  }
}

// Symbol map of an Emscripten build (--emit-symbol-map): "index:mangled-ish name".
function readSymbols(file) {
  const names = new Map();
  if (!file) return names;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const i = line.indexOf(':');
    if (i > 0)
      names.set(
        Number(line.slice(0, i)),
        line.slice(i + 1).replace(/\\([0-9a-f]{2})/g, (m, h) => String.fromCharCode(parseInt(h, 16))),
      );
  }
  return names;
}

// Self time by function over `repeat` calls of `fn` (after the caller's warm-up), in ms.
async function cpuProfile(fn, repeat, intervalUs) {
  const session = new Session();
  session.connect();
  const post = (method, params = {}) =>
    new Promise((ok, fail) => session.post(method, params, (e, r) => (e ? fail(e) : ok(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: intervalUs });
  for (let i = 0; i < 3; i++) fn();
  await post('Profiler.start');
  const t0 = performance.now();
  for (let i = 0; i < repeat; i++) fn();
  const wall = performance.now() - t0;
  const { profile } = await post('Profiler.stop');
  session.disconnect();
  const symbols = readSymbols(state.symbols);
  const hits = new Map();
  for (const id of profile.samples) hits.set(id, (hits.get(id) || 0) + 1);
  const byName = new Map();
  let total = 0;
  for (const node of profile.nodes) {
    const n = hits.get(node.id) || 0;
    if (!n) continue;
    total += n;
    const f = node.callFrame;
    const m = /^wasm-function\[(\d+)\]$/.exec(f.functionName);
    let name;
    if (m) name = `wasm: ${symbols.get(Number(m[1])) || f.functionName}`;
    else if (f.url) name = `js: ${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\//, '')}`;
    else name = f.functionName || '(unknown)';
    byName.set(name, (byName.get(name) || 0) + n);
  }
  const functions = [...byName.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => ({ name, share: n / total, ms_per_call: (n / total) * (wall / repeat) }));
  return { calls: repeat, wall_ms: wall, samples: total, interval_us: intervalUs, functions };
}

process.on('message', async (msg) => {
  try {
    process.send({ id: msg.id, ok: true, ...(await handle(msg)) });
  } catch (e) {
    process.send({ id: msg.id, ok: false, error: String(e && e.stack ? e.stack : e) });
  }
});
process.on('disconnect', () => process.exit(0));
