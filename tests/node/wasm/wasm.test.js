// The WebAssembly engine under Node: parity with the native CLI, errors as
// RangeErrors, and the properties of the shipped binary (SIMD, no eval).
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ROOT, WASM, cli, loadWasm } from '../helpers.js';

const rn = await loadWasm();

// Max relative difference between the CLI's JSON (null = non-finite) and the
// wasm arrays; asserts that non-finite values sit at the same places.
function compare(config) {
  const native = cli(config);
  const wasm = rn.simulate(config);
  assert.deepEqual(Object.keys(wasm.results), Object.keys(native.results));
  let worst = 0,
    finite = 0,
    nonfinite = 0;
  for (const [arch, n] of Object.entries(native.results)) {
    const w = wasm.results[arch];
    assert.equal(w.first_nonfinite, n.first_nonfinite, `${arch} first_nonfinite`);
    const fields = Object.keys(n).filter((k) => k !== 'first_nonfinite');
    assert.deepEqual(
      Object.keys(w).filter((k) => k !== 'first_nonfinite'),
      fields,
      `${arch} arrays`,
    );
    for (const f of fields) {
      assert.equal(w[f].length, n[f].length, `${arch}.${f} length`);
      n[f].forEach((v, i) => {
        if (v === null) {
          assert.ok(!Number.isFinite(w[f][i]), `${arch}.${f}[${i}]: native non-finite, wasm ${w[f][i]}`);
          nonfinite++;
          return;
        }
        const rel = Math.abs(w[f][i] - v) / Math.max(Math.abs(v), 1e-300);
        worst = Math.max(worst, rel);
        finite++;
        assert.ok(rel < 1e-4, `${arch}.${f}[${i}]: native ${v} wasm ${w[f][i]} (rel ${rel})`);
      });
    }
  }
  return { worst, finite, nonfinite };
}

