// The training part of `npm run bench` (bench/run.js calls it): training
// throughput of one small transformer in training tokens per second (batch x
// context per update), every contender a long-lived process or page, interleaved
// in rounds as the engine part does:
//   native-v2-clang  bench/train_bench.cpp on the core's Trainer<float>, clang 14
//                    -O3 -march=x86-64-v2 (SSE4.2: the 128-bit vectors WASM SIMD has)
//   wasm-simd        the shipped WASM SIMD build in Node, rn.trainer (wasm/resnorm.js)
//   wasm-simd-page   the same build in headless Chromium, in one engine Worker,
//                    through client.trainer (web/src/engine/client.js)
//   tfjs             TensorFlow.js's wasm backend training the same model (bench/tfjs/train.js)
// Then the wasm heap that config needs, and the heap of the largest allowed
// training config (train_bench --largest: the most bytes train_cost() allows).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ForkedWorker, LineProcess, fmtErr, interleave, nativeArgs, startNative } from './procs.js';
import { addRatios, median, summarize } from './stats.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** The model and task of the training table: 4 pre-LN transformer blocks, d = 64, 4 heads, markov. */
export const TRAIN_CONFIG = {
  task: 'markov',
  arch: 'pre_ln',
  block: 'transformer',
  depth: 4,
  width: 64,
  expansion: 4,
  heads: 4,
  activation: 'gelu',
  positions: 'learned',
  seq: 64,
  vocab: 65,
  batch: 16,
  optimizer: 'adam',
  lr: 1e-3,
  warmup: 0,
  schedule: 'constant',
  // Far more updates than the bench runs, logged never: the timed updates are
  // plain updates (a logged one also evaluates the held-out set).
  steps: 1000000,
  log_every: 1000000,
  seed: 0,
};
const QUICK_CONFIG = { ...TRAIN_CONFIG, depth: 1, width: 16, heads: 2, seq: 8, vocab: 8, batch: 2 };

// Training tokens of one update: batch x the task's context (tasks.h).
export function tokensPerStep(c) {
  const context = { copy: 2 * c.seq, reverse: 2 * c.seq, sort: 2 * c.seq, modadd: 2, markov: c.seq, teacher: 1 };
  return c.batch * context[c.task];
}

export const TRAIN_CONTENDERS = {
  'native-v2-clang': {
    label: "native clang 14 -O3 -march=x86-64-v2, the core's Trainer (bench/train_bench.cpp)",
    kind: 'native',
    bin: 'build/bench-v2-clang/resnorm_train_bench',
    // The float trainer's arithmetic is the same natively and in wasm (portable
    // erf, tanh, exp; the products through the kernels), and the losses come with every digit.
    tolerance: 0,
  },
  'wasm-simd': { label: 'WASM SIMD (the shipped build), Node, rn.trainer', kind: 'worker', tolerance: 0 },
  'wasm-simd-page': {
    label: 'WASM SIMD in headless Chromium, one engine Worker, client.trainer',
    kind: 'page',
    tolerance: 0,
  },
  tfjs: {
    label: 'TensorFlow.js 4.22, wasm backend (SIMD, 1 thread), Node, tf.variableGrads + tf.train.adam',
    kind: 'worker',
  },
};
const REFERENCE = 'wasm-simd';
// Updates each contender runs over all rounds, after the first and the warm-up (JS side).
const PLAN = {
  rounds: 6,
  warmup: 1,
  check_steps: 3,
  n: { 'native-v2-clang': 12, 'wasm-simd': 12, 'wasm-simd-page': 12, tfjs: 4 },
};
const QUICK_PLAN = {
  rounds: 2,
  warmup: 1,
  check_steps: 2,
  n: { 'native-v2-clang': 2, 'wasm-simd': 2, 'wasm-simd-page': 2, tfjs: 2 },
};

// resnorm_train_bench --serve 1, with ForkedWorker's call() API.
class NativeTrainer extends LineProcess {
  constructor(name, bin, config) {
    super(name, bin, [...nativeArgs(config), '--serve', '1']);
  }
  async call(cmd, args = {}) {
    if (cmd === 'train') {
      // No JIT natively: the warm-up updates are timed as samples.
      const out = await this.send(`step ${args.repeat + (args.warmup || 0)}`);
      return { first_ms: out.first_ms, warmup_ms: [], samples_ms: out.samples_ms, losses: [] };
    }
    if (cmd === 'losses') return this.send(`losses ${args.steps}`);
    throw new Error(`native trainer: no command ${cmd}`);
  }
}

