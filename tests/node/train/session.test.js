// The training lab's session (web/src/train/session.js) against a stand-in
// engine: each request asks for the updates up to the next logged step; a
// paused and continued run logs what an uninterrupted one does; Step trains
// one logged step per architecture; a run stops at its first non-finite step;
// Reset drops answers still on their way; a refused config names its field;
// the progress counts steps, tokens a second and the time left.
// Run: node --test tests/node/train/session.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { chunkSize, createSession, tokensPerStep } from '../../../web/src/train/session.js';

/**
 * A stand-in for the engine client's trainers: deterministic logs from (arch,
 * step), answered after `delayMs`; `diverge` {arch: step} stops that arch
 * there. `requests` records [arch, n] in the order they were asked.
 */
function standIn({ delayMs = 1, diverge = {}, refuse = null } = {}) {
  const engine = { requests: [], deleted: 0, made: 0 };
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
        await new Promise((r) => setTimeout(r, delayMs));
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

  const s = createSession({ engine: standIn({ delayMs: 3 }) });
  const started = s.start(CONFIG);
  await new Promise((r) => setTimeout(r, 4));
  s.pause();
  await started;
  const paused = s.snapshot();
  assert.equal(paused.state, 'paused');
  assert.ok(paused.progress.done < 50, `paused after ${paused.progress.done} steps`);
  // nothing more is asked while paused
  const done = paused.progress.done;
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(s.snapshot().progress.done, done);
  await s.start(CONFIG);
  assert.equal(s.state, 'done');
  assert.deepEqual(heldout(s.snapshot()), expected);
});

test('Start during a pause waits for the requests under way, then goes on', async () => {
  const s = createSession({ engine: standIn({ delayMs: 5 }) });
  const first = s.start(CONFIG);
  await new Promise((r) => setTimeout(r, 1));
  s.pause();
  assert.equal(s.state, 'pausing');
  await s.start(CONFIG);
  await first;
  assert.equal(s.state, 'done');
  assert.equal(s.snapshot().progress.done, 50);
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
  const engine = standIn({ delayMs: 5 });
  const s = createSession({ engine });
  const started = s.start(CONFIG);
  await new Promise((r) => setTimeout(r, 2));
  await s.reset();
  await started;
  await new Promise((r) => setTimeout(r, 20));
  const snap = s.snapshot();
  assert.equal(snap.state, 'idle');
  assert.deepEqual(snap.runs, []);
  assert.equal(engine.deleted, 2);
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
  await s.step(CONFIG); // stepping is not timed
  assert.equal(s.snapshot().progress.stepsPerSecond, 0);
  const started = s.start({ ...CONFIG, steps: 1000 });
  t = 1000; // one second of running
  await new Promise((r) => setTimeout(r, 5));
  s.pause();
  await started;
  const p = s.snapshot().progress;
  const done = s.snapshot().runs.map((r) => r.stepsDone - 10);
  assert.equal(p.stepsPerSecond, done[0] + done[1]);
  assert.equal(p.tokensPerSecond, p.stepsPerSecond * tokensPerStep(CONFIG));
  t = 60000; // a minute paused changes nothing
  assert.equal(s.snapshot().progress.stepsPerSecond, p.stepsPerSecond);
});
