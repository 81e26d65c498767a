// When the engine stops (wasm/resnorm.js): after rn.dispose(), and after a
// failure the module cannot come back from (an abort), every call of the
// engine and of its trainers throws one Error naming 'engine'; a second
// dispose() and a trainer's delete() do nothing.
// Run: node --test tests/node/wasm/dispose.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadWasm } from '../helpers.js';

const SMALL = { depth: 4, width: 16, tokens: 4 };
const TRAIN = { task: 'copy', arch: 'pre_ln', depth: 2, width: 16, seq: 3, vocab: 6, steps: 5 };

/** Every call of the engine and of trainer `tr`, each a function that must throw. */
function everyCall(rn, tr, saved) {
  return {
    simulate: () => rn.simulate(SMALL),
    check: () => rn.check(SMALL),
    normalize: () => rn.normalize(SMALL),
    pathGradients: () => rn.pathGradients({ ...SMALL, samples: 2 }),
    checkTrain: () => rn.checkTrain(TRAIN),
    trainer: () => rn.trainer(TRAIN),
    normToken: () => rn.normToken('layernorm', [1, 2, 3]),
    batchVsLayerNorm: () => rn.batchVsLayerNorm({ x: [1, 2], batch: 1, length: 2, width: 1, lengths: [2] }),
    memory: () => rn.memory(),
    'trainer.step': () => tr.step(1),
    'trainer.stepsDone': () => tr.stepsDone,
    'trainer.stopped': () => tr.stopped,
    'trainer.lesion': () => tr.lesion(),
    'trainer.gates': () => tr.gates(),
    'trainer.dwaWeights': () => tr.dwaWeights(),
    'trainer.attnResWeights': () => tr.attnResWeights(),
    'trainer.normSamples': () => tr.normSamples(),
    'trainer.outcome': () => tr.outcome(),
    'trainer.state': () => tr.state(),
    'trainer.load': () => tr.load(saved),
  };
}

function stoppedEverywhere(rn, tr, saved, pattern) {
  const messages = new Set();
  for (const [name, call] of Object.entries(everyCall(rn, tr, saved))) {
    assert.throws(
      call,
      (e) => {
        assert.ok(e instanceof Error, `${name}: ${e}`);
        assert.equal(e.field, 'engine', `${name}: ${e.message}`);
        assert.match(e.message, pattern, name);
        messages.add(e.message);
        return true;
      },
      name,
    );
  }
  assert.equal(messages.size, 1, `one error for every call: ${[...messages].join(' | ')}`);
  assert.equal(rn.usable, false);
}

test('after dispose(): every call throws the one engine error; dispose() again and delete() do nothing', async () => {
  const rn = await loadWasm();
  const tr = rn.trainer(TRAIN);
  tr.step(2);
  const saved = tr.state();
  const kept = rn.trainer(TRAIN);
  kept.delete();
  rn.dispose();
  stoppedEverywhere(rn, tr, saved, /^engine: this engine was disposed \(dispose\(\)\); load a new one$/);
  assert.doesNotThrow(() => rn.dispose(), 'a second dispose()');
  assert.doesNotThrow(() => tr.delete(), "a trainer's delete() after dispose()");
  assert.doesNotThrow(() => kept.delete(), 'a deleted trainer deleted again');
  stoppedEverywhere(rn, tr, saved, /disposed/);
  // A new engine works.
  const fresh = await loadWasm();
  assert.equal(fresh.usable, true);
  assert.equal(fresh.simulate(SMALL).results.pre_ln.grad_norm.length, 5);
  fresh.dispose();
});

test('an abort inside the module stops the engine: the call and every later one throw naming engine, never a trap', async () => {
  const rn = await loadWasm();
  const tr = rn.trainer(TRAIN);
  const saved = tr.state();
  const run = rn._sim.run;
  rn._sim.run = () => {
    throw new WebAssembly.RuntimeError('Aborted()'); // what an abort looks like from JS
  };
  assert.throws(
    () => rn.simulate(SMALL),
    (e) =>
      e instanceof Error &&
      e.field === 'engine' &&
      e.message === 'engine: the engine stopped after a failure (Aborted()); load a new one',
  );
  rn._sim.run = run;
  stoppedEverywhere(rn, tr, saved, /^engine: the engine stopped after a failure \(Aborted\(\)\); load a new one$/);
  assert.doesNotThrow(() => rn.dispose());
  stoppedEverywhere(rn, tr, saved, /disposed/);
});
