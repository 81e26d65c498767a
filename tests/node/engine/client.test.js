// The engine client against fake workers that run the real wasm engine and
// answer asynchronously, one message at a time, in order (as worker.js does):
// call(op, args) answers every call; a lane's latest request wins and lanes
// never cancel each other; k workers give the same answers as one; an
// exclusive call runs alone; a failed worker rejects what it held and the next
// call starts a new one; a lane's cancel() stops its work on the spot; a worker
// whose thread ends without an error event is told from a busy one by its Web
// Lock (fakeLocks), never by a deadline, and a fresh worker takes its place.
// Run: node --test tests/node/engine/client.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { loadWasm } from '../helpers.js';
import { EngineError } from '../../../wasm/engine-error.js';
import { createEngineClient, poolSize, sharedEngine, OPS } from '../../../web/src/engine/client.js';
import { fakeLocks, fakeWorkerPool } from './fake-workers.js';
import { nextTurn, until } from '../wait.js';
import { workerLostText } from '../../../web/src/shared/worker-lost.js';
import { tinyConfig } from '../train/tiny.js';

const rn = await loadWasm();

const fakeWorkers = fakeWorkerPool(rn);

const depthOf = (r) => (r === null ? null : (r.out ?? r).config.depth);

test('a lane: the latest request wins, in the {id, op, args} protocol', async () => {
  const pool = fakeWorkers();
  const lane = createEngineClient({ startWorker: pool.start }).lane();
  const a = lane.request('simulate', [{ arch: ['plain'], depth: 4 }]);
  const b = lane.request('simulate', [{ arch: ['plain'], depth: 5 }]);
  const c = lane.request('simulate', [{ arch: ['plain'], depth: 6 }]);
  const [ra, rb, rc] = await Promise.all([a, b, c]);
  assert.equal(ra.out.config.depth, 4);
  assert.equal(rb, null, 'superseded');
  assert.equal(rc.out.config.depth, 6);
  assert.ok(rc.ms > 0 && rc.roundTripMs >= 0);
  assert.equal(lane.dropped, 1);
  assert.equal(pool.started.length, 1);
  assert.deepEqual(Object.keys(pool.started[0].sent[0]).sort(), ['args', 'id', 'op']);
  assert.equal(pool.started[0].sent.length, 2, 'the superseded request never reached the worker');
  await assert.rejects(lane.request('simulate', [{ depth: 0 }]), (e) => e instanceof RangeError && e.field === 'depth');
  await assert.rejects(lane.request('eval', ['1']), (e) => e instanceof TypeError);
});

test('call(): every call answered in order, none dropped, errors with their field', async () => {
  const engine = createEngineClient({ startWorker: fakeWorkers().start });
  assert.deepEqual(
    [...OPS],
    ['simulate', 'normToken', 'batchVsLayerNorm', 'pathGradients', 'reproduce', 'timeRecompute', 'exportPytorch'],
  );
  const depths = [3, 4, 5, 6, 7];
  const docs = await Promise.all(depths.map((depth) => engine.call('simulate', [{ arch: ['plain'], depth }])));
  assert.deepEqual(
    docs.map((d) => d.config.depth),
    depths,
  );
  const t = await engine.call('normToken', ['layernorm', [3, 3, 3], [1, 1, 1], [0.5, -1, 2]]);
  assert.deepEqual(Array.from(t.y), [0.5, -1, 2]);
  const b = await engine.call('batchVsLayerNorm', [
    { x: [1, 2, 3, 4], batch: 2, length: 1, width: 2, lengths: [1, 1] },
  ]);
  assert.equal(b.batchnorm.length, 4);
  const p = await engine.call('pathGradients', [{ arch: ['pre_ln'], depth: 4, width: 8, tokens: 2, samples: 2 }]);
  assert.equal(p.results.pre_ln.count.length, 5);
  await assert.rejects(engine.call('simulate', [{ depth: 0 }]), (e) => e instanceof RangeError && e.field === 'depth');
  await assert.rejects(engine.call('normToken', ['layernorm', [1, 2], [1], [0, 0]]), (e) => e.field === 'gamma');
  await assert.rejects(
    engine.call('eval', ['1']),
    (e) => e instanceof TypeError && /unknown engine operation/.test(e.message),
  );
});

