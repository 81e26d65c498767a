// Part 8's arithmetic (bench/lib/lab-time.js) on made-up numbers: the ideal time on a pool, the ratio
// to it, a worker's ms per update from its answers, the top functions of a CPU profile, the long
// tasks of a trace and each thread's busy time in a trace (threadBusy). No timing is asserted.
//   node --test tests/node/bench/lab-time.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  idealMs,
  longTaskBreakdown,
  perUpdate,
  ratioToIdeal,
  threadBusy,
  topFunctions,
} from '../../../bench/lib/lab-time.js';

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

test('longTaskBreakdown: the page’s main thread, its tasks over 50 ms, each part by self time, wall and CPU', () => {
  const X = (name, ts, dur, extra = {}) => ({ ph: 'X', pid: 1, tid: 7, name, ts, dur, ...extra });
  const trace = {
    traceEvents: [
      { ph: 'M', pid: 1, tid: 7, name: 'thread_name', args: { name: 'CrRendererMain' } },
      // another renderer (about:blank) with no script: not the page's
      { ph: 'M', pid: 2, tid: 3, name: 'thread_name', args: { name: 'CrRendererMain' } },
      { ph: 'X', pid: 2, tid: 3, name: 'RunTask', ts: 0, dur: 200000 },
      // a task of 80 ms wall, 30 ms CPU: a frame whose callback (40 ms, 10 of it a forced layout) then paints
      X('ThreadControllerImpl::RunTask', 1000, 80000, { tdur: 30000 }),
      X('RunTask', 1000, 80000),
      X('FireAnimationFrame', 2000, 50000),
      X('FunctionCall', 2000, 40000, {
        args: { data: { functionName: 'draw', url: 'http://x/assets/view-1.js', lineNumber: 3, columnNumber: 9 } },
      }),
      X('Layout', 20000, 10000),
      X('Paint', 60000, 15000),
      // a short task: left out
      X('ThreadControllerImpl::RunTask', 100000, 20000, { tdur: 20000 }),
      X('FunctionCall', 100000, 19000),
    ],
  };
  const b = longTaskBreakdown(trace);
  assert.equal(b.tasks.length, 1, 'the nested RunTask is the same task; the 20 ms one is not long');
  assert.equal(b.tasks[0].wall_ms, 80);
  assert.equal(b.tasks[0].cpu_ms, 30);
  const parts = Object.fromEntries(b.tasks[0].parts.map((p) => [p.name, p.ms]));
  assert.deepEqual(parts, {
    'FunctionCall draw (view-1.js:3:9)': 30, // 40 less the layout inside it
    Paint: 15,
    Layout: 10,
    FireAnimationFrame: 10, // 50 less the call inside it
    '(task, unattributed)': 15, // 80 less the frame and the paint
  });
  assert.equal(b.top[0].name, 'FunctionCall draw (view-1.js:3:9)');
  assert.equal(b.top[0].share, 30 / 80);
  assert.deepEqual(longTaskBreakdown({ traceEvents: [] }).tasks, []);
});

test('threadBusy: each thread’s busy time between the marks, its wait before and after, its gaps by size', () => {
  const meta = (tid, name) => ({ ph: 'M', name: 'thread_name', pid: 1, tid, args: { name } });
  const task = (tid, ts, dur, tdur) => ({ ph: 'X', name: 'RunTask', pid: 1, tid, ts, dur, ...(tdur ? { tdur } : {}) });
  const mark = (name, ts) => ({ ph: 'R', name, cat: 'blink.user_timing', pid: 1, tid: 1, ts });
  const trace = {
    traceEvents: [
      meta(1, 'CrRendererMain'),
      meta(2, 'DedicatedWorker thread'),
      meta(3, 'DedicatedWorker thread'),
      mark('bench-start', 0),
      mark('bench-verdict', 100000), // a window of 100 ms
      // the main thread: a task straddling the start (counted from it) and one of 10 ms wall, 4 ms CPU
      task(1, -5000, 10000, 10000),
      task(1, 50000, 10000, 4000),
      // a worker: 5 ms after the start, busy 20 + 30 + 20 ms with gaps of 0.5 ms and 24.5 ms, then 0.5 ms to the verdict
      task(2, 5000, 20000),
      task(2, 25500, 30000),
      task(2, 80000, 19500),
      { ph: 'X', name: 'RunTask', pid: 1, tid: 2, ts: 30000, dur: 1000 }, // nested in the task before: the same task
      // a worker whose tasks are all outside the window: not listed
      task(3, 200000, 1000),
    ],
  };
  const t = threadBusy(trace);
  assert.equal(t.window_ms, 100);
  assert.equal(t.main.busy_ms, 15);
  assert.equal(t.main.cpu_ms, 9); // 5 of the first task's 10 (its half in the window) and 4
  assert.equal(t.workers.length, 1);
  const w = t.workers[0];
  assert.equal(w.busy_ms, 69.5);
  assert.equal(w.before_ms, 5);
  assert.equal(w.after_ms, 0.5);
  assert.deepEqual(w.gaps_ms, { under_1ms: 0.5, ms_1_to_10: 0, over_10ms: 24.5, count_over_10ms: 1 });
  assert.equal(w.cpu_ms, null, 'the trace has no thread time for its tasks');
  // a missing mark: no figure rather than a wrong one
  assert.equal(threadBusy({ traceEvents: trace.traceEvents.filter((e) => e.name !== 'bench-verdict') }), null);
});
