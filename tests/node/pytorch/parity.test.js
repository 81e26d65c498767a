// The engine against PyTorch: `resnorm train --double --export-pytorch FILE` writes the run as a
// PyTorch script (docs/pytorch.md), Debian's python3-torch runs it (/usr/bin/python3), and every
// logged step of every architecture the script implements, for both block kinds, agrees with the
// engine's own run: the losses, the per-layer gradient norms, the update ratios and the rest of
// the JSON line, and the summary's held-out loss, lesion study, gates, DenseFormer weights and
// Attention Residuals' read weights. The exporter ships BatchNorm's settings (batchnorm.test.js
// trains them) and refuses a file too large.
//
// Tolerances. Both sides compute in double, the script from the engine's initial weights and the
// engine's data, so they differ only by the order of floating-point sums (about 1e-16 relative per
// operation) and by the CLI's JSON, which prints 9 significant digits (a rounding of at most 5e-9
// relative). Step 1's train loss is the loss at the initial weights: within INIT_REL = 1e-8, the
// print's rounding and nothing more. After that, ten Adam steps could amplify the sums' order;
// measured, every quantity stays within the print's 5e-9; STEP_REL = 1e-7 leaves twenty times
// that, while a wrong wiring or a wrong update moves these quantities by 1e-3 or more.
// Run: node --test tests/node/pytorch/parity.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, PYTHON } from '../helpers.js';
import { ARCHS, jsonLines, requireTorch } from './torch.js';

const INIT_REL = 1e-8;
const STEP_REL = 1e-7;
const ABS = 1e-12; // quantities that are zero on both sides up to rounding
const SCALARS = [
  'lr',
  'train_loss',
  'heldout_loss',
  'heldout_accuracy',
  'grad_norm_global',
  'output_change',
  'top_cosine',
  'max_logit',
  'hc_gain_fwd',
  'hc_gain_bwd',
];
const ARRAYS = ['grad_norm', 'w_grad_norm', 'update_ratio', 'stream_rms', 'contribution'];

// Short runs that exercise the script's paths: padded sequences of their own lengths, clipping,
// warmup and a cosine schedule (transformer); AdamW's decoupled decay on the teacher task (MLP);
// Mix-LN with one Post-LN block of three in both; QK-norm's LayerNorm on every head's queries and
// keys, its gains trained, in a transformer run of its own.
const RUNS = {
  transformer:
    '--task reverse --block transformer --depth 3 --width 8 --heads 2 --seq 4 --seq-min 2 --vocab 6 --batch 4 ' +
    '--steps 10 --log-every 1 --lr 0.01 --clip 0.5 --warmup 2 --schedule cosine --mix-fraction 0.5',
  'qk_norm transformer':
    '--task reverse --block transformer --qk-norm layernorm --depth 3 --width 16 --heads 2 --seq 4 --seq-min 2 ' +
    '--vocab 6 --batch 4 --steps 10 --log-every 1 --lr 0.01 --clip 0.5 --warmup 2 --schedule cosine',
  mlp:
    '--task teacher --block mlp --depth 3 --width 12 --batch 8 --steps 10 --log-every 1 --optimizer adamw ' +
    '--weight-decay 0.1 --lr 0.01 --mix-fraction 0.5',
  // Block AttnRes: 6 units in 4 blocks (one cut between a block's attention and its MLP), 3 units in 2
  'attn_res 4-block transformer':
    '--task reverse --block transformer --depth 3 --width 8 --heads 2 --seq 4 --seq-min 2 --vocab 6 --batch 4 ' +
    '--steps 10 --log-every 1 --lr 0.01 --clip 0.5 --attn-res-blocks 4',
  'attn_res 2-block mlp':
    '--task teacher --block mlp --depth 3 --width 12 --batch 8 --steps 10 --log-every 1 --optimizer adamw ' +
    '--lr 0.01 --attn-res-blocks 2',
};
// The architectures each run trains: every one, or only the one its settings are for.
const archsOf = (block) => (block.startsWith('attn_res') ? ['attn_res'] : ARCHS);

