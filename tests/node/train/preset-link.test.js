// A claim of the lab as a link (web/src/train/link.js): #preset=<id> is
// the claim with its settings, other fields in the link change those
// settings, the link written for a claim names only what differs from it, an
// unknown claim is named in a notice and replaced by none, and the links
// without a claim read and write as before. A claim's setting (setting=deep,
// claims/lab/setting.js) reads and writes back, an unknown or unusable one is
// named in a notice and read as quick, and the control's words are computed.
// Run: node --test tests/node/train/preset-link.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { defaultTrainConfig } from '../../../web/src/shared/train-fields.js';
import { trainFromHash, trainToHash } from '../../../web/src/train/link.js';
import {
  CLAIMS,
  CLAIM_BY_ID,
  claimAt,
  claimConfig,
  deepChange,
  hasDeep,
  quickIsDeepText,
} from '../../../web/src/claims/lab/index.js';

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

test('setting=deep opens a claim at its deep setting and writes back; claim= is read as preset=; unknown or unusable settings are named and quick', () => {
  for (const p of CLAIMS.filter(hasDeep)) {
    const r = trainFromHash(`#claim=${p.id}&setting=deep`);
    assert.equal(r.preset, p.id);
    assert.equal(r.setting, 'deep');
    assert.deepEqual(r.notices, []);
    assert.deepEqual(r.config, claimConfig(claimAt(p, 'deep'), defaultTrainConfig()));
    assert.equal(trainToHash(r.config, p.id, 'deep'), `#preset=${p.id}&setting=deep`);
    // the deep config at the quick setting names the depth and each other field that differs
    // (HybridNorm's deep setting is the Depth claim's rate and steps too), and reads back as it
    const quickHash = trainToHash(r.config, p.id, 'quick');
    const differs = Object.keys(r.config).filter(
      (k) => k !== 'depth' && JSON.stringify(r.config[k]) !== JSON.stringify(claimConfig(p, defaultTrainConfig())[k]),
    );
    assert.match(quickHash, new RegExp(`^#preset=${p.id}&depth=\\d+${differs.map((k) => `&${k}=[^&]+`).join('')}$`));
    assert.deepEqual(trainFromHash(quickHash).config, r.config);
  }
  for (const [hash, reason] of [
    ['#preset=depth&setting=deep2', /not one of the choices \(allowed quick, deep\)/],
    ['#preset=depth&setting=%3Cscript%3E', /not one of the choices/],
    ['#preset=degradation&setting=deep', /no deep setting/],
    ['#setting=deep', /names none/],
  ]) {
    const r = trainFromHash(hash);
    assert.equal(r.setting, 'quick', hash);
    const n = r.notices.find((x) => x.field === 'setting');
    assert.ok(n && reason.test(n.reason), `${hash}: ${JSON.stringify(r.notices)}`);
    if (r.preset !== 'none') assert.deepEqual(r.config, claimConfig(CLAIM_BY_ID[r.preset], defaultTrainConfig()));
  }
});

test('the words of the choice come from the two settings: what Deep changes, or why a claim has none', () => {
  const d = defaultTrainConfig();
  assert.equal(deepChange(CLAIM_BY_ID.depth, d), '6 and 48 blocks instead of 6 and 18');
  assert.equal(
    deepChange(CLAIM_BY_ID.warmup, d),
    `${claimAt(CLAIM_BY_ID.warmup, 'deep').config.depth} blocks instead of 6`,
  );
  assert.equal(deepChange(CLAIM_BY_ID.degradation, d), null);
  assert.match(quickIsDeepText(CLAIM_BY_ID.degradation, d), /No deep setting: .*\(20 and 56 blocks\)/);
  for (const p of CLAIMS.filter(hasDeep)) assert.equal(quickIsDeepText(p, d), null);
});
