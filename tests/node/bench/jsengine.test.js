// The plain-JavaScript engine (bench/js/engine.js) against the native CLI: every
// finite value within 1e-4 relative, non-finite values at the same positions
// (null in the CLI's JSON), the same first_nonfinite.
//   node --test tests/node/bench/jsengine.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { simulate } from '../../../bench/js/engine.js';

const CLI = fileURLToPath(new URL('../../../build/native/resnorm', import.meta.url));
const FIELDS = ['grad_norm', 'stream_rms', 'update_ratio', 'w1_grad_norm', 'w2_grad_norm'];
const TOLERANCE = 1e-4;

function native(config) {
  assert.ok(existsSync(CLI), `${CLI} is missing: build it with \`npm run build\``);
  const args = ['simulate', '--json'];
  for (const [key, value] of Object.entries(config))
    args.push(`--${key.replace(/_/g, '-')}`, Array.isArray(value) ? value.join(',') : String(value));
  return JSON.parse(execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: 64 << 20 }));
}

function relDiff(a, b) {
  if (a === b) return 0;
  return Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b));
}

// Compares the two results; returns the max relative difference over all finite values.
function compare(config) {
  const ref = native(config);
  const js = simulate(config);
  assert.deepEqual(js.config, ref.config, 'config');
  assert.deepEqual(Object.keys(js.results), Object.keys(ref.results), 'archs');
  let worst = 0,
    where = '',
    values = 0,
    nonfinite = 0;
  for (const [arch, r] of Object.entries(ref.results)) {
    const j = js.results[arch];
    assert.equal(j.first_nonfinite, r.first_nonfinite, `${arch}.first_nonfinite`);
    for (const field of FIELDS) {
      const a = r[field],
        b = j[field];
      assert.equal(b.length, a.length, `${arch}.${field} length`);
      for (let i = 0; i < a.length; ++i) {
        if (a[i] === null) {
          assert.ok(!Number.isFinite(b[i]), `${arch}.${field}[${i}]: native non-finite, js ${b[i]}`);
          ++nonfinite;
          continue;
        }
        assert.ok(Number.isFinite(b[i]), `${arch}.${field}[${i}]: native ${a[i]}, js ${b[i]}`);
        const rel = relDiff(a[i], b[i]);
        assert.ok(rel <= TOLERANCE, `${arch}.${field}[${i}]: native ${a[i]}, js ${b[i]} (rel ${rel})`);
        ++values;
        if (rel > worst) {
          worst = rel;
          where = `${arch}.${field}[${i}]`;
        }
      }
    }
  }
  console.log(
    `max rel diff ${worst.toExponential(3)} at ${where || '-'} ` +
      `(${values} finite values, ${nonfinite} non-finite) for ${JSON.stringify(config)}`,
  );
  return { worst, nonfinite, ref };
}

const ALL = ['plain', 'residual', 'post_ln', 'post_rms', 'pre_ln', 'pre_rms', 'sandwich', 'deepnorm', 'gpt2'];

test('default scene (plain, residual, post_ln, pre_ln; L=96, relu)', () => {
  compare({});
});

test('all 9 architectures, depth 12, gelu, layernorm final norm', () => {
  compare({ arch: ALL, depth: 12, activation: 'gelu', final_norm: 'layernorm' });
});

test('orthogonal init, tanh, expansion 2, all architectures', () => {
  compare({ arch: ALL, depth: 24, activation: 'tanh', init: 'orthogonal', expansion: 2 });
});

test('orthogonal init, linear, wide-to-narrow shapes, rmsnorm final norm', () => {
  compare({
    arch: ['plain', 'sandwich', 'deepnorm'],
    depth: 16,
    width: 24,
    expansion: 4,
    activation: 'linear',
    init: 'orthogonal',
    final_norm: 'rmsnorm',
    gain: 0.8,
  });
});

test('odd shapes (d not a multiple of 4), gelu, seed 7', () => {
  compare({
    arch: ALL,
    depth: 20,
    width: 30,
    tokens: 5,
    activation: 'gelu',
    gain: 1.3,
    seed: 7,
    final_norm: 'rmsnorm',
  });
});

test('plain stack at gain 1.5, depth 300: float overflow at the same layer', () => {
  const { nonfinite, ref } = compare({ arch: ['plain'], depth: 300, gain: 1.5 });
  assert.ok(ref.results.plain.first_nonfinite !== null, 'the scene is meant to overflow');
  assert.ok(nonfinite > 0);
});

test('repeatable: the weight bank and workspaces carry nothing between calls', () => {
  const config = { arch: ['pre_ln', 'deepnorm'], depth: 10, width: 16, gain: 1.1 };
  const first = simulate(config);
  simulate({ arch: ['plain', 'gpt2', 'sandwich'], depth: 14, width: 16, gain: 0.3, activation: 'tanh' });
  simulate({ ...config, depth: 4, seed: 3 });
  const again = simulate(config);
  for (const arch of config.arch)
    for (const field of FIELDS) assert.deepEqual(again.results[arch][field], first.results[arch][field], field);
});
