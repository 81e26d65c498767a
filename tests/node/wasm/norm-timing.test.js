// rn.timeNorms (wasm/resnorm.js over core/src/norm_timing.cpp): LayerNorm's and RMSNorm's float kernels,
// forward and backward, timed interleaved in the shipped module. Its structure and its refusals by field;
// never a speed (the times are the machine's and its load's).
// Run: node --test tests/node/wasm/norm-timing.test.js
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../../../wasm/resnorm.js';
import { loadWasm } from '../helpers.js';

const KERNELS = ['ln_forward', 'ln_backward', 'rms_forward', 'rms_backward'];

let rn;
before(async () => {
  rn = await loadWasm();
});

test('timeNorms: the settings it ran, finite positive medians per kernel, the ratios from them', () => {
  const t = rn.timeNorms({ width: 64, tokens: 16, samples: 5 });
  assert.deepEqual(
    Object.keys(t).sort(),
    ['backward_ratio', 'forward_ratio', 'inner', ...KERNELS, 'samples', 'tokens', 'total_ratio', 'width'].sort(),
  );
  assert.equal(t.width, 64);
  assert.equal(t.tokens, 16);
  assert.equal(t.samples, 5);
  assert.ok(Number.isInteger(t.inner) && t.inner >= 1);
  for (const k of KERNELS) {
    const { median_ms, p10_ms, p90_ms } = t[k];
    assert.ok(Number.isFinite(median_ms) && median_ms > 0, `${k}: ${median_ms}`);
    assert.ok(p10_ms <= median_ms && median_ms <= p90_ms, `${k}: p10 <= median <= p90`);
  }
  const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.abs(b);
  assert.ok(close(t.forward_ratio, t.rms_forward.median_ms / t.ln_forward.median_ms));
  assert.ok(close(t.backward_ratio, t.rms_backward.median_ms / t.ln_backward.median_ms));
  const total =
    (t.rms_forward.median_ms + t.rms_backward.median_ms) / (t.ln_forward.median_ms + t.ln_backward.median_ms);
  assert.ok(close(t.total_ratio, total));
  // samples defaults to 15; numbers may come as decimal text, as every number field of the API
  assert.equal(rn.timeNorms({ width: '8', tokens: 2 }).samples, 15);
});

/** The EngineError `fn` throws: its field and code. */
function refusal(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof EngineError, `${e} is not an EngineError`);
    assert.ok(e.message.startsWith(`${e.field}: `), e.message);
    return { field: e.field, code: e.code, max: e.max };
  }
  assert.fail('no error');
}

test('timeNorms: bad input refused naming its field, and the engine computes on after it', () => {
  const ok = { width: 16, tokens: 4, samples: 3 };
  assert.deepEqual(
    refusal(() => rn.timeNorms()),
    { field: 'options', code: 'type', max: undefined },
  );
  assert.deepEqual(
    refusal(() => rn.timeNorms([16, 4])),
    { field: 'options', code: 'type', max: undefined },
  );
  assert.equal(refusal(() => rn.timeNorms({ tokens: 4 })).field, 'width');
  assert.deepEqual(
    refusal(() => rn.timeNorms({ ...ok, width: 0 })),
    { field: 'width', code: 'range', max: undefined },
  );
  assert.equal(refusal(() => rn.timeNorms({ ...ok, width: 4097 })).field, 'width');
  assert.equal(refusal(() => rn.timeNorms({ ...ok, width: 16.5 })).field, 'width');
  assert.equal(refusal(() => rn.timeNorms({ ...ok, width: NaN })).field, 'width');
  assert.equal(refusal(() => rn.timeNorms({ ...ok, width: 'wide' })).field, 'width');
  assert.equal(refusal(() => rn.timeNorms({ ...ok, tokens: -1 })).field, 'tokens');
  assert.equal(refusal(() => rn.timeNorms({ ...ok, tokens: [4] })).code, 'type');
  assert.equal(refusal(() => rn.timeNorms({ ...ok, samples: 2 })).field, 'samples');
  assert.equal(refusal(() => rn.timeNorms({ ...ok, samples: 202 })).field, 'samples');
  // over the values a timing may hold: a budget refusal with the most tokens that fit at that width
  assert.deepEqual(
    refusal(() => rn.timeNorms({ width: 4096, tokens: 4096, samples: 3 })),
    {
      field: 'tokens',
      code: 'budget',
      max: 256,
    },
  );
  assert.equal(rn.timeNorms(ok).width, 16);
});

test('timeNorms after dispose(): the engine error naming the engine', async () => {
  const gone = await loadWasm();
  gone.dispose();
  assert.deepEqual(
    refusal(() => gone.timeNorms({ width: 16, tokens: 4 })),
    { field: 'engine', code: 'engine', max: undefined },
  );
});
