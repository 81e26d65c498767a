// A trainer's memory in one wasm module (session.h, trainer.h): whatever
// the budget lets a trainer be made at, it can be saved and loaded back, in a
// fresh module and in the same one; several trainers share one module's budget
// (one that would not fit beside the others is refused naming depth, with
// .max), and the module keeps working after every refusal; a save that fails
// leaves the trainer as it was.
// Run: node --test tests/node/wasm/train-memory.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { bits, loadWasm } from '../helpers.js';

const MB = 2 ** 20;
const HEAP_MAX = 1024 * MB; // -sMAXIMUM_MEMORY in wasm/CMakeLists.txt

// The lab's link of the report: train.html#task=reverse&arch=pre_ln&width=256&seq=64&batch=1&expansion=4&eval_batches=1,
// two steps (the second, the last, is logged: its held-out loss is compared).
const LAB = {
  task: 'reverse',
  arch: 'pre_ln',
  width: 256,
  seq: 64,
  batch: 1,
  expansion: 4,
  eval_batches: 1,
  steps: 2,
  log_every: 10,
};

const sameBytes = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

/** The deepest depth the budget allows for `config`, from the engine's own refusal. */
function deepest(rn, config) {
  try {
    rn.checkTrain({ ...config, depth: 128 });
    return 128;
  } catch (e) {
    assert.equal(e.field, 'depth', e.message);
    return e.max;
  }
}

test('the largest allowed config: one step, state, loaded into a fresh module, same state and the same next step bit for bit', async () => {
  const started = performance.now();
  const a = await loadWasm();
  const depth = deepest(a, LAB);
  assert.ok(depth >= 39, `depth ${depth}: the report's state() failed from depth 23 on`);
  const config = { ...LAB, depth };
  const tr = a.trainer(config);
  assert.deepEqual(tr.step(1), [], 'step 1 is not logged');
  const saved = tr.state();
  assert.ok(saved.length > 300 * MB, `${saved.length} bytes: the parameters and both moments`);
  assert.ok(a.memory().heap <= HEAP_MAX);

  // A fresh module (a fresh page): a trainer of the file's config, its state loaded.
  const b = await loadWasm();
  const loaded = b.trainer(config);
  loaded.load(saved);
  assert.equal(loaded.stepsDone, 1);
  assert.ok(sameBytes(loaded.state(), saved), 'the loaded trainer saves the same bytes');
  const [next] = tr.step(1);
  const [again] = loaded.step(1);
  assert.equal(next.step, 2);
  assert.ok(Number.isFinite(next.heldout_loss));
  assert.equal(bits(again), bits(next), 'the next step, its held-out loss included, bit for bit');
  loaded.delete();
  b.dispose();

  tr.delete();
  assert.equal(a.memory().trainers, 0);
  assert.ok(a.memory().heap <= HEAP_MAX);
  a.dispose();
  console.log(
    `largest allowed config: depth ${depth}, state ${(saved.length / MB).toFixed(0)} MB, ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
});

test('trainers side by side share one budget: the third is refused naming depth (.max), and the module goes on', async () => {
  const rn = await loadWasm();
  const config = { ...LAB, depth: 19 };
  const one = rn.trainer(config);
  const two = rn.trainer({ ...config, arch: 'post_ln' });
  let refusal;
  assert.throws(
    () => rn.trainer(config),
    (e) => {
      refusal = e;
      return (
        e instanceof RangeError &&
        e.field === 'depth' &&
        Number.isInteger(e.max) &&
        e.max < 19 &&
        /^depth: 19 needs \d+ MB of memory, and its engine holds \d+ MB already \(one engine may hold 768 MB in all\)/.test(
          e.message,
        )
      );
    },
  );
  // What the two hold (the refused one holds nothing): within the budget, and too much for a third.
  const held = rn.memory().trainers;
  assert.ok(held > (2 / 3) * rn.memory().budget && held <= rn.memory().budget, `${held / MB} MB held`);
  // .max is the deepest that fits beside them: it is made, one more is not.
  if (refusal.max >= 1) rn.trainer({ ...config, depth: refusal.max }).delete();
  assert.throws(
    () => rn.trainer({ ...config, depth: refusal.max + 1 }),
    (e) => e.field === 'depth' && e.max === refusal.max,
  );
  // A simulate runs in what they leave: refused by name over it, run under it.
  assert.throws(
    () => rn.simulate({ arch: ['pre_ln'], depth: 512, width: 128, tokens: 64 }),
    (e) =>
      e instanceof RangeError && e.field === 'depth' && Number.isInteger(e.max) && /its engine holds/.test(e.message),
  );
  assert.equal(rn.simulate({ depth: 8, width: 16, tokens: 4 }).results.pre_ln.grad_norm.length, 9);
  const small = rn.trainer({ task: 'copy', arch: 'pre_ln', depth: 2, width: 16, seq: 3, vocab: 6, steps: 5 });
  assert.equal(small.step(5).length, 1);
  small.delete();

  // Save, then load beside them (the page's Save, then Load): each state loads
  // into its own trainer, and the run goes on as it would have.
  one.step(1);
  two.step(1);
  const s1 = one.state();
  const s2 = two.state();
  one.load(s1);
  two.load(s2);
  const [after] = one.step(1);
  assert.ok(Number.isFinite(after.heldout_loss));
  two.step(1);
  assert.ok(rn.memory().heap <= HEAP_MAX);
  // Deleted, they give their share back: the deepest trainer fits again.
  one.delete();
  two.delete();
  assert.equal(rn.memory().trainers, 0);
  const deep = rn.trainer({ ...config, depth: deepest(rn, LAB) });
  deep.load(deep.state());
  deep.delete();
  // A state of another config needs a trainer beside this one: refused by name when it would not fit.
  const full = rn.trainer({ ...config, depth: 30 });
  assert.throws(
    () => full.load(s1),
    (e) => e instanceof RangeError && e.field === 'state' && /its engine holds/.test(e.message),
  );
  assert.equal(full.config.depth, 30, 'the trainer is as it was');
  full.delete();
  const other = rn.trainer({ task: 'copy', arch: 'pre_ln', depth: 2, width: 16, seq: 3, vocab: 6, steps: 5 });
  other.load(s1);
  assert.equal(other.config.depth, 19);
  assert.equal(bits(other.step(1)), bits([after]));
  other.delete();
  rn.dispose();
});

test('a save that fails in the engine costs nothing: the trainer goes on and saves again', async () => {
  const rn = await loadWasm();
  const config = { task: 'copy', arch: 'pre_ln', depth: 2, width: 16, seq: 3, vocab: 6, steps: 6, log_every: 1 };
  const tr = rn.trainer(config);
  const reference = rn.trainer(config);
  tr.step(2);
  reference.step(2);
  // The module's call that copies the state's bytes out (whichever of these
  // names it has) fails as an uncaught C++ exception does from JS: a number.
  const failing = ['writeState', 'state'].filter((name) => typeof tr._t[name] === 'function');
  assert.ok(failing.length > 0);
  const kept = failing.map((name) => [name, tr._t[name]]);
  for (const name of failing)
    tr._t[name] = () => {
      throw 5251912;
    };
  assert.throws(
    () => tr.state(),
    (e) => e instanceof Error && e.field === 'trainer' && /the trainer is as it was/.test(e.message),
  );
  for (const [name, fn] of kept) tr._t[name] = fn;
  assert.equal(bits(tr.step(2)), bits(reference.step(2)));
  assert.ok(sameBytes(tr.state(), reference.state()));
  tr.delete();
  reference.delete();
  rn.dispose();
});
