// Questions generated from the simulation: answers agree with the engine, grading accepts the
// true answer and rejects wrong ones, and a seed fixes the question.
// Run: node --test tests/node/quiz/quiz-generated.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { loadWasm } from '../helpers.js';
import {
  whichIsWhich,
  predictNumber,
  drawWhichConfig,
  distinguishable,
  separation,
  parseGuess,
  gradeGuess,
  PREDICT_KINDS,
  PREDICT_KIND_IDS,
  WHICH_POOL,
  MIN_SEPARATION,
  MAX_DRAWS,
  FALLBACK,
  LABELS,
} from '../../../web/src/quiz/generated.js';
import { mulberry32 } from '../../../web/src/quiz/random.js';
import { significant } from '../../../web/src/shared/format.js';

const rn = await loadWasm();
const simulate = (c) => rn.simulate(c);
const asyncSimulate = async (c) => ({ out: rn.simulate(c), ms: 0 }); // the worker client's shape
const SEEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 'lesson-3', 123456789];
const arr = (a) => Array.from(a);

test('drawWhichConfig stays in range and never pairs pre_ln with pre_rms', () => {
  const rand = mulberry32(99);
  const seen = new Set();
  for (let i = 0; i < 2000; i++) {
    const c = drawWhichConfig(rand);
    assert.ok(Number.isInteger(c.depth) && c.depth >= 16 && c.depth <= 96, `depth ${c.depth}`);
    assert.ok(c.gain >= 0.8 && c.gain <= 1.2, `gain ${c.gain}`);
    assert.ok(c.arch.length >= 2 && c.arch.length <= 4);
    assert.equal(new Set(c.arch).size, c.arch.length);
    assert.ok(c.arch.every((a) => WHICH_POOL.includes(a)));
    assert.ok(!(c.arch.includes('pre_ln') && c.arch.includes('pre_rms')));
    assert.ok(Number.isInteger(c.seed) && c.seed >= 0 && c.seed <= 9999);
    c.arch.forEach((a) => seen.add(a));
  }
  assert.deepEqual([...seen].sort(), [...WHICH_POOL].sort());
});

test("which is which: curves are the engine's, labels hide a shuffled order, grading works", async () => {
  for (const seed of SEEDS) {
    const q = await whichIsWhich(simulate, { seed });
    const truth = q.reveal();
    assert.deepEqual(q.labels, LABELS.slice(0, q.config.arch.length).split(''));
    assert.deepEqual(Object.values(truth).sort(), [...q.config.arch].sort());
    assert.deepEqual(q.choices, [...q.config.arch].sort());
    const direct = rn.simulate(q.config);
    for (const c of q.curves) {
      assert.deepEqual(arr(c.grad_norm), arr(direct.results[truth[c.label]].grad_norm), `seed ${seed} ${c.label}`);
      assert.deepEqual(arr(c.stream_rms), arr(direct.results[truth[c.label]].stream_rms));
    }
    // distinguishable, by the engine's own numbers
    const d = distinguishable(direct, q.config.arch);
    assert.ok(d.ok && d.worst.separation >= MIN_SEPARATION, `seed ${seed}: ${JSON.stringify(d.worst)}`);
    // grading
    const right = q.check(truth);
    assert.equal(right.allCorrect, true);
    assert.equal(right.correct, q.labels.length);
    assert.equal(right.message, `All ${q.labels.length} right.`);
    const swapped = { ...truth, A: truth.B, B: truth.A };
    const wrong = q.check(swapped);
    assert.equal(wrong.allCorrect, false);
    assert.equal(wrong.correct, q.labels.length - 2);
    assert.match(wrong.message, new RegExp(`A is ${truth.A}, not ${truth.B}`));
    assert.equal(q.check(new Map(Object.entries(truth))).allCorrect, true);
    assert.equal(q.check({}).correct, 0);
    assert.equal(q.check(null).correct, 0);
    assert.ok(!q.prompt.includes(truth.A) || q.choices.includes(truth.A));
  }
});

