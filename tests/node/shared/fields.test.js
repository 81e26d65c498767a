// The web's config fields, architectures and exported arrays against the engine's
// own: web/src/shared/engine-fields.js is the engine's field table as the
// wasm module reports it, every field of it is a field of the link state (and
// so of the controls and the embeds' attributes) with the engine's kind,
// range, default and choices, archs.js describes exactly the engine's
// architectures, and the exports list exactly the arrays simulate() returns.
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadWasm } from '../helpers.js';
import { ARCHS } from '../../../web/src/shared/archs.js';
import ENGINE_FIELDS from '../../../web/src/shared/engine-fields.js';
import { CONFIG_FIELDS, CONFIG_KEYS, ENGINE_ARCHS, fieldApplies, realText } from '../../../web/src/shared/fields.js';
import {
  FIELDS_TABLE,
  configToHash,
  defaultConfig,
  keysOf,
  parseEntries,
  parseHash,
} from '../../../web/src/shared/state.js';
import { arraysOf, toCsv, toJson } from '../../../web/src/explorer/export/data.js';
import { configLine } from '../../../web/src/explorer/export/menu.js';

let rn;
before(async () => {
  rn = await loadWasm();
});

const small = { depth: 2, width: 16, tokens: 2 };
const accepted = (config) => {
  try {
    rn.simulate({ ...small, ...config });
    return null;
  } catch (e) {
    return e.field ?? e.message;
  }
};

test('engine-fields.js is the engine\u2019s field table (node web/build/engine-fields.js rewrites it)', () => {
  assert.deepEqual(ENGINE_FIELDS, rn.fields);
});

test('the link state has exactly the engine\u2019s config fields, with its kinds, ranges, defaults and choices', () => {
  assert.deepEqual([...CONFIG_KEYS].sort(), rn.fields.map((f) => f.name).sort());
  assert.deepEqual(keysOf('config').sort(), [...CONFIG_KEYS].sort());
  assert.deepEqual(defaultConfig(), { ...rn.defaults });
  for (const f of rn.fields) {
    const w = FIELDS_TABLE[f.name];
    assert.equal(w.group, 'config', f.name);
    assert.equal(w.help, f.help, f.name);
    assert.ok(typeof w.label === 'string' && w.label.length > 0, f.name);
    if (f.kind === 'choice_list') {
      assert.equal(w.kind, 'choice_list', f.name);
      assert.deepEqual(w.choices, f.choices, f.name);
    } else if (f.kind === 'choice') {
      assert.equal(w.kind, 'choice', f.name);
      assert.deepEqual(w.choices.map(String), f.choices, f.name);
    } else if (w.kind === 'choice') {
      // an integer range whose allowed values are a list ("1, 2 or 4"): each
      // listed value is accepted, every other integer of the range refused
      assert.equal(f.kind, 'integer', f.name);
      const extra = f.name === 'heads' ? { block: 'transformer', width: 64 } : {};
      for (let v = f.min; v <= f.max; v++) {
        const refused = accepted({ ...extra, [f.name]: v });
        if (w.choices.includes(v)) assert.equal(refused, null, `${f.name}=${v} should be accepted`);
        else assert.equal(refused, f.name, `${f.name}=${v} should be refused`);
      }
      assert.ok(w.choices.includes(w.default), f.name);
    } else {
      assert.equal(w.kind, f.kind, f.name);
      assert.equal(w.min, f.min, f.name);
      assert.equal(w.max, f.max, f.name);
    }
  }
});

test('expansion: the web offers 1, 2 and 4; the engine accepts each and refuses 3', () => {
  assert.deepEqual(CONFIG_FIELDS.expansion.choices, [1, 2, 4]);
  for (const e of [1, 2, 4]) assert.equal(accepted({ expansion: e }), null, `expansion ${e}`);
  assert.equal(accepted({ expansion: 3 }), 'expansion');
  assert.equal(parseHash('#expansion=3').config.expansion, 1);
});

test('every choice the web offers is one the engine runs', () => {
  for (const [name, w] of Object.entries(CONFIG_FIELDS)) {
    if (w.kind !== 'choice') continue;
    const extra = name === 'heads' ? { block: 'transformer', width: 64 } : {};
    for (const ch of w.choices) assert.equal(accepted({ ...extra, [name]: ch }), null, `${name}=${ch}`);
  }
});

test('archs.js describes exactly the engine\u2019s architectures', () => {
  const engine = rn.fields.find((f) => f.name === 'arch').choices;
  assert.deepEqual(ENGINE_ARCHS, engine);
  assert.deepEqual(ARCHS.map((a) => a.key).sort(), [...engine].sort());
  for (const a of ARCHS) {
    assert.ok(a.label && a.block && Array.isArray(a.dash), a.key);
    assert.ok(['article', 'more'].includes(a.group), a.key);
  }
});

