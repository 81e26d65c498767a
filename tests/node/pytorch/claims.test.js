// A lab claim's verdict from PyTorch (the driver: ./claim-verdict.js): every claim of
// web/src/claims/lab/index.js that no other claims-<part>.test.js file checks and the script can
// train, with python3; and that every claim is checked by one file or named as not exported.
// Run: node --test tests/node/pytorch/claims.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { CLAIM_IDS } from '../../../web/src/claims/lab/index.js';
import { NOT_EXPORTED, PARTS, REST, claimTest } from './claim-verdict.js';

test('every lab claim is checked by one file, or named as one the script cannot train', () => {
  const named = Object.values(PARTS).flat();
  assert.deepEqual([...named, ...REST, ...NOT_EXPORTED].sort(), [...CLAIM_IDS].sort());
  assert.equal(new Set(named).size, named.length, 'a claim in two parts');
  for (const file of Object.keys(PARTS))
    assert.ok(existsSync(new URL(`./${file}.test.js`, import.meta.url)), `${file}.test.js exists`);
});

for (const id of REST) claimTest(id);