test("calls and a lane share the worker without stealing each other's answers", async () => {
  const engine = createEngineClient({ startWorker: fakeWorkers().start });
  const lane = engine.lane();
  const r1 = lane.request('simulate', [{ arch: ['residual'], depth: 8 }]);
  const c1 = engine.call('simulate', [{ arch: ['plain'], depth: 9 }]);
  const r2 = lane.request('simulate', [{ arch: ['residual'], depth: 10 }]);
  const c2 = engine.call('normToken', ['rmsnorm', [1, -1], [2, 2], [0, 0]]);
  const [a, b, c, d] = await Promise.all([r1, c1, r2, c2]);
  assert.equal(a.out.config.depth, 8);
  assert.equal(b.config.depth, 9);
  assert.equal(c.out.config.depth, 10);
  assert.ok(Math.abs(d.y[0] - 2) < 1e-4);
});

test('lanes take turns and never cancel each other; only a newer request on the same lane does', async () => {
  const pool = fakeWorkers();
  const engine = createEngineClient({ startWorker: pool.start });
  const x = engine.lane();
  const y = engine.lane();
  const results = await Promise.all([
    x.request('simulate', [{ arch: ['plain'], depth: 2 }]), // runs at once
    y.request('simulate', [{ arch: ['plain'], depth: 20 }]), // waits, superseded by 21
    x.request('simulate', [{ arch: ['plain'], depth: 3 }]), // waits, superseded by 4
    y.request('simulate', [{ arch: ['plain'], depth: 21 }]),
    x.request('simulate', [{ arch: ['plain'], depth: 4 }]),
  ]);
  assert.deepEqual(results.map(depthOf), [2, null, null, 21, 4]);
  assert.equal(x.dropped, 1);
  assert.equal(y.dropped, 1);
  // y's request went before x's second: the lanes took turns in the order they asked
  assert.deepEqual(
    pool.log.filter((e) => e[1] === 'start').map((e) => e[3][0].depth),
    [2, 21, 4],
  );
});

test('lane.close(): its waiting request resolves null, later ones too; the one running still answers; other lanes go on', async () => {
  const engine = createEngineClient({ startWorker: fakeWorkers().start });
  const x = engine.lane();
  const y = engine.lane();
  const running = x.request('simulate', [{ arch: ['plain'], depth: 5 }]);
  const waiting = x.request('simulate', [{ arch: ['plain'], depth: 6 }]);
  const other = y.request('simulate', [{ arch: ['plain'], depth: 7 }]);
  x.close();
  assert.equal(await waiting, null);
  assert.equal(await x.request('simulate', [{ arch: ['plain'], depth: 8 }]), null);
  assert.equal(depthOf(await running), 5);
  assert.equal(depthOf(await other), 7);
  assert.equal(depthOf(await y.request('simulate', [{ arch: ['plain'], depth: 9 }])), 9);
});

