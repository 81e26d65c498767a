// The norm questions (web/src/quiz/generated-norms.js) on the wasm module: a seed fixes the question,
// the key is what the runs compute (recomputed here from rn.trainer and rn.batchVsLayerNorm directly),
// the explanation quotes the runs' numbers, and runs that do not show the textbook effect (a fake
// engine's numbers, or a draw with the pads left out) get the key those numbers give.
// Run: node --test tests/node/quiz/quiz-generated-norms.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { loadWasm } from '../helpers.js';
import {
  normQuestion,
  normEngine,
  runConfig,
  NORM_KINDS,
  NORM_KIND_IDS,
  NORM_KIND_NAMES,
  ONE_SEQ_MARGIN,
  GAP_SPLIT,
  SIMILAR,
  SEEDS,
} from '../../../web/src/quiz/generated-norms.js';
import { normQuestion as reexported } from '../../../web/src/quiz/generated.js';
import { batchValues, batchInput, tokenAt, maxAbsDiff } from '../../../web/src/quiz/ui/norm-data.js';
import { significant } from '../../../web/src/shared/format.js';

const rn = await loadWasm();
const ops = () => ({ trainer: (c) => rn.trainer(c), batchVsLayerNorm: (i) => rn.batchVsLayerNorm(i) });
const engine = normEngine(ops());
const SEEDS_TRIED = [0, 1, 2, 3];

/** The last log's three held-out losses of a run trained here, without normEngine. */
function direct(config) {
  const tr = rn.trainer(config);
  try {
    const l = tr.step(config.steps).at(-1);
    return {
      train: l.heldout_loss_train_mode,
      evalMode: l.heldout_loss_eval_mode,
      oneSeq: l.heldout_loss_one_seq,
      chance: tr.task.chance,
    };
  } finally {
    tr.delete();
  }
}

const s3 = (v) => significant(v, 3);

test('six kinds, each named; generated.js re-exports the question', () => {
  assert.ok(NORM_KIND_IDS.length >= 5);
  assert.deepEqual(NORM_KIND_IDS, ['one-seq', 'mode-gap', 'batch-size', 'rms-vs-ln', 'padding', 'axis']);
  for (const k of NORM_KIND_IDS) assert.match(NORM_KIND_NAMES[k], /\w/);
  assert.equal(reexported, normQuestion);
});

test('every kind: the same seed gives the same question from a fresh engine; the key is one of the choices', async () => {
  for (const kind of NORM_KIND_IDS) {
    for (const seed of SEEDS_TRIED) {
      const a = await normQuestion(engine, { seed, kind });
      const b = await normQuestion(normEngine(ops()), { seed, kind });
      for (const f of ['prompt', 'choices', 'answer', 'explanation', 'params'])
        assert.deepEqual(a[f], b[f], `${kind} ${seed} ${f}`);
      assert.ok(
        a.choices.some((c) => c.id === a.answer),
        `${kind} ${seed}: key ${a.answer}`,
      );
      assert.equal(new Set(a.choices.map((c) => c.id)).size, a.choices.length);
      assert.equal(a.check(a.answer).correct, true);
      const wrong = a.choices.find((c) => c.id !== a.answer);
      const r = a.check(wrong.id);
      assert.equal(r.correct, false);
      assert.match(r.message, /^Not quite: the engine’s numbers say “.+”, not “.+”\.$/);
    }
  }
  // without a kind, the seed draws it: the same one twice
  const k1 = await normQuestion(engine, { seed: 'norms-7' });
  const k2 = await normQuestion(engine, { seed: 'norms-7' });
  assert.equal(k1.kind, k2.kind);
  assert.equal(k1.prompt, k2.prompt);
  await assert.rejects(normQuestion(engine, { kind: 'nope' }), /unknown kind "nope"/);
});

test('one-seq: the key is whose one-sequence loss rose by more than 10% of chance, in runs trained here', async () => {
  for (const seed of SEEDS_TRIED) {
    const q = await normQuestion(engine, { seed, kind: 'one-seq' });
    const ln = direct(runConfig('layernorm', q.params));
    const bn = direct(runConfig('batchnorm', q.params));
    const margin = ONE_SEQ_MARGIN * ln.chance;
    const lnRise = ln.oneSeq - ln.evalMode > margin;
    const bnRise = bn.oneSeq - bn.evalMode > margin;
    const key = lnRise && bnRise ? 'both' : lnRise ? 'layernorm' : bnRise ? 'batchnorm' : 'neither';
    assert.equal(q.answer, key, `seed ${seed}`);
    for (const v of [ln.evalMode, ln.oneSeq, bn.evalMode, bn.oneSeq]) assert.ok(q.explanation.includes(s3(v)), s3(v));
    assert.ok(q.prompt.includes(`batch ${q.params.batch}`));
  }
});

