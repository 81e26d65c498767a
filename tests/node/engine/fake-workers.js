// Fake engine workers for the client's tests: each runs the real wasm engine
// through run.js (what web/src/engine/worker.js runs, minus the Worker), with
// its own session (the trainers it holds), and answers asynchronously, one
// message at a time, in order, handing over the typed arrays of its answers
// as worker.js does. A job answers on a later event-loop turn, or, if the
// pool's `hold(op, args)` says so, once the test releases it: a job that must
// still be running when the test acts is held, whatever the machine's speed.
import { errorData } from '../../../wasm/engine-error.js';
import { RUN, createSession, transferables } from '../../../web/src/engine/run.js';
import { nextTurn } from '../wait.js';

/**
 * A stand-in for the browser's Web Locks (navigator.locks), exclusive locks only:
 * request(name, fn) calls fn once no one else holds `name` (on a later microtask)
 * and holds it until fn's promise settles; it resolves to fn's result.
 */
export function fakeLocks() {
  const held = new Map(); // name -> the callbacks waiting for it
  const grant = (name) => {
    const next = held.get(name)?.[0];
    if (!next) return held.delete(name);
    Promise.resolve()
      .then(next.fn)
      .then(next.resolve, next.reject)
      .finally(() => {
        held.get(name).shift();
        grant(name);
      });
  };
  return {
    held: (name) => held.has(name),
    request(name, fn) {
      return new Promise((resolve, reject) => {
        const queue = held.get(name) ?? [];
        queue.push({ fn, resolve, reject });
        held.set(name, queue);
        if (queue.length === 1) grant(name);
      });
    },
  };
}

/**
 * fakeWorkers({hold, locks}) for the engine `rn`: a pool of fake workers; `log`
 * records [worker, 'start'|'end', op, args] in the order they happen, `active`
 * the jobs running, `maxActive` the most at once; `held` lists the jobs held
 * by `hold` ({worker, op, args}), and release() lets them all answer. With
 * `locks` (fakeLocks()) each worker holds a lock while it lives and posts
 * {alive: name} once it does, as worker.js does; w.die() ends a worker as a
 * thread that ends without an error event does: it answers nothing more, its
 * lock goes, and no error is reported.
 */
export function fakeWorkerPool(rn) {
  return function fakeWorkers({ hold = () => false, locks = null } = {}) {
    const pool = { started: [], log: [], active: 0, maxActive: 0, held: [] };
    pool.release = () => {
      for (const job of pool.held.splice(0)) job.go();
    };
    pool.start = () => {
      const n = pool.started.length;
      const session = createSession();
      const w = {
        onmessage: null,
        onerror: null,
        sent: [],
        queue: Promise.resolve(),
        terminated: false,
        postMessage(data) {
          w.sent.push(structuredClone(data));
          w.queue = w.queue.then(async () => {
            pool.active++;
            pool.maxActive = Math.max(pool.maxActive, pool.active);
            pool.log.push([n, 'start', data.op, data.args]);
            if (hold(data.op, data.args))
              await new Promise((go) => pool.held.push({ worker: n, op: data.op, args: data.args, go }));
            else await nextTurn();
            let msg;
            try {
              if (!Object.hasOwn(RUN, data.op))
                throw Object.assign(new Error(`unknown engine operation "${data.op}"`), { field: null });
              msg = { id: data.id, ok: true, out: RUN[data.op](rn, structuredClone(data.args), session), ms: 1 };
            } catch (e) {
              msg = { id: data.id, ok: false, error: errorData(e) };
            }
            pool.active--;
            pool.log.push([n, 'end', data.op, data.args]);
            if (!w.terminated)
              w.onmessage({ data: structuredClone(msg, { transfer: msg.ok ? transferables(msg.out) : [] }) });
          });
        },
        terminate() {
          w.terminated = true;
          w.endLock?.();
        },
        die() {
          w.terminate();
        },
      };
      if (locks) {
        const name = `fake-engine-${n}`;
        locks
          .request(name, () => {
            if (w.terminated) return null;
            w.onmessage({ data: { alive: name } });
            return new Promise((end) => (w.endLock = end));
          })
          .catch(() => {});
      }
      pool.started.push(w);
      return w;
    };
    return pool;
  };
}
