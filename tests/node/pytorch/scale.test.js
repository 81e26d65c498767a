// The exported script's scale-out switches (docs/pytorch.md, "Scale out").
//
// Data-parallel: `torchrun --nproc_per_node 2 script.py` (DistributedDataParallel, gloo on CPU)
// splits every batch over the two processes and sums their gradients, so it takes the steps of the
// one-process run: every logged number of every architecture, both block kinds, agrees with
// `/usr/bin/python3 script.py` within DDP_REL = 1e-10 relative. Both run in float64 and differ only
// in the order of the sums over the batch's rows (a loss summed in two halves, a gradient summed
// over two processes): about 1e-16 relative per operation, grown by ten Adam steps (measured: at
// most 7e-13); a share of the batch weighted wrongly (a mean over the half batch, gradients
// averaged where they should be summed) moves the losses by 1e-3 or more. Only rank 0 prints: the
// two-process run prints exactly the one-process run's lines.
//
// Debian's torchrun (python3-torch 1.13 under Python 3.11) fails at start with its default
// `--redirects 0 --tee 0` (AttributeError: 'NoneType' object has no attribute 'get'); any other
// value works, so the test passes `--redirects 2 --tee 2` (each process's stderr also to a log file),
// which leaves stdout as it is.
// Run: node --test tests/node/pytorch/scale.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, TORCHRUN, PYTHON } from '../helpers.js';
import { ARCHS, jsonLines, requireTorch } from './torch.js';

const DDP_REL = 1e-10;
const ABS = 1e-13; // quantities that are zero on both sides up to rounding

// The parity test's runs; the MLP run's batch of 7 splits unevenly (3 rows and 4).
const RUNS = {
  transformer:
    '--task reverse --block transformer --depth 3 --width 8 --heads 2 --seq 4 --seq-min 2 --vocab 6 --batch 4 ' +
    '--steps 6 --log-every 1 --lr 0.01 --clip 0.5 --warmup 2 --schedule cosine --mix-fraction 0.5',
  mlp:
    '--task teacher --block mlp --depth 3 --width 12 --batch 7 --steps 6 --log-every 1 --optimizer adamw ' +
    '--weight-decay 0.1 --lr 0.01 --mix-fraction 0.5',
};

