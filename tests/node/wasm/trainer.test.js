// rn.trainer() (wasm/resnorm.js over bindings.cpp's Trainer): its shape and
// typed arrays, determinism, save and restore bit for bit, damaged states
// refused by name with the trainer unchanged, and bad configs named with
// their field and range, after which the module computes the same numbers.
// Run: node --test tests/node/wasm/trainer.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { bits, cliTrain, loadWasm } from '../helpers.js';

const rn = await loadWasm();

const CONFIG = {
  task: 'reverse',
  arch: 'pre_ln',
  depth: 3,
  width: 16,
  heads: 2,
  seq: 4,
  vocab: 8,
  batch: 4,
  steps: 20,
  log_every: 3,
};

function run(config, chunks) {
  const tr = rn.trainer(config);
  const logs = chunks.flatMap((n) => tr.step(n));
  tr.delete();
  return logs;
}

const REFERENCE = bits(run(CONFIG, [20]));

test('the train field table is the core table: names, ranges, defaults', () => {
  const names = rn.trainFields.map((f) => f.name);
  assert.deepEqual(names.slice(0, 4), ['task', 'arch', 'block', 'depth']);
  assert.deepEqual(Object.keys(rn.trainDefaults), names);
  assert.deepEqual(rn.trainDefaults.arch, ['post_ln', 'pre_ln']);
  assert.equal(rn.trainDefaults.lr, 1e-3);
  assert.equal(rn.trainDefaults.steps, 1000);
  const field = (n) => rn.trainFields.find((f) => f.name === n);
  assert.equal(field('depth').allowed, '1..128');
  assert.equal(field('eps').min, 1e-30, 'a small bound stays exact');
  assert.equal(field('clip').max, 1e30);
  assert.deepEqual(field('task').choices, ['copy', 'reverse', 'sort', 'modadd', 'markov', 'teacher']);
  assert.equal(field('arch').choices.length, 21);
  assert.deepEqual(field('arch').choices.slice(9), [
    'admin',
    'rezero',
    'layerscale',
    'lns',
    'mix_ln',
    'dwa',
    'dyt',
    'hyper',
    'mhc',
    'attn_res',
    'hybrid',
    'ngpt',
  ]);
  assert.equal(field('dyt_alpha').allowed, '0.01..10');
  assert.equal(field('ngpt_alpha').allowed, '0.001..1');
  assert.equal(field('hc_streams').allowed, '1..16');
  assert.equal(field('sinkhorn_iters').allowed, '1..100');
});

test('dwaWeights: the identity at init, learned after training, as in the saved state; null for other architectures', () => {
  const tr = rn.trainer({ ...CONFIG, arch: 'dwa' });
  const init = tr.dwaWeights();
  assert.equal(init.length, 3);
  init.forEach((row, r) => {
    assert.ok(row instanceof Float64Array);
    assert.equal(row.length, r + 2, 'w_{l,0..l}');
    row.forEach((w, j) => assert.equal(w, j === r + 1 ? 1 : 0));
  });
  tr.step(10);
  const trained = tr.dwaWeights();
  assert.notDeepEqual(trained, init);
  const saved = tr.state();
  const other = rn.trainer({ ...CONFIG, arch: 'dwa' });
  other.load(saved);
  assert.equal(bits(other.dwaWeights()), bits(trained));
  other.delete();
  tr.delete();
  const pre = rn.trainer(CONFIG);
  assert.equal(pre.dwaWeights(), null);
  pre.delete();
});

