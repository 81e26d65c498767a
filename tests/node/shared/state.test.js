// The declared table of link fields (web/src/shared/state.js): every field round-trips
// through the fragment, and hostile or invalid values fall back to the default
// with a notice, never throwing; a list naming an entry twice keeps it once and
// says so.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  FIELDS_TABLE,
  GROUPS,
  LIMITS,
  configFromHash,
  configToHash,
  defaultConfig,
  defaultQuiz,
  defaultView,
  noticeText,
  parseEntries,
  parseHash,
  readField,
  REPEATED,
  stateToHash,
} from '../../../web/src/shared/state.js';
import { trainFromHash } from '../../../web/src/train/link.js';
import { loadWasm } from '../helpers.js';

const rn = await loadWasm();

// A non-default value for every field of the table (two for some).
const SAMPLES = {
  arch: [['post_ln', 'pre_ln'], ['sandwich', 'deepnorm', 'gpt2'], ['plain'], ['admin'], ['pre_rms', 'admin']],
  depth: [1, 48, 1024],
  gain: [0, 0.8, 1.23456789, 4],
  width: [2, 512],
  tokens: [1, 64],
  expansion: [2, 4],
  activation: ['gelu', 'tanh', 'linear'],
  init: ['orthogonal'],
  final_norm: ['layernorm', 'rmsnorm'],
  seed: [1, 123456789, 4294967295],
  block: ['transformer'],
  heads: [1, 2, 8],
  causal: [false],
  qk_norm: ['layernorm'],
  mix_fraction: [0, 0.5, 0.125, 1],
  dyt_alpha: [0.01, 0.8, 10],
  hc_streams: [1, 3, 16],
  sinkhorn_iters: [1, 5, 100],
  ngpt_alpha: [0.001, 0.2, 1],
  attn_res_blocks: [1, 4, 256],
  mode: ['quiz'],
  charts: [['grad'], ['stream', 'update']],
  controls: [
    ['depth'],
    [],
    ['arch', 'depth', 'gain', 'width', 'tokens', 'expansion', 'activation', 'init', 'final_norm', 'seed'],
  ],
  lock: [
    ['arch', 'gain'],
    ['arch', 'depth', 'gain', 'width', 'tokens', 'expansion', 'activation', 'init', 'final_norm', 'seed'],
  ],
  theme: ['light', 'dark'],
  caption: [false],
  items: [['tf-01', 'why-03'], ['rapid-08']],
  section: [['true-false'], ['why', 'recall']],
  tag: [['residuals', 'warmup']],
  self_graded: ['count'],
  pass_mark: [0, 50, 100],
};

test('every field of the table has samples, and the samples differ from the defaults', () => {
  assert.deepEqual(Object.keys(SAMPLES).sort(), Object.keys(FIELDS_TABLE).sort());
  for (const [key, values] of Object.entries(SAMPLES))
    for (const v of values) assert.notDeepEqual(v, FIELDS_TABLE[key].default, key);
});

test('round trip: every field, every sample, through the fragment', () => {
  for (const [key, values] of Object.entries(SAMPLES)) {
    const { group } = FIELDS_TABLE[key];
    for (const value of values) {
      const state = { config: defaultConfig(), view: defaultView(), quiz: defaultQuiz() };
      state[group][key] = value;
      const hash = stateToHash(state);
      assert.match(hash, new RegExp(`^#${key}=`), `${key}: ${hash}`);
      const back = parseHash(hash);
      assert.deepEqual(back.notices, [], `${key}=${JSON.stringify(value)}: ${JSON.stringify(back.notices)}`);
      assert.deepEqual(back[group], state[group], `${key}=${JSON.stringify(value)} via ${hash}`);
      assert.equal(stateToHash(back), hash);
    }
  }
});

test('all fields at once round-trip, and defaults write an empty fragment', () => {
  const state = { config: {}, view: {}, quiz: {} };
  for (const [key, values] of Object.entries(SAMPLES)) state[FIELDS_TABLE[key].group][key] = values[0];
  const hash = stateToHash(state);
  const back = parseHash(hash);
  assert.deepEqual(back.notices, []);
  for (const g of GROUPS) assert.deepEqual(back[g], state[g]);
  assert.equal(stateToHash({ config: defaultConfig(), view: defaultView(), quiz: defaultQuiz() }), '');
  assert.equal(configToHash(defaultConfig()), '');
});

test('the explorer reads only config fields; embed fields in its link are skipped quietly', () => {
  const r = parseHash('#depth=12&charts=grad&items=tf-01', { groups: ['config'] });
  assert.equal(r.config.depth, 12);
  assert.deepEqual(r.view, defaultView());
  assert.deepEqual(r.notices, []);
  assert.deepEqual(configFromHash('#depth=12&gain=0.8&arch=plain,pre_ln'), {
    ...defaultConfig(),
    depth: 12,
    gain: 0.8,
    arch: ['plain', 'pre_ln'],
  });
  assert.equal(
    configToHash({ ...defaultConfig(), depth: 12, arch: ['plain', 'pre_ln'] }),
    '#arch=plain,pre_ln&depth=12',
  );
});

