// Every claim of the training lab (web/src/claims/lab/index.js) has every part a lab claim
// exports (CONTRIBUTING.md, "Add a claim"): its id, button, paper, the claim and the setting in
// words, its settings and runs, whether it needs lesions, and judge(), whose verdict on runs that
// trained has a check per part and a caption; the list and the by-id map agree, and each module
// imports only claims/ and shared/.
// Run: node --test tests/node/train/claims.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { ARCH_BY_KEY } from '../../../web/src/shared/archs.js';
import { TRAIN_TABLE } from '../../../web/src/shared/train-fields.js';
import { CLAIMS, CLAIM_BY_ID, CLAIM_IDS, claimVerdict, verdict } from '../../../web/src/claims/lab/index.js';
import { ROOT } from '../helpers.js';
import { REVERSE, TEACHER, run } from './runs.js';

const TEXTS = ['id', 'cite', 'title', 'paper', 'claim', 'setting'];

test('the list has the lab\u2019s twelve claims in its order, and the by-id map and the ids agree with it', () => {
  assert.deepEqual(CLAIM_IDS, [
    'warmup',
    'depth',
    'degradation',
    'lesion',
    'rezero',
    'late',
    'batchnorm',
    'qknorm',
    'dyt',
    'hybrid',
    'attnres',
    'hc',
    'ngpt',
  ]);
  assert.deepEqual(Object.keys(CLAIM_BY_ID), CLAIM_IDS);
  for (const c of CLAIMS) assert.equal(CLAIM_BY_ID[c.id], c, c.id);
});

for (const c of CLAIMS) {
  test(`${c.id}: every part of a lab claim`, () => {
    for (const k of TEXTS) assert.ok(typeof c[k] === 'string' && c[k].trim().length > 0, `${c.id}.${k}`);
    assert.match(c.id, /^[a-z]+$/);
    assert.equal(typeof c.needsLesion, 'boolean', `${c.id}.needsLesion`);
    assert.equal(typeof c.judge, 'function', `${c.id}.judge`);
    // its settings: training fields only
    assert.ok(c.config && typeof c.config === 'object', `${c.id}.config`);
    for (const k of Object.keys(c.config)) assert.ok(TRAIN_TABLE[k], `${c.id}.config.${k} is a training field`);
    // its runs: unique keys, known architectures, a label each, overrides of training fields only
    assert.ok(Array.isArray(c.runs) && c.runs.length >= 2, `${c.id}.runs`);
    assert.equal(new Set(c.runs.map((r) => r.key)).size, c.runs.length, `${c.id}: run keys unique`);
    for (const r of c.runs) {
      assert.match(r.key, /^[a-z0-9_]+$/, `${c.id}.${r.key}`);
      assert.ok(ARCH_BY_KEY[r.arch], `${c.id}.${r.key}.arch ${r.arch}`);
      assert.ok(typeof r.label === 'string' && r.label.length > 0, `${c.id}.${r.key}.label`);
      for (const k of Object.keys(r.overrides ?? {})) assert.ok(TRAIN_TABLE[k], `${c.id}.${r.key}.overrides.${k}`);
    }
  });

  test(`${c.id}: judge() gives a check per part and a caption; the verdict by id is the module\u2019s`, () => {
    const task = c.config.task === 'teacher' ? TEACHER : REVERSE;
    const lesion = { base: 0.01, loss: [0.02, 0.03], increase: [0.01, 0.02], relative: [2, 3] };
    const runs = Object.fromEntries(
      c.runs.map((r) => [r.key, { ...run([task.chance, 0.3 * task.chance, 0.001], task), lesion }]),
    );
    const v = verdict(c.id, runs);
    assert.ok(v, c.id);
    assert.ok(v.checks.length >= 2, `${c.id}: its checks`);
    for (const k of v.checks) {
      assert.ok(typeof k.claimed === 'string' && k.claimed.length > 0, `${c.id}: a check's claim`);
      assert.equal(typeof k.holds, 'boolean');
      assert.ok(typeof k.measured === 'string' && k.measured.length > 0, `${c.id}: a check's measure`);
    }
    assert.ok(typeof v.caption === 'string' && v.caption.length > 0, `${c.id}: its caption`);
    assert.ok(typeof v.summary === 'string' && v.summary.length > 0, `${c.id}: its parts line`);
    for (const r of c.runs) assert.equal(v.numbers[`${r.key}.heldout`], 0.001, `${c.id}.${r.key}.heldout`);
    assert.deepEqual(claimVerdict(c, runs), v);
    // a run without a log yet: no verdict
    assert.equal(verdict(c.id, { ...runs, [c.runs[0].key]: { ...runs[c.runs[0].key], logs: [] } }), null);
  });

  test(`${c.id}: the module imports only claims/ and shared/`, () => {
    const file = join(ROOT, 'web/src/claims/lab', `${c.id}.js`);
    const specs = [...readFileSync(file, 'utf8').matchAll(/\bfrom\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
    assert.ok(specs.length > 0, c.id);
    for (const s of specs) {
      const p = relative(ROOT, resolve(dirname(file), s));
      assert.ok(p.startsWith('web/src/claims/') || p.startsWith('web/src/shared/'), `${c.id} imports ${p}`);
    }
  });
}

test('an id no claim has has no verdict', () => {
  assert.equal(verdict('none', {}), null);
  assert.equal(CLAIM_BY_ID.none, undefined);
});
