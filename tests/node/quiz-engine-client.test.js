// The engine client's two ways to ask, against a fake worker that runs the real wasm engine and
// answers asynchronously in order (as the Web Worker does): request() keeps its latest-wins
// behaviour and message format {id, config}; call(op, args) answers every call, in order.
// Run: node --test tests/node/quiz-engine-client.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { loadWasm } from './helpers.js';
import { EngineClient, OPS } from '../../web/src/engine/client.js';

const rn = await loadWasm();

// What web/src/engine/worker.js does, minus the Worker.
const HANDLERS = {
  simulate: (args) => rn.simulate(args[0]),
  normToken: (args) => rn.normToken(args[0], args[1], args[2], args[3]),
  batchVsLayerNorm: (args) => rn.batchVsLayerNorm(args[0]),
};

function fakeWorker() {
  const w = {
    onmessage: null,
    onerror: null,
    sent: [],
    queue: Promise.resolve(),
    postMessage(data) {
      w.sent.push(structuredClone(data));
      w.queue = w.queue
        .then(() => new Promise((r) => setTimeout(r, 2)))
        .then(() => {
          const op = data.op === undefined ? 'simulate' : data.op;
          const args = data.op === undefined ? [data.config] : data.args;
          let msg;
          try {
            if (!HANDLERS[op]) throw Object.assign(new Error(`unknown engine operation "${op}"`), { field: null });
            msg = { id: data.id, ok: true, out: HANDLERS[op](args), ms: 1 };
          } catch (e) {
            msg = { id: data.id, ok: false, error: { message: e.message, field: e.field ?? null } };
          }
          w.onmessage({ data: structuredClone(msg) });
        });
    },
    terminate() {},
  };
  return w;
}

test("request(): latest wins, in the explorer's message format", async () => {
  const worker = fakeWorker();
  const engine = new EngineClient(worker);
  const a = engine.request({ arch: ['plain'], depth: 4 });
  const b = engine.request({ arch: ['plain'], depth: 5 });
  const c = engine.request({ arch: ['plain'], depth: 6 });
  const [ra, rb, rc] = await Promise.all([a, b, c]);
  assert.equal(ra.out.config.depth, 4);
  assert.equal(rb, null, 'superseded');
  assert.equal(rc.out.config.depth, 6);
  assert.equal(engine.dropped, 1);
  assert.deepEqual(Object.keys(worker.sent[0]).sort(), ['config', 'id']);
  await assert.rejects(engine.request({ depth: 0 }), (e) => e instanceof RangeError && e.field === 'depth');
});

test('call(): every call answered in order, none dropped, errors with their field', async () => {
  const engine = new EngineClient(fakeWorker());
  assert.deepEqual([...OPS], ['simulate', 'normToken', 'batchVsLayerNorm']);
  const depths = [3, 4, 5, 6, 7];
  const docs = await Promise.all(depths.map((depth) => engine.call('simulate', [{ arch: ['plain'], depth }])));
  assert.deepEqual(
    docs.map((d) => d.config.depth),
    depths,
  );
  assert.equal(engine.dropped, 0);
  const t = await engine.call('normToken', ['layernorm', [3, 3, 3], [1, 1, 1], [0.5, -1, 2]]);
  assert.deepEqual(Array.from(t.y), [0.5, -1, 2]);
  const b = await engine.call('batchVsLayerNorm', [
    { x: [1, 2, 3, 4], batch: 2, length: 1, width: 2, lengths: [1, 1] },
  ]);
  assert.equal(b.batchnorm.length, 4);
  await assert.rejects(engine.call('simulate', [{ depth: 0 }]), (e) => e instanceof RangeError && e.field === 'depth');
  await assert.rejects(engine.call('normToken', ['layernorm', [1, 2], [1], [0, 0]]), (e) => e.field === 'gamma');
  await assert.rejects(engine.call('eval', ['1']), /unknown engine operation/);
});

test("call() and request() share the worker without stealing each other's answers", async () => {
  const engine = new EngineClient(fakeWorker());
  const r1 = engine.request({ arch: ['residual'], depth: 8 });
  const c1 = engine.call('simulate', [{ arch: ['plain'], depth: 9 }]);
  const r2 = engine.request({ arch: ['residual'], depth: 10 });
  const c2 = engine.call('normToken', ['rmsnorm', [1, -1], [2, 2], [0, 0]]);
  const [a, b, c, d] = await Promise.all([r1, c1, r2, c2]);
  assert.equal(a.out.config.depth, 8);
  assert.equal(b.config.depth, 9);
  assert.equal(c.out.config.depth, 10);
  assert.ok(Math.abs(d.y[0] - 2) < 1e-4);
});

test('a worker failure rejects pending calls', async () => {
  const worker = { postMessage() {}, terminate() {} };
  const engine = new EngineClient(worker);
  const p = engine.call('simulate', [{}]);
  worker.onerror({ message: 'boom', preventDefault() {} });
  await assert.rejects(p, /engine worker failed: boom/);
});
