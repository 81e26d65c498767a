// The lab's trainers and the memory of the engine's workers (web/src/engine/client.js
// over run.js's respond, what worker.js answers): each fake worker here has a
// wasm module of its own, as each Worker has, so each has its own memory
// budget. A trainer that does not fit beside the others of its worker is made
// in a worker of its own, so a run can be saved and loaded beside the run on
// the page; a worker whose memory grew is ended once its trainers are gone; a
// worker whose engine failed past repair is replaced.
// Run: node --test tests/node/train/engine-memory.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { bits, loadWasm } from '../helpers.js';
import { createSession, respond } from '../../../web/src/engine/run.js';
import { createEngineClient, RETIRE_HEAP } from '../../../web/src/engine/client.js';

// The lab's link of the report at depth 19: two such trainers fill most of one engine's budget.
const DEEP = {
  task: 'reverse',
  width: 256,
  seq: 64,
  batch: 1,
  expansion: 4,
  eval_batches: 1,
  steps: 20,
  log_every: 1,
  depth: 19,
};
const SMALL_TRAIN = { task: 'copy', arch: 'pre_ln', depth: 2, width: 16, seq: 3, vocab: 6, steps: 5, log_every: 1 };
const SMALL = { depth: 4, width: 16, tokens: 4 };

/** Fake workers, each with its own wasm module, answering one message at a time as worker.js does. */
function moduleWorkers() {
  const pool = { started: [] };
  pool.start = () => {
    const ready = loadWasm();
    const session = createSession();
    const w = {
      onmessage: null,
      onerror: null,
      terminated: false,
      rn: null,
      queue: Promise.resolve(),
      postMessage(data) {
        const copy = structuredClone(data);
        w.queue = w.queue.then(async () => {
          w.rn = await ready;
          await new Promise((go) => setImmediate(go));
          if (w.terminated) return;
          const { msg, transfer } = respond(w.rn, copy, session);
          w.onmessage({ data: structuredClone(msg, { transfer }) });
        });
      },
      terminate() {
        w.terminated = true;
        ready.then((rn) => rn.dispose());
      },
    };
    pool.started.push(w);
    return w;
  };
  return pool;
}

/** Resolves once `cond()` holds, checking after each turn of the event loop (no timer decides). */
async function until(cond) {
  while (!cond()) await new Promise((go) => setImmediate(go));
}

test('Save, then Load beside the run: a trainer that does not fit beside the others gets a worker of its own', async () => {
  const started = performance.now();
  const pool = moduleWorkers();
  const engine = createEngineClient({ workers: 1, startWorker: pool.start });
  // The run: two deep trainers, both in the pool's one worker.
  const run = await Promise.all(['pre_ln', 'post_ln'].map((arch) => engine.trainer({ ...DEEP, arch })));
  assert.equal(pool.started.length, 1);
  await Promise.all(run.map((t) => t.step(1)));
  const saved = await Promise.all(run.map((t) => t.state()));
  // Load, as session.js does it: the trainers made again beside the run, then each state loaded.
  const loaded = await Promise.all(['pre_ln', 'post_ln'].map((arch) => engine.trainer({ ...DEEP, arch })));
  assert.ok(pool.started.length >= 2, 'the loaded trainers went to workers of their own');
  assert.ok(loaded.every((t) => t.lost === null));
  await Promise.all(loaded.map((t, i) => t.load(saved[i])));
  assert.deepEqual(
    loaded.map((t) => t.stepsDone),
    [1, 1],
  );
  const next = await Promise.all(run.map((t) => t.step(1)));
  const again = await Promise.all(loaded.map((t) => t.step(1)));
  assert.equal(bits(again), bits(next), 'the loaded run goes on as the run would have, bit for bit');
  // The run before is deleted: its worker, grown past RETIRE_HEAP, is ended, and gives its memory back.
  assert.ok(pool.started[0].rn.memory().heap > RETIRE_HEAP);
  await Promise.all(run.map((t) => t.delete()));
  await until(() => pool.started[0].terminated);
  assert.ok(
    loaded.every((t) => t.lost === null),
    'the loaded run is untouched',
  );
  await Promise.all(loaded.map((t) => t.step(1)));
  await Promise.all(loaded.map((t) => t.delete()));
  await until(() => engine.workers() === 0);
  assert.ok(pool.started.every((w) => w.terminated));
  // The next work starts a fresh worker.
  const out = await engine.call('simulate', [SMALL]);
  assert.equal(out.results.pre_ln.grad_norm.length, 5);
  assert.equal(engine.workers(), 1);
  engine.terminate();
  console.log(`save and load beside the run: ${((performance.now() - started) / 1000).toFixed(1)} s`);
});

test('a small run leaves its worker in place; an engine that failed past repair is replaced, its trainers lost by name', async () => {
  const pool = moduleWorkers();
  const engine = createEngineClient({ workers: 1, startWorker: pool.start });
  const small = await engine.trainer(SMALL_TRAIN);
  await small.step(2);
  await small.delete();
  assert.ok(pool.started[0].rn.memory().heap <= RETIRE_HEAP);
  assert.equal(engine.workers(), 1, 'a worker that stayed small is kept');

  const tr = await engine.trainer(SMALL_TRAIN);
  const saved = await tr.state();
  const first = pool.started[0];
  first.rn._sim.run = () => {
    throw new WebAssembly.RuntimeError('Aborted()'); // what an abort looks like from JS
  };
  await assert.rejects(
    engine.call('simulate', [SMALL]),
    (e) => e.field === 'engine' && /the engine stopped after a failure \(Aborted\(\)\)/.test(e.message),
  );
  assert.ok(first.terminated, 'the failed worker is ended');
  await assert.rejects(
    tr.step(1),
    (e) => e.field === 'trainer' && /its engine worker stopped/.test(e.message) && /Aborted\(\)/.test(e.message),
  );
  assert.equal(tr.lost?.field, 'trainer');
  // The next work runs on a fresh worker, and a new trainer loads the saved state.
  const out = await engine.call('simulate', [SMALL]);
  assert.equal(out.results.pre_ln.grad_norm.length, 5);
  const again = await engine.trainer(SMALL_TRAIN);
  await again.load(saved);
  assert.equal((await again.step(1)).length, 1);
  assert.equal(pool.started.length, 2);
  engine.terminate();
});