test('attnResWeights: uniform at init (row k - 1 is 1/(k + 1)), each row a softmax, learned after training, as in the saved state; null for other architectures', () => {
  const tr = rn.trainer({ ...CONFIG, arch: 'attn_res' });
  const units = tr.config.block === 'transformer' ? 2 * CONFIG.depth : CONFIG.depth;
  const init = tr.attnResWeights();
  assert.equal(init.length, units);
  init.forEach((row, r) => {
    assert.ok(row instanceof Float64Array);
    assert.equal(row.length, r + 2, 'a_{k,0..k}');
    // float weights 1/(k + 1), averaged over the held-out tokens in double
    row.forEach((w) => assert.ok(Math.abs(w - 1 / (r + 2)) < 1e-7, `row ${r}: ${w}`));
  });
  tr.step(10);
  const trained = tr.attnResWeights();
  assert.notDeepEqual(trained, init);
  for (const row of trained) {
    assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-6, 'a row sums to 1');
    for (const w of row) assert.ok(w > 0 && w < 1);
  }
  const saved = tr.state();
  const other = rn.trainer({ ...CONFIG, arch: 'attn_res' });
  other.load(saved);
  assert.equal(bits(other.attnResWeights()), bits(trained));
  other.delete();
  tr.delete();
  const pre = rn.trainer(CONFIG);
  assert.equal(pre.attnResWeights(), null);
  pre.delete();
});

test('gates: every entry at its init value before training, learned after, as in the saved state; null without gates', () => {
  for (const [arch, width, init] of [
    ['rezero', 1, 0],
    ['layerscale', CONFIG.width, Math.fround(0.1)],
  ]) {
    const tr = rn.trainer({ ...CONFIG, arch });
    const g0 = tr.gates();
    assert.equal(g0.width, width, arch);
    assert.equal(g0.units, 2 * CONFIG.depth, `${arch}: attention and MLP of each block`);
    assert.ok(g0.init instanceof Float64Array && g0.magnitude instanceof Float64Array);
    assert.equal(g0.values.length, g0.units);
    g0.values.forEach((row, k) => {
      assert.ok(row instanceof Float64Array);
      assert.equal(row.length, width);
      row.forEach((v) => assert.equal(v, init, `${arch} unit ${k + 1}`));
      assert.equal(Math.fround(g0.init[k]), init);
      assert.equal(g0.magnitude[k], init);
    });
    tr.step(10);
    const trained = tr.gates();
    assert.notDeepEqual(trained.values, g0.values, `${arch}: the gates learn`);
    assert.deepEqual(trained.init, g0.init);
    trained.values.forEach((row, k) => {
      const mean = row.reduce((a, v) => a + Math.abs(v), 0) / width;
      assert.ok(Math.abs(trained.magnitude[k] - mean) <= 1e-12 * Math.max(1, mean), `${arch} magnitude ${k + 1}`);
    });
    const other = rn.trainer({ ...CONFIG, arch });
    other.load(tr.state());
    assert.equal(bits(other.gates()), bits(trained));
    other.delete();
    tr.delete();
  }
  for (const arch of ['pre_ln', 'dwa']) {
    const tr = rn.trainer({ ...CONFIG, arch });
    assert.equal(tr.gates(), null, arch);
    tr.delete();
  }
});

