// The training lab's session (web/src/train/session.js) against a stand-in
// engine: each request asks for the updates up to the next logged step; a
// paused and continued run logs what an uninterrupted one does; Step trains
// one logged step per architecture; a run stops at its first non-finite step;
// Reset drops answers still on their way; a refused config names its field;
// the progress counts steps, tokens a second and the time left; a run whose
// engine worker ended says what the reader can do (the real client, fake workers).
// Run: node --test tests/node/train/session.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { chunkSize, createSession, tokensPerStep } from '../../../web/src/train/session.js';
import { createEngineClient } from '../../../web/src/engine/client.js';
import { loadWasm } from '../helpers.js';
import { fakeLocks, fakeWorkerPool } from '../engine/fake-workers.js';
import { nextTurn, until } from '../wait.js';
import { timeLeftText } from '../../../web/src/train/progress.js';

/**
 * A stand-in for the engine client's trainers: deterministic logs from (arch,
 * step); `diverge` {arch: step} stops that arch there. A request answers on a
 * later event-loop turn, or, while `engine.holding` is true, waits in
 * `engine.held` ({arch, n} each) until the test calls engine.release(arch?)
 * (every arch, or that one's): a test makes a request be under way when it
 * acts, whatever the machine's speed. `requests` records [arch, n] in the
 * order they were asked; `out` counts the requests under way, `maxOut` the
 * most at once.
 */
function standIn({ diverge = {}, refuse = null } = {}) {
  const engine = { requests: [], deleted: 0, made: 0, holding: false, held: [], out: 0, maxOut: 0 };
  engine.release = (arch = null) => {
    const go = engine.held.filter((h) => arch === null || h.arch === arch);
    engine.held = engine.held.filter((h) => !go.includes(h));
    for (const h of go) h.go();
  };
  engine.trainer = async (config) => {
    if (refuse) throw Object.assign(new RangeError(`${refuse}: refused`), { field: refuse });
    engine.made++;
    let done = 0;
    let stopped = false;
    return {
      config,
      task: { chance: Math.log(config.vocab), optimal: 0 },
      async step(n) {
        engine.requests.push([config.arch, n]);
        engine.out++;
        engine.maxOut = Math.max(engine.maxOut, engine.out);
        if (engine.holding) await new Promise((go) => engine.held.push({ arch: config.arch, n, go }));
        else await nextTurn();
        engine.out--;
        const logs = [];
        for (let k = 0; k < n && !stopped && done < config.steps; k++) {
          done++;
          const bad = diverge[config.arch] === done;
          if (!bad && done % config.log_every && done !== config.steps) continue;
          const loss = bad ? NaN : 1 / (done + config.arch.length);
          logs.push({
            step: done,
            lr: config.lr,
            train_loss: loss,
            heldout_loss: loss / 2,
            grad_norm: Float64Array.from({ length: config.depth + 1 }, (_, l) => (bad ? NaN : loss * (l + 1))),
            first_nonfinite: bad ? done : null,
          });
          if (bad) stopped = true;
        }
        return logs;
      },
      async delete() {
        engine.deleted++;
      },
    };
  };
  return engine;
}

const CONFIG = {
  task: 'copy',
  arch: ['post_ln', 'pre_ln'],
  seq: 4,
  vocab: 8,
  batch: 2,
  depth: 2,
  steps: 25,
  log_every: 10,
  lr: 0.01,
};

/** The sizes of the requests of `arch`, in the order asked. */
const asked = (engine, arch) => engine.requests.filter(([a]) => a === arch).map(([, n]) => n);

const heldout = (snap) =>
  Object.fromEntries(snap.runs.map((r) => [r.arch, r.logs.map((l) => [l.step, l.heldout_loss])]));

