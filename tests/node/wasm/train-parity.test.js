// Training in WebAssembly against the native CLI: for every architecture, 50 updates
// logged at every step, wasm's rn.trainer() and `resnorm train --json` agree
// to 1e-4 relative on every logged number (the train and held-out losses, the
// global and per-layer gradient norms among them), and on the summary (steps,
// outcome, the lesion study, the learned gates, averaging weights and Attention Residuals' read weights). Both run the float trainer; every product and
// every exp, erf and tanh of training has one fixed order of operations
// (kernels.h, portable_math.h), so the two compute the same bits and what is
// measured is the JSON's printing (9 significant digits: about 5e-9). Without
// that, a residual transformer's losses part by 20% within these 50 steps.
// Run: node --test tests/node/wasm/train-parity.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { cliTrain, loadWasm } from '../helpers.js';

const rn = await loadWasm();
const ARCHS = rn.trainFields.find((f) => f.name === 'arch').choices;
const TOL = 1e-4;

const SETTINGS = {
  // gelu (training's default) and a residual stream without norms: the case libm's erf and Eigen's order broke
  'transformer blocks, reverse, gelu': {
    task: 'reverse',
    block: 'transformer',
    depth: 4,
    width: 32,
    heads: 2,
    seq: 4,
    vocab: 8,
    batch: 8,
    steps: 50,
    log_every: 1,
  },
  // QK-norm: every head's queries and keys through LayerNorm, the gains trained
  'transformer blocks, copy, QK-norm': {
    task: 'copy',
    block: 'transformer',
    qk_norm: 'layernorm',
    depth: 3,
    width: 16,
    heads: 2,
    seq: 4,
    vocab: 8,
    batch: 8,
    steps: 50,
    log_every: 1,
  },
  'MLP blocks, copy, tanh, sgd': {
    task: 'copy',
    block: 'mlp',
    depth: 3,
    width: 16,
    activation: 'tanh',
    seq: 4,
    vocab: 8,
    batch: 8,
    steps: 50,
    optimizer: 'sgd',
    lr: 0.05,
    log_every: 1,
  },
};

// |a - b| / |a| (0 when both are 0); null in the CLI's JSON is a non-finite value, NaN or Infinity here.
function relative(native, wasm, where) {
  if (native === null) {
    assert.ok(!Number.isFinite(wasm), `${where}: native non-finite, wasm ${wasm}`);
    return 0;
  }
  if (native === wasm) return 0;
  return Math.abs(wasm - native) / Math.abs(native);
}

