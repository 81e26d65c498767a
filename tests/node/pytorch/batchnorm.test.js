// BatchNorm in the exported PyTorch script against the engine: `resnorm train --norm batchnorm
// --double --export-pytorch FILE` and the script's `--json` in float64 (docs/pytorch.md). Every
// number of every logged line agrees (the losses, the three held-out modes, the per-layer arrays,
// each BatchNorm layer's distances of its batch statistics from its running ones), and every number
// of the summary (held-out loss, lesion study, gates, DenseFormer weights), for MLP blocks on the
// teacher task and transformer blocks on the reverse task with padded sequences, pads masked and
// pads counted, every architecture (those without a norm have no BatchNorm and log none).
//
// Tolerance: parity.test.js's STEP_REL = 1e-7 relative (plus 1e-12 for quantities that are zero on
// both sides up to rounding). Both sides compute in double from the same weights and data; they
// differ by the order of sums and the CLI's 9 printed digits (5e-9 relative). One quantity is zero
// in exact arithmetic and rounding on both sides: the mean distance of a BatchNorm whose input is
// another BatchNorm's output (Mix-LN's first Pre-LN norm after its Post-LN block). That input's
// batch mean is the earlier layer's beta, whose gradient is exactly zero (the later BatchNorms
// remove any shift), so beta moves by Adam's step on a rounding-sized gradient, 1e-17 / (eps = 1e-8)
// x lr: measured, the distance is at most 1e-10 on either side, so BN_ABS = 1e-9 absolute bounds
// it, while a wrong statistic moves a distance by 1e-4 or more. The largest relative difference of
// each quantity is printed as a diagnostic; docs/pytorch.md states them.
// Run: node --test tests/node/pytorch/batchnorm.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, PYTHON } from '../helpers.js';
import { ARCHS, jsonLines, requireTorch } from './torch.js';

const STEP_REL = 1e-7;
const ABS = 1e-12;
const BN_ABS = 1e-9;

// Padded sequences of their own lengths (2 to 4 of the context's 4), clipping, warmup, a cosine
// schedule, a momentum other than the default (transformer); AdamW's decoupled decay on the
// teacher task (MLP); Mix-LN with one Post-LN block of three in both.
const TRANSFORMER =
  '--task reverse --block transformer --depth 3 --width 8 --heads 2 --seq 4 --seq-min 2 --vocab 6 --batch 4 ' +
  '--steps 8 --log-every 1 --lr 0.01 --clip 0.5 --warmup 2 --schedule cosine --mix-fraction 0.5 --bn-momentum 0.3';
const MLP =
  '--task teacher --block mlp --depth 3 --width 12 --batch 8 --steps 8 --log-every 1 --optimizer adamw ' +
  '--weight-decay 0.1 --lr 0.01 --mix-fraction 0.5';
const RUNS = [
  { name: 'transformer blocks, pads masked', args: `${TRANSFORMER} --bn-pads mask` },
  { name: 'transformer blocks, pads counted', args: `${TRANSFORMER} --bn-pads count` },
  { name: 'MLP blocks', args: MLP },
];

// The three placements, and their BatchNorm layers in a stack of U units: Pre-LN's norm before
// each sublayer and the final norm, Post-LN's after each residual sum (no final norm), Sandwich's
// before and after each sublayer and the final norm.
const PLACED = { pre_ln: (U) => U + 1, post_ln: (U) => U, sandwich: (U) => 2 * U + 1 };

const tmp = mkdtempSync(join(tmpdir(), 'resnorm-batchnorm-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

/** Where a and b differ by more than rel (relative to the larger) plus abs; null (NaN) equals only null. */
function differs(a, b, rel, abs) {
  if (a === null || b === null) return a !== b;
  return !(Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b)) + abs);
}

/** The relative difference of a and b (0 when both are zero or both null). */
const relative = (a, b) =>
  a === b ? 0 : a === null || b === null ? Infinity : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b));

/**
 * Compares every number of engine value `e` with the script's `t` at `where`, recursively through
 * arrays and objects (the same keys on both sides); `quantity` names the key for the largest
 * differences, kept in `largest`. Returns how many numbers it compared.
 */
