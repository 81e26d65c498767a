// quietGate(): the lab's hold on the service worker's install while a run trains.
// Run: node --test tests/node/shared/register-sw.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { quietGate } from '../../../web/src/shared/register-sw.js';

const settled = async (p) => {
  let done = false;
  p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
};

test('quietGate(): quiet at once while not busy, else once busy ends; every waiter released', async () => {
  const gate = quietGate();
  assert.equal(await settled(gate.quiet()), true, 'not busy yet: at once');
  gate.set(true);
  const a = gate.quiet();
  const b = gate.quiet();
  gate.set(true);
  assert.equal(await settled(a), false, 'busy: it waits');
  gate.set(false);
  assert.equal(await settled(a), true);
  assert.equal(await settled(b), true);
  gate.set(true);
  const c = gate.quiet();
  gate.set(0); // any falsy value ends it
  assert.equal(await settled(c), true);
});