const tmp = mkdtempSync(join(tmpdir(), 'resnorm-pytorch-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

/** The engine's JSON lines and the exported script's, for one block kind with every implemented arch. */
function both(block) {
  const file = join(tmp, `${block.replaceAll(' ', '-')}.py`);
  const args = [
    'train',
    ...RUNS[block].split(' '),
    '--arch',
    archsOf(block).join(','),
    '--double',
    '--json',
    '--export-pytorch',
    file,
  ];
  const engine = jsonLines(execFileSync(CLI, args, { encoding: 'utf8' }));
  const py = spawnSync(PYTHON, [file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(py.status, 0, `the exported ${block} script failed:\n${py.stderr}`);
  return { engine, torch: jsonLines(py.stdout) };
}

/** Where a and b differ by more than rel (relative to the larger) plus ABS; null (NaN) equals only null. */
function differs(a, b, rel) {
  if (a === null || b === null) return a !== b;
  return !(Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b)) + ABS);
}

/** Fails, never skips, where PyTorch is missing: the parity tests are part of `npm test`. */
test('/usr/bin/python3 has PyTorch (python3-torch)', requireTorch);

for (const block of Object.keys(RUNS)) {
  test(`${block} blocks: every logged step of every implemented architecture agrees with PyTorch`, () => {
    requireTorch();
    const { engine, torch } = both(block);
    assert.equal(
      torch.length,
      engine.length,
      `${block}: the script printed ${torch.length} lines, the engine ${engine.length}`,
    );
    let compared = 0;
    for (let i = 0; i < engine.length - 1; i++) {
      const e = engine[i];
      const t = torch[i];
      const where = `${e.arch}, ${block} block, step ${e.step}`;
      assert.equal(t.arch, e.arch, `${where}: the script logged ${t.arch} here`);
      assert.equal(t.step, e.step, `${where}: the script logged step ${t.step} here`);
      const rel = e.step === 1 ? INIT_REL : STEP_REL;
      for (const k of SCALARS) {
        const r = k === 'train_loss' ? rel : STEP_REL;
        assert.ok(!differs(e[k], t[k], r), `${where}, ${k}: engine ${e[k]}, PyTorch ${t[k]} (tolerance ${r} relative)`);
        compared++;
      }
      for (const k of ARRAYS) {
        assert.equal(t[k].length, e[k].length, `${where}, ${k}: ${t[k].length} entries, the engine's ${e[k].length}`);
        e[k].forEach((x, l) => {
          assert.ok(!differs(x, t[k][l], STEP_REL), `${where}, ${k}[${l}]: engine ${x}, PyTorch ${t[k][l]}`);
          compared++;
        });
      }
    }
    // the summary: the held-out loss after training and the lesion study, block by block
    const es = engine.at(-1).summary;
    const ts = torch.at(-1).summary;
    for (const arch of archsOf(block)) {
      const where = `${arch}, ${block} block, summary`;
      assert.equal(ts[arch].outcome, es[arch].outcome, `${where}, outcome`);
      assert.ok(!differs(es[arch].heldout_loss, ts[arch].heldout_loss, STEP_REL), `${where}, heldout_loss`);
      assert.equal(ts[arch].gates === null, es[arch].gates === null, `${where}, gates`);
      (es[arch].gates?.values ?? []).forEach((x, k) => {
        const y = ts[arch].gates.values[k];
        assert.ok(!differs(x, y, STEP_REL), `${where}, gate entry ${k}: engine ${x}, PyTorch ${y}`);
      });
      (es[arch].dwa ?? []).flat().forEach((x, k) => {
        const y = ts[arch].dwa.flat()[k];
        assert.ok(!differs(x, y, STEP_REL), `${where}, dwa weight ${k}: engine ${x}, PyTorch ${y}`);
      });
      // Attention Residuals' read weights over the held-out set (a key of attn_res's summary only)
      assert.equal(ts[arch].attn_res === undefined, es[arch].attn_res === undefined, `${where}, attn_res`);
      (es[arch].attn_res ?? []).flat().forEach((x, k) => {
        const y = ts[arch].attn_res.flat()[k];
        assert.ok(!differs(x, y, STEP_REL), `${where}, attn_res weight ${k}: engine ${x}, PyTorch ${y}`);
      });
      es[arch].lesion.loss.forEach((x, l) => {
        assert.ok(
          !differs(x, ts[arch].lesion.loss[l], STEP_REL),
          `${where}, lesion.loss[${l}]: ${x} vs ${ts[arch].lesion.loss[l]}`,
        );
      });
    }
    assert.ok(compared > (archsOf(block).length > 1 ? 500 : 150), `${block}: only ${compared} numbers compared`);
    if (block.startsWith('attn_res')) {
      const K = 6 / (block.includes('mlp') ? 2 : 1);
      const N = block.includes('4-block') ? 4 : 2;
      const rows = engine.at(-1).summary.attn_res.attn_res;
      assert.equal(rows.length, K, `${block}: a row per unit`);
      // row k - 1 over h_0 and blocks 1..B(k), B(k) = floor((k - 1) N / K) + 1
      rows.forEach((row, r) => assert.equal(row.length, Math.floor((r * N) / K) + 2, `${block}: row ${r}`));
      assert.equal(rows.at(-1).length, N + 1, `${block}: the final norm reads h_0 and the ${N} blocks`);
    }
  });
}

// The float32 switch and the steps override: the engine's default float run against the script in
// float32 from the same weights. Both round to float32 (2^-24 relative per operation) in their own
// order of sums, so the loss at the initial weights agrees to about 1e-6 (measured: 4e-7 on this
// run); FLOAT_REL = 1e-5 allows the rounding and nothing a wrong model would give.
const FLOAT_REL = 1e-5;
test('the script in float32 (--dtype float32) starts from the engine float run, and --steps cuts it short', () => {
  requireTorch();
  const file = join(tmp, 'float.py');
  const run = `${RUNS.transformer.replace('--steps 10', '--steps 4')} --arch ${ARCHS.join(',')}`;
  const engine = jsonLines(
    execFileSync(CLI, ['train', ...run.split(' '), '--json', '--export-pytorch', file], { encoding: 'utf8' }),
  );
  const py = spawnSync(PYTHON, [file, '--json', '--dtype', 'float32', '--steps', '2'], { encoding: 'utf8' });
  assert.equal(py.status, 0, `the float32 script failed:\n${py.stderr}`);
  const torch = jsonLines(py.stdout);
  // the engine's order: every architecture's step 1, then every architecture's step 2, then the summary
  assert.deepEqual(
    torch.slice(0, -1).map((l) => `${l.arch} ${l.step}`),
    [1, 2].flatMap((t) => ARCHS.map((a) => `${a} ${t}`)),
  );
  // float32 in fact: every loss the script computed is a float32 number
  for (const t of torch.slice(0, -1))
    assert.equal(Math.fround(t.train_loss), t.train_loss, `${t.arch}, step ${t.step}: ${t.train_loss} is no float32`);
  for (const t of torch.filter((l) => l.step === 1)) {
    const e = engine.find((l) => l.arch === t.arch && l.step === 1);
    assert.ok(
      !differs(e.train_loss, t.train_loss, FLOAT_REL),
      `${t.arch}, transformer block, step 1, train_loss in float32: engine ${e.train_loss}, PyTorch ${t.train_loss}`,
    );
  }
});

test('the exporter ships what BatchNorm needs: the norm, whether pads count, the momentum, the final norms', () => {
  const file = join(tmp, 'bn.py');
  const args = ['train', '--norm', 'batchnorm', '--bn-pads', 'count', '--bn-momentum', '0.25', '--steps', '2'];
  const r = spawnSync(CLI, [...args, '--arch', 'pre_ln,post_ln,sandwich', '--export-pytorch', file], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const m = /^RUN = json\.loads\(r'''(.*)'''\)$/m.exec(readFileSync(file, 'utf8'));
  assert.ok(m, 'the script embeds RUN');
  const run = JSON.parse(m[1]);
  assert.equal(run.config.norm, 'batchnorm');
  assert.equal(run.config.bn_pads, 'count');
  assert.equal(run.config.bn_momentum, 0.25);
  // final_norm auto: each architecture's own final norm becomes BatchNorm, Post-LN has none
  assert.deepEqual(run.model.final_norm, { pre_ln: 'batchnorm', post_ln: 'none', sandwich: 'batchnorm' });
  // the gains and biases of every BatchNorm layer, under the engine's names
  const names = run.runs.find((x) => x.arch === 'sandwich').params.map((p) => p.name);
  for (const n of ['gamma.in[unit 1]', 'beta.in[unit 1]', 'gamma.out[unit 1]', 'beta.out[unit 1]', 'beta.final'])
    assert.ok(names.includes(n), `sandwich ships ${n}`);
});

test('the exporter refuses a file over 20 MB, naming steps and batch', () => {
  const r = spawnSync(CLI, ['train', '--steps', '100000', '--batch', '64', '--export-pytorch', join(tmp, 'big.py')], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 2);
  assert.match(
    r.stderr,
    /--steps: the PyTorch script would hold [\d.]+ MB .*\(100000 steps of batch 64\), over its 20 MB limit/,
  );
});