const CONFIGS = {
  'default four archs': {},
  'all architectures, gelu, final layernorm': {
    arch: ['plain', 'residual', 'post_ln', 'post_rms', 'pre_ln', 'pre_rms', 'sandwich', 'deepnorm', 'gpt2'],
    depth: 12,
    activation: 'gelu',
    final_norm: 'layernorm',
    seed: 3,
  },
  'orthogonal tanh, e = 2, final rmsnorm': {
    arch: ['plain', 'pre_rms', 'sandwich'],
    depth: 40,
    width: 32,
    tokens: 5,
    expansion: 2,
    activation: 'tanh',
    init: 'orthogonal',
    final_norm: 'rmsnorm',
    gain: 0.9,
    seed: 7,
  },
  'overflow: plain and residual at gain 1.5, depth 400': {
    arch: ['plain', 'residual', 'post_ln'],
    depth: 400,
    gain: 1.5,
    seed: 1,
  },
  'DeepNet at 1000 layers': { arch: ['deepnorm', 'post_ln'], depth: 1000 },
  'transformer blocks, 4 heads, causal, with Admin': {
    arch: ['plain', 'residual', 'post_ln', 'pre_ln', 'admin', 'gpt2', 'deepnorm'],
    block: 'transformer',
    depth: 24,
    tokens: 16,
    heads: 4,
  },
  'ReZero, LayerScale, LNS, Mix-LN, DenseFormer: MLP blocks, gelu, final layernorm': {
    arch: ['rezero', 'layerscale', 'lns', 'mix_ln', 'dwa', 'pre_ln'],
    depth: 32,
    activation: 'gelu',
    final_norm: 'layernorm',
    seed: 4,
  },
  'ReZero, LayerScale, LNS, Mix-LN, DenseFormer: transformer blocks': {
    arch: ['rezero', 'layerscale', 'lns', 'mix_ln', 'dwa'],
    block: 'transformer',
    depth: 20,
    tokens: 8,
    heads: 4,
  },
  'Mix-LN at mix_fraction 0.5 (half the blocks Post-LN): MLP blocks, gelu': {
    arch: ['post_ln', 'pre_ln', 'mix_ln'],
    depth: 24,
    activation: 'gelu',
    mix_fraction: 0.5,
    seed: 2,
  },
  'Mix-LN at mix_fraction 0.5: transformer blocks': {
    arch: ['mix_ln', 'pre_ln'],
    block: 'transformer',
    depth: 12,
    tokens: 8,
    heads: 4,
    mix_fraction: 0.5,
  },
  'Mix-LN at mix_fraction 1 (every block Post-LN)': { arch: ['mix_ln'], depth: 16, mix_fraction: 1 },
  'Mix-LN at mix_fraction 0 (every block Pre-LN)': { arch: ['mix_ln'], depth: 16, mix_fraction: 0 },
  'transformer blocks, 2 heads, no mask, gelu': {
    arch: ['pre_rms', 'sandwich', 'post_rms'],
    block: 'transformer',
    depth: 10,
    width: 32,
    tokens: 6,
    heads: 2,
    causal: false,
    activation: 'gelu',
    final_norm: 'layernorm',
  },
  "QK-norm: transformer blocks, LayerNorm on every head's queries and keys": {
    arch: ['post_ln', 'pre_ln', 'dyt'],
    block: 'transformer',
    qk_norm: 'layernorm',
    depth: 10,
    width: 32,
    tokens: 6,
    heads: 2,
  },
  'Hyper-Connections and mHC, n = 3 streams, 5 Sinkhorn iterations': {
    arch: ['pre_ln', 'hyper', 'mhc'],
    depth: 12,
    hc_streams: 3,
    sinkhorn_iters: 5,
    final_norm: 'layernorm',
  },
  'Hyper-Connections and mHC: transformer blocks, n = 4': {
    arch: ['hyper', 'mhc'],
    block: 'transformer',
    depth: 6,
    width: 32,
    tokens: 6,
    heads: 2,
  },
  'HybridNorm: transformer blocks, QKV-norm in attention and the FFN LN(h) + f(LN(h))': {
    arch: ['post_ln', 'pre_ln', 'hybrid'],
    block: 'transformer',
    depth: 10,
    width: 32,
    tokens: 6,
    heads: 4,
    final_norm: 'layernorm',
  },
  'HybridNorm: MLP blocks, the FFN rule in every block': { arch: ['hybrid', 'post_ln'], depth: 24, gain: 1.2 },
  'nGPT: transformer blocks, queries and keys on the sphere, every unit Norm(h + alpha (Norm(f(h)) - h))': {
    arch: ['pre_ln', 'ngpt'],
    block: 'transformer',
    depth: 10,
    width: 32,
    tokens: 6,
    heads: 4,
    ngpt_alpha: 0.2,
  },
  'nGPT: MLP blocks, s_v on the activation input': { arch: ['ngpt', 'pre_ln'], depth: 24, activation: 'gelu' },
  'Block AttnRes: MLP blocks, 24 units in 5 blocks': { arch: ['attn_res', 'pre_rms'], depth: 24, attn_res_blocks: 5 },
  'Block AttnRes: transformer blocks, 20 units in 3 blocks': {
    arch: ['attn_res'],
    block: 'transformer',
    depth: 10,
    width: 32,
    tokens: 6,
    heads: 4,
    attn_res_blocks: 3,
  },
};

for (const [name, config] of Object.entries(CONFIGS)) {
  test(`wasm equals the native CLI to 1e-4: ${name}`, () => {
    const { worst, finite, nonfinite } = compare(config);
    console.log(
      `  ${name}: ${finite} finite values, max relative difference ${worst.toExponential(2)}; ${nonfinite} non-finite at matching places`,
    );
    if (name.startsWith('overflow')) assert.ok(nonfinite > 0, 'the overflow config must overflow');
  });
}

