// The engine's Web Worker: one wasm instance, one message at a time, answered
// in the order they came, and the trainers it holds between messages (by id,
// TRAINER_OPS). Every page and embed talks to it through client.js.
// Messages in:  {id, op, args}; args is the op's argument list (see OPS, TRAINER_OPS)
// Messages out: {id, ok: true, out, ms, heap} | {id, ok: false, error: {message, field, max}, heap, fatal}
// (max: where a budget refused the call, the largest value of `field` that fits; heap: the
// bytes the wasm memory has grown to; fatal: the engine cannot be used again, see run.js respond),
// and once, without an id, {alive: name}: the Web Lock it holds while it lives (below)
import { loadResnorm } from '../../../wasm/resnorm.js';
import { createSession, respond } from './run.js';

const ready = loadResnorm();
const session = createSession();

// Alive while this thread lives: a Web Lock of this worker's own name, held until the thread ends
// (closed, killed or terminated), its name posted as {alive} once held. The page asks for the same
// lock and is granted it only then, so it tells a worker that ended without an error event from a
// busy one whatever the machine's speed (client.js watch()). No answer goes before {alive}: a
// worker that has answered is watched. Where there are no locks (or they are refused) it answers
// without.
const alive = new Promise((held) => {
  const locks = self.navigator?.locks;
  if (!locks) return held();
  const name = `resnorm-engine-${self.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random()}`}`;
  Promise.resolve()
    .then(() =>
      locks.request(name, () => {
        self.postMessage({ alive: name });
        held();
        return new Promise(() => {});
      }),
    )
    .catch(() => held());
});

const fail = (id, message, field = null, max = null) =>
  self.postMessage({ id, ok: false, error: { message, field, max } });

self.onmessage = async (event) => {
  const { id, op, args } = event.data || {};
  let rn;
  await alive;
  try {
    rn = await ready;
  } catch (e) {
    fail(id, `the engine failed to load: ${e}`);
    return;
  }
  const { msg, transfer } = respond(rn, { id, op, args }, session);
  self.postMessage(msg, transfer);
};
