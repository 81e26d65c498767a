// The page's side of the engine: one client in front of one or more engine
// workers (worker.js), for every view of the site.
//
//   const engine = sharedEngine();            // one per page, its worker started on first use
//   const doc = await engine.call('simulate', [config]);   // every call is answered
//   const lane = engine.lane();               // latest wins within a lane
//   const r = await lane.request('simulate', [config]);    // {out, ms, roundTripMs}, or null if superseded
//   lane.cancel();                            // stops the lane's work now: its request resolves null
//   lane.close();
//   const tr = await engine.trainer(config);  // a trainer (rn.trainer) living in one worker
//   const logs = await tr.step(100);          // its methods, async; see trainer.js
//
// call(op, args, {exclusive}) resolves with the op's result; bad input rejects
// with the engine's EngineError as it was thrown in the worker (wasm/engine-error.js:
// .field names the field, .code the kind, and .max, where a budget refused
// the call, is the largest value of that field that fits), an unknown op with
// a TypeError.
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
//
// trainer(config) makes a trainer in one worker of the pool (the one holding
// the fewest, starting workers up to the pool's size, so several trainers
// spread over it) and every call of that trainer goes to that worker, in
// turn with the other work. Each worker's engine has one memory budget for
// all its trainers: a trainer refused there for lack of room beside the
// others is made in a worker of its own, started for it (beyond the pool's
// size if need be). A worker that stops (fails, ends without a word, or
// terminate()) takes its trainers with it: their calls reject with an Error
// whose .field is 'trainer' (and .cause why the worker stopped), and the page
// can make a new trainer and load a saved state into it. A lane's cancel()
// never terminates a worker holding trainers: its request resolves null and
// the worker's answer is ignored.
//
// A worker that ends without an error event (its thread gone: closed, killed)
// is told from a busy one by a Web Lock, never by a deadline: each worker
// holds a lock of its own name for its whole life and posts {alive: name};
// the client then asks for that lock, which it is granted only once the
// worker's thread has ended (a worker computing for minutes keeps it). Such a
// worker is dropped as one that failed, but the pool keeps its size: the job
// it held goes to another worker (once), and the next work starts a fresh one.
// Where the browser has no Web Locks (a page not served over https or from
// localhost) such an end goes unnoticed. onWorkerLost's listeners hear of
// every worker that stopped on its own, once what the page goes on with is
// known (see onWorkerLost).
//
// Memory: a worker's WebAssembly memory never shrinks, so once a worker that
// held trainers holds none and its memory grew past RETIRE_HEAP, it is ended
// (and a worker started beyond the pool's size, once it holds none): the
// next work starts a fresh one. A worker whose engine failed past repair
// (an answer marked fatal) is ended at once: its job rejects with the
// engine's Error (.field 'engine'), its trainers are lost as above, and the
// next work starts a fresh worker.
//
// The parts: pool.js runs the workers and the turns; lane.js and trainer.js
// make lanes and trainers on that pool; jobs.js turns a request into the jobs
// the workers run (a simulate split by architecture).
import { OPS, TRAINER_OPS } from './ops.js';
import { WorkerPool, RETIRE_HEAP } from './pool.js';
import { jobsOf, unknownOp } from './jobs.js';
import { createLane } from './lane.js';
import { createTrainer } from './trainer.js';

export { OPS, TRAINER_OPS, RETIRE_HEAP };
export { archGroups } from './jobs.js';

/**
 * Starts worker.js, located relative to this module (so the embed script works
 * from any folder). From another origin than the page a worker cannot be
 * started directly: a same-origin blob: worker imports the real one, which
 * needs CORS headers on the site and `worker-src blob:` in the host page's
 * policy (see web/examples/README.md, the embedding guide).
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
 * @param {{workers?: number, startWorker?: () => Worker, locks?: LockManager}} [options] startWorker
 *   returns a Worker-like object ({postMessage, terminate, onmessage, onerror}); locks is what
 *   tells a worker that ended without an error (the browser's navigator.locks unless given)
 */
export function createEngineClient({
  workers = 1,
  startWorker = startEngineWorker,
  locks = globalThis.navigator?.locks,
} = {}) {
  const pool = new WorkerPool({ size: Math.max(1, Math.floor(workers) || 1), startWorker, locks });

  function call(op, args = [], { exclusive = false } = {}) {
    if (!OPS.includes(op)) return Promise.reject(unknownOp(op));
    if (pool.closed) return Promise.reject(new Error('the engine has been shut down'));
    return new Promise((resolve, reject) => {
      pool.turns.push({
        jobs: jobsOf(op, args, { exclusive, workers: pool.size }, resolve, reject),
        seq: pool.nextSeq++,
      });
      pool.pump();
    });
  }

  /**
   * fn(error, workersLeft, info) for each worker that stopped on its own (an error event, or its
   * thread ended without one): workersLeft is the pool's size from now on; info is {silent (ended
   * without an error), loaded (its engine had answered), trainers (how many it held, lost with
   * it), working (the workers left whose engine has answered), ran (some worker of this client
   * has run its engine)}. Told once that is known: while none of this client's workers ever
   * answered and some are still loading, it waits for the first to answer or fail. Returns an
   * unsubscribe.
   */
  function onWorkerLost(fn) {
    pool.lostListeners.add(fn);
    return () => pool.lostListeners.delete(fn);
  }

  return {
    call,
    lane: () => createLane(pool),
    trainer: (config) => createTrainer(pool, config),
    terminate: () => pool.terminate(),
    onWorkerLost,
    workers: () => pool.slots.length,
    size: () => pool.size,
  };
}

/**
 * How many engine workers a page runs: one per core the browser reports
 * (navigator.hardwareConcurrency), at most 4 (the default scene has four
 * architectures, and each worker holds its own weight bank), at most 2 where
 * the device reports 4 GB of memory or less (navigator.deviceMemory), at
 * least 1. A recompute's architectures are spread over them (archGroups).
 */
export function poolSize(nav = globalThis.navigator) {
  const cores = Math.floor(nav?.hardwareConcurrency) || 1;
  const memory = Number(nav?.deviceMemory);
  const cap = Number.isFinite(memory) && memory <= 4 ? 2 : 4;
  return Math.max(1, Math.min(cores, cap));
}

let shared = null;

/** The page's one engine client (poolSize() workers), shared by every view on the page. */
export function sharedEngine() {
  return (shared ??= createEngineClient({ workers: poolSize() }));
}