test('k = 2 workers: the same answers as one worker, two computing at once', async () => {
  const jobs = [
    ['reproduce', ['lemma2', { depth: 12, seeds: 2 }]],
    ['reproduce', ['veit', { depth: 6, samples: 4 }]],
    ['simulate', [{ arch: ['pre_ln', 'post_ln'], depth: 16, seed: 3 }]],
    ['pathGradients', [{ arch: ['residual'], depth: 5, width: 8, tokens: 2, samples: 3 }]],
    ['simulate', [{ arch: ['deepnorm'], block: 'transformer', depth: 3, width: 16, heads: 2 }]],
  ];
  const run = async (k) => {
    const pool = fakeWorkers();
    const engine = createEngineClient({ workers: k, startWorker: pool.start });
    const lanes = [engine.lane(), engine.lane()];
    const out = await Promise.all(
      jobs.map(([op, args], i) => (i < 2 ? lanes[i].request(op, args).then((r) => r.out) : engine.call(op, args))),
    );
    return { out, pool, workers: engine.workers() };
  };
  const one = await run(1);
  const two = await run(2);
  assert.equal(one.pool.started.length, 1);
  assert.equal(one.pool.maxActive, 1);
  assert.equal(two.pool.started.length, 2);
  assert.equal(two.workers, 2);
  assert.equal(two.pool.maxActive, 2, 'both workers computed at the same time');
  const plain = (v) =>
    JSON.parse(JSON.stringify(v, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x) : k === 'ms' ? 0 : x)));
  assert.deepEqual(plain(two.out), plain(one.out));
  // each worker got work
  assert.ok(two.pool.started.every((w) => w.sent.length > 0));
});

test('an exclusive call waits for every worker to be idle and runs alone', async () => {
  const pool = fakeWorkers();
  const engine = createEngineClient({ workers: 2, startWorker: pool.start });
  const cfg = (depth) => [{ arch: ['plain'], depth }];
  const before = [engine.call('simulate', cfg(2)), engine.call('simulate', cfg(3))];
  const timing = engine.call('simulate', cfg(4), { exclusive: true });
  const after = [engine.call('simulate', cfg(5)), engine.call('simulate', cfg(6))];
  const out = await Promise.all([...before, timing, ...after]);
  assert.deepEqual(
    out.map((d) => d.config.depth),
    [2, 3, 4, 5, 6],
  );
  // From the exclusive call's start to its end, nothing else starts or runs.
  const i = pool.log.findIndex((e) => e[1] === 'start' && e[3][0].depth === 4);
  const j = pool.log.findIndex((e) => e[1] === 'end' && e[3][0].depth === 4);
  const earlier = pool.log.slice(0, i);
  assert.equal(
    earlier.filter((e) => e[1] === 'start').length,
    earlier.filter((e) => e[1] === 'end').length,
    'the calls before it had finished',
  );
  assert.equal(j, i + 1, 'nothing started while it ran');
  assert.equal(pool.maxActive, 2, 'the other calls used both workers');
});

test('lane.cancel(): the running request resolves null, its worker is terminated, the lane and other lanes go on', async () => {
  const pool = fakeWorkers();
  const engine = createEngineClient({ startWorker: pool.start });
  const x = engine.lane();
  const y = engine.lane();
  const running = x.request('simulate', [{ arch: ['plain'], depth: 5 }]);
  const other = y.request('simulate', [{ arch: ['plain'], depth: 7 }]);
  const first = pool.started[0];
  assert.equal(x.cancel(), true);
  assert.equal(await running, null);
  assert.equal(first.terminated, true);
  assert.equal(depthOf(await other), 7, 'the other lane waited its turn on a fresh worker');
  assert.equal(pool.started.length, 2);
  assert.equal(depthOf(await x.request('simulate', [{ arch: ['plain'], depth: 8 }])), 8);
  // a waiting request is dropped without touching the worker that computes another lane's
  const busy = y.request('simulate', [{ arch: ['plain'], depth: 9 }]);
  const waiting = x.request('simulate', [{ arch: ['plain'], depth: 10 }]);
  assert.equal(x.cancel(), true);
  assert.equal(await waiting, null);
  assert.equal(depthOf(await busy), 9);
  assert.equal(x.cancel(), false, 'nothing left to stop');
  assert.equal(pool.started.length, 2);
  assert.equal(depthOf(await x.request('simulate', [{ arch: ['plain'], depth: 11 }])), 11);
});

