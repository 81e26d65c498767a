// The flop count of a training update against a count by hand, and the peak module's loop as
// wasm-objdump prints it (when the module is built). No timing is asserted.
//   node --test tests/node/bench/peak.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CHAINS, PEAK_WASM, checkPeakLoop, claimRuns, trainFlops } from '../../../bench/lib/peak.js';
import { CLAIM_BY_ID } from '../../../web/src/claims/lab/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('trainFlops: the warmup claim by hand, and the terms scale with their shapes', () => {
  const warmup = claimRuns().find((r) => r.claim === 'warmup').config;
  assert.equal(warmup.depth, CLAIM_BY_ID.warmup.config.depth);
  // reverse 4 of 8: T = 8, d = 16, m = 32, V = 8, B = 16, L = 6; per block and sequence
  // 8 T d^2 = 16384, 2 d T (T + 1) = 2304, 4 T d m = 16384; head 2 T d V = 2048.
  assert.deepEqual([warmup.seq, warmup.width, warmup.expansion, warmup.vocab, warmup.batch], [4, 16, 2, 8, 16]);
  assert.equal(trainFlops(warmup), 3 * 16 * (6 * (16384 + 2304 + 16384) + 2048));
  // Twice the batch, twice the flops; MLP blocks have no attention terms.
  assert.equal(trainFlops({ ...warmup, batch: 32 }), 2 * trainFlops(warmup));
  const teacher = { task: 'teacher', block: 'mlp', width: 32, expansion: 1, batch: 32, depth: 20 };
  assert.equal(trainFlops(teacher), 3 * 32 * (20 * 4 * 32 * 32 + 2 * 32));
});

test('every lab claim has its runs, with the lab config of each', () => {
  const runs = claimRuns();
  for (const id of Object.keys(CLAIM_BY_ID)) {
    const mine = runs.filter((r) => r.claim === id);
    assert.equal(mine.length, CLAIM_BY_ID[id].runs.length, id);
    for (const r of mine) assert.ok(trainFlops(r.config) > 0, `${id}.${r.key}`);
  }
});

test('the peak loop: f32x4.mul and f32x4.add, one of each per chain, nothing scalar', (t) => {
  if (!existsSync(`${ROOT}${PEAK_WASM}`)) return t.skip(`${PEAK_WASM} is not built (bash bench/wasm/build.sh)`);
  const loops = checkPeakLoop();
  if (loops.skipped) return t.skip(loops.skipped);
  for (const n of CHAINS) {
    const l = loops[n];
    assert.ok(l.ok, `peak_${n}: ${JSON.stringify(l)}`);
    assert.equal(l.mul % n, 0, `peak_${n}: a multiple of ${n} multiplies`);
  }
});
