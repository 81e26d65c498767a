// The guess parser of "predict the number": a safe arithmetic expression (numbers with e-notation,
// + - * / ^, parentheses, unary minus, sqrt()), never eval. Run: node --test tests/node/quiz/quiz-expr.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { evaluate, MAX_LENGTH, MAX_DEPTH } from '../../../web/src/quiz/expr.js';
import { parseGuess, gradeGuess } from '../../../web/src/quiz/generated.js';

const value = (s) => {
  const r = evaluate(s);
  assert.equal(r.ok, true, `${JSON.stringify(s)}: ${r.error}`);
  return r.value;
};
const error = (s) => {
  const r = evaluate(s);
  assert.equal(r.ok, false, `${JSON.stringify(s)} was accepted as ${r.value}`);
  assert.equal(typeof r.error, 'string');
  return r.error;
};

// Expressions and their values, one test per group.
const VALUES = {
  'numbers, e-notation, sqrt, and the four operations': [
    ['sqrt(2)', Math.SQRT2],
    [' sqrt( 2 ) ', Math.SQRT2],
    ['117', 117],
    ['1.5e-3', 1.5e-3],
    ['2E+3', 2000],
    ['.5', 0.5],
    ['5.', 5],
    ['1+2', 3],
    ['7-10', -3],
    ['6/4', 1.5],
    ['3*4', 12],
    ['3 × 4 · 2', 24],
    ['2 − 5', -3],
    ['sqrt(1 + 1) * sqrt(2)', Math.SQRT2 * Math.SQRT2],
    ['sqrt(sqrt(16))', 2],
    ['(1 + 2^2)^(1/2)', Math.sqrt(5)],
  ],
  'precedence: ^ over unary minus over * / over + -; left-associative - and /': [
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 - 4 - 3', 3],
    ['64 / 4 / 2', 8],
    ['2 * 3 ^ 2', 18],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    ['-3 * -2', 6],
    ['1 - -1', 2],
  ],
  '^ is right-associative': [
    ['2^3^2', 512],
    ['(2^3)^2', 64],
    ['2^-1^2', 0.5],
  ],
  'powers of ten are exact decimal literals': [
    ['2*10^-4', 2e-4],
    ['3 × 10^5', 3e5],
    ['10^−3', 1e-3],
    ['1.7*10^-5', 1.7e-5],
    ['1.1^50', 1.1 ** 50],
  ],
};
for (const [name, rows] of Object.entries(VALUES)) {
  test(name, () => {
    for (const [text, want] of rows) assert.equal(value(text), want, text);
  });
}

test('errors name what was not understood', () => {
  assert.match(error(''), /empty/);
  assert.match(error('   '), /empty/);
  assert.match(error('abc'), /"abc"/);
  assert.match(error('abc'), /sqrt/);
  assert.match(error('sqr(2)'), /"sqr"/);
  assert.match(error('1,000'), /","/);
  assert.match(error('1e'), /"1e"/);
  assert.match(error('1e+'), /"1e\+"/);
  assert.match(error('--1'), /two minus signs/);
  assert.match(error('2 3'), /"3"/);
  assert.match(error('2 +'), /end/);
  assert.match(error('(2 + 3'), /"\)"/);
  assert.match(error('2 + 3)'), /"\)"/);
  assert.match(error('sqrt 2'), /"\(" after sqrt/);
  assert.match(error('sqrt()'), /"\)"/);
  assert.match(error('*2'), /"\*"/);
  assert.match(error('2**3'), /"\*"/);
  assert.match(error('+2'), /"\+"/);
  assert.match(error('1/0'), /division by zero/);
  assert.match(error('sqrt(-4)'), /square root of a negative/);
  assert.match(error('10^400'), /too large/);
  assert.match(error('(-8)^(1/3)'), /not a real number/);
});

test('hostile input: no code runs, no names are looked up, long or deep input is refused', () => {
  for (const s of [
    'alert(1)',
    'constructor',
    '__proto__',
    'Math.PI',
    'sqrt.constructor("return 1")()',
    'this',
    '`${1}`',
    '1;2',
    'eval("1")',
    'new Function("return 1")',
    'sqrt(2) // comment',
    '0x10',
    '1_000',
    'Infinity',
    'NaN',
    '1\u0000',
    '٣',
    '[1]',
    '{}',
    '1 == 1',
  ])
    error(s);
  assert.match(error('1+'.repeat(MAX_LENGTH)), /too long/);
  assert.match(error('('.repeat(MAX_DEPTH + 1) + '1' + ')'.repeat(MAX_DEPTH + 1)), /nested/);
  for (const [text, want] of [['('.repeat(MAX_DEPTH - 1) + '1' + ')'.repeat(MAX_DEPTH - 1), 1]])
    assert.equal(value(text), want, text);
  for (const v of [null, undefined, 42, {}, [], Symbol.iterator]) assert.equal(evaluate(v).ok, false);
  // a long error echo is cut, so a hostile string never reaches the page whole
  assert.ok(error('a'.repeat(150)).length < 120);
});

test('parseGuess and gradeGuess take expressions; a bad one says what was not understood', () => {
  assert.equal(parseGuess('sqrt(2)'), Math.SQRT2);
  assert.ok(Number.isNaN(parseGuess('sqrt(2')));
  const r = gradeGuess('sqrt(2)', 1.46, 0.15);
  assert.equal(r.correct, true);
  assert.match(r.message, /you said 1\.41/);
  const bad = gradeGuess('sqrt(two)', 1.46, 0.15);
  assert.equal(bad.correct, false);
  assert.match(bad.message, /"two"/);
  assert.match(bad.message, /positive number/);
});
