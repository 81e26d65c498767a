// Leitner scheduling and the session score. Run: node --test tests/node/quiz/quiz-schedule.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

import {
  DAY_MS,
  INTERVALS_DAYS,
  intervalMs,
  grade,
  due,
  dueAt,
  recordOf,
  matches,
  nextDueAt,
  boxCounts,
} from '../../../web/src/quiz/schedule.js';
import { emptyProgress } from '../../../web/src/quiz/store.js';
import { newSession, record, accuracy, summary, sanitizeSession } from '../../../web/src/quiz/score.js';
import { mulberry32, shuffled, seedToUint32 } from '../../../web/src/quiz/random.js';

const bank = JSON.parse(
  fs.readFileSync(fileURLToPath(new URL('../../../web/src/quiz/bank.json', import.meta.url)), 'utf8'),
);
const T0 = Date.UTC(2025, 2, 1, 9);
const ids = (list) => list.map((d) => d.id);
const sortedIds = (items) => items.map((it) => it.id).sort();

test('five boxes with intervals 0, 1, 3, 7, 21 days', () => {
  assert.deepEqual(INTERVALS_DAYS, [0, 1, 3, 7, 21]);
  assert.deepEqual(
    [1, 2, 3, 4, 5].map(intervalMs),
    [0, 1, 3, 7, 21].map((d) => d * DAY_MS),
  );
});

test('grade: correct moves up one box (5 stays 5), wrong goes back to box 1; input untouched', () => {
  let p = emptyProgress(T0);
  const before = structuredClone(p);
  const boxes = [];
  for (let i = 0; i < 6; i++) {
    p = grade(p, 'tf-01', true, T0 + i);
    boxes.push(p.items['tf-01'].box);
  }
  assert.deepEqual(boxes, [2, 3, 4, 5, 5, 5]);
  assert.deepEqual(p.items['tf-01'], { box: 5, lastSeen: T0 + 5, seen: 6, correct: 6 });
  const q = grade(p, 'tf-01', false, T0 + 10);
  assert.deepEqual(q.items['tf-01'], { box: 1, lastSeen: T0 + 10, seen: 7, correct: 6 });
  assert.equal(p.items['tf-01'].box, 5, 'grade does not mutate');
  assert.deepEqual(emptyProgress(T0), before);
  // only `true` counts as correct
  assert.equal(grade(emptyProgress(), 'tf-02', 'yes', T0).items['tf-02'].box, 1);
});

test('due: new items are due; an answered item comes back after its box interval, to the ms', () => {
  let p = emptyProgress(T0);
  assert.equal(due(bank, p, T0).length, bank.items.length);
  p = grade(p, 'why-01', true, T0); // box 2: one day
  assert.ok(!ids(due(bank, p, T0 + DAY_MS - 1)).includes('why-01'));
  assert.ok(ids(due(bank, p, T0 + DAY_MS)).includes('why-01'));
  p = grade(p, 'why-01', true, T0 + DAY_MS); // box 3: three days
  assert.equal(dueAt(recordOf(p, 'why-01')), T0 + 4 * DAY_MS);
  p = grade(p, 'why-01', false, T0 + 2 * DAY_MS); // box 1: due at once
  assert.ok(ids(due(bank, p, T0 + 2 * DAY_MS)).includes('why-01'));
});

test('order: by box, then by id; each entry carries its item and schedule', () => {
  let p = emptyProgress(T0);
  p = grade(p, 'tf-01', true, T0 - 30 * DAY_MS); // box 2, long due
  p = grade(p, 'err-01', true, T0 - 30 * DAY_MS);
  p = grade(p, 'err-01', true, T0 - 20 * DAY_MS); // box 3, due
  p = grade(p, 'edge-01', false, T0 - DAY_MS); // box 1
  const list = due(bank, p, T0);
  assert.equal(list.length, bank.items.length);
  const boxes = list.map((d) => d.box);
  assert.deepEqual(
    boxes,
    [...boxes].sort((a, b) => a - b),
  );
  const box1 = ids(list.filter((d) => d.box === 1));
  assert.deepEqual(box1, [...box1].sort());
  assert.deepEqual(ids(list.slice(-2)), ['tf-01', 'err-01']);
  const e = list.find((d) => d.id === 'edge-01');
  assert.equal(
    e.item,
    bank.items.find((it) => it.id === 'edge-01'),
  );
  assert.equal(e.lastSeen, T0 - DAY_MS);
  assert.equal(e.dueAt, T0 - DAY_MS);
});

test('a seed shuffles within boxes, deterministically', () => {
  let p = emptyProgress(T0);
  for (const id of ['tf-03', 'tf-04', 'why-02', 'rapid-05']) p = grade(p, id, true, T0 - 2 * DAY_MS);
  const a = due(bank, p, T0, { seed: 7 });
  const b = due(bank, p, T0, { seed: 7 });
  const c = due(bank, p, T0, { seed: 'another seed' });
  const plain = due(bank, p, T0);
  assert.deepEqual(ids(a), ids(b));
  assert.notDeepEqual(ids(a), ids(c));
  assert.notDeepEqual(ids(a), ids(plain));
  assert.deepEqual([...ids(a)].sort(), [...ids(plain)].sort());
  const boxes = a.map((d) => d.box);
  assert.deepEqual(
    boxes,
    [...boxes].sort((x, y) => x - y),
    'boxes stay in order',
  );
  assert.deepEqual(ids(a.slice(-4)).sort(), ['rapid-05', 'tf-03', 'tf-04', 'why-02']);
});

