// client.trainer() against fake workers that run the real wasm engine (as
// worker.js does): a trainer lives in one worker and every call of it goes
// there; several trainers spread over the pool; logs, states and lesions are
// the wasm API's bit for bit, with their typed arrays handed over; a worker
// that stops rejects its trainers' calls by name, and a saved state restarts
// one on another worker; the other work of the pool goes on around them.
// Run: node --test tests/node/engine/trainer.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { bits, loadWasm } from '../helpers.js';
import { createEngineClient, OPS, TRAINER_OPS } from '../../../web/src/engine/client.js';
import { RUN, createSession, transferables } from '../../../web/src/engine/run.js';
import { fakeWorkerPool } from './fake-workers.js';
import { nextTurn, until } from '../wait.js';

const rn = await loadWasm();
const fakeWorkers = fakeWorkerPool(rn);

const CONFIG = {
  task: 'reverse',
  arch: 'pre_ln',
  depth: 2,
  width: 16,
  heads: 2,
  seq: 3,
  vocab: 6,
  batch: 4,
  steps: 12,
  log_every: 2,
};

/** The same steps on the wasm API directly: the reference. */
function direct(config, chunks) {
  const tr = rn.trainer(config);
  const out = chunks.map((n) => tr.step(n));
  const extra = { lesion: tr.lesion(), outcome: tr.outcome(), state: tr.state() };
  tr.delete();
  return { logs: out, ...extra };
}

// The trainer ops a fake worker answered, as [worker, op, trainer id].
const trainerCalls = (pool) =>
  pool.log.filter((e) => e[1] === 'start' && TRAINER_OPS.includes(e[2])).map((e) => [e[0], e[2], e[3][0]]);

test('the trainer ops are their own list: call() and lanes refuse them', async () => {
  assert.deepEqual(
    [...TRAINER_OPS],
    [
      'trainerCreate',
      'trainerStep',
      'trainerLesion',
      'trainerDwaWeights',
      'trainerAttnResWeights',
      'trainerGates',
      'trainerOutcome',
      'trainerNormSamples',
      'trainerState',
      'trainerLoad',
      'trainerDelete',
    ],
  );
  assert.ok(TRAINER_OPS.every((op) => !OPS.includes(op) && typeof RUN[op] === 'function'));
  const engine = createEngineClient({ startWorker: fakeWorkers().start });
  await assert.rejects(engine.call('trainerStep', [1, 1]), (e) => e instanceof TypeError);
  await assert.rejects(engine.lane().request('trainerCreate', [CONFIG]), (e) => e instanceof TypeError);
});

test("a trainer through the client: the wasm API's numbers bit for bit, typed arrays handed over", async () => {
  const engine = createEngineClient({ startWorker: fakeWorkers().start });
  const tr = await engine.trainer(CONFIG);
  const want = direct(CONFIG, [5, 7]);
  assert.equal(tr.config.arch, 'pre_ln');
  assert.equal(tr.config.steps, 12);
  assert.deepEqual(tr.task, { chance: Math.log(6), optimal: 0 });
  assert.equal(tr.stepsDone, 0);
  assert.equal(tr.stopped, false);
  const first = await tr.step(5);
  assert.equal(tr.stepsDone, 5);
  const second = await tr.step(7);
  assert.equal(tr.stepsDone, 12);
  assert.deepEqual(
    [...first, ...second].map((g) => g.step),
    [2, 4, 6, 8, 10, 12],
  );
  assert.equal(bits([first, second]), bits(want.logs));
  assert.ok(first[0].grad_norm instanceof Float64Array && first[0].grad_norm.length === 3);
  assert.ok(first[0].contribution instanceof Float64Array && first[0].contribution.length === 2);
  assert.deepEqual(await tr.step(3), [], 'not past config.steps');
  assert.equal(bits(await tr.lesion()), bits(want.lesion));
  assert.equal(await tr.dwaWeights(), null, 'pre_ln has no averaging weights');
  assert.equal(await tr.gates(), null, 'nor gates');
  assert.equal(await tr.outcome(), want.outcome);
  const state = await tr.state();
  assert.ok(state instanceof Uint8Array);
  assert.equal(bits(state), bits(want.state));
  await tr.delete();
  await assert.rejects(tr.step(1), (e) => e.field === 'trainer' && /deleted/.test(e.message));
  await tr.delete(); // twice: nothing more to free
});

