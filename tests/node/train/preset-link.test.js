// A claim of the lab as a link (web/src/train/link.js): #preset=<id> is
// the claim with its settings, other fields in the link change those
// settings, the link written for a claim names only what differs from it, an
// unknown claim is named in a notice and replaced by none, and the links
// without a claim read and write as before.
// Run: node --test tests/node/train/preset-link.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { defaultTrainConfig } from '../../../web/src/shared/train-fields.js';
import { trainFromHash, trainToHash } from '../../../web/src/train/link.js';
import { CLAIMS, claimConfig } from '../../../web/src/claims/lab/index.js';

test('#preset=<id> is the preset with its settings, and writes back as itself', () => {
  for (const p of CLAIMS) {
    const r = trainFromHash(`#preset=${p.id}`);
    assert.equal(r.preset, p.id);
    assert.deepEqual(r.notices, []);
    assert.deepEqual(r.config, claimConfig(p, defaultTrainConfig()));
    assert.equal(trainToHash(r.config, p.id), `#preset=${p.id}`);
  }
});

test('a field in a preset link changes that setting; the link names what differs from the preset', () => {
  const r = trainFromHash('#preset=warmup&seed=1&lr=0.015');
  assert.equal(r.config.seed, 1);
  assert.equal(r.config.lr, 0.015);
  assert.equal(r.config.depth, 6);
  assert.equal(r.config.task, 'reverse');
  assert.equal(trainToHash(r.config, 'warmup'), '#preset=warmup&lr=0.015&seed=1');
  // a setting away from the preset's is written even where it is the lab's default
  const he = trainFromHash('#preset=degradation').config;
  const dflt = defaultTrainConfig().eval_batches;
  assert.notEqual(he.eval_batches, dflt);
  assert.equal(trainToHash({ ...he, eval_batches: dflt }, 'degradation'), `#preset=degradation&eval_batches=${dflt}`);
});

test('an unknown preset is named in a notice and is none; links without a preset are as before', () => {
  const r = trainFromHash('#preset=nope&depth=3');
  assert.equal(r.preset, 'none');
  assert.equal(r.config.depth, 3);
  assert.equal(r.notices.length, 1);
  assert.equal(r.notices[0].field, 'preset');
  const plain = trainFromHash('#task=copy&depth=4&arch=post_ln,pre_ln');
  assert.equal(plain.preset, 'none');
  assert.deepEqual(trainFromHash(trainToHash(plain.config)).config, plain.config);
  assert.equal(plain.config.depth, 4);
  assert.equal(trainToHash(plain.config, 'none'), trainToHash(plain.config));
});