test('a bad config throws a RangeError naming field, value and range; the module stays usable', () => {
  const cases = [
    [{ depth: 0 }, 'depth', 'depth: 0 is out of range (allowed 1..1024)'],
    [{ depth: 1.5 }, 'depth', 'is not a whole number'],
    [{ width: 100000 }, 'width', 'allowed 2..512'],
    [{ gain: NaN }, 'gain', 'is not a finite number (allowed 0..4)'],
    [{ gain: '1.2x' }, 'gain', 'is not a finite number'],
    [{ arch: ['pre_ln', 'nope'] }, 'arch', "'nope' is not a known architecture"],
    [{ arch: [] }, 'arch', 'missing value'],
    [{ activation: 'softmax' }, 'activation', 'allowed relu|gelu|tanh|linear'],
    [{ depth: 1024, width: 512, expansion: 4 }, 'depth', 'allowed 1..32'],
    [{ colour: 'red' }, 'colour', 'unknown field'],
    [{ mix_fraction: 2 }, 'mix_fraction', 'mix_fraction: 2 is out of range (allowed 0..1)'],
    [{ mix_fraction: -1 }, 'mix_fraction', 'mix_fraction: -1 is out of range (allowed 0..1)'],
    [{ mix_fraction: NaN }, 'mix_fraction', 'mix_fraction: nan is not a finite number (allowed 0..1)'],
    [{ mix_fraction: 'half' }, 'mix_fraction', 'is not a finite number written in decimal (allowed 0..1)'],
  ];
  for (const [config, field, text] of cases) {
    assert.throws(
      () => rn.simulate(config),
      (e) => {
        assert.ok(e instanceof RangeError, `${JSON.stringify(config)}: ${e}`);
        assert.equal(e.field, field);
        assert.ok(e.message.includes(text), `${e.message} should include ${text}`);
        return true;
      },
    );
    assert.equal(rn.simulate({ depth: 4 }).results.pre_ln.grad_norm.length, 5);
  }
});

test('mix_fraction reaches the engine: mix_ln is pre_ln at 0, post_ln at 1, and between them at 0.5', () => {
  const run = (mix_fraction) => rn.simulate({ arch: ['post_ln', 'pre_ln', 'mix_ln'], depth: 16, mix_fraction });
  const same = (a, b) => ['grad_norm', 'stream_rms', 'update_ratio'].every((k) => a[k].every((v, i) => v === b[k][i]));
  const none = run(0);
  assert.ok(same(none.results.mix_ln, none.results.pre_ln));
  assert.ok(!same(none.results.mix_ln, none.results.post_ln));
  const all = run(1);
  assert.ok(same(all.results.mix_ln, all.results.post_ln));
  const half = run(0.5);
  assert.equal(half.config.mix_fraction, 0.5);
  assert.equal(rn.defaults.mix_fraction, 0.25);
  assert.equal(rn.simulate({ arch: ['mix_ln'], depth: 4 }).config.mix_fraction, 0.25, 'unset: the default');
  // blocks 1..8 of 16 are Post-LN: the stream up to h_8 is post_ln's, not above it
  const { mix_ln: m, post_ln: p } = half.results;
  for (let l = 0; l <= 8; l++) assert.equal(m.stream_rms[l], p.stream_rms[l], `h_${l}`);
  for (let l = 9; l <= 16; l++) assert.notEqual(m.stream_rms[l], p.stream_rms[l], `h_${l}`);
  assert.ok(!same(half.results.mix_ln, half.results.pre_ln));
});

test('results are plain copies: a later call does not change earlier arrays', () => {
  const a = rn.simulate({ depth: 20, gain: 1.2 });
  const before = Array.from(a.results.plain.grad_norm);
  rn.simulate({ depth: 100, width: 256, expansion: 4, arch: ['pre_ln'] }); // grows the heap
  assert.deepEqual(Array.from(a.results.plain.grad_norm), before);
  assert.equal(a.results.plain.grad_norm.buffer.byteLength, 21 * 8);
});