// The page contender: one engine client of one worker in the bench page (bench/browser.js's
// benchPage), one trainer on it; each update timed on the page's clock, awaited as a page would.
class PageTrainer {
  constructor(page, worker) {
    this.page = page;
    this.worker = worker;
  }
  async start(config) {
    await this.page.evaluate(
      async ({ worker, config }) => {
        const { createEngineClient } = await import('./engine/client.js');
        const client = createEngineClient({
          workers: 1,
          startWorker: () => new Worker(worker.url, { type: worker.type }),
        });
        window.__benchClient = client;
        if (typeof client.trainer !== 'function')
          throw new Error('the JS trainer API is not built (client.trainer is missing)');
        window.__benchTrainer = await client.trainer(config);
        window.__benchFirst = true;
      },
      { worker: this.worker, config },
    );
  }
  call(cmd, args = {}) {
    if (cmd === 'train')
      return this.page.evaluate(async ({ repeat, warmup }) => {
        const tr = window.__benchTrainer;
        const timed = async () => {
          const t = performance.now();
          await tr.step(1);
          return performance.now() - t;
        };
        const out = { warmup_ms: [], samples_ms: [], losses: [] };
        if (window.__benchFirst) {
          out.first_ms = await timed();
          window.__benchFirst = false;
        }
        for (let i = 0; i < warmup; i++) out.warmup_ms.push(await timed());
        for (let i = 0; i < repeat; i++) out.samples_ms.push(await timed());
        return out;
      }, args);
    if (cmd === 'losses')
      return this.page.evaluate(async ({ config, steps }) => {
        const tr = await window.__benchClient.trainer({ ...config, log_every: 1 });
        try {
          return { losses: (await tr.step(steps)).map((log) => log.train_loss) };
        } finally {
          await tr.delete();
        }
      }, args);
    throw new Error(`page trainer: no command ${cmd}`);
  }
  close() {
    return this.page.evaluate(() => window.__benchClient?.terminate()).catch(() => {});
  }
}

async function startTrainer(name, config, page) {
  const c = TRAIN_CONTENDERS[name];
  if (c.kind === 'native') {
    return startNative(NativeTrainer, name, `${ROOT}${c.bin}`, config, 'bash bench/build.sh builds it');
  }
  if (c.kind === 'page') {
    if (page.skipped) return { skipped: page.skipped };
    const w = new PageTrainer(page.page, page.worker);
    try {
      await w.start(config);
      return { name, worker: w };
    } catch (e) {
      await w.close();
      return { skipped: fmtErr(e) };
    }
  }
  const w = new ForkedWorker(name);
  try {
    const init = await w.call('init');
    const loaded = name === 'tfjs' ? null : (await w.call('heap')).heap_bytes;
    const made = await w.call('trainer', { config });
    return { name, worker: w, info: init.info, heap: { loaded, trainer: made.heap_bytes } };
  } catch (e) {
    w.close();
    return { skipped: fmtErr(e) };
  }
}

// Max relative difference of two lists of losses (null when either is missing).
function compareLosses(got, ref) {
  if (!got?.length || !ref?.length || got.length !== ref.length) return null;
  return Math.max(...got.map((a, i) => (a === ref[i] ? 0 : Math.abs(a - ref[i]) / Math.max(Math.abs(ref[i]), 1e-300))));
}