test("a budget's refusal keeps its .field and .max through the client", async () => {
  const engine = createEngineClient({ startWorker: fakeWorkers().start });
  const config = { depth: 1024, width: 128, expansion: 2, tokens: 64 }; // the four default archs
  let direct;
  try {
    rn.simulate(config);
  } catch (e) {
    direct = e;
  }
  await assert.rejects(engine.lane().request('simulate', [config]), (e) => {
    assert.ok(e instanceof RangeError);
    assert.equal(e.field, 'depth');
    assert.equal(e.message, direct.message);
    assert.equal(e.max, direct.max);
    assert.ok(e instanceof EngineError);
    assert.equal(e.code, 'budget');
    return true;
  });
});

test('an EngineError crosses the client as the engine threw it: its kind, code, field and message', async () => {
  const engine = createEngineClient({ startWorker: fakeWorkers().start });
  for (const config of [{ depth: {} }, { depth: 0 }]) {
    let direct;
    try {
      rn.simulate(config);
    } catch (e) {
      direct = e;
    }
    await assert.rejects(engine.call('simulate', [config]), (e) => {
      assert.ok(e instanceof EngineError);
      assert.equal(e instanceof TypeError, direct instanceof TypeError);
      assert.equal(e instanceof RangeError, direct instanceof RangeError);
      assert.deepEqual([e.code, e.field, e.message], [direct.code, direct.field, direct.message]);
      return true;
    });
  }
});

test('a worker that fails rejects what it held; later calls work on a new worker', async () => {
  const pool = fakeWorkers();
  let broken = true;
  const start = () => {
    if (!broken) return pool.start();
    const w = { sent: [], postMessage: (d) => w.sent.push(d), terminate: () => (w.terminated = true) };
    pool.started.push(w);
    return w;
  };
  const engine = createEngineClient({ startWorker: start });
  const held = engine.call('simulate', [{}]);
  const queued = engine.call('simulate', [{ arch: ['plain'], depth: 3 }]);
  const dead = pool.started[0];
  assert.equal(dead.sent.length, 1, 'one job at a time per worker');
  broken = false;
  dead.onerror({ message: 'boom', preventDefault() {} });
  await assert.rejects(held, /engine worker failed: boom/);
  assert.equal(dead.terminated, true);
  assert.equal((await queued).config.depth, 3, 'the queued call ran on a new worker');
  assert.equal((await engine.call('simulate', [{ arch: ['plain'], depth: 4 }])).config.depth, 4);
  assert.equal(pool.started.length, 2);
  assert.equal(engine.workers(), 1);
});

test('a worker that cannot start rejects the call; terminate() rejects what waits', async () => {
  let fails = true;
  const pool = fakeWorkers();
  const engine = createEngineClient({
    startWorker: () => {
      if (fails) throw new Error('no workers here');
      return pool.start();
    },
  });
  await assert.rejects(engine.call('simulate', [{}]), /engine worker failed: no workers here/);
  fails = false;
  const lane = engine.lane();
  const a = engine.call('simulate', [{ arch: ['plain'], depth: 2 }]);
  const b = lane.request('simulate', [{ arch: ['plain'], depth: 3 }]);
  engine.terminate();
  await assert.rejects(a, /shut down/);
  await assert.rejects(b, /shut down/);
  await assert.rejects(engine.call('simulate', [{}]), /shut down/);
  assert.equal(await lane.request('simulate', [{}]), null);
});

test('sharedEngine(): one client per realm', () => {
  assert.equal(sharedEngine(), sharedEngine());
});

