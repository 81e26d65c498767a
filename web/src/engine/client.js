// The page's side of the engine worker. Two ways to ask:
//
// request(config): latest request wins. While one request is being computed,
// newer ones replace each other in a single pending slot, so dragging a slider
// never queues stale work; a superseded request resolves null.
//
//   const engine = new EngineClient();
//   const r = await engine.request(config);   // {out, ms, roundTripMs} or null if superseded
//   // a bad config rejects with an Error whose .field names the field
//
// call(op, args): every call is answered, in order, never dropped (the quizzes,
// the checks and the norm panel need each answer they ask for). It resolves with
// the wasm API's return value itself:
//
//   const doc = await engine.call('simulate', [config]);              // {config, results}
//   const t = await engine.call('normToken', ['layernorm', x, gamma, beta]);
//   const b = await engine.call('batchVsLayerNorm', [{x, batch, length, width, lengths, countPadding}]);
//   // bad input rejects with a RangeError whose .field names the field
//
// Both share the one worker; its messages are handled one at a time, in order.

export const OPS = Object.freeze(['simulate', 'normToken', 'batchVsLayerNorm']);

function engineError(error) {
  const err = new RangeError(error && error.message ? error.message : 'the engine failed');
  err.field = error ? (error.field ?? null) : null;
  return err;
}

export class EngineClient {
  constructor(worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' })) {
    this._worker = worker;
    this._nextId = 1;
    this._inflight = null; // {id, resolve, reject}
    this._pending = null; // {config, resolve, reject}
    this._calls = new Map(); // id -> {resolve, reject}: call()s awaiting their answer
    this.dropped = 0; // requests superseded before they were computed
    worker.onmessage = (e) => this._onMessage(e.data);
    worker.onerror = (e) => {
      const err = new Error(`engine worker failed: ${e.message || 'unknown error'}`);
      if (this._inflight) this._inflight.reject(err);
      this._inflight = null;
      for (const c of this._calls.values()) c.reject(err);
      this._calls.clear();
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

  /**
   * One engine operation, never dropped.
   * @param {'simulate'|'normToken'|'batchVsLayerNorm'} op
   * @param {unknown[]} [args] the arguments of the wasm API's method
   * @returns {Promise<object>} its return value
   */
  call(op, args = []) {
    if (!OPS.includes(op))
      return Promise.reject(
        new TypeError(`unknown engine operation ${JSON.stringify(String(op))} (known: ${OPS.join(', ')})`),
      );
    return new Promise((resolve, reject) => {
      const id = this._nextId++;
      this._calls.set(id, { resolve, reject });
      try {
        this._worker.postMessage({ id, op, args: Array.from(args) });
      } catch (e) {
        this._calls.delete(id);
        reject(e);
      }
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
    const call = this._calls.get(msg.id);
    if (call) {
      this._calls.delete(msg.id);
      if (msg.ok) call.resolve(msg.out);
      else call.reject(engineError(msg.error));
      return;
    }
    const f = this._inflight;
    if (!f || msg.id !== f.id) return;
    this._inflight = null;
    if (msg.ok) f.resolve({ out: msg.out, ms: msg.ms, roundTripMs: performance.now() - f.t0 });
    else f.reject(engineError(msg.error));
    if (this._pending) this._sendPending();
  }

  terminate() {
    this._worker.terminate();
  }
}
