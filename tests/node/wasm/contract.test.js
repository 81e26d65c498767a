// The JS API's contract: every wrong type or value throws an EngineError, a
// TypeError or a RangeError whose .field names the field and whose .code says
// which (never an internal message such as "x.map is not a function"), the
// config that ran is echoed in canonical form, and after any error the module
// computes bit-identical results.
import test from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../../../wasm/resnorm.js';
import { loadWasm } from '../helpers.js';

const rn = await loadWasm();
const SMALL = { depth: 6, width: 8, tokens: 3, arch: ['post_ln', 'pre_ln'], gain: 1.1 };
const reference = JSON.stringify(rn.simulate(SMALL), replacer);

function replacer(_key, v) {
  return ArrayBuffer.isView(v) ? Array.from(v, (x) => (Number.isFinite(x) ? x : String(x))) : v;
}

// A label for any value, even one String() cannot convert.
const label = (v) => {
  try {
    return label(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
};
const shown = (field) => field.replace(/[^\x20-\x7e]/g, '?');

const INTERNAL =
  /is not a function|is not iterable|Cannot convert|undefined is not|null is not|Cannot read|BindingError/;

/** fn() throws a TypeError or RangeError naming `field`; then the module still gives the reference numbers. */
function refused(fn, field, what) {
  let caught = null;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught, `${what}: no error`);
  assert.ok(caught instanceof TypeError || caught instanceof RangeError, `${what}: ${caught} is not a Type/RangeError`);
  assert.ok(caught instanceof EngineError, `${what}: ${caught} is not an EngineError`);
  assert.equal(caught.code, codeOf(caught), `${what}: .code`);
  assert.equal(caught.field, field, `${what}: .field ${caught.field}, message ${caught.message}`);
  assert.ok(caught.message.startsWith(`${shown(field)}: `), `${what}: message ${caught.message}`);
  assert.doesNotMatch(caught.message, INTERNAL, what);
  assert.equal(JSON.stringify(rn.simulate(SMALL), replacer), reference, `${what}: module changed`);
  return caught;
}

// The code an error's kind and .max call for.
const codeOf = (e) => (e instanceof TypeError ? 'type' : Number.isFinite(e.max) ? 'budget' : 'range');

const HOSTILE = [
  null,
  {},
  [],
  [1],
  true,
  Object.create(null),
  () => 1,
  1n,
  Symbol('s'),
  '0x10',
  ' 4',
  '4 ',
  '+2',
  '',
  '1e',
  'Infinity',
  NaN,
  Infinity,
  -Infinity,
  -1,
  1.5,
  2 ** 32 + 2,
  1e308,
  { valueOf: () => 4 },
  new Float64Array(2),
];

test('every field refuses every wrong value by name, and the module keeps its numbers', () => {
  let cases = 0;
  for (const f of rn.fields) {
    for (const v of HOSTILE) {
      let ok = true;
      try {
        rn.simulate({ ...SMALL, [f.name]: v });
      } catch (e) {
        ok = false;
        assert.ok(e instanceof TypeError || e instanceof RangeError, `${f.name}=${label(v)}: ${e}`);
        assert.ok(e instanceof EngineError && e.code === codeOf(e), `${f.name}=${label(v)}: ${e} (${e.code})`);
        assert.equal(e.field, f.name, `${f.name}=${label(v)}: ${e.message}`);
        assert.doesNotMatch(e.message, INTERNAL);
        cases++;
      }
      // What is accepted must be a canonical value of the right type.
      if (ok) {
        const cfg = rn.simulate({ ...SMALL, [f.name]: v }).config;
        const t =
          f.kind === 'choice_list'
            ? 'object'
            : f.kind === 'choice'
              ? f.name === 'causal'
                ? 'boolean'
                : 'string'
              : 'number';
        assert.equal(typeof cfg[f.name], t, `${f.name}=${label(v)} echoed as ${cfg[f.name]}`);
      }
    }
  }
  assert.ok(cases > rn.fields.length * 15, `${cases} refusals`);
  assert.equal(JSON.stringify(rn.simulate(SMALL), replacer), reference);
});

test('unknown fields are refused, including the names every object inherits', () => {
  for (const key of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', 'colour', 'de\npth']) {
    const config = JSON.parse(`{${JSON.stringify(key)}: 1}`);
    const e = refused(() => rn.simulate(config), key, key);
    assert.ok(e.message.includes('unknown field'));
    assert.doesNotMatch(e.message, /\n/);
  }
  refused(() => rn.simulate([]), 'config', 'an array as config');
  refused(() => rn.simulate(null), 'config', 'null as config');
  refused(() => rn.simulate('depth=4'), 'config', 'a string as config');
});

test('the config that ran is echoed in canonical form', () => {
  const out = rn.simulate({ ...SMALL, depth: '4', gain: '1.25e0', arch: 'pre_ln,post_ln', causal: 'false' });
  assert.equal(out.config.depth, 4);
  assert.equal(out.config.gain, 1.25);
  assert.deepEqual(out.config.arch, ['pre_ln', 'post_ln']);
  assert.equal(out.config.causal, false);
  assert.equal(out.results.pre_ln.grad_norm.length, 5);
  refused(() => rn.simulate({ depth: '0x10' }), 'depth', "'0x10'");
});

test('arch: a list of names, each once, at most one per architecture', () => {
  refused(() => rn.simulate({ arch: Array(5000).fill('pre_ln') }), 'arch', '5000 entries');
  refused(() => rn.simulate({ arch: ['pre_ln', 'pre_ln'] }), 'arch', 'a duplicate');
  refused(() => rn.simulate({ arch: ['pre_ln', 3] }), 'arch', 'a number in the list');
  refused(() => rn.simulate({ activation: ['relu'] }), 'activation', 'an array for a choice');
});

test('normToken: kind and arrays checked by name, overflowing statistics refused', () => {
  refused(() => rn.normToken('layernorm', 'abc'), 'x', 'a string for x');
  refused(() => rn.normToken('layernorm', { length: 2 }), 'x', 'an array-like object');
  refused(() => rn.normToken('layernorm', [1, 'a']), 'x', 'a string entry');
  refused(() => rn.normToken(7, [1, 2]), 'kind', 'a number for kind');
  refused(() => rn.normToken('batchnorm', [1, 2]), 'kind', 'an unknown kind');
  refused(() => rn.normToken('layernorm', [1, 2], [1]), 'gamma', 'a short gamma');
  refused(() => rn.normToken('layernorm', new Float64Array(5000)), 'x', 'too many features');
  refused(() => rn.normToken('layernorm', [1e308, -1e308]), 'x', 'overflowing variance');
  refused(() => rn.normToken('layernorm', [NaN, 1]), 'x', 'NaN');
  const ok = rn.normToken('layernorm', new Float64Array([1, 3]));
  assert.equal(ok.mean, 2);
});

test('batchVsLayerNorm: whole numbers by name, no truncation, lists of numbers', () => {
  const base = { x: [1, 2, 3, 4], batch: 2, length: 2, width: 1, lengths: [2, 1] };
  assert.equal(rn.batchVsLayerNorm(base).batchnorm.length, 4);
  refused(() => rn.batchVsLayerNorm({}), 'batch', 'nothing');
  refused(() => rn.batchVsLayerNorm(), 'options', 'no options');
  refused(() => rn.batchVsLayerNorm({ ...base, batch: 2.5 }), 'batch', 'batch 2.5');
  refused(() => rn.batchVsLayerNorm({ ...base, batch: 2 ** 32 + 2 }), 'batch', 'batch 2^32+2');
  const nan = refused(() => rn.batchVsLayerNorm({ ...base, batch: NaN }), 'batch', 'batch NaN');
  assert.match(nan.message, /nan is not a finite number/);
  refused(() => rn.batchVsLayerNorm({ ...base, lengths: ['x', 1] }), 'lengths', "lengths ['x', 1]");
  refused(() => rn.batchVsLayerNorm({ ...base, lengths: [1.5, 1] }), 'lengths', 'a fractional length');
  refused(() => rn.batchVsLayerNorm({ ...base, x: 'abcd' }), 'x', 'a string for x');
  refused(() => rn.batchVsLayerNorm({ ...base, x: [1e308, -1e308, 1, 1] }), 'x', 'overflow');
  refused(() => rn.batchVsLayerNorm({ ...base, countPadding: 'yes' }), 'countPadding', 'a string flag');
});

test('pathGradients: samples and path_seed by name', () => {
  refused(() => rn.pathGradients({ depth: 4, samples: '0x10' }), 'samples', "'0x10'");
  refused(() => rn.pathGradients({ depth: 4, samples: [] }), 'samples', 'an array');
  refused(() => rn.pathGradients({ depth: 4, path_seed: -1 }), 'path_seed', 'a negative seed');
  refused(() => rn.pathGradients({ depth: 512, arch: 'plain', samples: 4096 }), 'samples', 'over the work budget');
  refused(() => rn.pathGradients(null), 'options', 'null');
});

test('configs over the memory budget are refused up front, and the next small call works', () => {
  const before = rn._module.HEAP8.buffer.byteLength;
  const all = rn.fields.find((f) => f.name === 'arch').choices;
  const configs = [
    { arch: ['plain', 'residual', 'post_ln', 'pre_ln'], depth: 1024, width: 128, expansion: 2, tokens: 64 },
    { arch: all, depth: 1024, width: 64, tokens: 64 },
    { arch: all, depth: 512, width: 128, expansion: 2, tokens: 64 },
    { arch: all, depth: 1024, width: 8, tokens: 64, expansion: 4, block: 'transformer', heads: 8 },
    { depth: 32, width: 512, expansion: 4, init: 'orthogonal', arch: ['pre_ln'] },
  ];
  const refusals = configs.map((config) => {
    const e = refused(() => rn.simulate(config), 'depth', JSON.stringify(config));
    assert.match(e.message, /needs .* \(allowed 1\.\.\d+ with the other settings\)/);
    assert.equal(e.max, Number(/allowed 1\.\.(\d+)/.exec(e.message)[1]));
    return e;
  });
  // Refused before anything was allocated: the heap did not grow.
  assert.equal(rn._module.HEAP8.buffer.byteLength, before);
  // .max is the largest depth that fits: it runs, one more does not.
  configs.forEach((config, i) => {
    const max = refusals[i].max;
    assert.ok(rn.simulate({ ...config, depth: max }).results);
    assert.throws(
      () => rn.simulate({ ...config, depth: max + 1 }),
      (x) => x.field === 'depth' && x.max === max,
    );
  });
});

test('if a C++ exception ever reached the wrapper, it becomes a named Error and the engine is reset', () => {
  const sim = rn._sim;
  const run = sim.run;
  sim.run = () => {
    throw 5251912; // what an uncaught C++ exception looks like from JS
  };
  try {
    assert.throws(
      () => rn.simulate(SMALL),
      (e) => e instanceof Error && e.field === 'config' && /reset/.test(e.message),
    );
  } finally {
    sim.run = run;
  }
  assert.notEqual(rn._sim, sim);
  assert.equal(JSON.stringify(rn.simulate(SMALL), replacer), reference);
});

test('the weight cap refuses like a budget: .max is the deepest stack under it', () => {
  const config = { depth: 1024, width: 512, expansion: 4 };
  const e = refused(() => rn.simulate(config), 'depth', 'over the weight cap');
  assert.equal(e.max, 32);
  assert.throws(
    () => rn.simulate({ ...config, depth: 33 }),
    (x) => x.field === 'depth' && x.max === 32,
  );
});
