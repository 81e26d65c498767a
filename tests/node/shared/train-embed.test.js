// The embedded lab's fields (web/src/embed/train-view.js): every training
// field, the claim and every view field round-trips through
// embed.html's fragment and through the <resnorm-train> snippet's attributes;
// the presets' buttons are live only while every setting is the reader's;
// hostile values fall back to the default with a notice naming the field.
// Run: node --test tests/node/shared/train-embed.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { TRAIN_KEYS, TRAIN_TABLE, defaultTrainConfig } from '../../../web/src/shared/train-fields.js';
import { trainFromHash } from '../../../web/src/train/link.js';
import { CLAIMS, CLAIM_IDS, CLAIM_SEEDS, claimConfig } from '../../../web/src/claims/lab/index.js';
import { engineSettings } from '../../../web/src/shared/train-fields.js';
import {
  TRAIN_CONTROLS,
  TRAIN_EMBED_TABLE,
  labLink,
  claimsMode,
  trainEmbedEntries,
  trainEmbedFromHash,
  trainEmbedHash,
} from '../../../web/src/embed/train-view.js';
import { trainElementSnippet, trainEmbedUrl, trainIframeSnippet } from '../../../web/src/embed/snippets.js';
import { COLUMN_WIDTHS, DEFAULT_WIDTH, labHeight } from '../../../web/src/embed/heights.js';
import { noticeText } from '../../../web/src/shared/state.js';

const SITE = 'https://example.org/resnorm/';
const VIEW = { controls: [...TRAIN_CONTROLS], lock: [], theme: 'auto' };
const alias = (k) => k.replaceAll('-', '_');

/** A value of `key` other than its default: another choice, another architecture, the far end of the range. */
function sample(key) {
  const c = TRAIN_TABLE[key];
  if (c.kind === 'choice_list') return ['plain', 'sandwich'];
  if (c.kind === 'choice') return c.choices.find((v) => v !== c.default);
  return c.default === c.max ? c.min : c.max;
}

/** The attributes of a snippet's element as [name, value] pairs. */
function attributesOf(snippet, tag) {
  const open = snippet.match(new RegExp(`<${tag}([^>]*)>`))[1];
  return [...open.matchAll(/([a-z0-9-]+)="([^"]*)"/g)].map((m) => [m[1], m[2].replaceAll('&amp;', '&')]);
}

test('every training field round-trips through embed.html#mode=train and <resnorm-train>', () => {
  for (const key of TRAIN_KEYS) {
    const config = { ...defaultTrainConfig(), [key]: sample(key) };
    const view = { controls: TRAIN_KEYS.filter((k) => k !== key), lock: ['arch'], theme: 'dark' };
    const hash = trainEmbedHash(config, view);
    assert.ok(hash.startsWith('#mode=train&'), hash);
    const back = trainEmbedFromHash(hash);
    assert.deepEqual(back.notices, [], `${hash}: ${JSON.stringify(back.notices)}`);
    assert.deepEqual(back.train, config, key);
    assert.deepEqual({ ...back.view, mode: undefined }, { ...view, mode: undefined }, key);
    assert.equal(back.view.mode, 'train');
    assert.equal(new URL(trainEmbedUrl(SITE, config, view)).hash, hash);

    const attrs = attributesOf(trainElementSnippet({ siteUrl: SITE, config, view }), 'resnorm-train');
    const read = trainEmbedEntries(attrs, { alias });
    assert.deepEqual(read.notices, [], `${key}: ${JSON.stringify(attrs)}`);
    assert.deepEqual(read.train, config, key);
    assert.deepEqual(read.view.lock, ['arch']);
  }
  // every setting at its default and the default view: only mode=train
  assert.equal(trainEmbedHash(defaultTrainConfig(), VIEW), '#mode=train');
  assert.deepEqual(trainEmbedFromHash('#mode=train').view.controls, TRAIN_CONTROLS);
  assert.deepEqual(trainEmbedFromHash('#mode=train&controls=none').view.controls, []);
});

