// Part 8's arithmetic (bench/lib/lab-time.js) on made-up numbers: the ideal time on a pool, the ratio
// to it, a worker's ms per update from its answers, and the top functions of a CPU profile. No
// timing is asserted.
//   node --test tests/node/bench/lab-time.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { idealMs, perUpdate, ratioToIdeal, topFunctions } from '../../../bench/lib/lab-time.js';

test('the ideal: one worker’s time spread over the pool; the ratio of the measured time to it', () => {
  assert.equal(idealMs(12000, 2), 6000);
  assert.equal(idealMs(12000, 1), 12000);
  assert.equal(idealMs(9000, 3), 3000);
  // 7.5 s measured against an ideal of 6 s: 1.25x, the target's edge
  assert.equal(ratioToIdeal(7500, idealMs(12000, 2)), 1.25);
  assert.ok(ratioToIdeal(7600, 6000) > 1.25);
  // unknown or impossible inputs give no figure rather than a wrong one
  assert.equal(idealMs(null, 2), null);
  assert.equal(idealMs(1000, 0), null);
  assert.equal(ratioToIdeal(5000, 0), null);
  assert.equal(ratioToIdeal(undefined, 100), null);
});

test('perUpdate: the answers’ ms over their updates, and the median of each call’s own', () => {
  const r = perUpdate([
    { ms: 40, steps: 10 }, // 4 ms an update
    { ms: 30, steps: 10 }, // 3
    { ms: 100, steps: 10 }, // 10
    { ms: NaN, steps: 10 }, // no figure: left out
    { ms: 5, steps: 0 }, // no update: left out
  ]);
  assert.equal(r.calls, 3);
  assert.equal(r.updates, 30);
  assert.equal(r.total_ms, 170);
  assert.equal(r.ms_per_update, 170 / 30);
  assert.equal(r.median_ms_per_update, 4);
  assert.equal(
    perUpdate([
      { ms: 2, steps: 1 },
      { ms: 6, steps: 1 },
    ]).median_ms_per_update,
    4,
  );
  assert.equal(perUpdate([]).ms_per_update, null);
});

test('topFunctions: self time per function from samples and deltas, idle left out, shares of the busy time', () => {
  const frame = (functionName, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('(root)') },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('draw', 'http://localhost/assets/chart-abc.js?v=1', 11) },
      { id: 4, callFrame: frame('(program)') },
      { id: 5, callFrame: frame('draw', 'http://localhost/assets/chart-abc.js', 11) },
    ],
    // a sample's time is the delta to the next sample (µs); the last sample has none
    samples: [3, 2, 4, 5, 3],
    timeDeltas: [0, 2000, 5000, 1000, 1000],
  };
  const top = topFunctions(profile, 5);
  // draw: 2 ms (node 3) + 1 ms (node 5, same function and line) = 3 ms; (program) 1 ms; idle 5 ms left out
  assert.deepEqual(
    top.map((t) => [t.name, t.where, t.self_ms]),
    [
      ['draw', 'chart-abc.js:12', 3],
      ['(program)', '', 1],
    ],
  );
  assert.equal(top[0].share, 0.75);
  assert.equal(topFunctions(profile, 1).length, 1);
});
