// One engine worker (one wasm instance) for every embed on a page, shared
// through lanes. Each embed opens a lane; within a lane the latest request
// wins, as in engine/client.js (a slider being dragged never queues stale
// work); across lanes requests take turns, so two embeds never cancel each
// other. The worker speaks engine/worker.js's protocol:
//   in {id, op: 'simulate', args: [config]}; out {id, ok: true, out, ms} | {id, ok: false, error: {message, field}}
//
//   const lane = openLane();
//   const r = await lane.request(config);  // {out, ms}, or null if a newer request replaced it
//   lane.close();
//
// The worker is found relative to this module's own URL, so the embed works
// wherever resnorm-embed.js is served from. From another origin than the page
// a worker cannot be started directly: a same-origin blob: worker imports the
// real one instead, which needs CORS headers on the site and `worker-src blob:`
// in the host page's policy (see the README's embedding guide).
import workerUrl from '../engine/worker.js?worker&url';

let worker = null;
let nextId = 1;
let inflight = null; // {id, lane, resolve, reject}
const waiting = []; // lanes with a pending request, in turn order

export function workerScriptUrl() {
  return new URL(workerUrl, import.meta.url);
}

function startWorker() {
  const url = workerScriptUrl();
  let w;
  if (url.origin === location.origin) w = new Worker(url, { type: 'module' });
  else {
    // A dynamic import (Chromium refuses a static one from a blob: worker when
    // the page has a CSP); messages that arrive before the engine's module has
    // set its handler are kept and handed over; a failed import is rethrown so
    // the page sees the worker's error event.
    const src = `const q = []; self.onmessage = (e) => q.push(e.data);
import(${JSON.stringify(url.href)}).then(() => { for (const data of q.splice(0)) self.onmessage({ data }); },
  (e) => setTimeout(() => { throw e; }));`;
    w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), { type: 'module' });
  }
  w.onmessage = (e) => onMessage(e.data);
  w.onerror = (e) => {
    e.preventDefault?.();
    const err = new Error(`engine worker failed: ${e.message || 'it could not be loaded'}`);
    const f = inflight;
    inflight = null;
    f?.reject(err);
    // everything waiting fails the same way; a later request tries a new worker
    for (const lane of waiting.splice(0)) lane._fail(err);
    w.terminate();
    worker = null;
  };
  return w;
}

function onMessage(msg) {
  const f = inflight;
  if (!f || msg.id !== f.id) return;
  inflight = null;
  if (msg.ok) f.resolve({ out: msg.out, ms: msg.ms });
  else {
    const err = new RangeError(msg.error.message);
    err.field = msg.error.field;
    f.reject(err);
  }
  pump();
}

function pump() {
  if (inflight || !waiting.length) return;
  const lane = waiting.shift();
  const p = lane._take();
  if (!p) return pump();
  try {
    worker ??= startWorker();
  } catch (e) {
    p.reject(e);
    return pump();
  }
  const id = nextId++;
  inflight = { id, resolve: p.resolve, reject: p.reject };
  worker.postMessage({ id, op: 'simulate', args: [p.config] });
}

export function openLane() {
  let pending = null;
  let closed = false;
  const lane = {
    dropped: 0,
    request(config) {
      if (closed) return Promise.resolve(null);
      return new Promise((resolve, reject) => {
        if (pending) {
          pending.resolve(null);
          lane.dropped++;
        } else waiting.push(lane);
        pending = { config, resolve, reject };
        pump();
      });
    },
    close() {
      closed = true;
      pending?.resolve(null);
      pending = null;
      const i = waiting.indexOf(lane);
      if (i >= 0) waiting.splice(i, 1);
    },
    _take() {
      const p = pending;
      pending = null;
      return p;
    },
    _fail(err) {
      pending?.reject(err);
      pending = null;
    },
  };
  return lane;
}