test('every architecture has a colour in theme.css (both themes share or override it) and a line sample rule in view.css', () => {
  const css = (f) => readFileSync(new URL(`../../../web/src/shared/${f}`, import.meta.url), 'utf8');
  const theme = css('theme.css');
  const view = css('view.css');
  for (const arch of ENGINE_ARCHS) {
    assert.match(theme, new RegExp(`--arch-${arch}: #[0-9a-f]{6};`), `theme.css --arch-${arch}`);
    assert.ok(view.includes(`.swatch-${arch} line {\n  stroke: var(--arch-${arch});`), `view.css .swatch-${arch}`);
  }
});

test('every architecture, and block, heads, causal, round-trip through a link and through attributes', () => {
  for (const arch of ENGINE_ARCHS) {
    const hash = configToHash({ ...defaultConfig(), arch: [arch] });
    const back = parseHash(hash, { groups: ['config'] });
    assert.deepEqual(back.notices, [], hash);
    assert.deepEqual(back.config.arch, [arch], hash);
    assert.equal(accepted({ arch: [arch] }), null, arch);
  }
  const config = { ...defaultConfig(), block: 'transformer', heads: 2, causal: false };
  const hash = configToHash(config);
  assert.equal(hash, '#block=transformer&heads=2&causal=false');
  assert.deepEqual(parseHash(hash).config, config);
  const attrs = parseEntries(
    [
      ['block', 'transformer'],
      ['heads', '2'],
      ['causal', 'false'],
      ['arch', 'admin,pre_ln'],
    ],
    { groups: ['config', 'view'], alias: (k) => k.replaceAll('-', '_') },
  );
  assert.deepEqual(attrs.notices, []);
  assert.deepEqual(attrs.config, { ...config, arch: ['pre_ln', 'admin'] });
  assert.equal(rn.simulate({ ...attrs.config, ...small }).config.causal, false);
});

test('the exports carry every array simulate() returns, for MLP and transformer blocks', () => {
  const run = (block) => rn.simulate({ ...small, block, heads: 2, arch: ['pre_ln', 'admin'] });
  const arrays = (out) => Object.keys(out.results.pre_ln).filter((k) => ArrayBuffer.isView(out.results.pre_ln[k]));
  const mlp = arrays(run('mlp'));
  const transformer = arrays(run('transformer'));
  // attention's own arrays exist for transformer blocks only
  const attention = transformer.filter((k) => !mlp.includes(k));
  assert.ok(attention.includes('attn_update_ratio') && attention.includes('wq_grad_norm'), `${attention}`);
  for (const [block, engineArrays] of [
    ['mlp', mlp],
    ['transformer', transformer],
  ]) {
    const out = run(block);
    assert.deepEqual(arraysOf(out.results.pre_ln), engineArrays, block);
    const csvHead = toCsv(out)
      .split('\n')
      .find((l) => l.startsWith('layer,'))
      .split(',');
    const json = JSON.parse(toJson(out));
    for (const arch of Object.keys(out.results)) {
      for (const k of engineArrays) {
        assert.ok(csvHead.includes(`${arch}.${k}`), `${block}: CSV ${arch}.${k}`);
        assert.deepEqual(json.results[arch][k], Array.from(out.results[arch][k]), `${block}: JSON ${arch}.${k}`);
      }
      for (const k of attention) assert.equal(csvHead.includes(`${arch}.${k}`), block === 'transformer', k);
    }
  }
});

test('Mix-LN\u2019s share: a model field of mix_ln, through links, attributes, the engine and the exports', () => {
  const c = CONFIG_FIELDS.mix_fraction;
  assert.equal(c.label, 'Mix-LN Post-LN share');
  assert.equal(c.section, 'model');
  assert.deepEqual(c.archs, ['mix_ln']);
  assert.deepEqual([c.kind, c.min, c.max, c.default], ['real', 0, 1, 0.25]);
  assert.ok(fieldApplies(c, { arch: ['mix_ln'] }));
  assert.ok(!fieldApplies(c, defaultConfig()));
  const config = { ...defaultConfig(), arch: ['pre_ln', 'mix_ln'], mix_fraction: 0.5 };
  const hash = configToHash(config);
  assert.equal(hash, '#arch=pre_ln,mix_ln&mix_fraction=0.5');
  assert.deepEqual(parseHash(hash).config, config);
  const attrs = parseEntries(
    [
      ['arch', 'mix_ln'],
      ['mix-fraction', '1'],
      ['lock', 'mix_fraction'],
      ['controls', 'arch,mix_fraction'],
    ],
    { groups: ['config', 'view'], alias: (k) => k.replaceAll('-', '_') },
  );
  assert.deepEqual(attrs.notices, []);
  assert.equal(attrs.config.mix_fraction, 1);
  assert.deepEqual(attrs.view.lock, ['mix_fraction']);
  assert.deepEqual(attrs.view.controls, ['arch', 'mix_fraction']);
  // the engine takes the ends of the range and refuses what is past them, naming the field
  for (const v of [0, 1]) assert.equal(accepted({ arch: ['mix_ln'], mix_fraction: v }), null, `${v}`);
  for (const v of [-0.01, 1.01, NaN]) assert.equal(accepted({ arch: ['mix_ln'], mix_fraction: v }), 'mix_fraction');
  // the exports: the config lists it (CSV, JSON); the images' caption names it where mix_ln is drawn
  const out = rn.simulate({ ...small, arch: ['pre_ln', 'mix_ln'], mix_fraction: 0.5 });
  assert.ok(toCsv(out).split('\n').includes('# mix_fraction,0.5'));
  assert.equal(JSON.parse(toJson(out)).config.mix_fraction, 0.5);
  assert.match(configLine(out.config), / \u00b7 Mix-LN Post-LN share 0\.5$/);
  assert.doesNotMatch(configLine(rn.simulate({ ...small, arch: ['pre_ln'] }).config), /Mix-LN/);
});