test('a trainer: config, task, logs with typed arrays of L+1 and L, lesion, outcome, state', () => {
  const tr = rn.trainer(CONFIG);
  assert.equal(tr.config.arch, 'pre_ln', 'one architecture, by name');
  assert.equal(tr.config.depth, 3);
  assert.equal(tr.config.optimizer, 'adam', 'defaults filled in');
  assert.deepEqual(Object.keys(tr.config), Object.keys(rn.trainDefaults));
  assert.deepEqual(tr.task, { chance: Math.log(8), optimal: 0 });
  assert.equal(tr.stepsDone, 0);
  assert.equal(tr.stopped, false);
  assert.throws(
    () => tr.outcome(),
    (e) => e instanceof RangeError && e.field === 'outcome',
  );
  const logs = tr.step(7);
  assert.equal(tr.stepsDone, 7);
  assert.deepEqual(
    logs.map((g) => g.step),
    [3, 6],
  );
  // The CLI's fields (but its arch) in the contract's order: scalars, first_nonfinite, then the arrays.
  const [line] = cliTrain({ ...CONFIG, steps: 3 }).logs.pre_ln;
  const keys = Object.keys(line).filter((k) => k !== 'arch' && k !== 'first_nonfinite');
  const scalars = keys.filter((k) => !Array.isArray(line[k]));
  const arrays = keys.filter((k) => Array.isArray(line[k]));
  assert.deepEqual(Object.keys(logs[0]), [...scalars, 'first_nonfinite', ...arrays]);
  const g = logs[1];
  assert.equal(g.first_nonfinite, null);
  assert.equal(g.lr, 1e-3);
  assert.ok(g.train_loss > 0 && g.heldout_loss > 0 && g.grad_norm_global > 0);
  assert.ok(g.heldout_accuracy >= 0 && g.heldout_accuracy <= 1);
  for (const [key, n] of [
    ['grad_norm', 4],
    ['stream_rms', 4],
    ['w_grad_norm', 3],
    ['update_ratio', 3],
    ['contribution', 3],
  ]) {
    assert.ok(g[key] instanceof Float64Array, key);
    assert.equal(g[key].length, n, key);
    assert.equal(g[key].buffer.byteLength, n * 8, `${key} is its own copy`);
    assert.ok(
      g[key].every((v) => Number.isFinite(v) && v >= 0),
      key,
    );
  }
  const before = bits(logs);
  tr.step(13); // the rest, to the last of config.steps (logged, though not a multiple of 3)
  assert.equal(bits(logs), before, 'later calls leave earlier logs as they were');
  assert.deepEqual(tr.step(5), [], 'not past config.steps');
  assert.ok(['trained', 'diverged', 'collapsed', 'slow'].includes(tr.outcome()));
  const les = tr.lesion();
  assert.deepEqual(Object.keys(les), ['base', 'loss', 'increase', 'relative', 'contribution', 'contribution_init']);
  assert.ok(les.loss instanceof Float64Array && les.loss.length === 3);
  les.loss.forEach((l, i) => assert.equal(les.increase[i], l - les.base));
  const state = tr.state();
  assert.ok(state instanceof Uint8Array);
  assert.equal(new TextDecoder().decode(state.subarray(0, 8)), 'RNTRAIN1');
  tr.delete();
  tr.delete();
  for (const call of [() => tr.step(1), () => tr.state(), () => tr.stepsDone, () => tr.lesion()])
    assert.throws(call, (e) => e.field === 'trainer' && /deleted/.test(e.message));
});

test('the logged steps: every log_every-th and the last; a teacher task has no accuracy', () => {
  assert.deepEqual(
    run(CONFIG, [4, 4, 4, 8]).map((g) => g.step),
    [3, 6, 9, 12, 15, 18, 20],
  );
  const teacher = rn.trainer({ ...CONFIG, task: 'teacher', block: 'mlp', steps: 4, log_every: 2 });
  assert.deepEqual(teacher.task, { chance: teacher.task.chance, optimal: 0 });
  const [g] = teacher.step(2);
  assert.ok(Number.isNaN(g.heldout_accuracy), 'NaN: not a classification');
  assert.ok(Number.isFinite(g.heldout_loss));
  teacher.delete();
});

test('the same config twice gives the same logs bit for bit, however the steps are split', () => {
  assert.equal(bits(run(CONFIG, [20])), REFERENCE);
  assert.equal(bits(run(CONFIG, [1, 5, 2, 12])), REFERENCE);
  assert.notEqual(bits(run({ ...CONFIG, seed: 1 }, [20])), REFERENCE, 'the seed matters');
});