test('a pool of k = 1, 2, 3 workers: a simulate is split by architecture and merged in arch order, bit for bit', async () => {
  const all = rn.fields.find((f) => f.name === 'arch').choices;
  const configs = [
    { arch: all, depth: 12, width: 16, tokens: 3, gain: 1.1 },
    { arch: ['pre_ln', 'post_ln', 'admin', 'deepnorm'], block: 'transformer', depth: 4, width: 16, heads: 2 },
    { arch: 'plain,gpt2,sandwich', depth: 9, width: 8 },
  ];
  const plain = (v) => JSON.stringify(v, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x, String) : x));
  const want = configs.map((c) => plain(rn.simulate(c)));
  for (const k of [1, 2, 3]) {
    const pool = fakeWorkers();
    const engine = createEngineClient({ workers: k, startWorker: pool.start });
    const lane = engine.lane();
    for (const [i, config] of configs.entries()) {
      const r = await lane.request('simulate', [config]);
      assert.equal(plain(r.out), want[i], `k = ${k}, config ${i}`);
      assert.deepEqual(Object.keys(r.out.results), rn.simulate(config).config.arch, 'arch order');
      assert.equal(plain(await engine.call('simulate', [config])), want[i], `k = ${k}, call, config ${i}`);
    }
    assert.equal(pool.started.length, k, `k = ${k}: every worker took part`);
    // One architecture: one worker, no split.
    const before = pool.log.length;
    await engine.call('simulate', [{ arch: ['pre_ln'], depth: 5 }]);
    assert.equal(pool.log.length - before, 2, 'one start and one end');
  }
});

test('a pool: a superseded split request is dropped in every worker, and no answer mixes two configs', async () => {
  const pool = fakeWorkers();
  const engine = createEngineClient({ workers: 2, startWorker: pool.start });
  const lane = engine.lane();
  const arch = ['plain', 'residual', 'post_ln', 'pre_ln'];
  const asked = [];
  for (let depth = 4; depth < 14; depth++) asked.push(lane.request('simulate', [{ arch, depth }]));
  const answers = await Promise.all(asked);
  const last = answers.at(-1);
  assert.equal(last.out.config.depth, 13);
  for (const r of answers.filter(Boolean)) {
    const depths = new Set(Object.values(r.out.results).map((a) => a.grad_norm.length - 1));
    assert.deepEqual([...depths], [r.out.config.depth], 'every architecture of one answer is of its config');
    assert.deepEqual(Object.keys(r.out.results), arch);
  }
  // The first request was at the workers when the others came; every one after it but the last was dropped before any worker saw it.
  const sentDepths = pool.started.flatMap((w) => w.sent.map((m) => m.args[0].depth));
  for (const d of sentDepths) assert.ok(d === 4 || d === 13, `depth ${d} reached a worker`);
  assert.equal(lane.dropped, 8);
});

test("a pool refuses what the whole config would: each part checks it, the .field and .max are the whole's", async () => {
  const engine = createEngineClient({ workers: 3, startWorker: fakeWorkers().start });
  const all = rn.fields.find((f) => f.name === 'arch').choices;
  const config = { arch: all, depth: 1024, width: 64, tokens: 64 };
  let whole;
  try {
    rn.simulate(config);
  } catch (e) {
    whole = e;
  }
  await assert.rejects(engine.lane().request('simulate', [config]), (e) => e.field === 'depth' && e.max === whole.max);
  await assert.rejects(engine.call('simulate', [{ ...config, depth: whole.max + 1 }]), (e) => e.field === 'depth');
  const ok = await engine.call('simulate', [{ ...config, depth: whole.max }]);
  assert.deepEqual(Object.keys(ok.results), all);
});

test('poolSize(): one worker per core, at most 4, at most 2 on a device with 4 GB or less, at least 1', () => {
  assert.equal(poolSize({ hardwareConcurrency: 2 }), 2);
  assert.equal(poolSize({ hardwareConcurrency: 16 }), 4);
  assert.equal(poolSize({ hardwareConcurrency: 8, deviceMemory: 4 }), 2);
  assert.equal(poolSize({ hardwareConcurrency: 8, deviceMemory: 8 }), 4);
  assert.equal(poolSize({}), 1);
  assert.equal(poolSize(undefined), 1);
  assert.equal(poolSize({ hardwareConcurrency: 0 }), 1);
});