test('chunks end at logged steps (and the last step); tokens per step follow the task', () => {
  assert.equal(chunkSize(0, 25, 10), 10);
  assert.equal(chunkSize(10, 25, 10), 10);
  assert.equal(chunkSize(20, 25, 10), 5);
  assert.equal(chunkSize(25, 25, 10), 0);
  assert.equal(chunkSize(3, 25, 10), 7);
  assert.equal(tokensPerStep({ task: 'copy', seq: 4, batch: 2 }), 16);
  assert.equal(tokensPerStep({ task: 'modadd', seq: 4, batch: 2 }), 4);
  assert.equal(tokensPerStep({ task: 'markov', seq: 4, batch: 2 }), 8);
  assert.equal(tokensPerStep({ task: 'teacher', seq: 4, batch: 2 }), 2);
});

test('a run asks for one logged step per request, every arch in parallel, and ends done', async () => {
  const engine = standIn();
  const s = createSession({ engine });
  await s.start(CONFIG);
  const snap = s.snapshot();
  assert.equal(snap.state, 'done');
  assert.deepEqual(
    engine.requests.filter(([a]) => a === 'pre_ln').map(([, n]) => n),
    [10, 10, 5],
  );
  assert.equal(engine.made, 2);
  assert.equal(engine.maxOut, 2, 'both archs had a request under way at once');
  for (const r of snap.runs) {
    assert.deepEqual(
      r.logs.map((l) => l.step),
      [10, 20, 25],
    );
    assert.equal(r.stepsDone, 25);
  }
  assert.equal(snap.progress.done, 50);
  assert.equal(snap.progress.total, 50);
  assert.equal(snap.progress.fraction, 1);
  assert.equal(snap.progress.secondsLeft, 0);
});

test('pause then start gives the logs of an uninterrupted run', async () => {
  const whole = createSession({ engine: standIn() });
  await whole.start(CONFIG);
  const expected = heldout(whole.snapshot());

  const engine = standIn();
  engine.holding = true;
  const s = createSession({ engine });
  const started = s.start(CONFIG);
  // each arch's first request answered; the pause comes while the second ones are under way
  await until(() => engine.held.length === 2, 'the first requests');
  engine.release();
  await until(() => engine.held.length === 2, 'the second requests');
  s.pause();
  assert.equal(s.state, 'pausing');
  engine.release();
  await started;
  const paused = s.snapshot();
  assert.equal(paused.state, 'paused');
  assert.ok(paused.progress.done < 50, `paused after ${paused.progress.done} steps`);
  assert.equal(paused.progress.done, 40, 'the requests under way at the pause are kept');
  // nothing more is asked while paused
  const done = paused.progress.done;
  const requests = engine.requests.length;
  await nextTurn();
  assert.equal(s.snapshot().progress.done, done);
  assert.equal(engine.requests.length, requests);
  engine.holding = false;
  await s.start(CONFIG);
  assert.equal(s.state, 'done');
  assert.deepEqual(heldout(s.snapshot()), expected);
  // it went on from step 20: no request repeated, none lost
  for (const arch of CONFIG.arch) assert.deepEqual(asked(engine, arch), [10, 10, 5], arch);
});

test('Start during a pause waits for the requests under way, then goes on', async () => {
  const engine = standIn();
  engine.holding = true;
  const s = createSession({ engine });
  const first = s.start(CONFIG);
  await until(() => engine.held.length === 2, 'the first requests');
  s.pause();
  assert.equal(s.state, 'pausing');
  let restarted = false;
  const again = s.start(CONFIG).then(() => (restarted = true));
  await nextTurn();
  assert.equal(restarted, false, 'Start waits while the requests are under way');
  assert.equal(s.state, 'pausing');
  assert.equal(engine.requests.length, 2, 'nothing more is asked meanwhile');
  engine.holding = false;
  engine.release();
  await again;
  await first;
  assert.equal(s.state, 'done');
  assert.equal(s.snapshot().progress.done, 50);
  for (const arch of CONFIG.arch) assert.deepEqual(asked(engine, arch), [10, 10, 5], arch);
});