test('save and restore: a state after k steps, loaded into a fresh trainer, continues bit for bit', () => {
  for (const k of [0, 1, 6, 7, 20]) {
    const a = rn.trainer(CONFIG);
    const first = a.step(k);
    const saved = a.state();
    // Another config entirely: the state brings its own.
    const b = rn.trainer({ ...CONFIG, arch: 'post_ln', depth: 1, steps: 2 });
    b.load(saved);
    assert.equal(b.config.arch, 'pre_ln');
    assert.deepEqual(b.config, a.config);
    assert.equal(b.stepsDone, k);
    assert.equal(bits(b.state()), bits(saved), 'a restored trainer saves the same bytes');
    assert.throws(() => b.outcome(), /no step has been logged/);
    const rest = b.step(20 - k);
    assert.equal(bits([...first, ...rest]), REFERENCE, `restored after ${k} steps`);
    assert.equal(bits(a.step(20 - k)), bits(rest), 'the original goes on the same way');
    a.load(saved.buffer); // an ArrayBuffer is taken too
    assert.equal(a.stepsDone, k);
    a.delete();
    b.delete();
  }
});

test('a damaged state is refused naming state and what is wrong; the trainer is unchanged', () => {
  const src = rn.trainer(CONFIG);
  src.step(5);
  const saved = src.state();
  src.delete();
  const tr = rn.trainer(CONFIG);
  tr.step(3);
  const mine = tr.state();
  const damaged = [
    [saved.subarray(0, 0), 'truncated'],
    [saved.subarray(0, 51), 'truncated'],
    [saved.subarray(0, 200), 'checksum'],
    [saved.subarray(0, saved.length - 1), 'checksum'],
    [new TextEncoder().encode('not a training state at all, but long enough to pass the size check'), 'not a resnorm'],
  ];
  for (const at of [0, 9, 20, 100, Math.floor(saved.length / 2), saved.length - 9, saved.length - 1]) {
    const flipped = saved.slice();
    flipped[at] ^= 0x10;
    damaged.push([flipped, at < 8 ? 'not a resnorm' : at < 12 ? 'version' : 'checksum']); // magic, version (u32), the rest
  }
  for (const [bytes, what] of damaged) {
    assert.throws(
      () => tr.load(bytes),
      (e) =>
        e instanceof RangeError && e.field === 'state' && e.message.startsWith('state: ') && e.message.includes(what),
      `${bytes.length} bytes: ${what}`,
    );
    assert.equal(bits(tr.state()), bits(mine), 'unchanged');
  }
  for (const bad of ['RNTRAIN1', [1, 2, 3], new Float32Array(4), null, 7, { length: 3 }])
    assert.throws(
      () => tr.load(bad),
      (e) => e instanceof TypeError && e.field === 'state',
    );
  assert.equal(tr.stepsDone, 3);
  assert.equal(bits([...run(CONFIG, [3]), ...tr.step(17)]), REFERENCE, 'and trains on as if nothing happened');
  tr.delete();
});

