// The engine's workers and the order their work runs in, behind client.js: each worker's slot
// (the job it computes, its trainers' jobs waiting for it, its memory), the turns calls and lanes
// take, a worker that stops on its own (an error event, or its thread ended: told by a Web Lock),
// one that is ended (dropped, retired for its memory), and the answers. The lanes (lane.js) and
// trainers (trainer.js) are made on a pool; client.js's header says what the page sees.
import { EngineError, errorFromData } from '../../../wasm/engine-error.js';

/** A worker that held trainers and holds none is ended once its wasm memory grew past this. */
export const RETIRE_HEAP = 128 * 2 ** 20;

export function fieldError(message, field) {
  return new EngineError('engine', field, message);
}

// A test harness can hold answers back: before the page loads (Playwright's addInitScript) it
// defines globalThis.__resnormTestHold(op, deliver), which returns true when it keeps the answer
// and will call deliver() later. The worker's job counts as under way until then, so a
// computation is slow on purpose (Cancel, Pause) whatever the machine's speed; the answers of the
// trainers' jobs sent behind it (pump) wait for it, in order. A link, an
// attribute or storage can give the page strings, never a function, so none of them reaches it.
function heldForTest(op, deliver) {
  const hold = globalThis.__resnormTestHold;
  return typeof hold === 'function' && hold(op, deliver) === true;
}

export class WorkerPool {
  /**
   * @param {{size: number, startWorker: () => Worker, locks?: LockManager}} options size: how many
   *   workers the pool runs (fewer once one fails); startWorker and locks as createEngineClient's
   */
  constructor({ size, startWorker, locks }) {
    this.size = size;
    this.startWorker = startWorker;
    this.locks = locks;
    this.lostListeners = new Set();
    // Workers that stopped on their own, not yet told to the listeners (see report()).
    this.unreported = [];
    this.computedOnce = false; // some worker of this pool has run its engine
    // The workers started: each with the job it is computing, its trainers'
    // jobs already sent behind it (ahead), its trainers' jobs waiting for it (queue),
    // the trainers it holds or is making (hosted, trainers: their handles), and once
    // it has stopped, the error they get (gone).
    this.slots = [];
    // {jobs} for a call, {lane} for a lane with a request waiting, in the order
    // they asked (seq, shared with the trainers' jobs).
    this.turns = [];
    this.nextId = 1;
    this.nextSeq = 1;
    this.closed = false;
  }

  start() {
    // heap: the bytes its wasm memory has grown to, as its last answer said; trained: it has held a
    // trainer; computed: its engine has answered (it loaded); watched: its lock is asked for;
    // early: answers to jobs of `ahead` that came while the job before them was held for a test
    const slot = {
      worker: null,
      job: null,
      ahead: [],
      early: new Map(),
      queue: [],
      hosted: 0,
      trainers: new Set(),
      gone: null,
      heap: 0,
      trained: false,
      computed: false,
      watched: false,
    };
    slot.worker = this.startWorker();
    slot.worker.onmessage = (e) => {
      if (typeof e.data?.alive === 'string' && !('id' in e.data)) this.watch(slot, e.data.alive);
      else this.answer(slot, e.data);
    };
    slot.worker.onerror = (e) => {
      e?.preventDefault?.();
      this.lost(slot, new Error(`engine worker failed: ${e?.message || 'it could not be loaded'}`));
    };
    this.slots.push(slot);
    return slot;
  }

  // The lock the worker of `slot` holds while its thread lives (worker.js): granted to the client
  // only once that thread has ended. A worker the client ended itself is no longer in `slots`.
  watch(slot, name) {
    if (!this.locks || slot.watched) return;
    slot.watched = true;
    const ended = () => {
      if (this.slots.includes(slot)) this.lost(slot, new Error('engine worker stopped without an error'), true);
    };
    try {
      Promise.resolve(this.locks.request(name, ended)).catch(() => {});
    } catch {
      // no lock: this worker's silent end goes unnoticed, as where the browser has none
    }
  }

  // Terminates the worker of `slot`; its job, if any, gets settle(job). Its
  // trainers are lost (`cause` says why): their jobs, waiting or running, reject.
  drop(slot, settle, cause = 'it was stopped') {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    slot.worker.terminate();
    const gone = fieldError(`trainer: its engine worker stopped (${cause}), and the trainer with it`, 'trainer');
    gone.cause = cause;
    this.loseTrainers(slot, gone);
    if (slot.job?.pin) slot.job.reject(slot.gone);
    else if (slot.job) settle(slot.job);
    for (const job of slot.ahead.splice(0)) job.reject(slot.gone);
    slot.early.clear();
    slot.job = null;
    this.pump();
  }