test('Step trains one logged step per architecture, then pauses; Start goes on from there', async () => {
  const engine = standIn();
  const s = createSession({ engine });
  await s.step(CONFIG);
  let snap = s.snapshot();
  assert.equal(snap.state, 'paused');
  assert.deepEqual(
    snap.runs.map((r) => r.logs.map((l) => l.step)),
    [[10], [10]],
  );
  await s.step(CONFIG);
  snap = s.snapshot();
  assert.deepEqual(
    snap.runs.map((r) => r.stepsDone),
    [20, 20],
  );
  await s.start(CONFIG);
  const whole = createSession({ engine: standIn() });
  await whole.start(CONFIG);
  assert.deepEqual(heldout(s.snapshot()), heldout(whole.snapshot()));
});

test('a run stops at its first non-finite step; the others go on', async () => {
  const s = createSession({ engine: standIn({ diverge: { post_ln: 13 } }) });
  await s.start(CONFIG);
  const snap = s.snapshot();
  assert.equal(snap.state, 'done');
  const post = snap.runs.find((r) => r.arch === 'post_ln');
  const pre = snap.runs.find((r) => r.arch === 'pre_ln');
  assert.equal(post.stopped, true);
  assert.equal(post.firstNonfinite, 13);
  assert.equal(post.stepsDone, 13);
  assert.deepEqual(
    post.logs.map((l) => l.step),
    [10, 13],
  );
  assert.ok(Number.isNaN(post.logs[1].heldout_loss));
  assert.equal(pre.stepsDone, 25);
  // a stopped run counts as finished in the progress
  assert.equal(snap.progress.done, 50);
});

test('Reset deletes the trainers and drops answers still on their way', async () => {
  const engine = standIn();
  engine.holding = true;
  const changes = [];
  const s = createSession({ engine, onChange: (snap) => changes.push(snap.state) });
  const started = s.start(CONFIG);
  await until(() => engine.held.length === 2, 'the first requests');
  await s.reset();
  assert.equal(engine.deleted, 2);
  assert.equal(changes.at(-1), 'idle');
  const changed = changes.length;
  // the answers come after the reset
  engine.release();
  await started;
  await nextTurn();
  const snap = s.snapshot();
  assert.equal(snap.state, 'idle');
  assert.deepEqual(snap.runs, []);
  assert.equal(snap.progress.done, 0);
  assert.equal(engine.deleted, 2);
  assert.equal(changes.length, changed, 'the dropped answers changed nothing');
  assert.equal(engine.requests.length, 2, 'nothing more was asked');
});

test('a refused config is an error naming its field, with no trainer kept', async () => {
  const engine = standIn({ refuse: 'heads' });
  const s = createSession({ engine });
  await s.start(CONFIG);
  const snap = s.snapshot();
  assert.equal(snap.state, 'error');
  assert.equal(snap.error.field, 'heads');
  assert.deepEqual(snap.runs, []);
});

test('the rates leave paused time out; the time left follows the slowest run', async () => {
  let t = 0;
  const now = () => t;
  const engine = standIn();
  const s = createSession({ engine, now });
  const config = { ...CONFIG, steps: 1000 };
  await s.step(config); // stepping is not timed
  assert.equal(s.snapshot().progress.stepsPerSecond, 0);
  engine.holding = true;
  const started = s.start(config);
  t = 1000; // one second of running: post_ln answers two requests, pre_ln one
  await until(() => engine.held.length === 2, 'the first requests');
  engine.release('post_ln');
  await until(() => engine.held.length === 2, "post_ln's second request");
  s.pause(); // the requests under way finish in running time
  engine.release();
  await started;
  const p = s.snapshot().progress;
  assert.equal(s.state, 'paused');
  const done = s.snapshot().runs.map((r) => r.stepsDone - 10);
  assert.deepEqual(done, [20, 10]);
  assert.equal(p.activeMs, 1000);
  assert.equal(p.stepsPerSecond, done[0] + done[1]);
  assert.equal(p.tokensPerSecond, p.stepsPerSecond * tokensPerStep(CONFIG));
  // post_ln: 970 steps left at 20 a second, pre_ln: 980 at 10 a second; the slower one's is the time left
  assert.equal(p.secondsLeft, 98);
  t = 60000; // a minute paused changes nothing
  assert.equal(s.snapshot().progress.stepsPerSecond, p.stepsPerSecond);
  assert.equal(s.snapshot().progress.activeMs, 1000);
  // one more second of running: the rates are over the two seconds run, the minute between left out
  const resumed = s.start(config);
  t = 61000;
  await until(() => engine.held.length === 2, 'the requests after the pause');
  s.pause();
  engine.release();
  await resumed;
  const q = s.snapshot().progress;
  assert.equal(q.activeMs, 2000);
  assert.equal(q.stepsPerSecond, (30 + 20) / 2);
  assert.equal(q.secondsLeft, Math.max(960 / 15, 970 / 10));
});

