// The initialization path against PyTorch: the explorer's numbers at init (`resnorm simulate`:
// per layer the gradient norm, the stream RMS, the update ratio, the weight-gradient norms; for
// transformer blocks also each sublayer's update ratio and W_Q..W_O's gradient norms) for every
// architecture and both block kinds, against the same network built in PyTorch with the same
// weights, input h_0 and readout r: `resnorm simulate --export-pytorch FILE` writes them into the
// script (docs/pytorch.md), whose autograd computes loss = <r, out> and its gradients.
//
// Tolerances. With --double both sides compute in double from the same numbers and differ by the
// order of the sums (about 1e-16 relative) and by the CLI's JSON, which prints 9 significant
// digits (at most 5e-9 relative): DOUBLE_REL = 1e-8 (measured: at most 4.9e-9). The explorer
// itself computes in float: its numbers against the float64 script differ by float's rounding
// (2^-24 per operation) grown through the stack; FLOAT_REL = 1e-3 (measured: 7e-5 on the
// transformer run, 3e-7 on the MLP run), relative to the larger of the two values plus to the
// largest value of the same quantity of the same architecture, since a quantity that is zero in
// exact arithmetic (Plain's attention weights after rank collapse: 1e-17 in double) is float's
// rounding noise (1e-8) in float. A wrong wiring, scale or norm moves these numbers by 1e-2 or
// more. Both runs choose paths beyond the defaults: GELU, expansion 2, a final LayerNorm and
// non-causal attention (transformer); orthogonal init, tanh, gain 1.5 and a final RMSNorm (MLP);
// Mix-LN with three Post-LN blocks of six; QK-norm's LayerNorm on every head's q and k.
// Run: node --test tests/node/pytorch/init.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, PYTHON } from '../helpers.js';
import { ARCHS, requireTorch } from './torch.js';

const DOUBLE_REL = 1e-8;
const FLOAT_REL = 1e-3;
const ABS = 1e-12; // quantities that are zero on both sides up to rounding

const RUNS = {
  transformer:
    '--block transformer --heads 2 --depth 6 --width 16 --tokens 6 --expansion 2 --activation gelu ' +
    '--final-norm layernorm --causal false --mix-fraction 0.5',
  'qk_norm transformer':
    '--block transformer --qk-norm layernorm --heads 2 --depth 6 --width 16 --tokens 6 --expansion 2 ' +
    '--activation gelu --final-norm layernorm',
  mlp:
    '--block mlp --depth 6 --width 16 --init orthogonal --activation tanh --gain 1.5 --final-norm rmsnorm ' +
    '--mix-fraction 0.5',
};
const TRANSFORMER_ARRAYS = [
  'grad_norm',
  'stream_rms',
  'update_ratio',
  'w1_grad_norm',
  'w2_grad_norm',
  'attn_update_ratio',
  'mlp_update_ratio',
  'wq_grad_norm',
  'wk_grad_norm',
  'wv_grad_norm',
  'wo_grad_norm',
];
const ARRAYS = {
  mlp: ['grad_norm', 'stream_rms', 'update_ratio', 'w1_grad_norm', 'w2_grad_norm'],
  transformer: TRANSFORMER_ARRAYS,
  'qk_norm transformer': TRANSFORMER_ARRAYS,
};

const tmp = mkdtempSync(join(tmpdir(), 'resnorm-pytorch-init-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

/** The engine's simulate JSON (double and float) and the exported script's. */
function all(block) {
  const file = join(tmp, `${block.replaceAll(' ', '-')}.py`);
  const args = ['simulate', ...RUNS[block].split(' '), '--arch', ARCHS.join(','), '--json'];
  const double = JSON.parse(execFileSync(CLI, [...args, '--double', '--export-pytorch', file], { encoding: 'utf8' }));
  const float = JSON.parse(execFileSync(CLI, args, { encoding: 'utf8' }));
  const py = spawnSync(PYTHON, [file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(py.status, 0, `the exported ${block} simulation failed:\n${py.stderr}`);
  return { double, float, torch: JSON.parse(py.stdout) };
}

/** Every array of every arch of `engine` against the script's; returns the numbers compared and the largest difference. */
function compare(engine, torch, block, rel, scaled) {
  let count = 0;
  let worst = 0;
  assert.deepEqual(torch.config, engine.config, `${block}: the script's config`);
  for (const arch of ARCHS) {
    const e = engine.results[arch];
    const t = torch.results[arch];
    assert.ok(t, `${arch}, ${block} block: no results from the script`);
    assert.equal(t.first_nonfinite, e.first_nonfinite, `${arch}, ${block} block, first_nonfinite`);
    for (const k of ARRAYS[block]) {
      assert.equal(t[k]?.length, e[k].length, `${arch}, ${block} block, ${k}: ${t[k]?.length} entries, ${e[k].length}`);
      const scale = scaled ? Math.max(...e[k].map(Math.abs)) : 0;
      e[k].forEach((x, l) => {
        const y = t[k][l];
        const d = Math.abs(x - y);
        assert.ok(
          d <= rel * (Math.max(Math.abs(x), Math.abs(y)) + scale) + ABS,
          `${arch}, ${block} block, layer ${l}, ${k}: engine ${x}, PyTorch ${y} (tolerance ${rel} relative)`,
        );
        worst = Math.max(worst, d <= ABS ? 0 : d / Math.max(Math.abs(x), Math.abs(y), scale));
        count++;
      });
    }
  }
  return { count, worst };
}

test('/usr/bin/python3 has PyTorch (python3-torch)', requireTorch);

for (const block of Object.keys(RUNS)) {
  test(`${block} blocks: the simulation's numbers at init agree with PyTorch, every architecture`, () => {
    requireTorch();
    const { double, float, torch } = all(block);
    const d = compare(double, torch, block, DOUBLE_REL, false);
    assert.ok(d.count >= 480, `${block}: only ${d.count} numbers compared`);
    const f = compare(float, torch, block, FLOAT_REL, true);
    assert.equal(f.count, d.count);
  });
}

test('simulate --export-pytorch writes no script for a config the engine refuses', () => {
  const file = join(tmp, 'refused.py');
  const args = ['simulate', '--block', 'transformer', '--width', '6', '--heads', '4', '--export-pytorch', file];
  const r = spawnSync(CLI, args, { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^resnorm: (--export-pytorch: )?--(heads|width): /);
  assert.equal(existsSync(file), false, 'a refused config left a script');
});
