// What a graded quiz reports (web/src/quiz/grading.js): per answer whether it counts, right or
// wrong or not judged, the self-assessment and the response; the attempt's score with
// self-graded answers counted or left out; the pass mark in whole numbers; the lines shown.
// Run: node --test tests/node/quiz/grading.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_GRADING,
  attemptScore,
  gradingOf,
  isSelfGradedKind,
  itemReport,
  passes,
  scoreLine,
  verdictText,
} from '../../../web/src/quiz/grading.js';

const EXCLUDE = { countSelfGraded: false, passMark: 80 };
const COUNT = { countSelfGraded: true, passMark: 80 };

test('the default grading leaves self-graded answers out, with a pass mark of 80 %', () => {
  assert.deepEqual(DEFAULT_GRADING, { countSelfGraded: false, passMark: 80 });
  assert.deepEqual(gradingOf({}), DEFAULT_GRADING);
  assert.deepEqual(gradingOf({ self_graded: 'count', pass_mark: 50 }), { countSelfGraded: true, passMark: 50 });
  assert.deepEqual(gradingOf({ self_graded: 'exclude', pass_mark: null }), { countSelfGraded: false, passMark: null });
  assert.equal(gradingOf({ pass_mark: 101 }).passMark, 80);
  assert.equal(gradingOf({ pass_mark: Number.NaN }).passMark, 80);
  assert.equal(isSelfGradedKind('true-false'), false);
  assert.equal(isSelfGradedKind('open'), true);
  assert.equal(isSelfGradedKind('find-error'), true);
});

test('one answer: "I got it" is a self-assessment, judged only when the teacher counts it', () => {
  const open = { kind: 'open', response: '  the identity path  ', correct: true, selfGraded: true };
  assert.deepEqual(itemReport(open, EXCLUDE), {
    counts: false,
    success: null,
    selfAssessment: 'got it',
    response: 'the identity path',
  });
  assert.deepEqual(itemReport(open, COUNT), {
    counts: true,
    success: true,
    selfAssessment: 'got it',
    response: 'the identity path',
  });
  assert.equal(itemReport({ ...open, correct: false }, EXCLUDE).selfAssessment, 'missed it');
  const tf = { kind: 'true-false', response: 'false', correct: false, selfGraded: false };
  for (const g of [EXCLUDE, COUNT])
    assert.deepEqual(itemReport(tf, g), { counts: true, success: false, selfAssessment: null, response: 'false' });
  assert.equal(itemReport({ kind: 'open', correct: true, selfGraded: true }, EXCLUDE).response, '');
});

test('the score: Reveal + "I got it" on every open question does not pass when they are left out', () => {
  // the warmup topic's shape: 2 true/false, 4 self-graded
  const kinds = ['true-false', 'true-false', 'open', 'open', 'find-error', 'open'];
  const gotIt = kinds.map((kind, i) => ({
    kind,
    correct: kind !== 'true-false',
    selfGraded: kind !== 'true-false',
    i,
  }));
  const left = attemptScore(gotIt, kinds, EXCLUDE);
  assert.deepEqual(left, {
    raw: 0,
    max: 2,
    scaled: 0,
    answered: 6,
    total: 6,
    selfGraded: 4,
    selfCounted: false,
    passMark: 80,
    passed: false,
  });
  const counted = attemptScore(gotIt, kinds, COUNT);
  assert.deepEqual([counted.raw, counted.max, counted.passed], [4, 6, false]);
  // both true/false right: 2 of 2 passes, whatever was self-assessed
  const right = gotIt.map((a) => (a.kind === 'true-false' ? { ...a, correct: true } : { ...a, correct: false }));
  assert.deepEqual([attemptScore(right, kinds, EXCLUDE).raw, attemptScore(right, kinds, EXCLUDE).passed], [2, true]);
  // questions not yet answered count as not right
  const first = attemptScore(right.slice(0, 1), kinds, EXCLUDE);
  assert.deepEqual([first.raw, first.max, first.scaled, first.answered], [1, 2, 0.5, 1]);
});

test('the pass mark decides in whole numbers: 50 passes what 90 fails', () => {
  const kinds = Array(10).fill('true-false');
  const seven = kinds.map((kind, i) => ({ kind, correct: i < 7 }));
  assert.equal(attemptScore(seven, kinds, { countSelfGraded: false, passMark: 50 }).passed, true);
  assert.equal(attemptScore(seven, kinds, { countSelfGraded: false, passMark: 90 }).passed, false);
  assert.equal(attemptScore(seven, kinds, { countSelfGraded: false, passMark: 70 }).passed, true, '7 of 10 is 70 %');
  assert.equal(passes(57, 100, 57), true, '0.57 * 100 is 56.99999999999999 in floating point');
  assert.equal(passes(4, 7, 57.14285714285714), true);
  assert.equal(passes(3, 7, 42.86), false);
  assert.equal(passes(0, 3, 0), true);
  assert.equal(passes(3, 3, 100), true);
  assert.equal(passes(2, 3, 100), false);
  assert.equal(passes(1, 0, 50), null, 'no score');
  assert.equal(passes(1, 2, null), null, 'no pass mark');
});

test('nothing scored: every question self-graded and left out', () => {
  const kinds = ['open', 'find-error'];
  const s = attemptScore([{ kind: 'open', correct: true, selfGraded: true }], kinds, EXCLUDE);
  assert.deepEqual([s.raw, s.max, s.scaled, s.passed], [0, 0, 0, null]);
  assert.equal(scoreLine(s), '1 of 2 answered · self-assessed, not scored');
  assert.match(verdictText(s), /no score to pass or fail/);
});

test('the lines the quiz shows say what the numbers are', () => {
  const kinds = ['true-false', 'open', 'true-false'];
  const answers = [
    { kind: 'true-false', correct: true },
    { kind: 'open', correct: true, selfGraded: true },
    { kind: 'true-false', correct: false },
  ];
  const left = attemptScore(answers, kinds, { countSelfGraded: false, passMark: 50 });
  assert.equal(scoreLine(attemptScore([], kinds, EXCLUDE)), 'No answers yet.');
  assert.equal(scoreLine(left), 'Score 1 of 2 · 1 self-assessed answer, not counted');
  assert.equal(verdictText(left), 'Passed: 1 of 2 automatically marked questions right (50 %); the pass mark is 50 %.');
  const counted = attemptScore(answers, kinds, { countSelfGraded: true, passMark: 90 });
  assert.equal(scoreLine(counted), 'Score 2 of 3 · 1 self-assessed answer, counted');
  assert.equal(verdictText(counted), 'Not passed: 2 of 3 questions right (66.7 %); the pass mark is 90 %.');
  assert.equal(
    verdictText(attemptScore(answers, kinds, { countSelfGraded: false, passMark: null })),
    '1 of 2 automatically marked questions right (50 %).',
  );
});
