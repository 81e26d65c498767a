// The engine's Web Worker: one wasm instance, one message at a time, answered
// in the order they came.
// Messages in:
//   {id, config}            simulate (the explorer's format, unchanged)
//   {id, op, args}          op: 'simulate' | 'normToken' | 'batchVsLayerNorm',
//                           args: the argument list of the wasm API's method
//                           (rn.simulate(config), rn.normToken(kind, x, gamma, beta),
//                           rn.batchVsLayerNorm({x, batch, length, width, lengths, countPadding}))
// Messages out: {id, ok: true, out, ms} | {id, ok: false, error: {message, field}}
import { loadResnorm } from '../../../wasm/resnorm.js';

const ready = loadResnorm();

// What an `op` may call: the wasm API's methods for the explorer, the quizzes and the norm panel.
const OPS = {
  simulate: (rn, args) => rn.simulate(args[0]),
  normToken: (rn, args) => rn.normToken(args[0], args[1], args[2], args[3]),
  batchVsLayerNorm: (rn, args) => rn.batchVsLayerNorm(args[0]),
};

// The typed arrays of a result (top level, or one level down as in simulate's
// results.<arch>), handed over instead of copied.
function buffersOf(out) {
  const buffers = new Set();
  const see = (v) => {
    if (ArrayBuffer.isView(v)) buffers.add(v.buffer);
  };
  if (out && typeof out === 'object') {
    for (const v of Object.values(out)) {
      see(v);
      if (v && typeof v === 'object' && !ArrayBuffer.isView(v)) {
        for (const w of Object.values(v)) {
          see(w);
          if (w && typeof w === 'object' && !ArrayBuffer.isView(w)) for (const z of Object.values(w)) see(z);
        }
      }
    }
  }
  return [...buffers];
}

self.onmessage = async (event) => {
  const data = event.data || {};
  const { id } = data;
  const op = data.op === undefined ? 'simulate' : data.op;
  const args = data.op === undefined ? [data.config] : Array.isArray(data.args) ? data.args : [];
  let rn;
  try {
    rn = await ready;
  } catch (e) {
    self.postMessage({ id, ok: false, error: { message: `the engine failed to load: ${e}`, field: null } });
    return;
  }
  if (typeof op !== 'string' || !Object.prototype.hasOwnProperty.call(OPS, op)) {
    self.postMessage({
      id,
      ok: false,
      error: { message: `unknown engine operation ${JSON.stringify(String(op).slice(0, 40))}`, field: null },
    });
    return;
  }
  try {
    const t0 = performance.now();
    const out = OPS[op](rn, args);
    const ms = performance.now() - t0;
    self.postMessage({ id, ok: true, out, ms }, buffersOf(out));
  } catch (e) {
    self.postMessage({ id, ok: false, error: { message: e.message, field: e.field ?? null } });
  }
};
