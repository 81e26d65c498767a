// The JS API's PyTorch export (rn.exportPytorch, wasm/resnorm.js): the wasm module's script for a
// config is the native CLI's `resnorm train --export-pytorch` script of the same config, byte for
// byte (the same exporter, the same float trainers, the same initial weights and data), and that
// script, run with Debian's PyTorch, starts where the CLI's run starts. Refusals are EngineErrors
// naming the field.
//
// One difference: the teacher task's targets y = c . tanh(A x) are drawn in double with the C
// library's tanh (core/src/tasks.cpp), glibc's natively and musl's in wasm, which differ in the last
// bits of tanh. Those arrays are compared as numbers: each target within TARGET_REL = 1e-14 of the
// largest target's magnitude (a tanh's last bits, times the sum over units, can be large against a
// target near 0 but not against the targets' scale; measured 1.7e-16); every other byte of the file is equal.
//
// Tolerance of the step-1 loss: the CLI trains in float; the script run with `--dtype float32`
// computes the same loss at the same float weights, each side rounding to float32 (2^-24 relative
// per operation) in its own order of sums: within FLOAT_REL = 1e-5 relative, the bound and the
// reasoning of parity.test.js's float32 test. A wrong weight or a wrong batch moves it by 1e-3 or more.
// Run: node --test tests/node/pytorch/wasm-export.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, loadWasm, PYTHON } from '../helpers.js';
import { EngineError } from '../../../wasm/resnorm.js';

const FLOAT_REL = 1e-5;
const TARGET_REL = 1e-14;

// Three small runs: padded sequences, warmup and clipping with Admin's profiled init (transformer);
// the teacher task with AdamW and DenseFormer (MLP); BatchNorm in every norm, pads counted, with
// Admin's omegas profiled through it (transformer-batchnorm).
const CONFIGS = {
  transformer: {
    task: 'reverse',
    block: 'transformer',
    arch: ['post_ln', 'pre_ln', 'admin', 'rezero'],
    depth: 3,
    width: 8,
    heads: 2,
    seq: 4,
    seq_min: 2,
    vocab: 6,
    batch: 4,
    steps: 6,
    log_every: 2,
    warmup: 2,
    clip: 0.5,
  },
  mlp: {
    task: 'teacher',
    block: 'mlp',
    arch: ['plain', 'layerscale', 'dwa'],
    depth: 3,
    width: 12,
    batch: 8,
    steps: 5,
    optimizer: 'adamw',
    weight_decay: 0.1,
  },
  'transformer-batchnorm': {
    task: 'reverse',
    block: 'transformer',
    arch: ['pre_ln', 'post_ln', 'sandwich', 'admin'],
    depth: 2,
    width: 8,
    heads: 2,
    seq: 4,
    seq_min: 2,
    vocab: 6,
    batch: 4,
    steps: 4,
    log_every: 2,
    norm: 'batchnorm',
    bn_pads: 'count',
    bn_momentum: 0.2,
  },
};

// A config object in the JS API's shape as the CLI's flags (as helpers.js's cli() writes them).
const flags = (config) =>
  Object.entries(config).flatMap(([k, v]) => [`--${k.replace(/_/g, '-')}`, Array.isArray(v) ? v.join(',') : String(v)]);