test('while a run has not stepped yet its time left is not known: the progress line says it is being estimated', async () => {
  let t = 0;
  const engine = standIn();
  const s = createSession({ engine, now: () => t });
  const config = { ...CONFIG, steps: 1000 };
  engine.holding = true;
  const started = s.start(config);
  await until(() => engine.held.length === 2, 'the first requests');
  t = 1000; // a second of running
  engine.release('post_ln'); // post_ln trains; pre_ln's first request is still under way
  await until(() => engine.held.length === 2, "post_ln's second request");
  const p = s.snapshot().progress;
  assert.ok(p.tokensPerSecond > 0 && p.secondsLeft === Infinity, JSON.stringify(p));
  assert.equal(timeLeftText(p, 'running'), '\u00b7 estimating the time left');
  // once every run has a speed, the time left in words; none when not training
  engine.release('pre_ln');
  await until(() => engine.held.length === 2, "pre_ln's second request");
  const q = s.snapshot().progress;
  assert.ok(Number.isFinite(q.secondsLeft), JSON.stringify(q));
  assert.match(timeLeftText(q, 'running'), /^\u00b7 about (\d+ s|\d+ min \d\d s|under a second) left$/);
  for (const state of ['idle', 'paused', 'done', 'error']) assert.equal(timeLeftText(q, state), '');
  for (const state of ['running', 'pausing'])
    for (const secondsLeft of [Infinity, NaN, undefined])
      assert.doesNotMatch(timeLeftText({ ...q, secondsLeft }, state), /unknown|NaN|undefined/);
  s.reset();
  engine.release();
  await started;
});

test("a run whose engine worker ends mid-step says so in the reader's words; Reset then Start trains on a fresh one", async () => {
  const rn = await loadWasm();
  const locks = fakeLocks();
  let holding = true;
  const pool = fakeWorkerPool(rn)({ locks, hold: (op) => holding && op === 'trainerStep' });
  const engine = createEngineClient({ workers: 1, startWorker: pool.start, locks });
  const config = { ...CONFIG, arch: ['pre_ln'], depth: 2, width: 16, heads: 2, steps: 4, log_every: 2 };
  const s = createSession({ engine });
  const run = s.start(config);
  await until(() => pool.held.length === 1, 'the first step at the worker');
  holding = false;
  pool.started[0].die();
  await run;
  const snap = s.snapshot();
  assert.equal(snap.state, 'done');
  const { error } = snap.runs[0];
  assert.equal(error.field, 'trainer');
  assert.equal(
    error.message,
    'the engine worker training it ended (engine worker stopped without an error), so this run cannot go on. ' +
      'Press Reset, then Start to train it again, or Load\u2026 a model file you saved.',
  );
  assert.doesNotMatch(error.message, /make a new trainer|saved state/);
  await s.reset();
  await s.start(config);
  assert.equal(s.state, 'done');
  assert.deepEqual(
    s.snapshot().runs[0].logs.map((l) => l.step),
    [2, 4],
  );
  assert.equal(s.snapshot().runs[0].error, null);
  assert.equal(pool.started.length, 2, 'trained in a fresh worker');
});
