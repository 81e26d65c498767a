// The one log-axis module every chart and the SVG export use: decade ranges,
// thinned decade ticks, 1-2-5 ticks within about a decade, power-of-ten labels.
import test from 'node:test';
import assert from 'node:assert/strict';
import { decadeRange, decadeTicks, log10OrNull, logLabel, logTicks } from '../../../web/src/shared/log-axis.js';

test('decadeRange: whole decades around the values, at least two', () => {
  assert.deepEqual(decadeRange(0.03, 250), [-2, 3]);
  assert.deepEqual(decadeRange(1, 1), [-1, 1]);
  assert.deepEqual(decadeRange(Infinity, -Infinity), [-1, 1]);
});

test('decadeTicks: every decade while they fit, thinned to 1, 2, 3, 5, 10, ... steps', () => {
  assert.deepEqual(decadeTicks(-2, 3, 10), [-2, -1, 0, 1, 2, 3]);
  assert.deepEqual(decadeTicks(-2.5, 3.5, 10), [-2, -1, 0, 1, 2, 3]);
  assert.deepEqual(decadeTicks(-40, 38, 8), [-40, -30, -20, -10, 0, 10, 20, 30]);
  assert.deepEqual(decadeTicks(0, 10, 4), [0, 3, 6, 9]);
});

test('logTicks: within about a decade, 1-2-5 steps; wider, decades', () => {
  const near = logTicks(Math.log10(0.9), Math.log10(6), 8).map((e) => Number((10 ** e).toPrecision(3)));
  assert.deepEqual(near, [1, 2, 5]);
  assert.deepEqual(logTicks(-3, 2, 8), [-3, -2, -1, 0, 1, 2]);
});

test('logTicks: a short axis whose 1-2-5 ticks do not fit keeps every other one, never none', () => {
  const values = (ticks) => ticks.map((e) => Number((10 ** e).toPrecision(3)));
  // 0.2, 0.5, 1 and 2 lie between 0.15 and 2.5: four ticks, room for three
  assert.deepEqual(values(logTicks(Math.log10(0.15), Math.log10(2.5), 3)), [0.2, 1]);
  assert.deepEqual(values(logTicks(Math.log10(0.15), Math.log10(2.5), 2)), [0.2, 1]);
  assert.deepEqual(values(logTicks(Math.log10(0.15), Math.log10(2.5), 1)), [0.2]);
});

test('labels: powers of ten at whole decades, values between them; no log of what a log axis cannot show', () => {
  assert.deepEqual([-4, 0, 1, 2].map(logLabel), ['10⁻⁴', '1', '10', '10²']);
  assert.equal(logLabel(Math.log10(2)), '2');
  assert.deepEqual([0, -1, NaN, Infinity, 'x'].map(log10OrNull), [null, null, null, null, null]);
  assert.equal(log10OrNull(1000), 3);
});
