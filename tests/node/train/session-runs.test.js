// The session's own runs (web/src/train/session.js): a list of run specs, each
// an architecture with overrides of the shared config and a label, trains one
// trainer per spec with its own config; a run marked stopWhenTrained ends at
// its first logged step below halfway from chance to the optimum; each
// trainer's lesion() is asked once its run has finished (while the others
// train) and kept on its run before the session says done, and a lesion that
// fails is kept as lesionError.
// Run: node --test tests/node/train/session-runs.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { createSession } from '../../../web/src/train/session.js';
import { nextTurn } from '../wait.js';

/**
 * Trainers whose held-out loss is chance / (1 + step / depth), each step()
 * answered on a later event-loop turn (as a worker's answer comes); lesion()
 * answers from the config (or throws).
 */
function standIn({ lesionFails = [] } = {}) {
  const engine = { made: [], lesions: 0 };
  engine.trainer = async (config) => {
    engine.made.push(config);
    let done = 0;
    const chance = Math.log(config.vocab);
    return {
      config,
      task: { chance, optimal: 0 },
      async step(n) {
        await nextTurn();
        const logs = [];
        for (let k = 0; k < n && done < config.steps; k++) {
          done++;
          if (done % config.log_every && done !== config.steps) continue;
          logs.push({
            step: done,
            lr: config.lr,
            heldout_loss: chance / (1 + done / config.depth),
            first_nonfinite: null,
          });
        }
        return logs;
      },
      async lesion() {
        engine.lesions++;
        if (lesionFails.includes(config.depth)) throw new Error('lesion refused');
        return { base: 1, loss: Float64Array.from({ length: config.depth }, (_, i) => 1 + i) };
      },
      async delete() {},
    };
  };
  return engine;
}

const CONFIG = {
  task: 'copy',
  arch: ['post_ln'],
  seq: 4,
  vocab: 8,
  depth: 2,
  steps: 40,
  log_every: 10,
  lr: 1e-3,
  warmup: 0,
};

test('runs with their own overrides and labels, each to its own config, and a lesion on each when all are done', async () => {
  const engine = standIn();
  const states = [];
  const s = createSession({ engine, onChange: (snap) => states.push([snap.state, snap.runs.every((r) => r.lesion)]) });
  const specs = [
    { key: 'post_ln', arch: 'post_ln', label: 'Post-LN, no warmup' },
    { key: 'post_ln_warm', arch: 'post_ln', label: 'Post-LN, warmup 20', overrides: { warmup: 20 } },
    { key: 'pre_ln_8', arch: 'pre_ln', overrides: { depth: 8 } },
  ];
  await s.start(CONFIG, specs);
  const snap = s.snapshot();
  assert.equal(snap.state, 'done');
  assert.deepEqual(
    engine.made.map((c) => [c.arch, c.warmup, c.depth]),
    [
      ['post_ln', 0, 2],
      ['post_ln', 20, 2],
      ['pre_ln', 0, 8],
    ],
  );
  assert.deepEqual(
    snap.runs.map((r) => [r.key, r.label, r.stepsDone, r.lesion.loss.length]),
    [
      ['post_ln', 'Post-LN, no warmup', 40, 2],
      ['post_ln_warm', 'Post-LN, warmup 20', 40, 2],
      ['pre_ln_8', null, 40, 8],
    ],
  );
  assert.deepEqual(snap.config.arch, ['post_ln', 'post_ln', 'pre_ln']);
  assert.equal(engine.lesions, 3);
  // "done" is said only once every lesion is in
  assert.ok(
    states.some(([state]) => state === 'done'),
    'done was said',
  );
  for (const [state, lesioned] of states) if (state === 'done') assert.equal(lesioned, true);
  assert.equal(snap.progress.done, 120);
  await s.reset();
});

test('the ordinary lab: one run per arch, keyed by the arch, lesions after done', async () => {
  const engine = standIn();
  const s = createSession({ engine });
  await s.start({ ...CONFIG, arch: ['post_ln', 'pre_ln'] });
  const snap = s.snapshot();
  assert.deepEqual(
    snap.runs.map((r) => [r.key, r.arch, r.label, Boolean(r.lesion)]),
    [
      ['post_ln', 'post_ln', null, true],
      ['pre_ln', 'pre_ln', null, true],
    ],
  );
});

test('a run marked stopWhenTrained ends at its first logged step below halfway; a failed lesion is kept as an error', async () => {
  const engine = standIn({ lesionFails: [4] });
  const s = createSession({ engine });
  // chance / (1 + t / depth) < chance / 2 once t > depth: depth 15 crosses at the first log past 15, i.e. 20
  await s.start({ ...CONFIG, depth: 15 }, [
    { key: 'stops', arch: 'pre_ln', stopWhenTrained: true },
    { key: 'goes_on', arch: 'post_ln' },
    { key: 'no_lesion', arch: 'admin', overrides: { depth: 4 } },
  ]);
  const [stops, goesOn, noLesion] = s.snapshot().runs;
  assert.equal(stops.trainedAt, 20);
  assert.equal(stops.stepsDone, 20);
  assert.equal(goesOn.stepsDone, 40);
  assert.equal(s.snapshot().state, 'done');
  assert.equal(s.snapshot().progress.fraction, 1);
  assert.equal(noLesion.lesion, null);
  assert.match(noLesion.lesionError.message, /refused/);
});

test('a run that has finished is asked its lesion at once, while the others still train; each once', async () => {
  const engine = standIn();
  const events = [];
  const make = engine.trainer;
  engine.trainer = async (config) => {
    const t = await make(config);
    return {
      ...t,
      step: (n) => (events.push(['step', config.steps]), t.step(n)),
      lesion: () => (events.push(['lesion', config.steps]), t.lesion()),
    };
  };
  const s = createSession({ engine });
  await s.start(CONFIG, [
    { key: 'short', arch: 'pre_ln', overrides: { steps: 10 } },
    { key: 'long', arch: 'post_ln' },
  ]);
  assert.equal(s.snapshot().state, 'done');
  const lesionShort = events.findIndex((e) => e[0] === 'lesion' && e[1] === 10);
  const lastLongStep = events.findLastIndex((e) => e[0] === 'step' && e[1] === 40);
  assert.ok(
    lesionShort >= 0 && lesionShort < lastLongStep,
    'the short run\u2019s lesion before the long run\u2019s last step',
  );
  assert.equal(engine.lesions, 2, 'each run asked once');
  assert.ok(s.snapshot().runs.every((r) => r.lesion));
});

test('two runs with one key are refused as an error, with no trainer made', async () => {
  const engine = standIn();
  const s = createSession({ engine });
  await s.start(CONFIG, [{ arch: 'pre_ln' }, { arch: 'pre_ln' }]);
  assert.equal(s.snapshot().state, 'error');
  assert.match(s.snapshot().error.message, /same key/);
  assert.equal(engine.made.length, 0);
});