test('the averaging weights, gates and norm samples through the client: the wasm API\u2019s, bit for bit', async () => {
  const engine = createEngineClient({ startWorker: fakeWorkers().start });
  for (const arch of ['dwa', 'layerscale']) {
    const config = { ...CONFIG, arch };
    const tr = await engine.trainer(config);
    await tr.step(6);
    const ref = rn.trainer(config);
    ref.step(6);
    assert.equal(bits(await tr.dwaWeights()), bits(ref.dwaWeights()), arch);
    assert.equal(bits(await tr.gates()), bits(ref.gates()), arch);
    assert.equal(bits(await tr.normSamples()), bits(ref.normSamples()), `${arch}: the norms' inputs and outputs`);
    ref.delete();
    await tr.delete();
  }
});

test('a bad config rejects with its field; a worker refuses an unknown trainer id by name', async () => {
  const engine = createEngineClient({ startWorker: fakeWorkers().start });
  await assert.rejects(engine.trainer({ ...CONFIG, depth: 0 }), (e) => e instanceof RangeError && e.field === 'depth');
  await assert.rejects(engine.trainer({ ...CONFIG, arch: ['pre_ln', 'post_ln'] }), (e) => e.field === 'arch');
  await assert.rejects(
    engine.trainer({ ...CONFIG, lr: NaN }),
    (e) => e.field === 'lr' && /not a finite/.test(e.message),
  );
  const tr = await engine.trainer(CONFIG);
  await assert.rejects(tr.step(-1), (e) => e.field === 'n');
  await assert.rejects(tr.load(new Uint8Array(10)), (e) => e.field === 'state');
  assert.equal((await tr.step(2)).length, 1, 'the trainer works after its refusals');
  const session = createSession();
  const { id } = RUN.trainerCreate(rn, [CONFIG], session);
  const out = RUN.trainerStep(rn, [id, 4], session);
  // grad_norm, stream_rms, w_grad_norm, update_ratio, contribution, bn_mean_distance, bn_var_distance
  assert.equal(transferables(out).length, out.logs.length * 7, "every log array's buffer is handed over");
  assert.equal(transferables(RUN.trainerState(rn, [id], session)).length, 1);
  RUN.trainerDelete(rn, [id], session);
  assert.throws(
    () => RUN.trainerLesion(rn, [id], session),
    (e) => e.field === 'trainer',
  );
  assert.throws(
    () => RUN.trainerStep(rn, [99, 1], createSession()),
    (e) => e instanceof RangeError && e.field === 'trainer' && /no trainer "99"/.test(e.message),
  );
});

test('save and restore through the client: a new trainer loads a state and continues bit for bit', async () => {
  const engine = createEngineClient({ workers: 2, startWorker: fakeWorkers().start });
  const whole = direct(CONFIG, [12]).logs[0];
  const a = await engine.trainer(CONFIG);
  await a.step(6);
  const saved = await a.state();
  const b = await engine.trainer({ ...CONFIG, arch: 'post_ln', steps: 3 });
  const keep = saved.slice();
  await b.load(saved);
  assert.equal(bits(saved), bits(keep), "the caller's bytes are copied, not taken");
  assert.equal(b.config.arch, 'pre_ln', 'the loaded config replaces the one it was made with');
  assert.equal(b.config.steps, 12);
  assert.equal(b.stepsDone, 6);
  assert.equal(bits(await b.step(6)), bits(whole.slice(3)));
});