test('which is which: the same seed gives the same question, also through an async engine', async () => {
  const strip = (q) => ({
    config: q.config,
    labels: q.labels,
    truth: q.reveal(),
    curves: q.curves.map((c) => [c.label, arr(c.grad_norm)]),
  });
  for (const seed of [3, 'x']) {
    const a = await whichIsWhich(simulate, { seed });
    const b = await whichIsWhich(asyncSimulate, { seed });
    assert.deepEqual(strip(a), strip(b));
  }
  const configs = new Set();
  for (const seed of SEEDS) configs.add(JSON.stringify((await whichIsWhich(simulate, { seed })).config));
  assert.ok(configs.size >= SEEDS.length - 1, 'different seeds, different questions');
  // the hidden order really is shuffled across seeds
  const firstLabels = new Set();
  for (const seed of SEEDS) firstLabels.add((await whichIsWhich(simulate, { seed })).reveal().A);
  assert.ok(firstLabels.size >= 3);
});

test('which is which: indistinguishable draws are rejected and re-drawn', async () => {
  // The first 3 simulations come back with every arch given the same curves.
  let calls = 0;
  const flatFirst = (c) => {
    calls += 1;
    const out = rn.simulate(c);
    if (calls <= 3) {
      const first = out.results[c.arch[0]];
      for (const a of c.arch) out.results[a] = first;
    }
    return out;
  };
  const q = await whichIsWhich(flatFirst, { seed: 5 });
  assert.equal(q.draws, 4);
  const rand = mulberry32(5);
  for (let i = 0; i < 3; i++) drawWhichConfig(rand);
  assert.deepEqual(q.config, drawWhichConfig(rand), 'the 4th draw of the seed');

  // Non-finite curves are rejected too (seed 2's first draw is accepted when left alone).
  assert.equal((await whichIsWhich(simulate, { seed: 2 })).draws, 1);
  calls = 0;
  const nanFirst = (c) => {
    calls += 1;
    const out = rn.simulate(c);
    if (calls === 1) out.results[c.arch[1]].grad_norm[3] = NaN;
    return out;
  };
  const n = await whichIsWhich(nanFirst, { seed: 2 });
  assert.ok(n.draws >= 2);
  assert.notDeepEqual(n.config, drawWhichConfig(mulberry32(2)));

  // Never distinguishable: MAX_DRAWS draws, then the fallback config.
  const seenConfigs = [];
  const flatUnlessFallback = (c) => {
    seenConfigs.push(c);
    const out = rn.simulate(c);
    if (JSON.stringify(c) !== JSON.stringify(FALLBACK)) for (const a of c.arch) out.results[a] = out.results[c.arch[0]];
    return out;
  };
  const fb = await whichIsWhich(flatUnlessFallback, { seed: 1 });
  assert.equal(seenConfigs.length, MAX_DRAWS + 1);
  assert.deepEqual(fb.config, { ...FALLBACK, arch: [...FALLBACK.arch] });
  await assert.rejects(
    whichIsWhich(
      (c) => {
        const out = rn.simulate(c);
        for (const a of c.arch) out.results[a] = out.results[c.arch[0]];
        return out;
      },
      { seed: 1 },
    ),
    /indistinguishable/,
  );
  await assert.rejects(
    whichIsWhich(async () => null, { seed: 1 }),
    /no results/,
  );
});

test('separation: the pairs the rule is meant to reject', () => {
  const out = rn.simulate({ arch: ['pre_ln', 'pre_rms', 'post_ln', 'deepnorm', 'plain'], depth: 16, gain: 1 });
  const s = (a, b) => separation(out.results[a], out.results[b]);
  assert.ok(s('pre_ln', 'pre_rms') < MIN_SEPARATION, `pre_ln/pre_rms ${s('pre_ln', 'pre_rms')}`);
  assert.ok(s('post_ln', 'deepnorm') < MIN_SEPARATION, `post_ln/deepnorm ${s('post_ln', 'deepnorm')}`);
  assert.ok(s('plain', 'pre_ln') > MIN_SEPARATION);
  assert.ok(distinguishable(rn.simulate(FALLBACK), FALLBACK.arch).ok);
});

// The engine's number for a predict-the-number question, computed here from scratch.
function directAnswer(kind, config) {
  const out = rn.simulate(config);
  if (kind === 'plain-gradient') {
    const g = out.results.plain.grad_norm;
    return g[0] / g[config.depth];
  }
  if (kind === 'preln-stream') return out.results.pre_ln.stream_rms[config.depth];
  const s = out.results.residual.stream_rms;
  return s[config.depth] / s[0];
}