test('the field table in JS is the core table: same ranges and defaults', () => {
  assert.deepEqual(rn.defaults.arch, ['plain', 'residual', 'post_ln', 'pre_ln']);
  assert.equal(rn.defaults.depth, 96);
  const depth = rn.fields.find((f) => f.name === 'depth');
  assert.equal(depth.allowed, '1..1024');
});

test('the shipped wasm runs its hot loops as 128-bit SIMD', () => {
  const symbols = Object.fromEntries(
    readFileSync(`${ROOT}wasm/dist/resnorm_wasm.js.symbols`, 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const i = line.indexOf(':');
        return [line.slice(i + 1), Number(line.slice(0, i))];
      }),
  );
  const disasm = execFileSync('wasm-objdump', ['-d', WASM], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const bodies = new Map();
  let current = null;
  for (const line of disasm.split('\n')) {
    const m = /func\[(\d+)\]/.exec(line);
    if (m && /^[0-9a-f]+ func\[/.test(line)) {
      current = Number(m[1]);
      bodies.set(current, []);
      continue;
    }
    if (current !== null) bodies.get(current).push(line);
  }
  // The products: gemm_nn (forward) and gemm_nt (backward and Gram). clang
  // decides how far it inlines gemm_nt's tiles, so its innermost function
  // that still stands alone is the one checked: the 2 x 4 tile, else the
  // two-row loop, else gemm_nt itself.
  const named = (pattern) =>
    Object.entries(symbols).find(([name]) => pattern.test(name.replace(/\\20/g, ' ').replace(/\\2c/g, ',')));
  const hot = [
    named(/resnorm::kernels::gemm_nn<float>/),
    named(/resnorm::kernels::nt_tile<float, 2, 4>/) ||
      named(/resnorm::kernels::nt_row<float, 2>/) ||
      named(/resnorm::kernels::gemm_nt<float>/),
  ];
  assert.ok(hot.every(Boolean), 'product kernels not found in the symbol map');
  // The norms: LayerNorm's backward and forward, and RMSNorm's forward. A
  // forward kernel is inlined into Norm<float>::forward unless something else
  // calls it too (the norm timing calls LayerNorm's), so each is checked where
  // it stands alone.
  const norms = [
    named(/resnorm::layernorm_backward<float>/),
    named(/resnorm::layernorm_forward<float>/) || named(/resnorm::Norm<float>::forward\\28/),
  ];
  assert.ok(norms.every(Boolean), 'norm kernels not found in the symbol map');
  // RMSNorm's forward has one reduction (the sum of squares), so fewer adds than LayerNorm's two.
  const rms = named(/resnorm::rmsnorm_forward<float>/) || named(/resnorm::Norm<float>::forward\\28/);
  assert.ok(rms, 'RMSNorm forward not found in the symbol map');
  const counts = ([name, index]) => {
    const body = bodies.get(index).join('\n');
    const c = {
      mul: (body.match(/f32x4\.mul/g) || []).length,
      add: (body.match(/f32x4\.add/g) || []).length,
      load: (body.match(/v128\.load/g) || []).length,
    };
    console.log(
      `  ${name.replace(/\\20/g, ' ').replace(/\\2c/g, ',').slice(0, 60)}: ${c.mul} f32x4.mul, ${c.add} f32x4.add, ${c.load} v128.load`,
    );
    return c;
  };
  for (const entry of [...hot, ...norms]) {
    const { mul, add, load } = counts(entry);
    assert.ok(mul >= 4 && add >= 4 && load >= 2, `${entry[0]} is not vectorized`);
  }
  const r = counts(rms);
  assert.ok(r.mul >= 4 && r.add >= 2 && r.load >= 2, `${rms[0]} (RMSNorm's forward) is not vectorized`);
});

test('the module needs no eval: it runs under a CSP without unsafe-eval', () => {
  const js = readFileSync(`${ROOT}wasm/dist/resnorm_wasm.js`, 'utf8');
  assert.ok(!/\beval\s*\(/.test(js), 'eval( in the module');
  assert.ok(!/new Function\s*\(/.test(js), 'new Function in the module');
});
