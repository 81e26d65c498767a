// A small pool of engine workers for the papers page. Each panel asks for its
// reproduction; a newer request for the same task replaces one still waiting
// (the older resolves to null), so changing a control twice never runs the
// stale one. An `exclusive` request (the timing) waits until every worker is
// idle and holds the others back while it runs, so nothing competes with it.
//
//   const pool = new PapersClient();
//   const r = await pool.request('theorem1', params);   // result, or null if superseded

export class PapersClient {
  constructor(size = Math.max(1, Math.min(2, navigator.hardwareConcurrency || 1))) {
    this._nextId = 1;
    this._queue = []; // {task, params, exclusive, resolve, reject}
    this._workers = Array.from({ length: size }, () => {
      const slot = { worker: new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }), job: null };
      slot.worker.onmessage = (e) => this._done(slot, e.data);
      slot.worker.onerror = (e) => {
        e.preventDefault?.();
        const job = slot.job;
        slot.job = null;
        job?.reject(new Error(`engine worker failed: ${e.message || 'unknown error'}`));
        this._pump();
      };
      return slot;
    });
  }

  request(task, params = {}, { exclusive = false } = {}) {
    return new Promise((resolve, reject) => {
      const waiting = this._queue.findIndex((j) => j.task === task);
      if (waiting >= 0) {
        this._queue[waiting].resolve(null);
        this._queue.splice(waiting, 1);
      }
      this._queue.push({ task, params, exclusive, resolve, reject });
      this._pump();
    });
  }

  _pump() {
    const busy = () => this._workers.some((w) => w.job);
    if (this._workers.some((w) => w.job?.exclusive)) return;
    while (this._queue.length) {
      const next = this._queue[0];
      if (next.exclusive && busy()) return;
      const idle = this._workers.find((w) => !w.job);
      if (!idle) return;
      this._queue.shift();
      next.id = this._nextId++;
      idle.job = next;
      idle.worker.postMessage({ id: next.id, task: next.task, params: next.params });
      if (next.exclusive) return;
    }
  }

  _done(slot, msg) {
    const job = slot.job;
    if (!job || msg.id !== job.id) return;
    slot.job = null;
    if (msg.ok) job.resolve(msg.result);
    else {
      const err = new RangeError(msg.error.message);
      err.field = msg.error.field;
      job.reject(err);
    }
    this._pump();
  }
}