test('a pool: a worker that fails to load leaves the others working, its part redone by them, the page told', async () => {
  const pool = fakeWorkers();
  let n = 0;
  let broken = null;
  const start = () => {
    if (n++ !== 1) return pool.start();
    // The second worker never loads: it takes a message and, a turn of the event loop later (its
    // part still unanswered, the other workers still computing theirs), reports an error.
    const w = { sent: [], postMessage: (d) => w.sent.push(d), terminate: () => (w.terminated = true) };
    setImmediate(() => w.onerror({ message: 'the module could not be loaded', preventDefault() {} }));
    broken = w;
    return w;
  };
  const engine = createEngineClient({ workers: 3, startWorker: start });
  const heard = [];
  engine.onWorkerLost((e, left) => heard.push([e.message, left]));
  const config = { arch: ['plain', 'residual', 'post_ln', 'pre_ln', 'gpt2', 'admin'], depth: 7, width: 8 };
  const want = JSON.stringify(rn.simulate(config), (k, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x));
  const got = await engine.lane().request('simulate', [config]);
  assert.equal(
    JSON.stringify(got.out, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x)),
    want,
  );
  assert.deepEqual(heard, [['engine worker failed: the module could not be loaded', 2]]);
  assert.equal(broken.sent.length, 1, 'the broken worker took its part');
  // the parts the working workers computed: their own two, then the lost worker's
  const parts = pool.log.filter((e) => e[1] === 'start').map((e) => e[3][1]);
  assert.deepEqual(parts, [
    ['plain', 'residual'],
    ['gpt2', 'admin'],
    ['post_ln', 'pre_ln'],
  ]);
  assert.equal(engine.size(), 2);
  assert.deepEqual(Object.keys((await engine.call('simulate', [config])).results), config.arch);
});

// A trainer of the lab's tiny run: one architecture.
const TRAIN = { ...tinyConfig(), arch: 'pre_ln', steps: 12 };

/**
 * A client of one fake worker at a time, with Web Locks (fakeLocks); a job whose op is `op` is
 * held while `holding()` says so; `heard` lists what onWorkerLost told ({...info, left, message}).
 */
function watchedClient(op, holding = () => true) {
  const locks = fakeLocks();
  const pool = fakeWorkers({ locks, hold: (o) => o === op && holding() });
  const engine = createEngineClient({ workers: 1, startWorker: pool.start, locks });
  const heard = [];
  engine.onWorkerLost((error, left, info) => heard.push({ ...info, left, message: error.message }));
  return { locks, pool, engine, heard };
}

test('a worker whose thread ends without an error while it computes: its job is redone by a fresh one, the page is told', async () => {
  let holding = false;
  const { pool, engine, heard } = watchedClient('simulate', () => holding);
  assert.equal((await engine.call('simulate', [{ arch: ['plain'], depth: 3 }])).config.depth, 3);
  holding = true;
  const lane = engine.lane();
  const asked = lane.request('simulate', [{ arch: ['plain'], depth: 5 }]);
  await until(() => pool.held.length === 1, 'the request at the worker');
  holding = false;
  pool.started[0].die(); // no error event, no answer: only its lock goes
  const got = await asked;
  assert.equal(got.out.config.depth, 5, 'the request was computed by a fresh worker');
  assert.equal(pool.started.length, 2);
  assert.equal(engine.size(), 1, 'the pool keeps its size');
  assert.deepEqual(heard, [
    {
      message: 'engine worker stopped without an error',
      left: 1,
      silent: true,
      loaded: true,
      trainers: 0,
      working: 0, // the fresh worker has not answered yet
      ran: true,
      error: heard[0]?.error,
    },
  ]);
  assert.match(workerLostText(heard[0].error, 1, heard[0]), /stopped without an error.*A fresh one takes its place/);
  pool.release(); // the dead worker's held job: its answer never comes
  assert.equal((await engine.call('simulate', [{ arch: ['plain'], depth: 6 }])).config.depth, 6);
});

test('a busy worker is never taken for one that ended: a job held for thousands of turns is answered, no one told', async () => {
  const { locks, pool, engine, heard } = watchedClient('simulate');
  const asked = engine.call('simulate', [{ arch: ['plain'], depth: 4 }]);
  await until(() => pool.held.length === 1, 'the call at the worker');
  for (let i = 0; i < 3000; i++) await nextTurn();
  assert.deepEqual(heard, []);
  assert.equal(locks.held('fake-engine-0'), true, 'the computing worker holds its lock');
  pool.release();
  assert.equal((await asked).config.depth, 4);
  assert.equal(pool.started.length, 1);
  assert.deepEqual(heard, []);
});