  loseTrainers(slot, err) {
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
  lost(slot, err, silent = false) {
    if (!this.slots.includes(slot)) return;
    const event = { error: err, silent, loaded: slot.computed, trainers: slot.hosted };
    const retry = silent || this.size > 1;
    if (!silent && this.size > 1) this.size--;
    this.drop(
      slot,
      (job) => {
        if (!retry || job.retried) return job.reject(err);
        job.retried = true;
        this.turns.unshift({ jobs: [job], seq: 0 });
      },
      err.message,
    );
    this.unreported.push(event);
    this.report();
  }

  // Tells the listeners of the workers that stopped, once what the page goes on with is known: a
  // worker that has run its engine, or none left (nothing runs now). While the only workers left
  // are still loading and none of this client's ever ran, the news waits for the first of them to
  // answer or fail.
  report() {
    if (!this.unreported.length) return;
    const working = this.slots.filter((s) => s.computed).length;
    if (!working && !this.computedOnce && this.slots.length) return;
    for (const event of this.unreported.splice(0)) {
      const info = { ...event, working, ran: this.computedOnce };
      for (const fn of this.lostListeners) fn(event.error, this.size, info);
    }
  }

  answer(slot, msg, released = false) {
    const job = slot.job;
    if (!job || !msg) return;
    if (msg.id !== job.id) {
      // a job sent behind one whose answer a test holds: answered once that one is
      if (slot.ahead.some((j) => j.id === msg.id)) slot.early.set(msg.id, msg);
      return;
    }
    if (!released && heldForTest(job.op, () => this.answer(slot, msg, true))) return;
    slot.job = slot.ahead.shift() ?? null;
    if (Number.isFinite(msg.heap)) slot.heap = msg.heap;
    // an answer computed, or a refusal with the heap's size: its engine loaded
    if (!slot.computed && (msg.ok || Number.isFinite(msg.heap))) {
      slot.computed = this.computedOnce = true;
      this.report();
    }
    if (!msg.ok) job.reject(errorFromData(msg.error));
    else if (job.lane) job.resolve({ out: msg.out, ms: msg.ms, roundTripMs: performance.now() - job.t0 });
    else job.resolve(msg.out);
    // An engine that failed past repair: the worker goes, with its trainers.
    if (msg.fatal) this.drop(slot, () => {}, msg.error?.message || 'the engine failed');
    else this.retireIfSpent(slot);
    this.pump();
    const next = slot.job && slot.early.get(slot.job.id);
    if (next) {
      slot.early.delete(slot.job.id);
      this.answer(slot, next);
    }
  }

  // Ends an idle worker holding no trainer whose memory a run made large, or
  // one started beyond the pool's size for trainers: its memory goes back.
  retireIfSpent(slot) {
    const { slots } = this;
    if (slot.hosted || slot.trainers.size || slot.job || slot.queue.length || !slots.includes(slot)) return;
    if (!(slot.trained && slot.heap > RETIRE_HEAP) && slots.length <= this.size) return;
    slots.splice(slots.indexOf(slot), 1);
    slot.gone = fieldError('trainer: its engine worker was ended', 'trainer');
    slot.worker.terminate();
  }

  // Posts `job` to the worker of `slot`: its job, or with one under way (a trainer's: pump), one
  // sent behind it, which the worker starts as soon as it has answered the one before.
  send(slot, job) {
    job.id = this.nextId++;
    job.t0 = performance.now();
    const behind = slot.job !== null;
    if (behind) slot.ahead.push(job);
    else slot.job = job;
    try {
      slot.worker.postMessage({ id: job.id, op: job.op, args: job.args });
    } catch (e) {
      if (behind) slot.ahead.splice(slot.ahead.indexOf(job), 1);
      else slot.job = null;
      job.reject(e);
    }
  }

  // Hands waiting work to idle workers, starting workers up to `size`. A turn
  // is a call's parts or a lane's waiting request's parts (one part, unless a
  // simulate was split over the workers); it keeps its place until every part
  // has a worker. A trainer's job waits for its own worker, and goes before
  // the first turn if it asked before it. While a worker computes a trainer's
  // job, its other trainers' jobs are sent behind it: the worker goes from one
  // to the next without waiting for the page to read an answer and post again
  // (the page's main thread may be drawing), and they run in the order asked,
  // as they would one at a time.
  pump() {
    const { slots, turns } = this;
    while (!slots.some((s) => s.job?.exclusive)) {
      const head = turns.length ? turns[0].seq : Infinity;
      const own = slots.find((s) => (!s.job || s.job.pin) && s.queue.length && s.queue[0].seq < head);
      if (own) {
        this.send(own, own.queue.shift());
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
      if (!slot && slots.length < this.size) {
        try {
          slot = this.start();
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
      this.send(slot, job);
    }
  }

  // A trainer's job, for its own worker.
  pinned(slot, op, args) {
    if (this.closed) return Promise.reject(new Error('the engine has been shut down'));
    if (slot.gone) return Promise.reject(slot.gone);
    return new Promise((resolve, reject) => {
      slot.queue.push({ op, args, pin: slot, seq: this.nextSeq++, resolve, reject, settle: resolve });
      this.pump();
    });
  }

  // The worker for a new trainer: one holding none, else a new one while the
  // pool has room, else the one holding the fewest.
  trainerSlot() {
    const empty = this.slots.find((s) => !s.hosted);
    if (empty) return empty;
    if (this.slots.length < this.size) return this.start();
    return this.slots.reduce((a, b) => (b.hosted < a.hosted ? b : a));
  }

  // Ends every worker: what waits, what runs and every trainer's call reject.
  terminate() {
    this.closed = true;
    const err = new Error('the engine has been shut down');
    for (const turn of this.turns.splice(0))
      for (const job of turn.lane ? [turn.lane.take()] : turn.jobs) job?.reject(err);
    for (const slot of this.slots.splice(0)) {
      slot.worker.terminate();
      slot.job?.reject(err);
      for (const job of slot.ahead.splice(0)) job.reject(err);
      this.loseTrainers(slot, err);
    }
  }
}