const tmp = mkdtempSync(join(tmpdir(), 'resnorm-wasm-export-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const rn = await loadWasm();
test.after(() => rn.dispose());

/** The CLI's float run of config as JSON lines, with its script written to `file`. */
function cliRun(config, file) {
  return execFileSync(CLI, ['train', ...flags(config), '--json', '--export-pytorch', file], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** The float64 values of a base64 field of the file (export_pytorch.h: little-endian). */
const float64s = (b64) => {
  const u = Buffer.from(b64, 'base64');
  return new Float64Array(u.buffer.slice(u.byteOffset, u.byteOffset + u.length));
};

/** The script with every batch's `y` (the teacher's targets) cut out, and those arrays by batch. */
function withoutTargets(script) {
  const targets = [];
  const rest = script.replace(/"y": "([A-Za-z0-9+/=]*)"/g, (_, b64) => {
    targets.push(float64s(b64));
    return '"y": ""';
  });
  return { rest, targets };
}

/** Where two texts first differ, as a short message, or '' when equal. */
function firstDifference(a, b) {
  if (a === b) return '';
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `${a.length} against ${b.length} characters, first differing at ${i}: ${a.slice(i, i + 60)}`;
}

for (const [block, config] of Object.entries(CONFIGS)) {
  test(`${block} blocks: the wasm export is the CLI's export byte for byte (the teacher's targets to tanh's last bits)`, () => {
    const file = join(tmp, `${block}-cli.py`);
    cliRun(config, file);
    const native = readFileSync(file, 'utf8');
    const script = rn.exportPytorch(config);
    assert.equal(typeof script, 'string');
    assert.ok(script.length > 10000, `${block}: a script of ${script.length} characters`);
    if (config.task !== 'teacher') {
      assert.equal(firstDifference(script, native), '', `${block}: the wasm export differs from the CLI's`);
      return;
    }
    const wasm = withoutTargets(script);
    const cli = withoutTargets(native);
    assert.equal(firstDifference(wasm.rest, cli.rest), '', `${block}: beyond the targets, the exports differ`);
    assert.equal(
      wasm.targets.length,
      config.steps + 2,
      `${block}: every training batch's and held-out batch's targets`,
    );
    const scale = Math.max(...cli.targets.flatMap((ys) => Array.from(ys, Math.abs)));
    wasm.targets.forEach((ys, b) =>
      ys.forEach((y, i) => {
        const x = cli.targets[b][i];
        assert.ok(
          Math.abs(y - x) <= TARGET_REL * scale,
          `${block}: batch ${b}, target ${i}: wasm ${y}, CLI ${x} (tolerance ${TARGET_REL} of ${scale})`,
        );
      }),
    );
  });

  test(`${block} blocks: the wasm-exported script gives the CLI's step-1 loss for every architecture`, () => {
    const probe = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8' });
    assert.equal(probe.status, 0, `${PYTHON} cannot import torch: run \`npm run setup\` (it installs python3-torch)`);
    const engine = cliRun({ ...config, log_every: 1 }, join(tmp, `${block}-log1.py`));
    const file = join(tmp, `${block}-wasm.py`);
    writeFileSync(file, rn.exportPytorch(config));
    const py = spawnSync(PYTHON, [file, '--json', '--dtype', 'float32', '--steps', '1'], { encoding: 'utf8' });
    assert.equal(py.status, 0, `the wasm-exported ${block} script failed:\n${py.stderr}`);
    const torch = py.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const arch of config.arch) {
      const e = engine.find((l) => l.arch === arch && l.step === 1);
      const t = torch.find((l) => l.arch === arch && l.step === 1);
      assert.ok(t, `${arch}, ${block} block: the script logged no step 1`);
      const rel = Math.abs(e.train_loss - t.train_loss) / Math.abs(e.train_loss);
      assert.ok(
        rel <= FLOAT_REL,
        `${arch}, ${block} block, step 1, train_loss: CLI ${e.train_loss}, PyTorch ${t.train_loss} (${rel} relative)`,
      );
    }
  });
}

test('the export is of the initial weights: a trainer that stepped leaves it unchanged', () => {
  const config = { ...CONFIGS.transformer, arch: ['pre_ln'] };
  const before = rn.exportPytorch(config);
  const tr = rn.trainer(config);
  tr.step(3);
  assert.equal(rn.exportPytorch(config), before);
  tr.delete();
});

test('refusals are EngineErrors naming the field, and the engine goes on', () => {
  const refused = (config, field, Kind, words) => {
    assert.throws(
      () => rn.exportPytorch(config),
      (e) => {
        assert.ok(e instanceof EngineError && e instanceof Kind, `${field}: ${e}`);
        assert.equal(e.field, field);
        assert.match(e.message, words);
        return true;
      },
    );
  };
  refused({ steps: 100000, batch: 64 }, 'steps', RangeError, /^steps: .*over its 20 MB limit/);
  refused({ arch: ['pre_ln', 'nope'] }, 'arch', RangeError, /^arch: /);
  refused({ depth: {} }, 'depth', TypeError, /^depth: /);
  refused({ depth: 'deep' }, 'depth', RangeError, /^depth: /);
  refused({ colour: 1 }, 'colour', RangeError, /^colour: /);
  // after every refusal the same config exports as before
  const config = { ...CONFIGS.mlp, arch: ['plain'] };
  assert.equal(rn.exportPytorch(config), rn.exportPytorch(config));
  assert.ok(rn.usable);
});

test('several settings in one script: each group trains as its own script, every line under its run\u2019s key', () => {
  const base = { ...CONFIGS.transformer, arch: ['post_ln', 'pre_ln'] };
  const groups = [
    { config: base, keys: ['post_ln', 'pre_ln'], labels: ['Post-LN', 'Pre-LN'] },
    { config: { ...base, arch: ['post_ln'], warmup: 4 }, keys: ['post_ln_warmup'], labels: ['Post-LN, warmup 4'] },
    { config: { ...base, arch: ['pre_ln'], depth: 2 }, keys: ['pre_ln_2'], labels: ['Pre-LN, 2 blocks'] },
  ];
  const script = rn.exportPytorch(groups);
  const run = JSON.parse(/^RUN = json\.loads\(r'''(.*)'''\)$/m.exec(script)[1]);
  assert.equal(run.format, 'resnorm-pytorch-runs');
  assert.deepEqual(
    run.groups.map((g) => g.runs.map((r) => `${r.key} ${r.label}`)),
    groups.map((g) => g.keys.map((k, i) => `${k} ${g.labels[i]}`)),
  );
  // the same task and steps: the data is shipped once for the three settings
  assert.deepEqual(
    run.groups.map((g) => g.data),
    [0, 0, 0],
  );
  assert.equal(run.data.length, 1);
  const lines = (file) => {
    const py = spawnSync(PYTHON, [file, '--json'], { encoding: 'utf8' });
    assert.equal(py.status, 0, `${file} failed:\n${py.stderr}`);
    return py.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  };
  const file = join(tmp, 'groups.py');
  writeFileSync(file, script);
  const all = lines(file);
  // each group's lines, without the keys, are the lines of that group's own one-config script
  let at = 0;
  groups.forEach((g, i) => {
    const own = join(tmp, `group-${i}.py`);
    writeFileSync(own, rn.exportPytorch(g.config));
    const want = lines(own);
    const got = all.slice(at, at + want.length);
    at += want.length;
    const key = Object.fromEntries(g.config.arch.map((a, j) => [a, g.keys[j]]));
    for (const l of got.slice(0, -1)) assert.equal(l.key, key[l.arch], `group ${i}: a step line's key`);
    const { keys, labels, group, groups: n, ...summary } = got.at(-1);
    assert.deepEqual(keys, key);
    assert.deepEqual(labels, Object.fromEntries(g.config.arch.map((a, j) => [a, g.labels[j]])));
    assert.deepEqual([group, n], [i, groups.length]);
    assert.deepEqual(
      [...got.slice(0, -1).map(({ key: _, ...l }) => l), summary],
      want,
      `group ${i}: the lines of its own script`,
    );
  });
  assert.equal(at, all.length, 'no line beyond the groups');
});
