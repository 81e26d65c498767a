// The embedded lab's fields (web/src/embed/train-view.js): every training
// field and every view field round-trips through embed.html's fragment and
// through the <resnorm-train> snippet's attributes; hostile values fall back
// to the default with a notice naming the field.
// Run: node --test tests/node/shared/train-embed.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { TRAIN_KEYS, TRAIN_TABLE, defaultTrainConfig } from '../../../web/src/shared/train-fields.js';
import {
  TRAIN_EMBED_TABLE,
  trainEmbedEntries,
  trainEmbedFromHash,
  trainEmbedHash,
} from '../../../web/src/embed/train-view.js';
import { estimateTrainHeight, trainElementSnippet, trainEmbedUrl } from '../../../web/src/embed/snippets.js';
import { noticeText } from '../../../web/src/shared/state.js';

const SITE = 'https://example.org/resnorm/';
const VIEW = { controls: [...TRAIN_KEYS], lock: [], theme: 'auto' };

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
    const read = trainEmbedEntries(attrs, { alias: (k) => k.replaceAll('-', '_') });
    assert.deepEqual(read.notices, [], `${key}: ${JSON.stringify(attrs)}`);
    assert.deepEqual(read.train, config, key);
    assert.deepEqual(read.view.lock, ['arch']);
  }
  // every setting at its default and the default view: only mode=train
  assert.equal(trainEmbedHash(defaultTrainConfig(), VIEW), '#mode=train');
  assert.deepEqual(trainEmbedFromHash('#mode=train').view.controls, TRAIN_KEYS);
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

test('the iframe\u2019s height grows with the settings shown and the architectures trained', () => {
  const config = defaultTrainConfig();
  const none = estimateTrainHeight({ ...VIEW, controls: [] }, config);
  const all = estimateTrainHeight(VIEW, config);
  const three = estimateTrainHeight(VIEW, { ...config, arch: ['post_ln', 'pre_ln', 'sandwich'] });
  assert.ok(none > 1000 && none < all && all < three, `${none} ${all} ${three}`);
});
