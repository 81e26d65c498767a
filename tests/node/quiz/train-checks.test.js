// The bank's training claims, confirmed by the engine: every item whose
// experiment names a train_check trains its settings (and the variant the
// check names) through the native CLI (`resnorm train --json`) and the check
// must come out confirmed; the margins are TRAIN_MARGINS (train-checks.js)
// and docs/pages.md ("Every claim has an experiment") gives the numbers they
// leave room for. Also the rule that every item making a claim has an
// experiment, and that each training experiment's link opens the lab with
// exactly its settings.
// Run: node --test tests/node/quiz/train-checks.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cliTrain } from '../helpers.js';
import { CLAIM_TAGS, makesClaim, validateBank } from '../../../web/src/quiz/validate.js';
import {
  TRAIN_CHECKS,
  TRAIN_CHECK_IDS,
  labHref,
  runTrainCheck,
  trainSettings,
} from '../../../web/src/quiz/train-checks.js';
import { trainFromHash } from '../../../web/src/train/link.js';
import { engineSettings } from '../../../web/src/shared/train-fields.js';

const readJson = (rel) => JSON.parse(fs.readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8'));
const bank = readJson('../../../web/src/quiz/bank.json');
const schema = readJson('../../../web/src/quiz/bank.schema.json');
const withTrain = bank.items.filter((it) => it.experiment?.train);

// One CLI run per config: items that share a setting (why-06 and rapid-05, tf-07 and recall-05) train it once.
const runs = new Map();
function train(config) {
  const key = JSON.stringify(config);
  if (!runs.has(key)) {
    const { summary } = cliTrain(config);
    const heldout = Object.fromEntries(Object.entries(summary.summary).map(([a, s]) => [a, s.heldout_loss]));
    runs.set(key, { chance: summary.chance_loss, heldout });
  }
  return runs.get(key);
}

test('the six items without one now have a training experiment', () => {
  const ids = ['tf-07', 'err-07', 'why-06', 'edge-07', 'recall-05', 'rapid-05'];
  assert.deepEqual(withTrain.map((it) => it.id).sort(), [...ids].sort());
});

test('every item that makes a claim about gradients, norms or training has an experiment', () => {
  // The rule: an item makes such a claim when it carries a topic tag of CLAIM_TAGS; every tag the
  // schema allows is one of them, so every item of the bank must have an experiment.
  const tagEnum = schema.properties.items.items.properties.tags.items.enum;
  assert.deepEqual([...CLAIM_TAGS].sort(), [...tagEnum].sort());
  const claims = bank.items.filter(makesClaim);
  assert.equal(claims.length, bank.items.length);
  const missing = claims.filter((it) => !it.experiment).map((it) => it.id);
  assert.deepEqual(missing, []);
  assert.equal(makesClaim({ tags: [] }), false);
});

test('each training experiment\u2019s link opens the lab with exactly its settings', () => {
  for (const it of withTrain) {
    const href = labHref(it.experiment.train);
    assert.match(href, /^\.\/train\.html#/, it.id);
    const back = trainFromHash(new URL(href, 'https://example.org/resnorm/quiz.html').hash);
    assert.deepEqual(back.notices, [], it.id);
    // its settings, on one seed (the lab's own Seeds setting at its default)
    assert.deepEqual(engineSettings(back.config), trainSettings(it.experiment.train), it.id);
    assert.equal(back.config.seeds, 1, it.id);
  }
});

test('every training check is used by an item, and every checkable training claim is confirmed by the engine', async () => {
  const used = new Set(withTrain.map((it) => it.experiment.train_check).filter(Boolean));
  assert.deepEqual([...used].sort(), [...TRAIN_CHECK_IDS].sort());
  for (const it of withTrain.filter((x) => x.experiment.train_check)) {
    const r = await runTrainCheck(it.experiment.train_check, it.experiment.train, train);
    assert.equal(r.status, 'confirmed', `${it.id} (${it.experiment.train_check}): ${r.measured}`);
    assert.match(r.measured, /\d/);
  }
  // edge-07 (cross-attention) names no check: the engine has no decoder to check it on
  assert.equal(bank.items.find((it) => it.id === 'edge-07').experiment.train_check, undefined);
});

test('a check refutes the claim when the numbers do not show it, and names what it needs', async () => {
  const flat = () => ({ chance: 2, heldout: { post_ln: 1, pre_ln: 1 } });
  for (const id of TRAIN_CHECK_IDS) {
    const r = await runTrainCheck(id, { arch: ['post_ln', 'pre_ln'] }, flat);
    assert.equal(r.status, 'refuted', `${id}: ${r.measured}`);
    assert.ok(TRAIN_CHECKS[id].claim.length > 40, id);
  }
  const plain = await runTrainCheck('warmup-rescues-postln', { arch: ['plain'] }, flat);
  assert.deepEqual(plain, { status: 'not-applicable', measured: 'needs post_ln in arch' });
  const unknown = await runTrainCheck('__proto__', { arch: ['post_ln'] }, flat);
  assert.equal(unknown.status, 'not-applicable');
});

test('the validator refuses training experiments the lab would not open as written, and a claim with no experiment', () => {
  const cases = [
    [(e) => (e.train.depth = 500), /\(why-06\)\.experiment\.train\.depth: 500 is not a value the lab takes/],
    [(e) => (e.train.tokens = 8), /train\.tokens: not a setting of the training lab/],
    [(e) => (e.train.arch = ['pre_ln', 'post_ln']), /train\.arch: .* is not a value the lab takes/],
    [(e) => (e.train.warmup = 50), /train_check: "warmup-rescues-postln" needs warmup 0/],
    [(e) => (e.train_check = 'warmup-always-helps'), /train_check: unknown check id/],
    [
      (e) => (e.setting = { arch: ['plain'], depth: 4, gain: 1 }),
      /needs exactly one of "setting" or "panel" or "train"/,
    ],
  ];
  for (const [edit, expect] of cases) {
    const b = structuredClone(bank);
    edit(b.items.find((it) => it.id === 'why-06').experiment);
    const errors = validateBank(b, schema);
    assert.ok(
      errors.some((e) => expect.test(e)),
      `${expect}: got ${errors.join('; ')}`,
    );
  }
  const claimed = structuredClone(bank);
  claimed.items.find((it) => it.id === 'why-04').experiment.claim = 'batch_norm';
  assert.ok(
    validateBank(claimed, schema).some((e) =>
      /\(why-04\)\.experiment\.claim: unknown claim of the lab "batch_norm" \(known: .*batchnorm/.test(e),
    ),
  );
  const b = structuredClone(bank);
  delete b.items.find((it) => it.id === 'edge-07').experiment;
  assert.ok(
    validateBank(b, schema).some((e) => /\(edge-07\): makes a claim \(tags .*\) and needs an experiment/.test(e)),
  );
  assert.deepEqual(validateBank(bank, schema), []);
});
