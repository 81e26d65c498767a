// The training lab's fields against the engine's own train table:
// web/src/shared/engine-train-fields.js is `rn.trainFields` as the wasm module
// reports it, every field of it is a field of the lab's link state with the
// engine's kind, range, default and choices, each has a place in the lab's
// form, every field round-trips through a link, and hostile values fall back
// to the default with a notice naming the field.
// Run: node --test tests/node/shared/train-fields.test.js
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { loadWasm } from '../helpers.js';
import ENGINE_TRAIN_FIELDS from '../../../web/src/shared/engine-train-fields.js';
import {
  LAB_TABLE,
  TRAIN_KEYS,
  TRAIN_SECTIONS,
  TRAIN_TABLE,
  defaultLabConfig,
  defaultTrainConfig,
  engineSettings,
  seedList,
} from '../../../web/src/shared/train-fields.js';
import { TRAIN_LINK_TABLE, trainFromHash, trainToHash } from '../../../web/src/train/link.js';
import { noticeText } from '../../../web/src/shared/state.js';
import { fieldApplies } from '../../../web/src/shared/fields.js';

let rn;
before(async () => {
  rn = await loadWasm();
});
const noTrainer = () => !Array.isArray(rn?.trainFields) && 'the wasm module has no rn.trainFields yet';

test('engine-train-fields.js is the engine\u2019s train table (node web/build/engine-fields.js rewrites it)', (t) => {
  if (noTrainer()) return t.skip(noTrainer());
  assert.deepEqual(ENGINE_TRAIN_FIELDS, rn.trainFields);
  assert.deepEqual(defaultTrainConfig(), { ...rn.trainDefaults });
});

test('the lab\u2019s link state has exactly the engine\u2019s train fields, with its kinds, ranges, defaults and choices', () => {
  assert.deepEqual([...TRAIN_KEYS].sort(), ENGINE_TRAIN_FIELDS.map((f) => f.name).sort());
  for (const f of ENGINE_TRAIN_FIELDS) {
    const w = TRAIN_TABLE[f.name];
    assert.equal(w.group, 'train', f.name);
    assert.equal(w.help, f.help, f.name);
    assert.ok(typeof w.label === 'string' && w.label.length > 0, f.name);
    assert.ok(TRAIN_SECTIONS.includes(w.section ?? 'more'), `${f.name}: section ${w.section}`);
    if (f.kind === 'choice_list' || f.kind === 'choice') {
      assert.deepEqual(w.choices.map(String), f.choices, f.name);
      assert.equal(w.kind, f.kind, f.name);
    } else if (w.kind === 'choice') {
      // an integer range whose allowed values are a list (heads: "1, 2, 4 or 8")
      assert.equal(f.kind, 'integer', f.name);
      assert.match(f.allowed, /or/, f.name);
      for (const v of w.choices) assert.ok(v >= f.min && v <= f.max, `${f.name}=${v}`);
    } else {
      assert.equal(w.kind, f.kind, f.name);
      assert.equal(w.min, f.min, f.name);
      assert.equal(w.max, f.max, f.name);
    }
  }
  assert.deepEqual(trainFromHash('').config, defaultLabConfig());
});

test('every choice the lab offers for an integer field is one the engine trains with', (t) => {
  if (noTrainer()) return t.skip(noTrainer());
  const tiny = { task: 'copy', arch: 'pre_ln', depth: 1, width: 16, seq: 2, vocab: 4, batch: 1, steps: 1 };
  for (const [name, w] of Object.entries(TRAIN_TABLE)) {
    if (w.kind !== 'choice' || w.engine.kind !== 'integer') continue;
    for (const v of w.choices) assert.doesNotThrow(() => rn.checkTrain({ ...tiny, [name]: v }), `${name}=${v}`);
  }
});