test('filter by section and by tag (a name or a list)', () => {
  const p = emptyProgress(T0);
  const recall = due(bank, p, T0, { section: 'recall' });
  assert.deepEqual(ids(recall), sortedIds(bank.items.filter((it) => it.section === 'recall')));
  assert.equal(recall.length, 5);
  const rms = due(bank, p, T0, { tag: 'rmsnorm' });
  assert.deepEqual(ids(rms), sortedIds(bank.items.filter((it) => it.tags.includes('rmsnorm'))));
  const both = due(bank, p, T0, { section: ['why', 'edge-cases'], tag: ['warmup', 'rmsnorm'] });
  assert.deepEqual(
    ids(both),
    sortedIds(
      bank.items.filter(
        (it) => ['why', 'edge-cases'].includes(it.section) && it.tags.some((t) => ['warmup', 'rmsnorm'].includes(t)),
      ),
    ),
  );
  assert.ok(both.length > 0);
  assert.equal(due(bank, p, T0, { tag: 'no-such-tag' }).length, 0);
  assert.equal(matches(bank.items[0], {}), true);
  assert.equal(matches(bank.items[0], { section: '' }), true);
  // a bare item list works as the bank
  assert.equal(due(bank.items, p, T0, { section: 'recall' }).length, 5);
});

test('nextDueAt and boxCounts', () => {
  let p = emptyProgress(T0);
  assert.equal(nextDueAt(bank, p, T0), null);
  for (const it of bank.items) p = grade(p, it.id, true, T0); // everything in box 2
  assert.equal(due(bank, p, T0).length, 0);
  assert.equal(nextDueAt(bank, p, T0), T0 + DAY_MS);
  p = grade(p, 'tf-01', true, T0); // box 3
  assert.deepEqual(boxCounts(bank, p), [0, bank.items.length - 1, 1, 0, 0]);
  assert.deepEqual(boxCounts(bank, p, { section: 'true-false' }), [0, 9, 1, 0, 0]);
  assert.equal(nextDueAt(bank, p, T0, { section: 'true-false' }), T0 + DAY_MS);
});

test('seeded PRNG: deterministic, in [0, 1), string seeds hashed', () => {
  const a = mulberry32(42);
  const b = mulberry32(42);
  const xs = Array.from({ length: 1000 }, () => a());
  assert.deepEqual(
    xs,
    Array.from({ length: 1000 }, () => b()),
  );
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  assert.ok(Math.abs(mean - 0.5) < 0.05, `mean ${mean}`);
  assert.equal(seedToUint32('abc'), seedToUint32('abc'));
  assert.notEqual(seedToUint32('abc'), seedToUint32('abd'));
  assert.equal(seedToUint32(-1), 4294967295);
  const arr = [1, 2, 3, 4, 5, 6];
  assert.deepEqual(shuffled(arr, mulberry32(3)), shuffled(arr, mulberry32(3)));
  assert.deepEqual([...shuffled(arr, mulberry32(3))].sort(), arr);
  assert.deepEqual(arr, [1, 2, 3, 4, 5, 6]);
});

test('score: counts, streaks, self-graded answers; pure', () => {
  const s0 = newSession(T0);
  let s = s0;
  const answers = [
    { correct: true },
    { correct: true },
    { correct: false, selfGraded: true },
    { correct: true, selfGraded: true },
    { correct: true },
    { correct: true },
    { correct: false },
  ];
  for (const a of answers) s = record(s, a);
  assert.deepEqual(s, {
    answered: 7,
    correct: 5,
    selfGraded: 2,
    selfCorrect: 1,
    streak: 0,
    bestStreak: 3,
    startedAt: T0,
  });
  assert.deepEqual(s0, newSession(T0));
  assert.equal(accuracy(s), 5 / 7);
  assert.equal(accuracy(s0), null);
  assert.equal(summary(s), '5 of 7 correct (2 self-graded) · streak 0 · best 3');
  assert.equal(summary(s0), 'No answers yet.');
  assert.deepEqual(sanitizeSession(JSON.parse(JSON.stringify(s))), s);
});

test('score: inconsistent sessions are refused', () => {
  const ok = { answered: 3, correct: 2, selfGraded: 1, selfCorrect: 1, streak: 1, bestStreak: 2, startedAt: 5 };
  assert.deepEqual(sanitizeSession(ok), ok);
  const bad = [
    { ...ok, correct: 4 },
    { ...ok, selfGraded: 4 },
    { ...ok, selfCorrect: 2 },
    { ...ok, streak: 3 },
    { ...ok, bestStreak: 3 },
    { ...ok, answered: -1 },
    { ...ok, answered: 1.5 },
    { ...ok, correct: NaN },
    { ...ok, streak: '1' },
    null,
    [],
    'session',
  ];
  for (const b of bad) assert.equal(sanitizeSession(b), null, JSON.stringify(b));
  assert.equal(sanitizeSession({ ...ok, startedAt: 'x' }).startedAt, 0);
});