// Every architecture of `archs` trained for settings.steps in wasm and natively: each
// logged number, the summary, the lesion, gates and averaging weights to TOL;
// one line per arch of the worst differences.
function compareTraining(settings, archs) {
  const native = cliTrain({ ...settings, arch: archs });
  const lines = [];
  for (const arch of archs) {
    const tr = rn.trainer({ ...settings, arch });
    const logs = tr.step(settings.steps);
    const want = native.logs[arch];
    assert.equal(logs.length, settings.steps, `${arch}: one log per step`);
    assert.equal(want.length, settings.steps);
    const worst = { train_loss: 0, heldout_loss: 0, grad_norm_global: 0, grad_norm: 0, all: 0 };
    logs.forEach((g, i) => {
      const n = want[i];
      assert.equal(g.step, n.step);
      assert.equal(g.first_nonfinite, n.first_nonfinite, `${arch} step ${n.step} first_nonfinite`);
      const seen = (key, r) => {
        if (key in worst) worst[key] = Math.max(worst[key], r);
        worst.all = Math.max(worst.all, r);
        assert.ok(r <= TOL, `${arch} step ${n.step} ${key}: native ${JSON.stringify(n[key])}, wasm (rel ${r})`);
      };
      // Every field of the CLI's line, and no other.
      const keys = Object.keys(n).filter((k) => k !== 'arch');
      assert.deepEqual(Object.keys(g).sort(), keys.sort());
      for (const [key, v] of keys.map((k) => [k, n[k]])) {
        if (key === 'step' || key === 'first_nonfinite') continue;
        if (!Array.isArray(v)) {
          seen(key, relative(v, g[key], `${arch} step ${n.step} ${key}`));
          continue;
        }
        assert.equal(g[key].length, v.length, `${arch} ${key} length`);
        v.forEach((x, j) => seen(key, relative(x, g[key][j], `${arch} step ${n.step} ${key}[${j}]`)));
      }
    });
    assert.ok(relative(native.summary.chance_loss, tr.task.chance, 'chance') <= 1e-8, 'chance loss');
    assert.ok(relative(native.summary.optimal_loss, tr.task.optimal, 'optimal') <= 1e-8, 'optimal loss');
    const summary = native.summary.summary[arch];
    assert.equal(tr.outcome(), summary.outcome, `${arch} outcome`);
    assert.equal(tr.stepsDone, summary.steps);
    const lesion = tr.lesion();
    assert.deepEqual(Object.keys(lesion), Object.keys(summary.lesion));
    worst.all = Math.max(worst.all, relative(summary.lesion.base, lesion.base, `${arch} lesion base`));
    for (const key of Object.keys(lesion).filter((k) => k !== 'base'))
      summary.lesion[key].forEach((v, j) => {
        const r = relative(v, lesion[key][j], `${arch} lesion ${key}[${j}]`);
        worst.all = Math.max(worst.all, r);
        assert.ok(r <= TOL, `${arch} lesion.${key}[${j}]: native ${v}, wasm ${lesion[key][j]}`);
      });
    // The learned gates and DenseFormer's weights (null in the CLI's JSON where the JS API has null).
    const gates = tr.gates();
    const dwa = tr.dwaWeights();
    const learned = [
      ['gates.init', summary.gates?.init, gates?.init],
      ['gates.magnitude', summary.gates?.magnitude, gates?.magnitude],
      ['gates.values', summary.gates?.values, gates?.values.flatMap((row) => Array.from(row))],
      ['dwa', summary.dwa?.flat(), dwa?.flatMap((row) => Array.from(row))],
      ['attn_res', summary.attn_res?.flat(), tr.attnResWeights()?.flatMap((row) => Array.from(row))],
    ];
    assert.equal(gates?.width ?? null, summary.gates?.width ?? null, `${arch} gates width`);
    for (const [key, want, got] of learned) {
      assert.equal(got === undefined, want === undefined, `${arch} ${key}: present in both or neither`);
      if (want === undefined) continue;
      assert.equal(got.length, want.length, `${arch} ${key} length`);
      want.forEach((v, j) => {
        const r = relative(v, got[j], `${arch} ${key}[${j}]`);
        worst.all = Math.max(worst.all, r);
        assert.ok(r <= TOL, `${arch} ${key}[${j}]: native ${v}, wasm ${got[j]}`);
      });
    }
    tr.delete();
    const e = (v) => v.toExponential(1);
    lines.push(
      `  ${arch.padEnd(9)} train_loss ${e(worst.train_loss)}  heldout_loss ${e(worst.heldout_loss)}  ` +
        `grad_norm_global ${e(worst.grad_norm_global)}  grad_norm ${e(worst.grad_norm)}  any number ${e(worst.all)}`,
    );
  }
  return lines;
}

for (const [name, settings] of Object.entries(SETTINGS)) {
  test(`every architecture trains in wasm as natively, to ${TOL} relative: ${name}`, () => {
    const lines = compareTraining(settings, ARCHS);
    console.log(`${name}: max relative difference wasm vs native over ${settings.steps} steps\n${lines.join('\n')}`);
  });
}

