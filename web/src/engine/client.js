// The page's side of the engine: one client in front of one or more engine
// workers (worker.js), for every view of the site.
//
//   const engine = sharedEngine();            // one per page, its worker started on first use
//   const doc = await engine.call('simulate', [config]);   // every call is answered
//   const lane = engine.lane();               // latest wins within a lane
//   const r = await lane.request('simulate', [config]);    // {out, ms, roundTripMs}, or null if superseded
//   lane.cancel();                            // stops the lane's work now: its request resolves null
//   lane.close();
//
// call(op, args, {exclusive}) resolves with the op's result; bad input rejects
// with a RangeError whose .field names the field (and whose .max, where a
// budget refused the call, is the largest value of that field that fits), an
// unknown op with a TypeError.
// A lane keeps at most one request waiting: a newer one replaces it (the older
// resolves null, lane.dropped counts them), so a dragged slider never queues
// stale work. Calls and lanes take turns in the order they asked, so two lanes
// (two embeds on one page) never cancel each other.
//
// createEngineClient({workers: k}) fronts k workers, started as work arrives:
// each call or lane request goes to an idle worker. An `exclusive` call (a
// timing) waits until every worker is idle and holds the rest back while it
// runs. A worker that fails rejects the request it held; later work starts a
// new worker. lane.cancel() drops the lane's waiting request and, if the
// lane's request is being computed, terminates that worker (a computation
// cannot be interrupted otherwise); the next work starts a fresh one, and the
// other lanes' requests keep their turns.
import { OPS } from './ops.js';

export { OPS };

function engineError(error) {
  const err = new RangeError(error && error.message ? error.message : 'the engine failed');
  err.field = error ? (error.field ?? null) : null;
  if (Number.isFinite(error?.max)) err.max = error.max;
  return err;
}

function unknownOp(op) {
  return new TypeError(`unknown engine operation ${JSON.stringify(String(op))} (known: ${OPS.join(', ')})`);
}

/**
 * Starts worker.js, located relative to this module (so the embed script works
 * from any folder). From another origin than the page a worker cannot be
 * started directly: a same-origin blob: worker imports the real one, which
 * needs CORS headers on the site and `worker-src blob:` in the host page's
 * policy (see the README's embedding guide).
 */
export function startEngineWorker() {
  if (new URL(import.meta.url).origin === location.origin)
    return new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  return blobWorker(import('./worker-url.js').then((m) => new URL(m.default, import.meta.url)));
}

// A Worker-like object for a worker script on another origin, once its URL is
// known; messages posted before that are kept and handed over.
function blobWorker(urlPromise) {
  let real = null;
  let gone = false;
  const early = [];
  const proxy = {
    onmessage: null,
    onerror: null,
    postMessage(msg, transfer) {
      if (real) real.postMessage(msg, transfer);
      else early.push([msg, transfer]);
    },
    terminate() {
      gone = true;
      real?.terminate();
    },
  };
  urlPromise
    .then((url) => {
      if (gone) return;
      // A dynamic import (Chromium refuses a static one from a blob: worker when
      // the page has a CSP); messages that arrive before the engine's module has
      // set its handler are kept and handed over; a failed import is rethrown so
      // the page sees the worker's error event.
      const src = `const q = []; self.onmessage = (e) => q.push(e.data);
import(${JSON.stringify(url.href)}).then(() => { for (const data of q.splice(0)) self.onmessage({ data }); },
  (e) => setTimeout(() => { throw e; }));`;
      real = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), { type: 'module' });
      real.onmessage = (e) => proxy.onmessage?.(e);
      real.onerror = (e) => proxy.onerror?.(e);
      for (const [msg, transfer] of early.splice(0)) real.postMessage(msg, transfer);
    })
    .catch((e) => proxy.onerror?.({ message: e.message }));
  return proxy;
}

/**
 * @param {{workers?: number, startWorker?: () => Worker}} [options] startWorker
 *   returns a Worker-like object ({postMessage, terminate, onmessage, onerror})
 */