test('hostile values in the embedded lab\u2019s fields: the default, and a notice naming the field', () => {
  const cases = [
    ['task', '<img src=x onerror=alert(1)>'],
    ['depth', '1e309'],
    ['lr', 'javascript:alert(1)'],
    ['controls', '<script>'],
    ['lock', 'constructor'],
    ['theme', 'url(x)'],
    ['mode', 'lab'],
    ['preset', '<script>alert(1)</script>'],
  ];
  for (const [key, raw] of cases) {
    const r = trainEmbedFromHash(`#mode=train&${key}=${encodeURIComponent(raw)}`);
    const group = TRAIN_EMBED_TABLE[key].group;
    if (key !== 'mode') assert.deepEqual(r[group][key], TRAIN_EMBED_TABLE[key].default, key);
    const n = r.notices.find((x) => x.field === key);
    assert.ok(n, `${key}: ${JSON.stringify(r.notices)}`);
    assert.ok(noticeText(n, TRAIN_EMBED_TABLE).includes(`(${key})`));
  }
  const proto = trainEmbedFromHash('#mode=train&__proto__=1&toString=2');
  assert.equal(proto.notices.length, 2);
  assert.equal(Object.getPrototypeOf(proto.train), Object.prototype);
});

test('the iframe\u2019s height: taller in a narrower column, with more settings shown, more runs, a preset\u2019s panel', () => {
  const config = defaultTrainConfig();
  for (const width of COLUMN_WIDTHS) {
    const none = labHeight({ ...VIEW, controls: [] }, config, 'none', width);
    const all = labHeight(VIEW, config, 'none', width);
    const three = labHeight(VIEW, { ...config, arch: ['post_ln', 'pre_ln', 'sandwich'] }, 'none', width);
    assert.ok(none > 1000 && none < all && all < three, `${width}: ${none} ${all} ${three}`);
  }
  for (const p of CLAIMS) {
    const base = claimConfig(p, defaultTrainConfig());
    const heights = COLUMN_WIDTHS.map((w) => labHeight(VIEW, base, p.id, w));
    assert.deepEqual(
      [...heights].sort((a, b) => b - a),
      heights,
      `${p.id}: ${heights}`,
    );
  }
  // the snippet writes the height for the width asked, the default width unless one is
  const warmup = claimConfig(CLAIMS[0], defaultTrainConfig());
  const view = { controls: ['warmup', 'preset'], lock: [], theme: 'auto' };
  const at = (width) =>
    Number(
      / height="(\d+)"/.exec(trainIframeSnippet({ siteUrl: SITE, config: warmup, view, preset: 'warmup', width }))[1],
    );
  assert.equal(at(undefined), labHeight(view, warmup, 'warmup', DEFAULT_WIDTH));
  assert.equal(at(360), labHeight(view, warmup, 'warmup', 360));
  assert.ok(at(360) > at(1280));
});

