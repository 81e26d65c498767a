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
//   const logs = await tr.step(100);          // its methods, async; see trainer() below
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
import { EngineError, errorFromData } from '../../../wasm/engine-error.js';
import { OPS, TRAINER_OPS } from './ops.js';

export { OPS, TRAINER_OPS };

/** A worker that held trainers and holds none is ended once its wasm memory grew past this. */
export const RETIRE_HEAP = 128 * 2 ** 20;

function fieldError(message, field) {
  return new EngineError('engine', field, message);
}

// A test harness can hold answers back: before the page loads (Playwright's addInitScript) it
// defines globalThis.__resnormTestHold(op, deliver), which returns true when it keeps the answer
// and will call deliver() later. The worker's job counts as under way until then, so a
// computation is slow on purpose (Cancel, Pause) whatever the machine's speed. A link, an
// attribute or storage can give the page strings, never a function, so none of them reaches it.
function heldForTest(op, deliver) {
  const hold = globalThis.__resnormTestHold;
  return typeof hold === 'function' && hold(op, deliver) === true;
}

function unknownOp(op) {
  return new TypeError(`unknown engine operation ${JSON.stringify(String(op))} (known: ${OPS.join(', ')})`);
}

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
 * The groups of architectures a simulate of `config` is split into for `k`
 * workers: contiguous, in arch order, sizes differing by at most one; null when
 * there is nothing to split (one architecture, or an arch field the worker must
 * refuse as a whole: not a list of distinct names).
 */