test('DyT\u2019s alpha_0: a model field of dyt, through links, the engine and the exports', () => {
  const c = CONFIG_FIELDS.dyt_alpha;
  assert.equal(c.label, 'DyT \u03b1\u2080');
  assert.equal(c.section, 'model');
  assert.deepEqual(c.archs, ['dyt']);
  assert.deepEqual([c.kind, c.min, c.max, c.default], ['real', 0.01, 10, 0.5]);
  assert.ok(fieldApplies(c, { arch: ['dyt'] }));
  assert.ok(!fieldApplies(c, defaultConfig()));
  const config = { ...defaultConfig(), arch: ['pre_ln', 'dyt'], dyt_alpha: 0.8 };
  const hash = configToHash(config);
  assert.equal(hash, '#arch=pre_ln,dyt&dyt_alpha=0.8');
  assert.deepEqual(parseHash(hash).config, config);
  for (const v of [0.01, 10]) assert.equal(accepted({ arch: ['dyt'], dyt_alpha: v }), null, `${v}`);
  for (const v of [0, 10.5, NaN]) assert.equal(accepted({ arch: ['dyt'], dyt_alpha: v }), 'dyt_alpha');
  // alpha_0 changes the numbers: a smaller one shrinks every branch's input at init
  const at = (a) => rn.simulate({ ...small, arch: ['dyt'], dyt_alpha: a }).results.dyt.update_ratio[0];
  assert.ok(at(0.1) < at(1), `${at(0.1)} < ${at(1)}`);
  const out = rn.simulate({ ...small, arch: ['pre_ln', 'dyt'], dyt_alpha: 0.8 });
  assert.equal(JSON.parse(toJson(out)).config.dyt_alpha, 0.8);
  assert.match(configLine(out.config), / \u00b7 DyT \u03b1\u2080 0\.8$/);
  assert.doesNotMatch(configLine(rn.simulate({ ...small, arch: ['pre_ln'] }).config), /DyT/);
});

test('a real field reads with its digits, or in full where they would round the value', () => {
  assert.equal(realText({ digits: 2 }, 1), '1.00');
  assert.equal(realText({}, 0.25), '0.25');
  assert.equal(realText({}, 0.125), '0.125');
  assert.equal(realText({ digits: 1 }, 0.05), '0.05');
  assert.equal(Number(realText({}, 1 / 3)), 1 / 3);
});

test('QK-norm: a model field of transformer blocks, through links, the engine and the exports', () => {
  const c = CONFIG_FIELDS.qk_norm;
  assert.equal(c.label, 'QK-norm');
  assert.equal(c.section, 'model');
  assert.deepEqual([c.kind, c.choices, c.default], ['choice', ['none', 'layernorm'], 'none']);
  const config = { ...defaultConfig(), block: 'transformer', qk_norm: 'layernorm' };
  const hash = configToHash(config);
  assert.equal(hash, '#block=transformer&qk_norm=layernorm');
  assert.deepEqual(parseHash(hash).config, config);
  const tf = { block: 'transformer', heads: 2, arch: ['pre_ln'] };
  assert.equal(accepted({ ...tf, qk_norm: 'layernorm' }), null);
  assert.equal(accepted({ ...tf, qk_norm: 'rmsnorm' }), 'qk_norm');
  // MLP blocks ignore it: the same numbers as without it, and their caption line does not name it
  const mlp = (q) => rn.simulate({ ...small, arch: ['pre_ln'], qk_norm: q });
  assert.deepEqual(mlp('layernorm').results, mlp('none').results);
  assert.doesNotMatch(configLine(mlp('layernorm').config), /QK-norm/);
  // transformer blocks: the normed queries and keys change the attention, so the gradients
  const on = rn.simulate({ ...small, ...tf, qk_norm: 'layernorm' });
  const off = rn.simulate({ ...small, ...tf });
  assert.notDeepEqual(on.results.pre_ln.wq_grad_norm, off.results.pre_ln.wq_grad_norm);
  assert.equal(JSON.parse(toJson(on)).config.qk_norm, 'layernorm');
  assert.match(configLine(on.config), /transformer, 2 heads, causal, QK-norm/);
  assert.doesNotMatch(configLine(off.config), /QK-norm/);
});