// A value other than the default for every field, as a link holds it.
const SAMPLE = {
  task: 'markov',
  seq: 3,
  seq_min: 2,
  norm: 'batchnorm',
  bn_pads: 'count',
  bn_momentum: 0.05,
  vocab: 200,
  arch: ['plain', 'admin'],
  block: 'mlp',
  depth: 128,
  width: 32,
  heads: 8,
  qk_norm: 'layernorm',
  expansion: 2,
  activation: 'tanh',
  init: 'orthogonal',
  gain: 0.75,
  mix_fraction: 0.5,
  dyt_alpha: 0.8,
  hc_streams: 3,
  sinkhorn_iters: 7,
  ngpt_alpha: 0.2,
  attn_res_blocks: 2,
  positions: 'sinusoidal',
  final_norm: 'rmsnorm',
  optimizer: 'sgd',
  lr: 0.0003,
  warmup: 100,
  schedule: 'inverse_sqrt',
  batch: 1,
  steps: 1000000,
  seed: 4294967295,
  momentum: 0.5,
  beta1: 0.8,
  beta2: 0.95,
  eps: 1e-6,
  weight_decay: 0.1,
  clip: 1,
  log_every: 1,
  eval_batches: 64,
};

test('every train field round-trips through the lab\u2019s link, alone and all at once', () => {
  assert.deepEqual(Object.keys(SAMPLE).sort(), [...TRAIN_KEYS].sort());
  for (const [key, value] of Object.entries(SAMPLE)) {
    assert.notDeepEqual(value, TRAIN_TABLE[key].default, key);
    const config = { ...defaultTrainConfig(), [key]: value };
    const hash = trainToHash(config);
    assert.ok(hash.startsWith(`#${key}=`), hash);
    const back = trainFromHash(hash);
    assert.deepEqual(back.notices, [], `${hash}: ${JSON.stringify(back.notices)}`);
    assert.deepEqual(back.config, { ...config, seeds: 1 }, hash);
  }
  const all = { ...SAMPLE, seeds: 1 };
  const back = trainFromHash(trainToHash(all));
  assert.deepEqual(back.notices, []);
  assert.deepEqual(back.config, all);
  assert.equal(trainToHash(defaultTrainConfig()), '');
});

test('the lab\u2019s seeds: 1 to 16 in a link, 1 by default and 5 for a claim, refused by name out of range, never the engine\u2019s', () => {
  assert.equal(LAB_TABLE.seeds.min, 1);
  assert.equal(LAB_TABLE.seeds.max, 16);
  assert.equal(trainFromHash('').config.seeds, 1);
  assert.equal(trainFromHash('#seeds=7').config.seeds, 7);
  assert.equal(trainToHash({ ...defaultLabConfig(), seeds: 7 }), '#seeds=7');
  assert.equal(trainToHash(defaultLabConfig()), '');
  // a claim's link: five seeds unless it says
  assert.equal(trainFromHash('#preset=warmup').config.seeds, 5);
  assert.equal(trainFromHash('#preset=warmup&seeds=1').config.seeds, 1);
  assert.equal(trainToHash(trainFromHash('#preset=warmup').config, 'warmup'), '#preset=warmup');
  assert.equal(
    trainToHash({ ...trainFromHash('#preset=warmup').config, seeds: 2 }, 'warmup'),
    '#preset=warmup&seeds=2',
  );
  for (const bad of ['0', '17', '2.5', 'many', '-1', '1e309']) {
    const r = trainFromHash(`#seeds=${bad}`);
    assert.equal(r.config.seeds, 1, bad);
    assert.equal(r.notices.length, 1, bad);
    assert.equal(r.notices[0].field, 'seeds', bad);
    const text = noticeText(r.notices[0], TRAIN_LINK_TABLE);
    assert.match(text, /^Seeds \(seeds\) /, text);
    if (['0', '17', '-1', '1e309'].includes(bad)) assert.match(text, /out of range \(allowed 1\.\.16\)/, text);
  }
  // the engine never sees it; each seed is the settings' seed plus its index
  const config = { ...defaultLabConfig(), seed: 40, seeds: 3 };
  assert.equal('seeds' in engineSettings(config), false);
  assert.deepEqual(seedList(config), [40, 41, 42]);
  assert.deepEqual(seedList({ seed: 9 }), [9]);
});