test('several trainers spread over the pool, each pinned to its worker, computing at once', async () => {
  const pool = fakeWorkers();
  const engine = createEngineClient({ workers: 3, startWorker: pool.start });
  const archs = ['plain', 'residual', 'post_ln', 'pre_ln', 'gpt2', 'admin'];
  const trainers = await Promise.all(archs.map((arch) => engine.trainer({ ...CONFIG, arch })));
  assert.equal(pool.started.length, 3, 'the pool grew to its size');
  const logs = await Promise.all(trainers.map((t) => t.step(12)));
  for (const [i, arch] of archs.entries())
    assert.equal(bits(logs[i]), bits(direct({ ...CONFIG, arch }, [12]).logs[0]), arch);
  assert.ok(pool.maxActive >= 2, 'trainers of different workers stepped at the same time');
  // Every trainer's calls went to the worker that made it; each worker holds two.
  const home = new Map();
  for (const [worker, op, id] of trainerCalls(pool)) {
    if (op === 'trainerCreate') continue;
    const key = `${worker}:${id}`;
    home.set(key, (home.get(key) ?? 0) + 1);
  }
  assert.equal(home.size, 6, 'six trainers, each stepped in one worker');
  const perWorker = [0, 1, 2].map((w) => trainerCalls(pool).filter((c) => c[0] === w && c[1] === 'trainerCreate'));
  assert.deepEqual(
    perWorker.map((c) => c.length),
    [2, 2, 2],
  );
  await Promise.all(trainers.map((t) => t.delete()));
});

test("a worker's trainers' jobs are sent behind the one it computes: run in the order asked, the numbers bit for bit", async () => {
  // The worker holds its first step: every job asked meanwhile of its trainers is already posted to it.
  let first = true;
  const pool = fakeWorkers({ hold: (op) => op === 'trainerStep' && first && !(first = false) });
  const engine = createEngineClient({ workers: 1, startWorker: pool.start });
  const archs = ['pre_ln', 'post_ln', 'plain'];
  const trainers = await Promise.all(archs.map((arch) => engine.trainer({ ...CONFIG, arch })));
  const answered = [];
  const steps = trainers.map((t, i) => t.step(6).then((logs) => (answered.push(i), logs)));
  await until(() => pool.held.length === 1, 'the first step at the worker');
  const sent = () => pool.started[0].sent.filter((m) => m.op === 'trainerStep').map((m) => m.args[0]);
  assert.deepEqual(
    sent(),
    trainers.map((_, i) => i + 1),
    'all three steps at the worker while the first computes',
  );
  assert.deepEqual(answered, []);
  pool.release();
  const logs = await Promise.all(steps);
  assert.deepEqual(answered, [0, 1, 2], 'answered in the order asked');
  // the order the worker ran them: the order asked
  assert.deepEqual(
    trainerCalls(pool)
      .filter((c) => c[1] === 'trainerStep')
      .map((c) => c[2]),
    [1, 2, 3],
  );
  for (const [i, arch] of archs.entries())
    assert.equal(bits(logs[i]), bits(direct({ ...CONFIG, arch }, [6]).logs[0]), arch);
  await Promise.all(trainers.map((t) => t.delete()));
});

test('an answer the page holds for a test holds the answers of the jobs sent behind it, in order', async () => {
  const pool = fakeWorkers();
  const engine = createEngineClient({ workers: 1, startWorker: pool.start });
  const a = await engine.trainer(CONFIG);
  const b = await engine.trainer({ ...CONFIG, arch: 'post_ln' });
  const held = [];
  globalThis.__resnormTestHold = (op, deliver) => {
    if (op !== 'trainerStep' || held.length) return false;
    held.push(deliver);
    return true;
  };
  try {
    const answered = [];
    const sa = a.step(4).then(() => answered.push('a'));
    const sb = b.step(4).then(() => answered.push('b'));
    // both computed by the worker; a's answer held, so b's waits behind it
    await until(() => pool.log.filter((e) => e[1] === 'end' && e[2] === 'trainerStep').length === 2, 'both steps');
    await until(() => held.length === 1, "a's answer held");
    await nextTurn(); // what the answers settle has settled
    assert.deepEqual(answered, []);
    held[0]();
    await Promise.all([sa, sb]);
    assert.deepEqual(answered, ['a', 'b']);
    assert.equal(bits(await b.step(8)), bits(direct({ ...CONFIG, arch: 'post_ln' }, [4, 8]).logs[1]));
  } finally {
    delete globalThis.__resnormTestHold;
  }
  await Promise.all([a.delete(), b.delete()]);
});