test('predict the number: answers agree with the engine, grading on a log scale', async () => {
  for (const kind of PREDICT_KIND_IDS) {
    const tol = PREDICT_KINDS[kind].toleranceDex;
    for (const seed of SEEDS) {
      const q = await predictNumber(simulate, { seed, kind });
      assert.equal(q.kind, kind);
      assert.equal(q.answer, directAnswer(kind, q.config), `${kind} seed ${seed}`);
      assert.equal(q.toleranceDex, tol);
      assert.ok(q.config.depth >= 16 && q.config.depth <= 96);
      assert.ok(q.config.gain >= 0.8 && q.config.gain <= 1.2);
      // the true answer is accepted, also as text
      assert.equal(q.grade(q.answer).correct, true);
      assert.equal(q.grade(String(q.answer)).correct, true);
      // just inside and just outside the tolerance, on both sides
      assert.equal(q.grade(q.answer * 10 ** (0.95 * tol)).correct, true);
      assert.equal(q.grade(q.answer / 10 ** (0.95 * tol)).correct, true);
      assert.equal(q.grade(q.answer * 10 ** (1.05 * tol)).correct, false);
      assert.equal(q.grade(q.answer / 10 ** (1.05 * tol)).correct, false);
      // wrong answers are rejected
      for (const wrong of [q.answer * 10, q.answer / 10, 0, -q.answer, NaN, 'lots', '']) {
        assert.equal(q.grade(wrong).correct, false, `${kind} seed ${seed}: ${wrong}`);
      }
      // the explanation gives the engine's number and the rule of thumb
      assert.ok(q.explanation.includes(significant(q.answer, 4)), q.explanation);
      assert.ok(q.explanation.includes(q.rule.text));
      assert.ok(q.prompt.includes(String(q.config.depth)) && q.prompt.includes(String(q.config.gain)));
    }
  }
});

test('predict the number: g^L is exact for the plain linear orthogonal stack', async () => {
  for (const seed of SEEDS) {
    const q = await predictNumber(simulate, { seed, kind: 'plain-gradient' });
    assert.ok(Math.abs(q.rule.value / q.answer - 1) < 1e-4, `${q.rule.text} vs ${q.answer}`);
    assert.match(q.rule.text, /^g\^L = /);
    assert.notEqual(q.config.gain, 1, 'gain 1 would make the answer trivially 1');
    assert.equal(q.grade(q.rule.value).correct, true);
  }
  for (const seed of SEEDS) {
    const q = await predictNumber(simulate, { seed, kind: 'preln-stream' });
    assert.equal(q.grade(q.rule.value).correct, true, `${q.rule.text} vs ${q.answer}`);
  }
});

test('predict the number: deterministic per seed, async engine, kind drawn from the seed', async () => {
  const strip = (q) => ({
    kind: q.kind,
    config: q.config,
    answer: q.answer,
    prompt: q.prompt,
    explanation: q.explanation,
  });
  for (const seed of [0, 17, 'abc']) {
    assert.deepEqual(
      strip(await predictNumber(simulate, { seed })),
      strip(await predictNumber(asyncSimulate, { seed })),
    );
  }
  const kinds = new Set();
  for (let seed = 0; seed < 30; seed++) kinds.add((await predictNumber(simulate, { seed })).kind);
  assert.deepEqual([...kinds].sort(), [...PREDICT_KIND_IDS].sort());
  await assert.rejects(predictNumber(simulate, { kind: 'nope' }), RangeError);
  await assert.rejects(
    predictNumber(async () => null, { seed: 1 }),
    /no results/,
  );
});

test('parseGuess and gradeGuess', () => {
  assert.equal(parseGuess('117'), 117);
  assert.equal(parseGuess(' 1.5e-3 '), 1.5e-3);
  assert.equal(parseGuess('1.1^50'), 1.1 ** 50);
  assert.equal(parseGuess('2*10^-4'), 2e-4);
  assert.equal(parseGuess('3 × 10^5'), 3e5);
  assert.equal(parseGuess('10^−3'), 1e-3);
  assert.equal(parseGuess('2^10'), 1024);
  assert.equal(parseGuess(0.5), 0.5);
  for (const bad of ['', 'abc', '1,000', '1e', '--1', null, undefined, {}])
    assert.ok(Number.isNaN(parseGuess(bad)), String(bad));
  const r = gradeGuess('200', 117, 0.3);
  assert.equal(r.correct, true);
  assert.match(
    r.message,
    /^Right \(within a factor of 2\): the engine says 117, you said 200, high by a factor of 1\.71\.$/,
  );
  const w = gradeGuess(1000, 117, 0.3);
  assert.equal(w.correct, false);
  assert.match(w.message, /high by a factor of 8\.55/);
  assert.match(gradeGuess('x', 117, 0.3).message, /positive number/);
});