test(`mix_ln at mix_fraction 0.5 trains in wasm as natively, to ${TOL} relative, and unlike at the default`, () => {
  const settings = { ...SETTINGS['transformer blocks, reverse, gelu'], mix_fraction: 0.5 };
  const lines = compareTraining(settings, ['mix_ln']);
  console.log(`mix_fraction 0.5: max relative difference wasm vs native\n${lines.join('\n')}`);
  const loss = (config) => {
    const tr = rn.trainer({ ...config, arch: 'mix_ln' });
    assert.equal(tr.config.mix_fraction, config.mix_fraction ?? 0.25);
    const last = tr.step(config.steps).at(-1).train_loss;
    tr.delete();
    return last;
  };
  const dflt = { ...settings };
  delete dflt.mix_fraction;
  assert.notEqual(loss(settings), loss(dflt), 'the fraction reaches the trainer');
});

// BatchNorm on padded sequences: the batch is one pass, the statistics over it,
// the running ones moving each step; every logged number (the three held-out
// losses and PowerNorm's distances among them) and the summary as natively.
test(`BatchNorm on padded reverse trains in wasm as natively, to ${TOL} relative, pads counted and masked`, () => {
  for (const bn_pads of ['count', 'mask']) {
    const settings = {
      ...SETTINGS['transformer blocks, reverse, gelu'],
      depth: 2,
      seq_min: 2,
      norm: 'batchnorm',
      bn_pads,
      steps: 30,
    };
    const lines = compareTraining(settings, ['pre_ln', 'post_ln', 'sandwich']);
    console.log(`batchnorm, pads ${bn_pads}: max relative difference wasm vs native\n${lines.join('\n')}`);
    const tr = rn.trainer({ ...settings, arch: 'pre_ln' });
    const last = tr.step(settings.steps).at(-1);
    assert.equal(last.heldout_loss_eval_mode, last.heldout_loss);
    assert.notEqual(last.heldout_loss_train_mode, last.heldout_loss_eval_mode);
    assert.equal(last.bn_mean_distance.length, 2 * 2 + 1);
    tr.delete();
  }
});

test(`attn_res in 2 and 3 blocks (Block AttnRes) trains in wasm as natively, to ${TOL} relative, unlike Full below K`, () => {
  for (const [name, base] of [
    ['transformer', SETTINGS['transformer blocks, reverse, gelu']],
    ['MLP', SETTINGS['MLP blocks, copy, tanh, sgd']],
  ])
    for (const N of [2, 3]) {
      const settings = { ...base, attn_res_blocks: N };
      const lines = compareTraining(settings, ['attn_res']);
      console.log(`${name} blocks, attn_res_blocks ${N}: max relative difference wasm vs native\n${lines.join('\n')}`);
      const tr = rn.trainer({ ...settings, arch: 'attn_res' });
      assert.equal(tr.config.attn_res_blocks, N);
      const K = base.depth * (base.block === 'transformer' ? 2 : 1);
      const rows = tr.attnResWeights();
      assert.equal(rows.length, K);
      // row k - 1 over h_0 and blocks 1..B(k), B(k) = floor((k - 1) N / K) + 1, uniform at init
      rows.forEach((row, r) => {
        const S = Math.floor((r * N) / K) + 2;
        assert.equal(row.length, S, `row ${r} has B(k) + 1 weights`);
        for (const w of row) assert.ok(Math.abs(w - 1 / S) < 1e-6, `row ${r}: ${w} is uniform at init`);
      });
      const last = tr.step(settings.steps).at(-1).train_loss;
      tr.delete();
      const full = rn.trainer({ ...base, arch: 'attn_res' });
      const fullLast = full.step(base.steps).at(-1).train_loss;
      full.delete();
      // N below the K units reaches the trainer; N = K (3 MLP units) is Full AttnRes to the bit
      if (N < K) assert.notEqual(last, fullLast, 'the blocks reach the trainer');
      else assert.equal(last, fullLast, 'N = K is Full AttnRes');
    }
});