test('bad configs name their field and range; the module keeps computing the same numbers', () => {
  const hostile = '<script>alert(1)</script>\u0000\u001b[31m' + 'x'.repeat(10000);
  const cases = [
    [{ ...CONFIG, lr: NaN }, RangeError, 'lr', 'lr: nan is not a finite number (allowed 0..10)'],
    [{ ...CONFIG, lr: Infinity }, RangeError, 'lr', 'not a finite number'],
    [{ ...CONFIG, depth: 0 }, RangeError, 'depth', 'depth: 0 is out of range (allowed 1..128)'],
    [{ ...CONFIG, depth: 2.5 }, RangeError, 'depth', 'is not a whole number'],
    [{ ...CONFIG, width: '16x' }, RangeError, 'width', 'is not a finite number written in decimal'],
    [{ ...CONFIG, width: { n: 16 } }, TypeError, 'width', 'expected a number, got an object'],
    [{ ...CONFIG, steps: null }, TypeError, 'steps', 'expected a number, got null'],
    [{ ...CONFIG, task: 7 }, TypeError, 'task', 'expected one of copy|reverse'],
    [{ ...CONFIG, optimizer: ['adam'] }, TypeError, 'optimizer', 'got an array'],
    [{ ...CONFIG, task: hostile }, RangeError, 'task', 'is not a known value (allowed copy|reverse|sort'],
    [{ ...CONFIG, heads: 3 }, RangeError, 'heads', 'is not one of 1, 2, 4, 8'],
    [{ ...CONFIG, width: 18, heads: 4 }, RangeError, 'heads', '4 does not divide width 18'],
    [{ ...CONFIG, seed: -1 }, RangeError, 'seed', 'allowed 0..4294967295'],
    [{ ...CONFIG, arch: ['pre_ln', 'post_ln'] }, RangeError, 'arch', '2 architectures given; a trainer trains one'],
    [{ ...CONFIG, arch: 'pre_ln,post_ln' }, RangeError, 'arch', 'a trainer trains one (allowed one of plain|'],
    [{ ...CONFIG, arch: ['pre_ln', 'pre_ln'] }, RangeError, 'arch', 'listed twice'],
    [{ ...CONFIG, arch: 'nope' }, RangeError, 'arch', "'nope' is not a known architecture"],
    [{ ...CONFIG, arch: [] }, RangeError, 'arch', 'missing value'],
    [{ ...CONFIG, arch: [7] }, TypeError, 'arch', 'entry 0 is a number'],
    [{ task: 'reverse' }, RangeError, 'arch', '2 architectures given'],
    [{ ...CONFIG, colour: 'red' }, RangeError, 'colour', 'unknown field (allowed task, arch,'],
    [JSON.parse('{"__proto__": {"depth": 1}}'), RangeError, '__proto__', 'unknown field'],
    [{ ...CONFIG, constructor: 1 }, RangeError, 'constructor', 'unknown field'],
    [{ ...CONFIG, [hostile]: 1 }, RangeError, hostile, 'unknown field'],
    [null, TypeError, 'config', 'must be an object of fields'],
    [[CONFIG], TypeError, 'config', 'must be an object of fields'],
  ];
  for (const [config, Kind, field, text] of cases) {
    assert.throws(
      () => rn.trainer(config),
      (e) => {
        assert.ok(e instanceof Kind, `${field}: ${e}`);
        assert.equal(e.field, field);
        assert.ok(e.message.includes(text), `${e.message.slice(0, 200)} should include ${text}`);
        // the message may list every field's name; the value in it is cut to a few dozen bytes
        const names = rn.trainFields.map((f) => f.name).join(', ');
        assert.ok(e.message.length < 160 + names.length, 'a hostile value is cut short');
        assert.ok(!/[\u0000-\u001f]/.test(e.message), 'no control character reaches the message');
        return true;
      },
    );
    assert.equal(bits(run(CONFIG, [20])), REFERENCE, `after ${field}`);
  }
});

test('over the budget: depth named with the deepest that fits (.max); checkTrain counts every arch', () => {
  const big = { ...CONFIG, arch: 'pre_ln', depth: 128, width: 256, heads: 4, seq: 64, batch: 256 };
  assert.throws(
    () => rn.trainer(big),
    (e) => e instanceof RangeError && e.field === 'depth' && e.max === 0 && /needs .* of memory/.test(e.message),
  );
  const wide = { ...CONFIG, depth: 128, width: 256, heads: 4, seq: 16, batch: 32 };
  let err;
  try {
    rn.checkTrain(wide);
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof RangeError && err.field === 'depth' && err.max >= 1 && err.max < 128, String(err));
  assert.equal(rn.checkTrain({ ...wide, depth: err.max }).depth, err.max);
  // Ten architectures side by side cost ten times one: checkTrain counts every one, as the CLI does.
  const all = rn.trainFields.find((f) => f.name === 'arch').choices;
  let tenErr;
  try {
    rn.checkTrain({ ...wide, arch: all, depth: err.max });
  } catch (e) {
    tenErr = e;
  }
  assert.ok(tenErr && tenErr.field === 'depth' && tenErr.max < err.max, String(tenErr));
  const canonical = rn.checkTrain({ arch: 'pre_ln,post_ln', lr: '1e-2' });
  assert.deepEqual(canonical.arch, ['pre_ln', 'post_ln']);
  assert.equal(canonical.lr, 0.01);
  assert.deepEqual(Object.keys(canonical), Object.keys(rn.trainDefaults));
  assert.throws(
    () => rn.checkTrain({ depth: -3 }),
    (e) => e.field === 'depth',
  );
});