const tmp = mkdtempSync(join(tmpdir(), 'resnorm-pytorch-scale-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

/** Every number of a against b's at the same place, by path; strings, booleans and nulls exactly. */
function compare(a, b, where, out) {
  if (typeof a === 'number' && typeof b === 'number') {
    const d = Math.abs(a - b);
    const rel = d <= ABS ? 0 : d / Math.max(Math.abs(a), Math.abs(b));
    out.worst = Math.max(out.worst, rel);
    assert.ok(rel <= DDP_REL, `${where}: one process ${a}, two processes ${b} (tolerance ${DDP_REL} relative)`);
    out.count++;
  } else if (Array.isArray(a)) {
    assert.ok(Array.isArray(b) && b.length === a.length, `${where}: ${JSON.stringify(b)} for ${JSON.stringify(a)}`);
    a.forEach((x, i) => compare(x, b[i], `${where}[${i}]`, out));
  } else if (a !== null && typeof a === 'object') {
    assert.deepEqual(Object.keys(b ?? {}).sort(), Object.keys(a).sort(), `${where}: the keys`);
    for (const k of Object.keys(a)) compare(a[k], b[k], `${where}.${k}`, out);
  } else {
    assert.equal(b, a, where);
  }
}

for (const block of Object.keys(RUNS)) {
  test(`${block} blocks: torchrun --nproc_per_node 2 (DDP, gloo) takes the one-process steps`, () => {
    requireTorch({ gloo: true });
    const file = join(tmp, `${block}.py`);
    execFileSync(CLI, [
      'train',
      ...RUNS[block].split(' '),
      '--arch',
      ARCHS.join(','),
      '--double',
      '--export-pytorch',
      file,
    ]);
    const one = spawnSync(PYTHON, [file, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    assert.equal(one.status, 0, `the ${block} script failed:\n${one.stderr}`);
    const two = spawnSync(TORCHRUN[0], [...TORCHRUN.slice(1), file, '--json'], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    assert.equal(two.status, 0, `the ${block} script under torchrun failed:\n${two.stderr}`);
    // DDP is told to search for unreached parameters only where the wiring leaves some: torch warns
    // when it was told to and found none (an extra graph traversal at every step).
    assert.doesNotMatch(two.stderr, /find_unused_parameters=True was specified/, `${block}: DDP searched in vain`);
    const a = jsonLines(one.stdout);
    const b = jsonLines(two.stdout);
    assert.equal(b.length, a.length, `${block}: two processes printed ${b.length} lines, one process ${a.length}`);
    const out = { worst: 0, count: 0 };
    a.forEach((x, i) => compare(x, b[i], x.arch ? `${x.arch}, ${block} block, step ${x.step}` : 'summary', out));
    assert.ok(out.count > 1000, `${block}: only ${out.count} numbers compared`);
  });
}

// Other sizes: --width/--depth make the script draw its own init from the engine's scheme. At the
// run's own sizes (--own-init) that init is checked against the engine's shipped one, for every
// architecture and both block kinds: each unit's wiring (skip, norms, DeepNet's alpha, LNS's
// 1/sqrt(l), Mix-LN's split, the gates' init) equals the engine's exactly; every parameter of the
// deterministic kinds (gammas, betas, gates, DenseFormer's weights) equals the engine's exactly; every
// random kind (W1, W2, W_Q..W_O, embedding, positions, unembedding, readout), pooled over the stack,
// has the engine's RMS within 5/sqrt(n), n its entries: both are independent draws of the same
// distribution, whose RMS estimates scatter by 1/sqrt(2n) relative each, so their difference by
// about 1/sqrt(n); a missing factor of the scheme (ReLU's sqrt(2), DeepNet's beta (8N)^(-1/4) = 0.42
// at N = 4, GPT-2's 1/sqrt(2N)) is off by 30% or more, over 10/sqrt(n) for every kind but the
// readout (n = width = 32: only its gross errors show). Orthogonal init: every matrix of the script's
// draw has orthogonal rows or columns (its Gram matrix a multiple of I within 1e-10) wherever the
// engine's has (not nGPT's, whose weight vectors are put on the unit sphere after the draw; its
// matrices' unit vectors are along the engine's axes). Admin's
// omegas are profiled on another random input and other weights than the engine's, so they are
// checked as a distribution: omega_1 = 1 exactly, each within 25% of the engine's (measured: 11%).
const CHECK_INIT = String.raw`
import importlib.util, json, sys
import torch
spec = importlib.util.spec_from_file_location("exported", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
torch.set_default_dtype(torch.float64)
run, cpu = mod.RUN, torch.device("cpu")
cfg = run["config"]
P = 2 if cfg["block"] == "transformer" else 1
own_run = mod.resized(run, cfg["width"], cfg["depth"])
own_run["init_seed"] = 7
data = ([mod.load_batch(b, run["model"], torch.float64, cpu) for b in run["train_batches"]],
        [mod.load_batch(b, run["model"], torch.float64, cpu) for b in run["heldout"]])
def unit_axes(t):
    # the axes along which every vector of t has norm 1 (nGPT's weights on the unit sphere)
    return [ax for ax in (0, 1) if float(((t * t).sum(dim=ax).sqrt() - 1).abs().max()) < 1e-12]
out = {}
for r in run["runs"]:
    a = r["arch"]
    engine = mod.Trainer(a, run, data, torch.float64, cpu, 1)
    own = mod.Trainer(a, own_run, data, torch.float64, cpu, 1)
    rep = {"units": r["units"], "own_units": next(x for x in own_run["runs"] if x["arch"] == a)["units"],
           "alpha": [u.alpha for b in engine.net.blocks for u in b.units],
           "own_alpha": [u.alpha for b in own.net.blocks for u in b.units], "kinds": {}, "orthogonal": 0.0,
           "engine_orthogonal": 0.0, "sphere": {}}
    places = {p["name"]: [p["block"], p["matrix"]] for p in r["params"]}
    o_named = own.net.engine_params()
    for name, p in engine.net.engine_params().items():
        q = o_named[name]
        k = rep["kinds"].setdefault(name.split("[")[0], {"n": 0, "engine_sq": 0.0, "own_sq": 0.0, "exact": True, "placed": True})
        k["n"] += p.numel()
        k["engine_sq"] += float((p * p).sum())
        k["own_sq"] += float((q * q).sum())
        k["exact"] = k["exact"] and bool(torch.equal(p, q))
        k["placed"] = k["placed"] and list(mod.param_place(name, cfg["depth"], P)) == places[name]
        if cfg["init"] == "orthogonal" and name.startswith("W"):
            for t, key in ((q, "orthogonal"), (p, "engine_orthogonal")):
                g = t.T @ t if t.shape[0] >= t.shape[1] else t @ t.T
                rep[key] = max(rep[key], float((g / g[0, 0] - torch.eye(g.shape[0])).abs().max()))
        if p.dim() == 2:
            rep["sphere"][name] = [unit_axes(p), unit_axes(q)]
    out[a] = rep
print(json.dumps(out))
`;

const RANDOM = ['W1', 'W2', 'W_Q', 'W_K', 'W_V', 'W_O', 'embedding', 'positions', 'unembedding', 'readout'];
const INIT_RUNS = {
  transformer: '--task reverse --block transformer --depth 4 --width 32 --heads 2 --seq 4 --vocab 6 --batch 4',
  mlp: '--task teacher --block mlp --depth 4 --width 32 --batch 4 --init orthogonal --activation tanh --gain 1.5',
};

for (const block of Object.keys(INIT_RUNS)) {
  test(`${block} blocks: the script's own init follows the engine's scheme, every architecture`, () => {
    requireTorch({ gloo: true });
    const file = join(tmp, `init-${block}.py`);
    const check = join(tmp, 'check_init.py');
    writeFileSync(check, CHECK_INIT);
    execFileSync(CLI, [
      'train',
      ...INIT_RUNS[block].split(' '),
      '--steps',
      '1',
      '--mix-fraction',
      '0.5',
      '--double',
      '--arch',
      ARCHS.join(','),
      '--export-pytorch',
      file,
    ]);
    const r = spawnSync(PYTHON, [check, file], { encoding: 'utf8', maxBuffer: 1 << 26 });
    assert.equal(r.status, 0, `the init check failed:\n${r.stderr}`);
    const report = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(report), ARCHS);
    for (const [arch, rep] of Object.entries(report)) {
      const where = `${arch}, ${block} block`;
      assert.equal(rep.own_units.length, rep.units.length, `${where}: units`);
      rep.units.forEach((u, k) => {
        for (const key of Object.keys(u)) {
          if (key === 'alpha' && arch === 'admin') continue;
          assert.equal(rep.own_units[k][key], u[key], `${where}, unit ${k + 1}, ${key}`);
        }
      });
      if (arch === 'admin') {
        assert.equal(rep.own_alpha[0], 1, `${where}: omega_1`);
        rep.alpha.forEach((x, k) => {
          const y = rep.own_alpha[k];
          assert.ok(Math.abs(y / x - 1) <= 0.25, `${where}, unit ${k + 1}, omega: engine ${x}, script ${y}`);
        });
      } else {
        assert.deepEqual(rep.own_alpha, rep.alpha, `${where}: the skip's alpha per unit`);
      }
      for (const [kind, k] of Object.entries(rep.kinds)) {
        assert.ok(k.placed, `${where}, ${kind}: block or matrix flag differs from the engine's`);
        if (!RANDOM.includes(kind)) {
          assert.ok(k.exact, `${where}, ${kind}: the script's init differs from the engine's`);
          continue;
        }
        const ratio = Math.sqrt(k.own_sq / k.engine_sq);
        const tol = 5 / Math.sqrt(k.n);
        assert.ok(Math.abs(ratio - 1) <= tol, `${where}, ${kind}: RMS ratio script/engine ${ratio} (tolerance ${tol})`);
      }
      // the same matrices on the unit sphere, along the same axis, as the engine's (nGPT's, none elsewhere)
      for (const [name, [engine, own]] of Object.entries(rep.sphere))
        assert.deepEqual(own, engine, `${where}, ${name}: the axes whose vectors have norm 1`);
      // orthogonal wherever the engine's draw is: nGPT's is not, as it puts every weight vector on the
      // unit sphere after the orthogonal draw (a non-square matrix's rows then are no longer orthogonal)
      if (rep.engine_orthogonal <= 1e-10)
        assert.ok(rep.orthogonal <= 1e-10, `${where}: an orthogonal matrix is off by ${rep.orthogonal}`);
      else assert.equal(arch, 'ngpt', `${where}: the engine's orthogonal draw is off by ${rep.engine_orthogonal}`);
    }
  });
}

test('--width/--depth: the script trains at other sizes with its own init, says so, and refuses what it cannot', () => {
  requireTorch({ gloo: true });
  const file = join(tmp, 'resize.py');
  execFileSync(CLI, ['train', ...RUNS.transformer.split(' '), '--arch', ARCHS.join(','), '--export-pytorch', file]);
  const r = spawnSync(PYTHON, [file, '--json', '--width', '12', '--depth', '5', '--steps', '2'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /width 12, depth 5 \(the engine's run: 8, 3\).*not step-for-step comparable/);
  const out = jsonLines(r.stdout);
  const last = out.at(-1);
  assert.equal(last.config.width, 12);
  assert.equal(last.config.depth, 5);
  assert.deepEqual(last.own_init, { seed: 0, engine_width: 8, engine_depth: 3 });
  for (const l of out.slice(0, -1)) {
    assert.equal(l.grad_norm.length, 6, `${l.arch}, step ${l.step}: one gradient norm per stream h_0..h_5`);
    assert.ok(Number.isFinite(l.train_loss), `${l.arch}, step ${l.step}: train loss ${l.train_loss}`);
  }
  const mlp = join(tmp, 'resize-mlp.py');
  execFileSync(CLI, ['train', ...RUNS.mlp.split(' '), '--arch', 'pre_ln', '--export-pytorch', mlp]);
  const w = spawnSync(PYTHON, [mlp, '--width', '16'], { encoding: 'utf8' });
  assert.notEqual(w.status, 0);
  assert.match(w.stderr, /--width 16: the teacher task's inputs are 12-wide/);
  const heads = spawnSync(PYTHON, [file, '--width', '9'], { encoding: 'utf8' });
  assert.notEqual(heads.status, 0);
  assert.match(heads.stderr, /--width 9 is not a multiple of the 2 heads/);
});