export function archGroups(config, k) {
  const arch = config?.arch;
  const list = typeof arch === 'string' ? arch.split(',') : Array.isArray(arch) ? arch : null;
  if (!list || list.length < 2 || list.some((a) => typeof a !== 'string') || new Set(list).size !== list.length)
    return null;
  const n = Math.min(k, list.length);
  return Array.from({ length: n }, (_, i) =>
    list.slice(Math.floor((i * list.length) / n), Math.floor(((i + 1) * list.length) / n)),
  );
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
  let size = Math.max(1, Math.floor(workers) || 1);
  const lostListeners = new Set();
  // Workers that stopped on their own, not yet told to the listeners (see report()).
  const unreported = [];
  let computedOnce = false; // some worker of this client has run its engine
  // The workers started: each with the job it is computing, its trainers'
  // jobs waiting for it (queue), the trainers it holds or is making (hosted,
  // trainers: their handles), and once it has stopped, the error they get (gone).
  const slots = [];
  // {jobs} for a call, {lane} for a lane with a request waiting, in the order
  // they asked (seq, shared with the trainers' jobs).
  const turns = [];
  let nextId = 1;
  let nextSeq = 1;
  let closed = false;

  function start() {
    // heap: the bytes its wasm memory has grown to, as its last answer said; trained: it has held a
    // trainer; computed: its engine has answered (it loaded); watched: its lock is asked for
    const slot = {
      worker: null,
      job: null,
      queue: [],
      hosted: 0,
      trainers: new Set(),
      gone: null,
      heap: 0,
      trained: false,
      computed: false,
      watched: false,
    };
    slot.worker = startWorker();
    slot.worker.onmessage = (e) => {
      if (typeof e.data?.alive === 'string' && !('id' in e.data)) watch(slot, e.data.alive);
      else answer(slot, e.data);
    };
    slot.worker.onerror = (e) => {
      e?.preventDefault?.();
      lost(slot, new Error(`engine worker failed: ${e?.message || 'it could not be loaded'}`));
    };
    slots.push(slot);
    return slot;
  }

  // The lock the worker of `slot` holds while its thread lives (worker.js): granted to the client
  // only once that thread has ended. A worker the client ended itself is no longer in `slots`.
  function watch(slot, name) {
    if (!locks || slot.watched) return;
    slot.watched = true;
    const ended = () => {
      if (slots.includes(slot)) lost(slot, new Error('engine worker stopped without an error'), true);
    };
    try {
      Promise.resolve(locks.request(name, ended)).catch(() => {});
    } catch {
      // no lock: this worker's silent end goes unnoticed, as where the browser has none
    }
  }

  // Terminates the worker of `slot`; its job, if any, gets settle(job). Its
  // trainers are lost (`cause` says why): their jobs, waiting or running, reject.
  function drop(slot, settle, cause = 'it was stopped') {
    const i = slots.indexOf(slot);
    if (i < 0) return;
    slots.splice(i, 1);
    slot.worker.terminate();
    const gone = fieldError(`trainer: its engine worker stopped (${cause}), and the trainer with it`, 'trainer');
    gone.cause = cause;
    loseTrainers(slot, gone);
    if (slot.job?.pin) slot.job.reject(slot.gone);
    else if (slot.job) settle(slot.job);
    slot.job = null;
    pump();
  }

  function loseTrainers(slot, err) {
    slot.gone = err;
    for (const tr of slot.trainers) tr.lost = err;
    for (const job of slot.queue.splice(0)) job.reject(err);
  }

  // A worker that stopped on its own. One that failed (an error event): with
  // others in the pool, the pool shrinks by one and the job it held goes back
  // to the front of the queue for another worker (once); alone, its job is
  // rejected and later work starts a new worker. One that ended without a word
  // (`silent`): the pool keeps its size and its job goes to another or a fresh
  // worker (once). Either way its trainers are lost and the listeners are told.
  function lost(slot, err, silent = false) {
    if (!slots.includes(slot)) return;
    const event = { error: err, silent, loaded: slot.computed, trainers: slot.hosted };
    const retry = silent || size > 1;
    if (!silent && size > 1) size--;
    drop(
      slot,
      (job) => {
        if (!retry || job.retried) return job.reject(err);
        job.retried = true;
        turns.unshift({ jobs: [job], seq: 0 });
      },
      err.message,
    );
    unreported.push(event);
    report();
  }

  // Tells the listeners of the workers that stopped, once what the page goes on with is known: a
  // worker that has run its engine, or none left (nothing runs now). While the only workers left
  // are still loading and none of this client's ever ran, the news waits for the first of them to
  // answer or fail.
  function report() {
    if (!unreported.length) return;
    const working = slots.filter((s) => s.computed).length;
    if (!working && !computedOnce && slots.length) return;
    for (const event of unreported.splice(0)) {
      const info = { ...event, working, ran: computedOnce };
      for (const fn of lostListeners) fn(event.error, size, info);
    }
  }

  function answer(slot, msg, released = false) {
    const job = slot.job;
    if (!job || !msg || msg.id !== job.id) return;
    if (!released && heldForTest(job.op, () => answer(slot, msg, true))) return;
    slot.job = null;
    if (Number.isFinite(msg.heap)) slot.heap = msg.heap;
    // an answer computed, or a refusal with the heap's size: its engine loaded
    if (!slot.computed && (msg.ok || Number.isFinite(msg.heap))) {
      slot.computed = computedOnce = true;
      report();
    }
    if (!msg.ok) job.reject(errorFromData(msg.error));
    else if (job.lane) job.resolve({ out: msg.out, ms: msg.ms, roundTripMs: performance.now() - job.t0 });
    else job.resolve(msg.out);
    // An engine that failed past repair: the worker goes, with its trainers.
    if (msg.fatal) drop(slot, () => {}, msg.error?.message || 'the engine failed');
    else retireIfSpent(slot);
    pump();
  }

  // Ends an idle worker holding no trainer whose memory a run made large, or
  // one started beyond the pool's size for trainers: its memory goes back.
  function retireIfSpent(slot) {
    if (slot.hosted || slot.trainers.size || slot.job || slot.queue.length || !slots.includes(slot)) return;
    if (!(slot.trained && slot.heap > RETIRE_HEAP) && slots.length <= size) return;
    slots.splice(slots.indexOf(slot), 1);
    slot.gone = fieldError('trainer: its engine worker was ended', 'trainer');
    slot.worker.terminate();
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

  // Hands waiting work to idle workers, starting workers up to `size`. A turn
  // is a call's parts or a lane's waiting request's parts (one part, unless a
  // simulate was split over the workers); it keeps its place until every part
  // has a worker. A trainer's job waits for its own worker, and goes before
  // the first turn if it asked before it.
  function pump() {
    while (!slots.some((s) => s.job?.exclusive)) {
      const head = turns.length ? turns[0].seq : Infinity;
      const own = slots.find((s) => !s.job && s.queue.length && s.queue[0].seq < head);
      if (own) {
        send(own, own.queue.shift());
        continue;
      }
      if (!turns.length) return;
      const turn = turns[0];
      const job = turn.lane ? turn.lane.peek() : turn.jobs[0];
      if (!job) {
        turns.shift();
        turn.lane?.done();
        continue;
      }
      if (job.exclusive && slots.some((s) => s.job)) return;
      // An idle worker, one with no trainer's job waiting first.
      let slot = slots.find((s) => !s.job && !s.queue.length);
      if (!slot && slots.length < size) {
        try {
          slot = start();
        } catch (e) {
          if (turn.lane) turn.lane.take();
          else turn.jobs.shift();
          job.reject(new Error(`engine worker failed: ${e.message}`));
          continue;
        }
      }
      slot ??= slots.find((s) => !s.job);
      if (!slot) return;
      if (turn.lane) turn.lane.take();
      else turn.jobs.shift();
      send(slot, job);
    }
  }

  // A request as the jobs the workers run: one, or for a simulate of several
  // architectures with more than one worker, one per group of architectures
  // (contiguous, in arch order), each checking the whole config first so every
  // part refuses what the whole would. The parts' answers are merged in arch
  // order; the request settles once, when all are in or one fails.
  function jobsOf(op, args, { exclusive = false, lane = null }, resolve, reject) {
    const groups = op === 'simulate' && !exclusive && size > 1 ? archGroups(args[0], size) : null;
    if (!groups) return [{ op, args: Array.from(args), exclusive, lane, resolve, reject, settle: resolve }];
    const outs = new Array(groups.length);
    let left = groups.length;
    let settled = false;
    const partDone = (i, r) => {
      if (settled) return;
      outs[i] = r;
      if (--left) return;
      settled = true;
      const docs = lane ? outs.map((o) => o.out) : outs;
      const out = { config: docs[0].config, results: Object.assign({}, ...docs.map((d) => d.results)) };
      resolve(
        lane
          ? { out, ms: Math.max(...outs.map((o) => o.ms)), roundTripMs: Math.max(...outs.map((o) => o.roundTripMs)) }
          : out,
      );
    };
    const partFailed = (e) => {
      if (settled) return;
      settled = true;
      reject(e);
    };
    return groups.map((archs, i) => ({
      op,
      args: [args[0], archs],
      exclusive: false,
      lane,
      resolve: (r) => partDone(i, r),
      reject: partFailed,
      settle: (v) => {
        if (!settled) {
          settled = true;
          resolve(v);
        }
      },
    }));
  }

  function call(op, args = [], { exclusive = false } = {}) {
    if (!OPS.includes(op)) return Promise.reject(unknownOp(op));
    if (closed) return Promise.reject(new Error('the engine has been shut down'));
    return new Promise((resolve, reject) => {
      turns.push({ jobs: jobsOf(op, args, { exclusive }, resolve, reject), seq: nextSeq++ });
      pump();
    });
  }

  function lane() {
    let pending = []; // the parts of the request waiting for a worker
    let queued = false; // whether the lane has a place in `turns`
    let open = true;
    // A waiting request resolves null (settled once for all its parts); those of
    // its parts already at a worker finish and their answers are ignored.
    const supersede = (parts) => parts[0]?.settle(null);
    const turn = {
      peek: () => pending[0] ?? null,
      take: () => pending.shift(),
      done() {
        queued = false;
      },
    };
    const handle = {
      dropped: 0,
      request(op, args = []) {
        if (!OPS.includes(op)) return Promise.reject(unknownOp(op));
        if (!open || closed) return Promise.resolve(null);
        return new Promise((resolve, reject) => {
          if (pending.length) {
            supersede(pending);
            handle.dropped++;
          }
          pending = jobsOf(op, args, { lane: handle }, resolve, reject);
          if (!queued) {
            queued = true;
            turns.push({ lane: turn, seq: nextSeq++ });
          }
          pump();
        });
      },
      /** Stops what the lane asked for; true if there was something to stop. */
      cancel() {
        let stopped = false;
        if (pending.length) {
          supersede(pending);
          pending = []; // its place in `turns` stays, for the next request or to be passed over
          stopped = true;
        }
        for (const slot of slots.filter((s) => s.job?.lane === handle)) {
          // A worker holding trainers is not terminated: the request resolves
          // null now and its answer is ignored when it comes.
          if (slot.hosted) slot.job.settle(null);
          else drop(slot, (job) => job.settle(null));
          stopped = true;
        }
        return stopped;
      },
      close() {
        open = false;
        supersede(pending);
        pending = [];
      },
    };
    return handle;
  }

  function terminate() {
    closed = true;
    const err = new Error('the engine has been shut down');
    for (const turn of turns.splice(0)) for (const job of turn.lane ? [turn.lane.take()] : turn.jobs) job?.reject(err);
    for (const slot of slots.splice(0)) {
      slot.worker.terminate();
      slot.job?.reject(err);
      loseTrainers(slot, err);
    }
  }

  // A trainer's job, for its own worker.
  function pinned(slot, op, args) {
    if (closed) return Promise.reject(new Error('the engine has been shut down'));
    if (slot.gone) return Promise.reject(slot.gone);
    return new Promise((resolve, reject) => {
      slot.queue.push({ op, args, pin: slot, seq: nextSeq++, resolve, reject, settle: resolve });
      pump();
    });
  }

  // The worker for a new trainer: one holding none, else a new one while the
  // pool has room, else the one holding the fewest.
  function trainerSlot() {
    const empty = slots.find((s) => !s.hosted);
    if (empty) return empty;
    if (slots.length < size) return start();
    return slots.reduce((a, b) => (b.hosted < a.hosted ? b : a));
  }

  /**
   * A trainer of one architecture (rn.trainer(config), wasm/resnorm.js) in one
   * worker of the pool. Resolves, once made, to a handle with the trainer's
   * config, task, stepsDone and stopped (updated by step() and load()), lost
   * (null, or the Error its calls reject with once its worker has stopped), and
   * async versions of its methods: step(n) resolves to the logs (their typed
   * arrays transferred from the worker), lesion(), dwaWeights(), gates(), outcome(), state() (a
   * Uint8Array), load(bytes) (bytes are copied, the caller's stay usable),
   * delete() (frees it in the worker; later calls reject). A bad config
   * rejects with a RangeError naming .field, as call() does.
   */
  async function trainer(config) {
    if (closed) throw new Error('the engine has been shut down');
    const at = (pick) => {
      try {
        return pick();
      } catch (e) {
        throw new Error(`engine worker failed: ${e.message}`);
      }
    };
    const slot = at(trainerSlot);
    try {
      return await make(slot, config);
    } catch (e) {
      // Refused for memory beside the trainers its worker holds: a worker of
      // its own has the whole budget (refused there too, the config alone is over it).
      const beside = slot.hosted > 0 && e instanceof RangeError && e.field === 'depth' && Number.isFinite(e.max);
      if (!beside || closed) throw e;
      return make(at(start), config);
    }
  }

  // A trainer made in the worker of `slot`.
  async function make(slot, config) {
    slot.hosted++;
    slot.trained = true;
    let info;
    try {
      info = await pinned(slot, 'trainerCreate', [config]);
    } catch (e) {
      slot.hosted--;
      retireIfSpent(slot);
      throw e;
    }
    return trainerHandle(slot, info);
  }

  function trainerHandle(slot, info) {
    const { id } = info;
    let deleted = false;
    const use = (op, args) => {
      if (handle.lost) return Promise.reject(handle.lost);
      if (deleted) return Promise.reject(fieldError('trainer: this trainer was deleted', 'trainer'));
      return pinned(slot, op, args);
    };
    const read = (r) => {
      handle.stepsDone = r.stepsDone;
      handle.stopped = r.stopped;
      return r;
    };
    const handle = {
      config: info.config,
      task: info.task,
      stepsDone: info.stepsDone,
      stopped: info.stopped,
      lost: null,
      step: (n) => use('trainerStep', [id, n]).then((r) => read(r).logs),
      lesion: () => use('trainerLesion', [id]),
      dwaWeights: () => use('trainerDwaWeights', [id]),
      gates: () => use('trainerGates', [id]),
      outcome: () => use('trainerOutcome', [id]),
      state: () => use('trainerState', [id]),
      load: (bytes) =>
        use('trainerLoad', [id, bytes]).then((r) => {
          read(r);
          handle.config = r.config;
          handle.task = r.task;
        }),
      /** Frees the trainer in its worker (at once if the worker is gone); later calls reject. */
      delete() {
        if (deleted) return Promise.resolve();
        const freed = use('trainerDelete', [id]);
        deleted = true;
        slot.trainers.delete(handle);
        slot.hosted--;
        return freed.then(
          () => undefined,
          (e) => {
            if (e !== slot.gone && e !== handle.lost) throw e;
          },
        );
      },
    };
    slot.trainers.add(handle);
    return handle;
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
    lostListeners.add(fn);
    return () => lostListeners.delete(fn);
  }

  return { call, lane, trainer, terminate, onWorkerLost, workers: () => slots.length, size: () => size };
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
