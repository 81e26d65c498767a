// A lab claim's verdict from PyTorch (the driver: ./claim-verdict.js): every claim of
// web/src/claims/lab/index.js that no other claims-<part>.test.js file checks, with python3; and
// that the parts name real claims, each once, each in its own file.
// Run: node --test tests/node/pytorch/claims.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { CLAIM_IDS } from '../../../web/src/claims/lab/index.js';
import { PARTS, REST, claimTest } from './claim-verdict.js';

test('every lab claim is checked by exactly one file', () => {
  const named = Object.values(PARTS).flat();
  assert.deepEqual([...named, ...REST].sort(), [...CLAIM_IDS].sort());
  assert.equal(new Set(named).size, named.length, 'a claim in two parts');
  for (const file of Object.keys(PARTS))
    assert.ok(existsSync(new URL(`./${file}.test.js`, import.meta.url)), `${file}.test.js exists`);
});

for (const id of REST) claimTest(id);
