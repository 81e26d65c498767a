// The page's side of the engine worker. Latest request wins: while one
// request is being computed, newer ones replace each other in a single
// pending slot, so dragging a slider never queues stale work.
//
//   const engine = new EngineClient();
//   const r = await engine.request(config);   // {out, ms} or null if superseded
//   // a bad config rejects with an Error whose .field names the field

export class EngineClient {
  constructor(worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' })) {
    this._worker = worker;
    this._nextId = 1;
    this._inflight = null; // {id, resolve, reject}
    this._pending = null; // {config, resolve, reject}
    this.dropped = 0; // requests superseded before they were computed
    worker.onmessage = (e) => this._onMessage(e.data);
    worker.onerror = (e) => {
      const err = new Error(`engine worker failed: ${e.message || 'unknown error'}`);
      if (this._inflight) this._inflight.reject(err);
      this._inflight = null;
      e.preventDefault?.();
    };
  }

  request(config) {
    return new Promise((resolve, reject) => {
      if (this._pending) {
        this._pending.resolve(null);
        this.dropped++;
      }
      this._pending = { config, resolve, reject };
      if (!this._inflight) this._sendPending();
    });
  }

  _sendPending() {
    const p = this._pending;
    this._pending = null;
    const id = this._nextId++;
    this._inflight = { id, resolve: p.resolve, reject: p.reject, t0: performance.now() };
    this._worker.postMessage({ id, config: p.config });
  }

  _onMessage(msg) {
    const f = this._inflight;
    if (!f || msg.id !== f.id) return;
    this._inflight = null;
    if (msg.ok) f.resolve({ out: msg.out, ms: msg.ms, roundTripMs: performance.now() - f.t0 });
    else {
      const err = new RangeError(msg.error.message);
      err.field = msg.error.field;
      f.reject(err);
    }
    if (this._pending) this._sendPending();
  }

  terminate() {
    this._worker.terminate();
  }
}
