// The wasm heap stays bounded: 1,000 calls alternating small configs with the
// largest the memory budget allows (each shape at the largest depth the
// engine's own refusal names), every call succeeds, the small config's
// numbers never change, and the heap's high-water mark stays under the budget
// plus the module's own memory (docs/cli.md, "Limits").
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadWasm } from '../helpers.js';

const MB = 2 ** 20;
const BUDGET = 768 * MB; // kMemoryBudget in core/include/resnorm/limits.h
const MODULE = 32 * MB; // the module's initial memory: its stack, static data and the JS side's buffers

const rn = await loadWasm();
const all = rn.fields.find((f) => f.name === 'arch').choices;

/** `shape` at the largest depth that fits, read from the engine's refusal of depth 1024. */
function largest(shape) {
  try {
    rn.simulate(shape);
    return shape;
  } catch (e) {
    const m = /allowed 1\.\.(\d+) with the other settings/.exec(e.message);
    assert.ok(m, e.message);
    return { ...shape, depth: Number(m[1]) };
  }
}

test('1,000 calls, small and largest alternating: the heap stays under the budget', () => {
  const large = [
    largest({ arch: all, depth: 1024, width: 8, tokens: 64, expansion: 1 }),
    largest({ arch: ['pre_ln'], depth: 1024, width: 64, tokens: 64, expansion: 4 }),
    largest({ arch: all, depth: 1024, width: 32, tokens: 64, expansion: 1 }),
    largest({ arch: ['post_ln', 'pre_ln'], depth: 1024, width: 16, tokens: 64, block: 'transformer', heads: 4 }),
  ];
  const small = { depth: 24, width: 16, tokens: 4, arch: all };
  const first = rn.simulate(small).results;
  const heap = () => rn._module.HEAP8.buffer.byteLength;
  let high = heap();
  let afterFirstRound = 0;
  const calls = 1000;
  for (let i = 0; i < calls; i++) {
    // One large call in ten: the rest are small ones of changing shapes.
    const config =
      i % 10 === 9
        ? large[Math.floor(i / 10) % large.length]
        : { ...small, depth: 8 + (i % 40), tokens: 1 + (i % 7), gain: 1 + (i % 5) / 10 };
    const out = rn.simulate(config);
    assert.ok(Object.keys(out.results).length >= 1);
    high = Math.max(high, heap());
    if (i === 10 * large.length * 2) afterFirstRound = heap();
  }
  const last = rn.simulate(small).results;
  for (const arch of all) assert.deepEqual(Array.from(last[arch].grad_norm), Array.from(first[arch].grad_norm), arch);
  console.log(
    `soak: ${calls} calls, heap high-water ${(high / MB).toFixed(1)} MB (budget ${BUDGET / MB} MB + ${MODULE / MB} MB), ` +
      `after two rounds ${(afterFirstRound / MB).toFixed(1)} MB, at the end ${(heap() / MB).toFixed(1)} MB; ` +
      `largest depths ${large.map((c) => c.depth).join(', ')}`,
  );
  assert.ok(high <= BUDGET + MODULE, `high-water ${high / MB} MB`);
  assert.equal(heap(), afterFirstRound, 'the heap kept growing after every shape had run twice');
});