test('mode-gap: the key is which norm has a train/eval gap and how large, in runs trained here', async () => {
  for (const seed of SEEDS_TRIED) {
    const q = await normQuestion(engine, { seed, kind: 'mode-gap' });
    const ln = direct(runConfig('layernorm', q.params));
    const bn = direct(runConfig('batchnorm', q.params));
    assert.equal(ln.train, ln.evalMode, 'LayerNorm has one computation in both modes');
    const gap = Math.abs(bn.evalMode - bn.train) / bn.train;
    assert.ok(gap > 0);
    assert.equal(q.answer, gap < GAP_SPLIT ? 'batchnorm-small' : 'batchnorm-large', `seed ${seed}`);
    for (const v of [ln.train, bn.train, bn.evalMode]) assert.ok(q.explanation.includes(s3(v)), s3(v));
    assert.match(q.explanation, /\(eval mode (higher|lower) by \d/);
  }
});

test('batch-size: the key is whose eval-mode loss changes more from batch 2 to 16, in runs trained here', async () => {
  for (const seed of [0, 1]) {
    const q = await normQuestion(engine, { seed, kind: 'batch-size' });
    const at = (norm, batch) => direct(runConfig(norm, { batch, seed: q.params.seed, pads: 'mask' })).evalMode;
    const ln = Math.abs(Math.log(at('layernorm', 16) / at('layernorm', 2)));
    const bn = Math.abs(Math.log(at('batchnorm', 16) / at('batchnorm', 2)));
    const key = Math.abs(ln - bn) < SIMILAR ? 'same' : bn > ln ? 'batchnorm' : 'layernorm';
    assert.equal(q.answer, key, `seed ${seed}`);
    assert.ok(q.explanation.includes(s3(at('batchnorm', 2))));
    assert.ok(q.explanation.includes(s3(at('layernorm', 16))));
  }
});

test('rms-vs-ln: the key is whether the two losses are within the drawn percentage, in runs trained here', async () => {
  const keys = new Set();
  for (const seed of [...SEEDS_TRIED, 4, 5, 6, 7]) {
    const q = await normQuestion(engine, { seed, kind: 'rms-vs-ln' });
    const ln = direct(runConfig('layernorm', q.params)).evalMode;
    const rms = direct(runConfig('rmsnorm', q.params)).evalMode;
    const key = Math.abs(rms - ln) / ln <= q.params.within / 100 ? 'yes' : 'no';
    assert.equal(q.answer, key, `seed ${seed}`);
    keys.add(key);
    assert.ok(q.explanation.includes(s3(ln)) && q.explanation.includes(s3(rms)));
    assert.ok(q.prompt.includes(`within ${q.params.within}%`));
  }
  assert.equal(keys.size, 2, 'both answers occur over these seeds');
});

test('padding: the key is whose output for the real token changed, from the engine here', async () => {
  const keys = new Set();
  for (let seed = 0; seed < 20; seed++) {
    const q = await normQuestion(engine, { seed, kind: 'padding' });
    const p = q.params;
    const values = batchValues(p.values);
    const outs = p.pads.map((padding) => {
      const input = batchInput(values, { batch: p.batch, lengths: p.lengths, padding, countPadding: p.countPadding });
      const out = rn.batchVsLayerNorm(input);
      return {
        bn: tokenAt(out.batchnorm, input, p.token.b, p.token.t),
        ln: tokenAt(out.layernorm, input, p.token.b, p.token.t),
      };
    });
    const bnMoved = maxAbsDiff(outs[0].bn, outs[1].bn) > 1e-9;
    const lnMoved = maxAbsDiff(outs[0].ln, outs[1].ln) > 1e-9;
    assert.equal(lnMoved, false, 'LayerNorm never sees the pads');
    assert.equal(bnMoved, p.countPadding, `seed ${seed}: BatchNorm moves exactly when the pads count`);
    assert.equal(q.answer, bnMoved ? 'batchnorm' : 'neither');
    keys.add(q.answer);
    assert.ok(q.explanation.includes(outs[1].bn.map(s3).join(', ')));
    assert.match(q.explanation, p.countPadding ? /count the pads/ : /left out/);
  }
  assert.deepEqual([...keys].sort(), ['batchnorm', 'neither'], 'pads left out give the honest key "neither"');
});

test('axis: the key is the average equal to the engine’s BatchNorm mean', async () => {
  for (const seed of SEEDS_TRIED) {
    const q = await normQuestion(engine, { seed, kind: 'axis' });
    assert.equal(q.answer, 'batch-tokens');
    // the engine's mean, recomputed: each feature over every real token
    const p = q.params;
    const input = batchInput(batchValues(p.values), {
      batch: p.batch,
      lengths: p.lengths,
      padding: 1,
      countPadding: false,
    });
    const mean = Array.from(rn.batchVsLayerNorm(input).mean);
    const d = input.width;
    const sums = new Array(d).fill(0);
    let n = 0;
    for (let b = 0; b < p.batch; b++)
      for (let t = 0; t < p.lengths[b]; t++, n++) tokenAt(input.x, input, b, t).forEach((v, i) => (sums[i] += v));
    assert.ok(
      maxAbsDiff(
        mean,
        sums.map((s) => s / n),
      ) < 1e-9,
    );
    assert.ok(q.explanation.includes(mean.map(s3).join(', ')));
    assert.ok(q.numbers.lnWorst < 1e-6, 'LayerNorm outputs average 0 over each token');
    assert.equal(q.choices.at(-1).id, 'none');
  }
});

/** A fake trainer: each config's last log from `losses(config)` = {train, evalMode, oneSeq}. */
function fakeEngine(losses, batchVsLayerNorm = (i) => rn.batchVsLayerNorm(i)) {
  const made = [];
  const e = normEngine({
    trainer(config) {
      made.push(config);
      const l = losses(config);
      return {
        task: { chance: Math.log(8), optimal: 0 },
        stopped: false,
        step: async () => [
          { heldout_loss_train_mode: l.train, heldout_loss_eval_mode: l.evalMode, heldout_loss_one_seq: l.oneSeq },
        ],
        delete: () => {},
      };
    },
    batchVsLayerNorm,
  });
  e.made = made;
  return e;
}
const same = (v) => ({ train: v, evalMode: v, oneSeq: v });

test('runs that do not show the effect give the honest key, and the explanation says what they show', async () => {
  // BatchNorm served alone barely rises: "neither", and the text says the rise stayed under the margin.
  const flat = fakeEngine((c) => (c.norm === 'batchnorm' ? { train: 1.5, evalMode: 1.4, oneSeq: 1.45 } : same(1.5)));
  const one = await normQuestion(flat, { seed: 0, kind: 'one-seq' });
  assert.equal(one.answer, 'neither');
  assert.match(one.explanation, /BatchNorm: eval mode 1\.4, one sequence alone 1\.45 \(a rise of 0\.05\)/);
  assert.match(one.explanation, /stayed under the margin/);
  // BatchNorm's two modes agree: "neither".
  const gap = await normQuestion(
    fakeEngine(() => same(1.5)),
    { seed: 0, kind: 'mode-gap' },
  );
  assert.equal(gap.answer, 'neither');
  assert.match(gap.explanation, /BatchNorm train mode 1\.5, eval mode 1\.5 \(the same\)/);
  // LayerNorm moves more with the batch than BatchNorm: the key says LayerNorm.
  const bs = await normQuestion(
    fakeEngine((c) => same(c.norm === 'batchnorm' ? 1.5 : c.batch === 2 ? 2 : 1)),
    { seed: 0, kind: 'batch-size' },
  );
  assert.equal(bs.answer, 'layernorm');
  assert.match(bs.explanation, /Here LayerNorm’s loss moved more/);
  // A loss that is not finite answers none of the three, and says so.
  const nan = await normQuestion(
    fakeEngine((c) => same(c.norm === 'batchnorm' && c.batch === 2 ? NaN : 1.5)),
    { seed: 0, kind: 'batch-size' },
  );
  assert.equal(nan.answer, 'none');
  assert.match(nan.explanation, /not finite/);
  // A BatchNorm whose mean is over one sequence only: the key follows the engine's numbers.
  const oneSeqMean = await normQuestion(
    fakeEngine(
      () => same(1),
      (input) => {
        const out = rn.batchVsLayerNorm({
          ...input,
          batch: 1,
          lengths: input.lengths.slice(0, 1),
          x: input.x.slice(0, input.length * input.width),
        });
        return { ...rn.batchVsLayerNorm(input), mean: out.mean };
      },
    ),
    { seed: 0, kind: 'axis' },
  );
  assert.equal(oneSeqMean.answer, 'one-sequence');
  assert.match(oneSeqMean.explanation, /The engine’s equals each feature over the tokens of one sequence/);
});

test('runs are shared: a question reuses what an earlier one trained, and a failed run is tried again', async () => {
  const e = fakeEngine(() => same(1.5));
  await normQuestion(e, { seed: 3, kind: 'one-seq' });
  assert.equal(e.made.length, 2);
  await normQuestion(e, { seed: 3, kind: 'mode-gap' }); // same draw of batch, pads and seed
  assert.equal(e.made.length, 2);
  assert.ok(e.made.every((c) => c.steps <= 300 && c.width <= 16 && c.seed < SEEDS));
  let fail = true;
  const flaky = normEngine({
    trainer: (c) => {
      if (fail) throw new Error('worker lost');
      return rn.trainer(c);
    },
    batchVsLayerNorm: (i) => rn.batchVsLayerNorm(i),
  });
  await assert.rejects(normQuestion(flaky, { seed: 0, kind: 'one-seq' }), /worker lost/);
  fail = false;
  const q = await normQuestion(flaky, { seed: 0, kind: 'one-seq' });
  assert.ok(NORM_KINDS['one-seq'] && q.answer);
});
