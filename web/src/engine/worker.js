// The engine's Web Worker: one wasm instance, one message at a time, answered
// in the order they came, and the trainers it holds between messages (by id,
// TRAINER_OPS). Every page and embed talks to it through client.js.
// Messages in:  {id, op, args}; args is the op's argument list (see OPS, TRAINER_OPS)
// Messages out: {id, ok: true, out, ms, heap} | {id, ok: false, error: {message, field, max}, heap, fatal}
// (max: where a budget refused the call, the largest value of `field` that fits; heap: the
// bytes the wasm memory has grown to; fatal: the engine cannot be used again, see run.js respond)
import { loadResnorm } from '../../../wasm/resnorm.js';
import { createSession, respond } from './run.js';

const ready = loadResnorm();
const session = createSession();

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
  const { msg, transfer } = respond(rn, { id, op, args }, session);
  self.postMessage(msg, transfer);
};