test('hostile and invalid values in a link fall back to the default, each named in a notice', () => {
  const cases = [
    ['task', '<script>alert(1)</script>'],
    ['depth', '0'],
    ['depth', '129'],
    ['depth', '1e309'],
    ['lr', 'NaN'],
    ['lr', '-1'],
    ['lr', '0x10'],
    ['heads', '3'],
    ['steps', '2.5'],
    ['seed', '4294967296'],
    ['arch', 'javascript:alert(1)'],
    ['optimizer', 'x'.repeat(500)],
    ['mix_fraction', 'NaN'],
    ['mix_fraction', '-1'],
    ['mix_fraction', '2'],
    ['mix_fraction', 'quarter'],
    ['dyt_alpha', '0'],
    ['dyt_alpha', '11'],
    ['hc_streams', '0'],
    ['sinkhorn_iters', '101'],
    ['attn_res_blocks', '-1'],
    ['qk_norm', 'cosine'],
  ];
  for (const [key, raw] of cases) {
    const r = trainFromHash(`#${key}=${encodeURIComponent(raw)}`);
    assert.deepEqual(r.config[key], TRAIN_TABLE[key].default, `${key}=${raw}`);
    assert.equal(r.notices.length, 1, `${key}=${raw}`);
    assert.equal(r.notices[0].field, key);
    const text = noticeText(r.notices[0], TRAIN_TABLE);
    assert.ok(text.startsWith(`${TRAIN_TABLE[key].label} (${key})`), text);
    assert.ok(text.length < 200, text);
  }
  const r = trainFromHash('#constructor=1&__proto__=x&depth=4&depth=5&gain=0.5');
  assert.equal(r.config.depth, 4);
  assert.equal(r.config.gain, 0.5);
  assert.deepEqual(
    r.notices.map((n) => n.reason),
    ['unknown setting', 'unknown setting', 'given more than once; the first one is used'],
  );
  assert.equal({}.polluted, undefined);
  for (const raw of ['-1', '2', '1.0001'])
    assert.match(
      trainFromHash(`#mix_fraction=${raw}`).notices[0].reason,
      /^out of range \(allowed 0\.\.1\); the default is used$/,
    );
  for (const raw of ['NaN', 'quarter', 'Infinity'])
    assert.match(trainFromHash(`#mix_fraction=${raw}`).notices[0].reason, /^not a number; the default is used$/);
  // simulate's fields that training does not have are unknown here, and the other way round
  assert.equal(trainFromHash('#tokens=8').notices[0].reason, 'unknown setting');
});

test('Mix-LN\u2019s share: a lab field of the model section, for mix_ln only, 0 and 1 allowed', () => {
  const c = TRAIN_TABLE.mix_fraction;
  assert.equal(c.label, 'Mix-LN Post-LN share');
  assert.equal(c.section, 'model');
  assert.ok(!c.more, 'beside the architectures\u2019 other model settings, not behind More settings');
  assert.deepEqual(c.archs, ['mix_ln']);
  assert.equal(c.default, 0.25);
  assert.ok(fieldApplies(c, { arch: ['pre_ln', 'mix_ln'] }));
  assert.ok(!fieldApplies(c, { arch: ['post_ln', 'pre_ln'] }));
  assert.ok(fieldApplies(TRAIN_TABLE.depth, { arch: ['post_ln'] }), 'a field of every architecture applies to all');
  for (const v of [0, 1, 0.125]) {
    const back = trainFromHash(`#arch=mix_ln&mix_fraction=${v}`);
    assert.deepEqual(back.notices, []);
    assert.equal(back.config.mix_fraction, v);
  }
  assert.equal(trainToHash({ ...defaultTrainConfig(), mix_fraction: 0.5 }), '#mix_fraction=0.5');
});