test('a claim round-trips through embed.html#mode=train&preset= and <resnorm-train preset>, with the link\u2019s changes over its settings', () => {
  for (const p of CLAIMS) {
    // an embed has no Seeds setting: it trains the claim's settings on one seed
    const base = engineSettings(claimConfig(p, defaultTrainConfig()));
    // only the preset: the shortest link, and its settings and runs' architectures back
    assert.equal(trainEmbedHash(base, VIEW, p.id), `#mode=train&preset=${p.id}`);
    const plain = trainEmbedFromHash(`#mode=train&preset=${p.id}`);
    assert.deepEqual(plain.notices, []);
    assert.equal(plain.lab.preset, p.id);
    assert.deepEqual(plain.train, base);
    // a changed setting and a view that fixes some: the changed setting over the preset's, in both snippets
    const config = { ...base, seed: 7, steps: 40 };
    const view = { controls: ['warmup', 'steps', 'preset'], lock: ['steps'], theme: 'dark' };
    const hash = trainEmbedHash(config, view, p.id);
    assert.ok(hash.startsWith(`#mode=train&preset=${p.id}&`), hash);
    assert.match(hash, /&seed=7&/);
    const back = trainEmbedFromHash(hash);
    assert.deepEqual(back.notices, []);
    assert.equal(back.lab.preset, p.id);
    assert.deepEqual(back.train, config);
    assert.deepEqual(back.view.lock, ['steps']);
    const snippet = trainElementSnippet({ siteUrl: SITE, config, view, preset: p.id });
    const attrs = attributesOf(snippet, 'resnorm-train');
    assert.deepEqual(attrs[0], ['preset', p.id]);
    const read = trainEmbedEntries(attrs, { alias });
    assert.deepEqual(read.notices, []);
    assert.equal(read.lab.preset, p.id);
    assert.deepEqual(read.train, config);
    // "Open in the lab" opens the same preset and settings
    const lab = trainFromHash(new URL(labLink(SITE, config, p.id)).hash);
    assert.equal(lab.preset, p.id);
    // the lab trains a claim on its five seeds
    assert.deepEqual(lab.config, { ...config, seeds: CLAIM_SEEDS });
  }
  assert.deepEqual(trainEmbedFromHash('#mode=train').lab.preset, 'none');
});

test('the presets\u2019 buttons are live only while the reader may change every setting; else fixed or hidden', () => {
  const all = [...TRAIN_CONTROLS];
  assert.equal(claimsMode({ controls: all, lock: [] }), 'live');
  // a preset sets every setting: one fixed or hidden would be replaced
  assert.equal(claimsMode({ controls: all, lock: ['steps'] }), 'fixed');
  assert.equal(claimsMode({ controls: all.filter((k) => k !== 'task'), lock: [] }), 'fixed');
  assert.equal(claimsMode({ controls: all, lock: ['preset'] }), 'fixed');
  // a list of settings without `preset` (controls=warmup): no buttons at all
  assert.equal(claimsMode({ controls: ['warmup'], lock: [] }), 'hidden');
  assert.equal(claimsMode(trainEmbedFromHash('#mode=train&preset=warmup&controls=warmup').view), 'hidden');
  assert.equal(claimsMode(trainEmbedFromHash('#mode=train&preset=warmup&controls=warmup,preset').view), 'fixed');
  assert.equal(claimsMode(trainEmbedFromHash('#mode=train&preset=warmup').view), 'live');
});

test('a hostile or unknown preset: the lab\u2019s defaults and a notice naming the field and its choices', () => {
  for (const raw of [
    '<img src=x onerror=alert(1)>',
    'constructor',
    '__proto__',
    'warmup,depth',
    'WARMUP',
    'none ',
    '',
  ]) {
    const r = trainEmbedFromHash(`#mode=train&preset=${encodeURIComponent(raw)}&seed=3`);
    assert.equal(r.lab.preset, 'none', raw);
    assert.deepEqual(r.train, { ...defaultTrainConfig(), seed: 3 }, raw);
    const n = r.notices.find((x) => x.field === 'preset');
    assert.ok(n, `${raw}: ${JSON.stringify(r.notices)}`);
    const text = noticeText(n, TRAIN_EMBED_TABLE);
    assert.ok(text.startsWith('Paper claim (preset)'), text);
    // every choice while the list is short, the first six and a count once it is long (state.js)
    const choices = ['none', ...CLAIM_IDS];
    const allowed =
      choices.length <= 10
        ? `allowed ${choices.join(', ')}`
        : `allowed ${choices.slice(0, 6).join(', ')} and ${choices.length - 6} more, all in the settings`;
    if (raw) assert.ok(text.includes(allowed), text);
  }
  const attrs = trainEmbedEntries(
    [
      ['preset', 'depth'],
      ['preset', 'warmup'],
    ],
    { alias },
  );
  assert.equal(attrs.lab.preset, 'depth');
  assert.match(noticeText(attrs.notices[0], TRAIN_EMBED_TABLE), /given more than once; the first one is used/);
});