test('a worker the client ends itself (a lane cancel) is not taken for one that stopped on its own', async () => {
  const { locks, pool, engine, heard } = watchedClient('simulate');
  const lane = engine.lane();
  const asked = lane.request('simulate', [{ arch: ['plain'], depth: 4 }]);
  await until(() => pool.held.length === 1, 'the request at the worker');
  assert.equal(lane.cancel(), true);
  assert.equal(await asked, null);
  await until(() => !locks.held('fake-engine-0'), 'the lock of the worker it ended released');
  for (let i = 0; i < 20; i++) await nextTurn();
  assert.deepEqual(heard, []);
});

test("a trainer's worker that ends without an error mid-step: its calls reject by name, a new trainer trains in a fresh worker", async () => {
  let holding = false;
  const { pool, engine, heard } = watchedClient('trainerStep', () => holding);
  const tr = await engine.trainer(TRAIN);
  await tr.step(2);
  holding = true;
  const running = tr.step(2);
  const waiting = tr.outcome();
  await until(() => pool.held.length === 1, 'the step at the worker');
  holding = false;
  pool.started[0].die();
  const lost = (e) =>
    e.field === 'trainer' &&
    e.cause === 'engine worker stopped without an error' &&
    /its engine worker stopped \(engine worker stopped without an error\)/.test(e.message);
  await assert.rejects(running, lost);
  await assert.rejects(waiting, lost);
  assert.ok(lost(tr.lost));
  await tr.delete();
  assert.deepEqual(
    heard.map((i) => [i.silent, i.trainers, i.loaded]),
    [[true, 1, true]],
  );
  const again = await engine.trainer(TRAIN);
  assert.equal((await again.step(2)).length, 1);
  assert.equal(pool.started.length, 2, 'made in a fresh worker');
  assert.deepEqual(
    pool.started[1].sent.map((m) => m.op),
    ['trainerCreate', 'trainerStep'],
  );
});

test('workers whose script cannot load: the page is told nothing can run, never that it goes on', async () => {
  const started = [];
  const broken = () => {
    const w = { sent: [], postMessage: (d) => w.sent.push(d), terminate: () => (w.terminated = true) };
    setImmediate(() => w.onerror({ preventDefault() {} }));
    started.push(w);
    return w;
  };
  const engine = createEngineClient({ workers: 2, startWorker: broken, locks: fakeLocks() });
  const heard = [];
  engine.onWorkerLost((e, left, info) => heard.push(workerLostText(e, left, info)));
  const config = { arch: ['plain', 'residual', 'post_ln', 'pre_ln'], depth: 7, width: 8 };
  await assert.rejects(engine.lane().request('simulate', [config]), /engine worker failed: it could not be loaded/);
  await until(() => heard.length >= 2, 'the page told');
  for (const text of heard) {
    assert.doesNotMatch(text, /goes on/);
    assert.match(text, /could not be started \(engine worker failed: it could not be loaded\)/);
    assert.match(text, /No engine could run on this page, so nothing was computed\. Reload the page/);
  }
  // One that loads after one that could not: now it is true that the page goes on.
  const pool = fakeWorkers();
  let n = 0;
  const engine2 = createEngineClient({ workers: 2, startWorker: () => (n++ === 0 ? broken() : pool.start()) });
  const told = [];
  engine2.onWorkerLost((e, left, info) => told.push(workerLostText(e, left, info)));
  const got = await engine2.lane().request('simulate', [config]);
  assert.deepEqual(Object.keys(got.out.results), config.arch);
  await until(() => told.length === 1, 'the page told');
  assert.match(told[0], /could not be started.*The page goes on with 1 engine worker; the numbers are the same/);
});