export function createEngineClient({ workers = 1, startWorker = startEngineWorker } = {}) {
  const size = Math.max(1, Math.floor(workers) || 1);
  const slots = []; // {worker, job}: the workers started, and the job each is computing
  const turns = []; // {job} for a call, {lane} for a lane with a request waiting, in the order they asked
  let nextId = 1;
  let closed = false;

  function start() {
    const slot = { worker: null, job: null };
    slot.worker = startWorker();
    slot.worker.onmessage = (e) => answer(slot, e.data);
    slot.worker.onerror = (e) => {
      e?.preventDefault?.();
      fail(slot, new Error(`engine worker failed: ${e?.message || 'it could not be loaded'}`));
    };
    slots.push(slot);
    return slot;
  }

  // Terminates the worker of `slot`; its job, if any, gets settle(job).
  function drop(slot, settle) {
    const i = slots.indexOf(slot);
    if (i < 0) return;
    slots.splice(i, 1);
    slot.worker.terminate();
    if (slot.job) settle(slot.job);
    slot.job = null;
    pump();
  }

  const fail = (slot, err) => drop(slot, (job) => job.reject(err));

  function answer(slot, msg) {
    const job = slot.job;
    if (!job || !msg || msg.id !== job.id) return;
    slot.job = null;
    if (!msg.ok) job.reject(engineError(msg.error));
    else if (job.lane) job.resolve({ out: msg.out, ms: msg.ms, roundTripMs: performance.now() - job.t0 });
    else job.resolve(msg.out);
    pump();
  }

  function send(slot, job) {
    job.id = nextId++;
    job.t0 = performance.now();
    slot.job = job;
    try {
      slot.worker.postMessage({ id: job.id, op: job.op, args: job.args });
    } catch (e) {
      slot.job = null;
      job.reject(e);
    }
  }

  // Hands waiting work to idle workers, starting workers up to `size`.
  function pump() {
    while (turns.length && !slots.some((s) => s.job?.exclusive)) {
      const turn = turns[0];
      const job = turn.lane ? turn.lane.peek() : turn.job;
      if (!job) {
        turns.shift().lane.take();
        continue;
      }
      if (job.exclusive && slots.some((s) => s.job)) return;
      let slot = slots.find((s) => !s.job);
      if (!slot) {
        if (slots.length >= size) return;
        try {
          slot = start();
        } catch (e) {
          turns.shift();
          turn.lane?.take();
          job.reject(new Error(`engine worker failed: ${e.message}`));
          continue;
        }
      }
      turns.shift();
      turn.lane?.take();
      send(slot, job);
    }
  }

  function call(op, args = [], { exclusive = false } = {}) {
    if (!OPS.includes(op)) return Promise.reject(unknownOp(op));
    if (closed) return Promise.reject(new Error('the engine has been shut down'));
    return new Promise((resolve, reject) => {
      turns.push({ job: { op, args: Array.from(args), exclusive, resolve, reject } });
      pump();
    });
  }

  function lane() {
    let pending = null; // the request waiting for its turn
    let queued = false; // whether the lane has a place in `turns`
    let open = true;
    const turn = {
      peek: () => pending,
      take() {
        const p = pending;
        pending = null;
        queued = false;
        return p;
      },
    };
    const handle = {
      dropped: 0,
      request(op, args = []) {
        if (!OPS.includes(op)) return Promise.reject(unknownOp(op));
        if (!open || closed) return Promise.resolve(null);
        return new Promise((resolve, reject) => {
          if (pending) {
            pending.resolve(null);
            handle.dropped++;
          }
          pending = { op, args: Array.from(args), lane: handle, resolve, reject };
          if (!queued) {
            queued = true;
            turns.push({ lane: turn });
          }
          pump();
        });
      },
      /** Stops what the lane asked for; true if there was something to stop. */
      cancel() {
        let stopped = false;
        if (pending) {
          pending.resolve(null); // its place in `turns` stays, for the next request or to be passed over
          pending = null;
          stopped = true;
        }
        const slot = slots.find((s) => s.job?.lane === handle);
        if (slot) {
          drop(slot, (job) => job.resolve(null));
          stopped = true;
        }
        return stopped;
      },
      close() {
        open = false;
        pending?.resolve(null);
        pending = null;
      },
    };
    return handle;
  }

  function terminate() {
    closed = true;
    const err = new Error('the engine has been shut down');
    for (const turn of turns.splice(0)) (turn.lane ? turn.lane.take() : turn.job)?.reject(err);
    for (const slot of slots.splice(0)) {
      slot.worker.terminate();
      slot.job?.reject(err);
    }
  }

  return { call, lane, terminate, workers: () => slots.length };
}

let shared = null;

/** The page's one engine client (one worker), shared by every view on the page. */
export function sharedEngine() {
  return (shared ??= createEngineClient());
}
