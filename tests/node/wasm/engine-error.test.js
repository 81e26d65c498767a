// The engine's one error class (wasm/engine-error.js): each code is an
// EngineError and the built-in kind it stands for, its message names the
// field once, and what a worker posts rebuilds the same error.
import test from 'node:test';
import assert from 'node:assert/strict';
import { EngineError, errorData, errorFromData } from '../../../wasm/engine-error.js';
import { loadWasm } from '../helpers.js';

const KIND = { type: TypeError, range: RangeError, budget: RangeError, engine: Error };

test('each code is an EngineError and its built-in kind, and no other kind', () => {
  for (const [code, Kind] of Object.entries(KIND)) {
    const e = new EngineError(code, 'depth', 'too deep', code === 'budget' ? 12 : undefined);
    assert.ok(e instanceof EngineError, code);
    assert.ok(e instanceof Kind, code);
    assert.ok(e instanceof Error, code);
    for (const Other of [TypeError, RangeError]) if (Other !== Kind) assert.ok(!(e instanceof Other), `${code}`);
    assert.equal(e.name, Kind.name, 'printed as the built-in kind');
    assert.equal(e.code, code);
    assert.equal(e.field, 'depth');
    assert.equal(e.message, 'depth: too deep');
    assert.equal('max' in e, code === 'budget');
  }
  for (const other of [new RangeError('x'), new TypeError('x'), Object.assign(new Error('x'), { field: 'x' }), null])
    assert.ok(!(other instanceof EngineError));
});

test('the message names the field once, printably; a null field leaves it as given', () => {
  assert.equal(new EngineError('range', 'depth', 'depth: 0 is out of range').message, 'depth: 0 is out of range');
  assert.equal(new EngineError('range', 'de\npth', 'unknown field').message, 'de?pth: unknown field');
  assert.equal(new EngineError('range', null, 'unknown engine operation').message, 'unknown engine operation');
  assert.equal(new EngineError('nope', 'x', 'y').code, 'range', 'an unknown code is a range error');
});

test("a worker's error data rebuilds the same error; any other error crosses as a range error", () => {
  const sent = new EngineError('budget', 'depth', 'needs 1 GB', 31);
  const back = errorFromData(structuredClone(errorData(sent)));
  assert.ok(back instanceof EngineError && back instanceof RangeError);
  assert.deepEqual([back.code, back.field, back.message, back.max], ['budget', 'depth', 'depth: needs 1 GB', 31]);
  const typed = errorFromData(structuredClone(errorData(new EngineError('type', 'steps', 'expected a number'))));
  assert.ok(typed instanceof TypeError && typed.code === 'type' && !('max' in typed));
  const plain = errorFromData(structuredClone(errorData(new TypeError('x.map is not a function'))));
  assert.ok(plain instanceof RangeError && plain.code === 'range' && plain.field === null);
  assert.equal(errorFromData(undefined).message, 'the engine failed');
});

test("the engine's refusals are EngineErrors by code: a type, a range, a budget, a stopped engine", async () => {
  const rn = await loadWasm();
  const code = (fn) => {
    try {
      fn();
    } catch (e) {
      assert.ok(e instanceof EngineError, String(e));
      return [e.code, e.field];
    }
    return null;
  };
  assert.deepEqual(
    code(() => rn.simulate({ depth: {} })),
    ['type', 'depth'],
  );
  assert.deepEqual(
    code(() => rn.simulate({ depth: 0 })),
    ['range', 'depth'],
  );
  assert.deepEqual(
    code(() => rn.simulate({ depth: 1024, width: 128, expansion: 2, tokens: 64 })),
    ['budget', 'depth'],
  );
  assert.deepEqual(
    code(() => rn.trainer({ arch: ['pre_ln', 'post_ln'] })),
    ['range', 'arch'],
  );
  assert.deepEqual(
    code(() => rn.normToken('layernorm', [1, 2], [1])),
    ['range', 'gamma'],
  );
  const tr = rn.trainer({ arch: 'pre_ln', depth: 1, width: 8, seq: 2, steps: 1000000, log_every: 1 });
  assert.deepEqual(
    code(() => tr.step(1e6)),
    ['budget', 'n'],
  );
  tr.delete();
  assert.deepEqual(
    code(() => tr.step(1)),
    ['engine', 'trainer'],
  );
  rn.dispose();
  assert.deepEqual(
    code(() => rn.simulate({})),
    ['engine', 'engine'],
  );
});