test('an anchor is not state', () => {
  for (const h of ['#charts', '#', '', 'charts']) {
    const r = parseHash(h);
    assert.equal(r.anchor, h !== '' && h !== '#', h);
    assert.deepEqual(r.notices, []);
    assert.deepEqual(r.config, defaultConfig());
  }
});

const BIG = 'x'.repeat(10 * 1024);
// [hash, field that must keep its default, what the notice must say]
const HOSTILE = [
  ['#depth=<script>alert(1)</script>', 'depth', /not a number/],
  ['#depth=-5', 'depth', /out of range/],
  ['#depth=0', 'depth', /out of range \(allowed 1\.\.1024\)/],
  ['#depth=NaN', 'depth', /not a number/],
  ['#depth=Infinity', 'depth', /not a number/],
  ['#depth=1e999', 'depth', /out of range/],
  ['#depth=12.5', 'depth', /whole number/],
  ['#depth=0x10', 'depth', /not a number/],
  ['#depth=%2012', 'depth', /not a number/],
  ['#depth=', 'depth', /empty/],
  [`#depth=${BIG}`, 'depth', /too long/],
  ['#gain=javascript:alert(1)', 'gain', /not a number/],
  ['#gain=-0.1', 'gain', /out of range/],
  ['#gain=NaN', 'gain', /not a number/],
  ['#seed=4294967296', 'seed', /out of range/],
  ['#seed=-1', 'seed', /out of range/],
  ['#activation=<img src=x onerror=alert(1)>', 'activation', /not one of the choices/],
  ['#activation=RELU', 'activation', /not one of the choices/],
  ['#arch=<script>', 'arch', /no usable entry/],
  ['#arch=javascript:alert(1)', 'arch', /no usable entry/],
  [`#arch=${BIG}`, 'arch', /too long/],
  ['#arch=,,,', 'arch', /empty/],
  ['#expansion=3', 'expansion', /not one of the choices/],
  ['#heads=3', 'heads', /not one of the choices/],
  ['#heads=16', 'heads', /not one of the choices/],
  ['#block=rnn', 'block', /not one of the choices/],
  ['#causal=maybe', 'causal', /not one of the choices/],
  ['#qk_norm=rmsnorm', 'qk_norm', /^not one of the choices \(allowed none, layernorm\)/],
  ['#arch=admin2', 'arch', /no usable entry/],
  ['#theme=<style>*{display:none}</style>', 'theme', /not one of the choices/],
  ['#charts=', 'charts', /empty/],
  ['#charts=foo', 'charts', /no usable entry/],
  ['#caption=maybe', 'caption', /not true or false/],
  ['#items=<b>x</b>', 'items', /no usable entry/],
  ['#mode=javascript:alert(1)', 'mode', /not one of the choices/],
  ['#mix_fraction=NaN', 'mix_fraction', /^not a number; the default is used$/],
  ['#mix_fraction=-1', 'mix_fraction', /^out of range \(allowed 0\.\.1\); the default is used$/],
  ['#mix_fraction=2', 'mix_fraction', /^out of range \(allowed 0\.\.1\)/],
  ['#mix_fraction=1.5e0', 'mix_fraction', /out of range \(allowed 0\.\.1\)/],
  ['#mix_fraction=half', 'mix_fraction', /not a number/],
  ['#mix_fraction=', 'mix_fraction', /empty/],
  ['#dyt_alpha=0', 'dyt_alpha', /^out of range \(allowed 0\.01\.\.10\); the default is used$/],
  ['#hc_streams=0', 'hc_streams', /^out of range \(allowed 1\.\.16\); the default is used$/],
  ['#hc_streams=2.5', 'hc_streams', /not a whole number/],
  ['#sinkhorn_iters=101', 'sinkhorn_iters', /^out of range \(allowed 1\.\.100\); the default is used$/],
  ['#attn_res_blocks=257', 'attn_res_blocks', /^out of range \(allowed 0\.\.256\); the default is used$/],
  ['#pass_mark=120', 'pass_mark', /^out of range \(allowed 0\.\.100\); the default is used$/],
  ['#pass_mark=-1', 'pass_mark', /out of range \(allowed 0\.\.100\)/],
  ['#pass_mark=62.5', 'pass_mark', /not a whole number/],
  ['#pass_mark=80%25', 'pass_mark', /not a number/],
  ['#pass_mark=Infinity', 'pass_mark', /not a number/],
  ['#self_graded=yes', 'self_graded', /not one of the choices \(allowed exclude, count\)/],
  ['#self_graded=<img src=x onerror=alert(1)>', 'self_graded', /not one of the choices/],
];

