// Waiting on what a Node test can observe, never on a duration, so no verdict
// depends on the machine's speed: nextTurn() is one turn of the event loop
// (every microtask queued before it has run), until() re-checks a condition
// once a turn. Its guard against a hang counts turns, not milliseconds: the
// fakes the tests drive answer within a few turns whatever the machine.

/** One turn of the event loop: resolves after the microtasks queued before it, and any earlier setImmediate. */
export const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Resolves once `cond()` is true, checked now and after each event-loop turn; rejects naming `what` after `turns` turns. */
export async function until(cond, what = 'the awaited state', turns = 10000) {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await nextTurn();
  }
  if (cond()) return;
  throw new Error(`${what}: not reached in ${turns} event-loop turns`);
}