function compare(e, t, where, quantity, largest) {
  if (Array.isArray(e)) {
    assert.ok(Array.isArray(t), `${where}: the engine has an array, the script ${JSON.stringify(t)}`);
    assert.equal(t.length, e.length, `${where}: ${t.length} entries, the engine's ${e.length}`);
    return e.reduce((n, x, i) => n + compare(x, t[i], `${where}[${i}]`, quantity, largest), 0);
  }
  if (e !== null && typeof e === 'object') {
    assert.ok(t !== null && typeof t === 'object', `${where}: the engine has an object, the script ${t}`);
    assert.deepEqual(Object.keys(t).sort(), Object.keys(e).sort(), `${where}: the keys differ`);
    return Object.keys(e).reduce((n, k) => n + compare(e[k], t[k], `${where}.${k}`, `${quantity}.${k}`, largest), 0);
  }
  if (typeof e !== 'number' && e !== null) {
    assert.equal(t, e, `${where}: engine ${e}, PyTorch ${t}`);
    return 0;
  }
  const abs = quantity === 'bn_mean_distance' ? BN_ABS : ABS;
  assert.ok(!differs(e, t, STEP_REL, abs), `${where}: engine ${e}, PyTorch ${t} (tolerance ${STEP_REL} relative)`);
  // the largest relative difference among the numbers above the absolute floor
  if (Math.max(Math.abs(e ?? 0), Math.abs(t ?? 0)) > abs)
    largest.set(quantity, Math.max(largest.get(quantity) ?? 0, relative(e, t)));
  return 1;
}

/** The engine's JSON lines and the exported script's for `args` with every architecture and BatchNorm. */
function both(args, name) {
  const file = join(tmp, `${name.replace(/\W+/g, '-')}.py`);
  const all = ['train', ...args.split(' '), '--norm', 'batchnorm', '--arch', ARCHS.join(','), '--double', '--json'];
  const engine = jsonLines(execFileSync(CLI, [...all, '--export-pytorch', file], { encoding: 'utf8' }));
  const py = spawnSync(PYTHON, [file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(py.status, 0, `the exported script (${name}) failed:\n${py.stderr}`);
  return { engine, torch: jsonLines(py.stdout) };
}

test('/usr/bin/python3 has PyTorch (python3-torch)', requireTorch);

for (const { name, args } of RUNS) {
  test(`BatchNorm, ${name}: every logged number and the summary agree with PyTorch`, (t) => {
    requireTorch();
    const { engine, torch } = both(args, name);
    assert.equal(
      torch.length,
      engine.length,
      `${name}: the script printed ${torch.length} lines, the engine ${engine.length}`,
    );
    const largest = new Map();
    let compared = 0;
    for (let i = 0; i < engine.length - 1; i++) {
      const e = engine[i];
      const where = `${e.arch}, ${name}, step ${e.step}`;
      assert.equal(torch[i].arch, e.arch, `${where}: the script logged ${torch[i].arch} here`);
      assert.equal(torch[i].step, e.step, `${where}: the script logged step ${torch[i].step} here`);
      for (const k of Object.keys(e)) compared += compare(e[k], torch[i][k], `${where}, ${k}`, k, largest);
      assert.deepEqual(Object.keys(torch[i]).sort(), Object.keys(e).sort(), `${where}: the line's keys differ`);
      // BatchNorm is there and acts: one distance per norm of the stack, the held-out modes differ
      if (PLACED[e.arch]) {
        const layers = PLACED[e.arch](name.startsWith('MLP') ? 3 : 6);
        assert.equal(e.bn_mean_distance.length, layers, `${where}: ${e.bn_mean_distance.length} BatchNorm layers`);
        assert.notEqual(e.heldout_loss_train_mode, e.heldout_loss_one_seq, `${where}: the modes agree`);
      }
    }
    // the summary: its config and losses, and every architecture's (one quantity across the architectures)
    const es = engine.at(-1);
    const ts = torch.at(-1);
    assert.deepEqual(Object.keys(ts.summary).sort(), Object.keys(es.summary).sort(), `${name}: the summary's runs`);
    for (const k of Object.keys(es).filter((k) => k !== 'summary'))
      compared += compare(es[k], ts[k], `${name}, summary line, ${k}`, `summary ${k}`, largest);
    for (const arch of Object.keys(es.summary))
      compared += compare(es.summary[arch], ts.summary[arch], `${arch}, ${name}, summary`, 'summary', largest);
    assert.ok(compared > 2000, `${name}: only ${compared} numbers compared`);
    const report = [...largest].map(([k, v]) => `${k} ${v.toExponential(1)}`).join(', ');
    t.diagnostic(`${name}: ${compared} numbers; largest relative difference per quantity: ${report}`);
  });
}

test('PyTorch with torchrun refuses BatchNorm, whose statistics are the whole batch', () => {
  requireTorch();
  const file = join(tmp, 'refuse.py');
  execFileSync(CLI, ['train', ...MLP.split(' '), '--norm', 'batchnorm', '--export-pytorch', file], {
    encoding: 'utf8',
  });
  const py = spawnSync(PYTHON, [file, '--json'], {
    encoding: 'utf8',
    env: { ...process.env, WORLD_SIZE: '2', RANK: '0' },
  });
  assert.equal(py.status, 1);
  assert.equal(py.stdout, '');
  assert.match(py.stderr, /BatchNorm's statistics are over the whole batch.*run BatchNorm in one process/);
});