test('trainers and the rest of the pool share the workers: calls, lanes and an exclusive call go on', async () => {
  const pool = fakeWorkers();
  const engine = createEngineClient({ workers: 2, startWorker: pool.start });
  const tr = await engine.trainer(CONFIG);
  const lane = engine.lane();
  const steps = [tr.step(4), tr.step(4)];
  const sim = lane.request('simulate', [{ arch: ['plain', 'pre_ln'], depth: 5 }]);
  const timing = engine.call('simulate', [{ arch: ['plain'], depth: 3 }], { exclusive: true });
  const after = tr.step(4);
  const [s1, s2, r, t, s3] = await Promise.all([...steps, sim, timing, after]);
  assert.deepEqual(
    [...s1, ...s2, ...s3].map((g) => g.step),
    [2, 4, 6, 8, 10, 12],
  );
  assert.deepEqual(Object.keys(r.out.results), ['plain', 'pre_ln']);
  assert.equal(t.config.depth, 3);
  // The exclusive call ran alone: nothing started between its start and its end.
  const i = pool.log.findIndex((e) => e[1] === 'start' && e[2] === 'simulate' && e[3][0].depth === 3);
  assert.equal(pool.log[i + 1][1], 'end');
  // The trainer's step asked after the exclusive call ran after it.
  const lastStep = pool.log.findLastIndex((e) => e[1] === 'start' && e[2] === 'trainerStep');
  assert.ok(lastStep > i);
});

test("a worker that stops takes its trainers: their calls reject by name, the others' go on, a saved state restarts one", async () => {
  const pool = fakeWorkers();
  const engine = createEngineClient({ workers: 2, startWorker: pool.start });
  const heard = [];
  engine.onWorkerLost((e, left) => heard.push(left));
  const a = await engine.trainer(CONFIG);
  const b = await engine.trainer({ ...CONFIG, arch: 'post_ln' });
  await a.step(6);
  const saved = await a.state();
  assert.deepEqual(
    trainerCalls(pool)
      .filter((c) => c[1] === 'trainerCreate')
      .map((c) => c[0]),
    [0, 1],
    'a in worker 0, b in worker 1',
  );
  const running = a.step(2);
  const waiting = a.step(2);
  pool.started[0].onerror({ message: 'out of memory', preventDefault() {} });
  const lost = (e) =>
    e.field === 'trainer' && /its engine worker stopped \(engine worker failed: out of memory\)/.test(e.message);
  await assert.rejects(running, lost);
  await assert.rejects(waiting, lost);
  await assert.rejects(a.lesion(), lost);
  assert.ok(lost(a.lost));
  await a.delete(); // nothing left to free
  assert.deepEqual(heard, [1]);
  assert.equal((await b.step(4)).length, 2, 'the trainer of the other worker goes on');
  const restarted = await engine.trainer(CONFIG);
  await restarted.load(saved);
  assert.equal(bits(await restarted.step(6)), bits(direct(CONFIG, [6, 6]).logs[1]));
  assert.equal((await engine.call('simulate', [{ arch: ['plain'], depth: 3 }])).config.depth, 3);
});

test("a lane's cancel() leaves a worker holding trainers running; terminate() rejects the trainers' calls", async () => {
  // The lane's simulate is held at the worker: it is still being computed when the lane cancels.
  const pool = fakeWorkers({ hold: (op) => op === 'simulate' });
  const engine = createEngineClient({ startWorker: pool.start });
  const tr = await engine.trainer(CONFIG);
  const lane = engine.lane();
  const request = lane.request('simulate', [{ arch: ['plain'], depth: 4 }]);
  const queued = tr.step(2);
  await until(() => pool.held.length === 1, 'the simulate at the worker');
  assert.equal(pool.held[0].op, 'simulate');
  assert.equal(lane.cancel(), true);
  assert.equal(await request, null);
  assert.equal(pool.started[0].terminated, false, 'the worker holds a trainer: not terminated');
  assert.deepEqual(
    pool.started[0].sent.map((m) => m.op),
    ['trainerCreate', 'simulate'],
    "the trainer's step waits while the worker computes the cancelled request",
  );
  pool.release();
  assert.equal((await queued).length, 1, "the trainer's step ran after the cancelled request");
  const simulateEnd = pool.log.findIndex((e) => e[1] === 'end' && e[2] === 'simulate');
  const stepStart = pool.log.findIndex((e) => e[1] === 'start' && e[2] === 'trainerStep');
  assert.ok(simulateEnd >= 0 && stepStart > simulateEnd, 'the step started once the worker had answered');
  engine.terminate();
  await assert.rejects(tr.step(2), /shut down/);
  await assert.rejects(engine.trainer(CONFIG), /shut down/);
});