async function measure(config, plan, page, log, state) {
  const names = Object.keys(TRAIN_CONTENDERS);
  const tokens = tokensPerStep(config);
  for (const n of names) {
    state[n] = await startTrainer(n, config, page);
    Object.assign(state[n], { first_ms: null, warmup_ms: [], samples: [], rounds: [], losses: [] });
    if (state[n].skipped) log(`  training ${n}: not measured: ${state[n].skipped}`);
  }
  const live = names.filter((n) => !state[n].skipped);
  const train = async (s, k, warmup) => {
    const out = await s.worker.call('train', { repeat: k, warmup });
    s.losses.push(...(out.losses || []));
    if (out.heap_bytes) s.heap = { ...s.heap, after_steps: out.heap_bytes };
    return out;
  };
  await interleave(state, live, plan, train, (r) =>
    log(
      `  training round ${r + 1}/${plan.rounds}: ` +
        live
          .filter((n) => !state[n].skipped)
          .map((n) => {
            const m = median(state[n].samples);
            return `${n} ${m ? `${Math.round(tokens / (m / 1000))} tokens/s` : '(first updates only)'}`;
          })
          .join(', '),
    ),
  );
  // Same numbers: the first updates of a new trainer of the same config, against WASM SIMD in Node.
  const losses = {};
  for (const n of names) {
    const s = state[n];
    if (s.skipped || n === 'tfjs') continue;
    try {
      losses[n] = (await s.worker.call('losses', { config, steps: plan.check_steps })).losses;
    } catch (e) {
      losses[n] = { error: fmtErr(e) };
    }
  }
  const results = {};
  for (const n of names) {
    const s = state[n];
    const c = TRAIN_CONTENDERS[n];
    const entry = { label: c.label };
    if (s.skipped) {
      results[n] = { ...entry, skipped: s.skipped };
      continue;
    }
    let check;
    if (n === REFERENCE)
      check = Array.isArray(losses[n]) ? { reference: true, losses: losses[n] } : { error: losses[n]?.error };
    else if (n === 'tfjs')
      check = { skipped: 'its own init and data (bench/tfjs/train.js): the same shapes, other numbers' };
    else if (!Array.isArray(losses[REFERENCE])) check = { skipped: 'no reference (WASM SIMD in Node did not run)' };
    else if (!Array.isArray(losses[n])) check = { error: losses[n]?.error ?? 'no losses' };
    else {
      const rel = compareLosses(losses[n], losses[REFERENCE]);
      check = { max_rel: rel, tolerance: c.tolerance, ok: rel !== null && rel <= c.tolerance, losses: losses[n] };
    }
    const st = summarize(s.samples);
    results[n] = {
      ...entry,
      ...(s.info?.isa ? { isa: s.info.isa, compiler: s.info.compiler } : {}),
      first_ms: s.first_ms,
      warmup_ms: s.warmup_ms,
      ...st,
      tokens_per_s: st.median_ms ? Math.round(tokens / (st.median_ms / 1000)) : null,
      round_medians_ms: s.rounds,
      ...(s.losses.length ? { train_loss: [s.losses[0], s.losses[s.losses.length - 1]] } : {}),
      ...(s.heap ? { heap_bytes: s.heap } : {}),
      check,
    };
  }
  addRatios(results, results[REFERENCE]);
  return { tokens_per_step: tokens, contenders: results };
}

// check_train and train_cost of `config`, natively ({bytes, ...}), or null without the harness.
async function nativeCost(config) {
  const bin = `${ROOT}${TRAIN_CONTENDERS['native-v2-clang'].bin}`;
  if (!existsSync(bin)) return null;
  const { stdout } = await run(bin, [...nativeArgs(config), '--cost', '1']);
  return JSON.parse(stdout);
}

// The largest allowed config's heap, in a fresh process: loaded, after configure, after one update.
async function largest(log) {
  const bin = `${ROOT}${TRAIN_CONTENDERS['native-v2-clang'].bin}`;
  if (!existsSync(bin))
    return { skipped: `${TRAIN_CONTENDERS['native-v2-clang'].bin} is not built (it finds the config)` };
  const found = JSON.parse((await run(bin, ['--largest', '1'])).stdout);
  const config = { ...found.config, arch: [].concat(found.config.arch)[0] };
  const w = new ForkedWorker('wasm-simd');
  try {
    await w.call('init');
    const loaded = (await w.call('heap')).heap_bytes;
    const made = await w.call('trainer', { config });
    const step = await w.call('train', { repeat: 0, warmup: 0 });
    log(`  training, largest allowed config: heap ${(step.heap_bytes / 2 ** 20).toFixed(0)} MB after one update`);
    return {
      config,
      estimate_bytes: found.bytes,
      work: found.work,
      first_update_ms: step.first_ms,
      heap_bytes: { loaded, trainer: made.heap_bytes, after_steps: step.heap_bytes },
    };
  } catch (e) {
    return { config, estimate_bytes: found.bytes, skipped: fmtErr(e) };
  } finally {
    w.close();
  }
}

/**
 * Runs the training part. `page`: {page, worker} from bench/browser.js's
 * benchPage, or {skipped: reason}.
 */
export async function training({ quick, page, log }) {
  const config = quick ? QUICK_CONFIG : TRAIN_CONFIG;
  const plan = quick ? QUICK_PLAN : PLAN;
  const state = {};
  let out;
  try {
    out = { config, plan, ...(await measure(config, plan, page, log, state)) };
  } finally {
    for (const s of Object.values(state)) await s.worker?.close();
  }
  const memory = { config: {} };
  try {
    memory.config.estimate = await nativeCost(config);
  } catch (e) {
    memory.config.estimate = { error: fmtErr(e) };
  }
  memory.config.heap_bytes = out.contenders[REFERENCE].heap_bytes ?? null;
  memory.largest = quick
    ? { skipped: '--quick: the full benchmark times it' }
    : await largest(log).catch((e) => ({ skipped: fmtErr(e) }));
  return { ...out, memory };
}
