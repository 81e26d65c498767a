// The engine's Web Worker: one wasm instance, one message at a time, answered
// in the order they came, and the trainers it holds between messages (by id,
// TRAINER_OPS). Every page and embed talks to it through client.js.
// Messages in:  {id, op, args}; args is the op's argument list (see OPS, TRAINER_OPS)
// Messages out: {id, ok: true, out, ms} | {id, ok: false, error: {message, field, max}}
// (max: where a budget refused the call, the largest value of `field` that fits)
import { loadResnorm } from '../../../wasm/resnorm.js';
import { RUN, createSession, transferables } from './run.js';
import { OPS, TRAINER_OPS } from './ops.js';

const ready = loadResnorm();
const session = createSession();
const KNOWN = [...OPS, ...TRAINER_OPS];

const fail = (id, message, field = null, max = null) =>
  self.postMessage({ id, ok: false, error: { message, field, max } });

self.onmessage = async (event) => {
  const { id, op, args } = event.data || {};
  let rn;
  try {
    rn = await ready;
  } catch (e) {
    fail(id, `the engine failed to load: ${e}`);
    return;
  }
  if (typeof op !== 'string' || !KNOWN.includes(op)) {
    fail(id, `unknown engine operation ${JSON.stringify(String(op).slice(0, 40))}`);
    return;
  }
  try {
    const t0 = performance.now();
    const out = RUN[op](rn, Array.isArray(args) ? args : [], session);
    const ms = performance.now() - t0;
    self.postMessage({ id, ok: true, out, ms }, transferables(out));
  } catch (e) {
    fail(id, e.message, e.field ?? null, Number.isFinite(e.max) ? e.max : null);
  }
};