test('step(n) takes a whole n in 0..1000000 and at most 32 MB of logs a call (.max)', () => {
  const tr = rn.trainer(CONFIG);
  for (const [n, Kind, text] of [
    [-1, RangeError, 'n: -1 is out of range (allowed 0..1000000)'],
    [1.5, RangeError, 'is not a whole number'],
    [NaN, RangeError, 'is not a finite number'],
    [2e6, RangeError, 'out of range'],
    ['2x', RangeError, 'is not a finite number written in decimal'],
    [null, TypeError, 'expected a number'],
  ])
    assert.throws(
      () => tr.step(n),
      (e) => e instanceof Kind && e.field === 'n' && e.message.includes(text),
      String(n),
    );
  assert.deepEqual(tr.step(0), []);
  assert.equal(tr.step('2').length, 0, 'a decimal string; steps 1..2 are not logged');
  assert.equal(tr.stepsDone, 2);
  tr.delete();
  // 128 blocks log 651 numbers a step: 6442 logged steps fit in 32 MB.
  const deep = rn.trainer({
    ...CONFIG,
    block: 'mlp',
    depth: 128,
    width: 2,
    seq: 2,
    vocab: 2,
    batch: 1,
    steps: 1e6,
    log_every: 1,
  });
  assert.throws(
    () => deep.step(10000),
    (e) => e instanceof RangeError && e.field === 'n' && e.max === 6442 && /one call may return 32 MB/.test(e.message),
  );
  assert.equal(deep.stepsDone, 0);
  deep.delete();
});

test('normSamples: each norm on held-out batch 0, its output the norm of its input; null without norms', () => {
  // At initialization every gain is 1 and every bias 0: Pre-LN's outputs are each row's
  // (x - mean) / sqrt(var + 1e-5), DyT's tanh(0.5 x) (alpha_0 0.5), in float.
  for (const arch of ['pre_ln', 'dyt']) {
    const tr = rn.trainer({ ...CONFIG, arch });
    const s = tr.normSamples();
    assert.deepEqual(s.units, [1, 2, 3, 4, 5, 6, 7], `${arch}: every unit's input norm, then the final norm`);
    assert.equal(s.width, CONFIG.width);
    assert.ok(s.rows > 0);
    assert.equal(s.input.length, 7);
    let worst = 0;
    s.input.forEach((x, i) => {
      const y = s.output[i];
      assert.ok(x instanceof Float64Array && x.length === s.rows * s.width);
      for (let r = 0; r < s.rows; r++) {
        const row = x.subarray(r * s.width, (r + 1) * s.width);
        const mean = row.reduce((a, v) => a + v, 0) / s.width;
        const v = row.reduce((a, q) => a + (q - mean) ** 2, 0) / s.width;
        row.forEach((q, c) => {
          const want = arch === 'dyt' ? Math.tanh(0.5 * q) : (q - mean) / Math.sqrt(v + 1e-5);
          worst = Math.max(worst, Math.abs(y[r * s.width + c] - want));
        });
      }
    });
    assert.ok(worst < 1e-5, `${arch}: largest |output - formula| ${worst}`);
    // a held-out measurement: the run goes on as one never asked
    const logs = tr.step(20);
    assert.equal(bits(logs), arch === 'pre_ln' ? REFERENCE : bits(run({ ...CONFIG, arch }, [20])));
    tr.delete();
  }
  const plain = rn.trainer({ ...CONFIG, arch: 'plain' });
  assert.equal(plain.normSamples(), null);
  plain.delete();
});
