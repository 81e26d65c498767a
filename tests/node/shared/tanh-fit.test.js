// The least-squares fits of web/src/shared/tanh-fit.js on points whose answer is known: an exact
// S-curve is found to its a, b, c with R^2 1 and a line's R^2 below it; a straight line is found by
// both with the same R^2 and called close to a line; noise is scattered; pairs that are not finite
// are counted and left out; too few or constant points give no fit, never a throw.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fitLine, fitTanh, shapeOf } from '../../../web/src/shared/tanh-fit.js';

const xs = Array.from({ length: 401 }, (_, i) => -4 + (8 * i) / 400);
/** A fixed pseudo-random sequence in [-0.5, 0.5). */
function noise(seed) {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647 - 0.5;
}

test('an exact S-curve: a, b, c found, R^2 1, the line well below, S-shaped', () => {
  const ys = xs.map((x) => -1.5 * Math.tanh(0.8 * x) + 0.25);
  const f = fitTanh(xs, ys);
  // a carries the sign, b > 0
  assert.ok(Math.abs(f.a + 1.5) < 1e-5, `a ${f.a}`);
  assert.ok(Math.abs(f.b - 0.8) < 1e-5, `b ${f.b}`);
  assert.ok(Math.abs(f.c - 0.25) < 1e-9, `c ${f.c}`);
  assert.ok(f.r2 > 1 - 1e-9, `r2 ${f.r2}`);
  assert.ok(f.line.r2 < 0.95, `line r2 ${f.line.r2}`);
  assert.equal(f.n, 401);
  assert.equal(f.dropped, 0);
  assert.ok(Math.abs(f.bend - 3.2) < 1e-4);
  assert.equal(shapeOf(f), 'S-shaped');
});

test('the line fit: exact slope and intercept, R^2 from the sums of squares', () => {
  const r = noise(7);
  const ys = xs.map((x) => 2 * x - 1 + 0.3 * r());
  const l = fitLine(xs, ys);
  // the normal equations by hand
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b) / n;
  const my = ys.reduce((a, b) => a + b) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  const slope = sxy / sxx;
  const k = my - slope * mx;
  let sse = 0;
  let sst = 0;
  for (let i = 0; i < n; i++) {
    sse += (ys[i] - slope * xs[i] - k) ** 2;
    sst += (ys[i] - my) ** 2;
  }
  assert.ok(Math.abs(l.slope - slope) < 1e-12);
  assert.ok(Math.abs(l.intercept - k) < 1e-12);
  assert.ok(Math.abs(l.r2 - (1 - sse / sst)) < 1e-12);
});

test('a straight line with noise: the S-curve is no better than the line, close to a line', () => {
  const r = noise(3);
  const ys = xs.map((x) => 2 * x + 1 + 0.2 * r());
  const f = fitTanh(xs, ys);
  assert.ok(f.line.r2 > 0.99);
  assert.ok(Math.abs(f.r2 - f.line.r2) < 1e-6, `${f.r2} against ${f.line.r2}`);
  assert.equal(shapeOf(f), 'close to a line');
});

test('noise: scattered', () => {
  const r = noise(11);
  const ys = xs.map(() => r());
  assert.equal(shapeOf(fitTanh(xs, ys)), 'scattered');
});

test('pairs that are not finite are counted and left out; the rest fit as without them', () => {
  const ys = xs.map((x) => Math.tanh(2 * x));
  const f0 = fitTanh(xs, ys);
  const x = [...xs, NaN, 1, Infinity];
  const y = [...ys, 0, -Infinity, 1];
  const f = fitTanh(x, y);
  assert.equal(f.dropped, 3);
  assert.equal(f.n, xs.length);
  assert.equal(f.r2, f0.r2);
  assert.equal(f.b, f0.b);
});

test('too few, constant or no finite points: no fit, not defined', () => {
  for (const [x, y] of [
    [
      [1, 2],
      [1, 2],
    ],
    [
      [1, 1, 1, 1],
      [1, 2, 3, 4],
    ],
    [
      [1, 2, 3, 4],
      [5, 5, 5, 5],
    ],
    [
      [NaN, NaN, NaN],
      [1, 2, 3],
    ],
  ]) {
    const f = fitTanh(x, y);
    assert.ok(Number.isNaN(f.r2));
    assert.equal(shapeOf(f), 'not defined');
  }
});
