// What each engine op runs on a loaded engine `rn` (wasm/resnorm.js): the wasm
// API's methods, the papers' reproductions and the trainers. worker.js answers
// messages with it, RUN[op](rn, args, session); the client's tests run it
// without a Worker.
import { EngineError, errorData } from '../../../wasm/engine-error.js';
import { reproduce, timeRecompute } from './experiments.js';
import { OPS, TRAINER_OPS } from './ops.js';

const KNOWN = [...OPS, ...TRAINER_OPS];

/**
 * The buffers of an answer's typed arrays, up to three levels down (simulate's
 * results.<arch>.<array>, a trainer step's logs[i].<array>): handed over to the
 * page instead of copied.
 */
export function transferables(out, depth = 0, buffers = new Set()) {
  if (ArrayBuffer.isView(out)) buffers.add(out.buffer);
  else if (out && typeof out === 'object' && depth < 3)
    for (const v of Object.values(out)) transferables(v, depth + 1, buffers);
  return [...buffers];
}

/** What one worker keeps between messages: its trainers, by the ids it gave them. */
export function createSession() {
  return { trainers: new Map(), nextId: 1 };
}

function trainerOf(session, id) {
  const tr = session.trainers.get(id);
  if (tr) return tr;
  const shown = JSON.stringify(String(id).slice(0, 40));
  throw new EngineError('range', 'trainer', `no trainer ${shown} in this engine worker (deleted, or never made here)`);
}

const trainerInfo = (id, tr) => ({
  id,
  config: tr.config,
  task: tr.task,
  stepsDone: tr.stepsDone,
  stopped: tr.stopped,
});

export const RUN = {
  // With `archs` (one worker's part of a config split over a pool, client.js):
  // the whole config is checked, then only those architectures run.
  simulate: (rn, [config, archs]) => {
    if (archs === undefined) return rn.simulate(config);
    const whole = rn.check(config);
    if (!Array.isArray(archs) || !archs.every((a) => whole.arch.includes(a)))
      throw new EngineError('range', 'arch', 'a part must be architectures of the config');
    return { config: whole, results: rn.simulate({ ...config, arch: archs }).results };
  },
  normToken: (rn, [kind, x, gamma, beta]) => rn.normToken(kind, x, gamma, beta),
  batchVsLayerNorm: (rn, [input]) => rn.batchVsLayerNorm(input),
  pathGradients: (rn, [config]) => rn.pathGradients(config),
  reproduce: (rn, [id, params]) => reproduce(rn, id, params),
  timeRecompute: (rn, [options]) => timeRecompute(rn, options),
  exportPytorch: (rn, [config]) => rn.exportPytorch(config),
  trainerCreate: (rn, [config], session) => {
    const tr = rn.trainer(config);
    const id = session.nextId++;
    session.trainers.set(id, tr);
    return trainerInfo(id, tr);
  },
  trainerStep: (rn, [id, n], session) => {
    const tr = trainerOf(session, id);
    return { logs: tr.step(n), stepsDone: tr.stepsDone, stopped: tr.stopped };
  },
  trainerLesion: (rn, [id], session) => trainerOf(session, id).lesion(),
  trainerDwaWeights: (rn, [id], session) => trainerOf(session, id).dwaWeights(),
  trainerAttnResWeights: (rn, [id], session) => trainerOf(session, id).attnResWeights(),
  trainerGates: (rn, [id], session) => trainerOf(session, id).gates(),
  trainerNormSamples: (rn, [id], session) => trainerOf(session, id).normSamples(),
  trainerOutcome: (rn, [id], session) => trainerOf(session, id).outcome(),
  trainerState: (rn, [id], session) => trainerOf(session, id).state(),
  trainerLoad: (rn, [id, bytes], session) => {
    const tr = trainerOf(session, id);
    tr.load(bytes);
    return trainerInfo(id, tr);
  },
  trainerDelete: (rn, [id], session) => {
    trainerOf(session, id).delete();
    session.trainers.delete(id);
    return true;
  },
};

/**
 * The answer to one message {id, op, args} on a loaded engine `rn`, as worker.js
 * posts it: {msg, transfer}. msg is {id, ok: true, out, ms, heap} or {id, ok:
 * false, error: errorData(e), heap, fatal}: heap is the bytes the
 * module's memory has grown to (it never shrinks), fatal that the engine
 * cannot be used again (rn.usable is false): the page then replaces the worker.
 */
export function respond(rn, data, session) {
  const { id, op, args } = data || {};
  const heap = () => (rn.usable ? rn.memory().heap : null);
  const fail = (e) => ({ msg: { id, ok: false, error: errorData(e), heap: heap(), fatal: !rn.usable }, transfer: [] });
  if (typeof op !== 'string' || !KNOWN.includes(op))
    return fail(new Error(`unknown engine operation ${JSON.stringify(String(op).slice(0, 40))}`));
  try {
    const t0 = performance.now();
    const out = RUN[op](rn, Array.isArray(args) ? args : [], session);
    const ms = performance.now() - t0;
    return { msg: { id, ok: true, out, ms, heap: heap() }, transfer: transferables(out) };
  } catch (e) {
    return fail(e);
  }
}