test('hostile values: the default stays, a notice names the field, nothing throws', () => {
  for (const [hash, field, reason] of HOSTILE) {
    const r = parseHash(hash);
    const { group, default: dflt } = FIELDS_TABLE[field];
    assert.deepEqual(r[group][field], dflt, hash.slice(0, 60));
    const n = r.notices.find((x) => x.field === field);
    assert.ok(n, `no notice for ${hash.slice(0, 60)}`);
    assert.match(n.reason, reason, hash.slice(0, 60));
    const text = noticeText(n);
    assert.ok(text.length < 200, `notice too long: ${text.length}`);
    assert.doesNotMatch(text, /[\u0000-\u001f]/);
  }
});

test('partly valid lists keep their valid entries and say what was left out', () => {
  const r = parseHash('#arch=pre_ln,<script>,post_ln,pre_ln');
  assert.deepEqual(r.config.arch, ['post_ln', 'pre_ln']);
  assert.equal(r.notices.length, 2, 'what was left out, and pre_ln listed twice');
  assert.match(r.notices[0].reason, /left out/);
  assert.match(r.notices[0].value, /<script>/);
  assert.deepEqual(r.notices[1], { field: 'arch', value: 'pre_ln', reason: REPEATED });
});

test('a list naming an entry twice keeps it once and says so, as the engine refuses such a list', () => {
  let r = parseHash('#arch=pre_ln,pre_ln');
  assert.deepEqual(r.config.arch, ['pre_ln']);
  assert.deepEqual(r.notices, [{ field: 'arch', value: 'pre_ln', reason: REPEATED }]);
  assert.equal(
    noticeText(r.notices[0]),
    'Architectures (arch) \u201cpre_ln\u201d: listed twice (each once); used once',
  );
  // with an entry left out too: a notice for each
  r = parseHash('#arch=plain,<b>,pre_ln,plain,pre_ln');
  assert.deepEqual(r.config.arch, ['plain', 'pre_ln']);
  assert.deepEqual(
    r.notices.map((n) => [n.field, n.value, n.reason.split(' (')[0]]),
    [
      ['arch', '<b>', 'entries left out'],
      ['arch', 'plain,pre_ln', 'listed twice'],
    ],
  );
  assert.deepEqual(readField('arch', 'pre_ln,post_ln'), { ok: true, value: ['post_ln', 'pre_ln'] });
  assert.deepEqual(readField('charts', 'stream,stream'), { ok: true, value: ['stream'], repeated: ['stream'] });
  // the lab's link reads the same
  const lab = trainFromHash('#arch=pre_ln,post_ln,pre_ln');
  assert.deepEqual(lab.config.arch, ['post_ln', 'pre_ln']);
  assert.deepEqual(lab.notices, [{ field: 'arch', value: 'pre_ln', reason: REPEATED }]);
  // the JS API refuses the list; its message is the notice's first words
  assert.throws(
    () => rn.check({ arch: ['pre_ln', 'pre_ln'] }),
    (e) => e.field === 'arch' && e.message.includes("'pre_ln' is listed twice (each once)"),
  );
  assert.ok(REPEATED.startsWith('listed twice (each once)'));
});

test('unknown settings, repeats, too many settings, a huge fragment', () => {
  let r = parseHash('#depth=10&depth=20&bogus=1');
  assert.equal(r.config.depth, 10);
  assert.deepEqual(
    r.notices.map((n) => n.reason),
    ['given more than once; the first one is used', 'unknown setting'],
  );
  r = parseHash(`#${Array.from({ length: 100 }, (_, i) => `k${i}=1`).join('&')}`);
  assert.equal(r.notices.length, LIMITS.entries + 1);
  r = parseHash(`#depth=5&${'a'.repeat(LIMITS.hash)}=1`);
  assert.equal(r.config.depth, 96);
  assert.equal(r.notices.length, 1);
  r = parseHash('#%E0%A4%A=1&depth=%');
  assert.equal(r.config.depth, 96);
  assert.ok(r.notices.length >= 1);
  r = parseHash(`#${BIG}=1`);
  assert.equal(r.notices[0].reason, 'unknown setting');
  assert.ok(r.notices[0].value.length < 60);
});

test('attribute-style entries with an alias, and readField on its own', () => {
  const r = parseEntries(
    [
      ['final-norm', 'rmsnorm'],
      ['depth', '7'],
    ],
    { alias: (k) => k.replace(/-/g, '_') },
  );
  assert.equal(r.config.final_norm, 'rmsnorm');
  assert.deepEqual(r.given, ['final_norm', 'depth']);
  assert.deepEqual(readField('gain', '-0'), { ok: true, value: 0 });
  assert.ok(Object.is(readField('gain', '-0').value, 0));
  assert.deepEqual(readField('controls', 'none'), { ok: true, value: [] });
  assert.equal(readField('depth', 5).ok, false);
});
