// The questions on the newer architectures (web/src/quiz/generated-archs.js) on the wasm module: a
// seed fixes the question, the key is what the engine computes (recomputed here from rn.simulate and
// rn.trainer directly), the explanation quotes the numbers, and over the seeds tried every key is
// the one the paper predicts (a question whose answer flipped with the seed would not be asked).
// Run: node --test tests/node/quiz/quiz-generated-archs.test.js
import test from 'node:test';
import assert from 'node:assert/strict';

import { loadWasm } from '../helpers.js';
import {
  archQuestion,
  archEngine,
  maxRelativeGap,
  ARCH_KIND_IDS,
  ARCH_KIND_NAMES,
  SAME_GRAD,
  SAME_GRAD_ARCHS,
  SIMILAR,
  LOGIT_FACTOR,
  QK_TRAIN,
  QK_RATES,
  QK_SEEDS,
  READ_TRAIN,
  READ_INIT,
  READ_MARGIN,
} from '../../../web/src/quiz/generated-archs.js';
import { significant } from '../../../web/src/shared/format.js';

const rn = await loadWasm();
const ops = () => ({ simulate: (c) => rn.simulate(c), trainer: (c) => rn.trainer(c) });
const engine = archEngine(ops());
const SEEDS_TRIED = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const s3 = (v) => significant(v, 3);
const top = (a) => a[a.length - 1];

test('seven kinds, each named', () => {
  assert.deepEqual(ARCH_KIND_IDS, [
    'same-grad',
    'dyt-stream',
    'attnres-stream',
    'hybrid-stream',
    'attnres-init',
    'qk-logit',
    'trained-read',
  ]);
  for (const k of ARCH_KIND_IDS) assert.match(ARCH_KIND_NAMES[k], /\w/);
});

test('every kind: the same seed gives the same question from a fresh engine; the key is one of the choices', async () => {
  for (const kind of ARCH_KIND_IDS) {
    for (const seed of [0, 1]) {
      const a = await archQuestion(engine, { seed, kind });
      const b = await archQuestion(archEngine(ops()), { seed, kind });
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
      assert.doesNotMatch(
        a.prompt + a.explanation,
        /\b(pre_ln|post_ln|attn_res|dwa|hyper|mhc|max_logit)\b|undefined|NaN/,
      );
    }
  }
  const k1 = await archQuestion(engine, { seed: 'archs-7' });
  const k2 = await archQuestion(engine, { seed: 'archs-7' });
  assert.equal(k1.kind, k2.kind);
  assert.equal(k1.prompt, k2.prompt);
  await assert.rejects(archQuestion(engine, { kind: 'nope' }), /unknown kind "nope"/);
});

test('same-grad: the key is the set whose gradients match Pre-LN’s, Hyper-Connections and mHC in every draw', async () => {
  for (const seed of SEEDS_TRIED) {
    const q = await archQuestion(engine, { seed, kind: 'same-grad' });
    const doc = rn.simulate({ ...q.params, arch: ['pre_ln', ...SAME_GRAD_ARCHS] });
    const pre = doc.results.pre_ln.grad_norm;
    const gap = (a) => maxRelativeGap(doc.results[a].grad_norm, pre);
    // HC's streams are Pre-LN's at init (the paper's Eq. 14): only the float sum over the streams departs
    assert.ok(gap('hyper') < 1e-6, `seed ${seed}: ${gap('hyper')}`);
    const same = SAME_GRAD_ARCHS.filter((a) => gap(a) <= SAME_GRAD);
    assert.deepEqual(same, ['hyper', 'mhc'], `seed ${seed}`);
    assert.deepEqual(q.numbers.same, same);
    assert.equal(q.answer, 'hc-mhc');
    assert.ok(gap('attn_res') > 100 * SAME_GRAD && gap('dyt') > 100 * SAME_GRAD, `seed ${seed}`);
  }
});

for (const [kind, arch] of [
  ['dyt-stream', 'dyt'],
  ['attnres-stream', 'attn_res'],
]) {
  test(`${kind}: the key compares the top stream RMS with Pre-LN’s, smaller in every draw`, async () => {
    for (const seed of SEEDS_TRIED) {
      const q = await archQuestion(engine, { seed, kind });
      const doc = rn.simulate({ ...q.params, arch: ['pre_ln', arch] });
      const pre = top(doc.results.pre_ln.stream_rms);
      const other = top(doc.results[arch].stream_rms);
      const r = other / pre - 1;
      const key = Math.abs(r) <= SIMILAR ? 'same' : r > 0 ? 'larger' : 'smaller';
      assert.equal(q.answer, key, `seed ${seed}`);
      assert.equal(key, 'smaller', `seed ${seed}: ratio ${other / pre}`);
      assert.ok(q.explanation.includes(s3(pre)) && q.explanation.includes(s3(other)));
    }
  });
}

test('hybrid-stream: the key is the nearer of Post-LN’s and Pre-LN’s stream RMS at the top, Post-LN’s in every draw', async () => {
  for (const seed of SEEDS_TRIED) {
    const q = await archQuestion(engine, { seed, kind: 'hybrid-stream' });
    const doc = rn.simulate({ ...q.params, arch: ['post_ln', 'pre_ln', 'hybrid'] });
    const g = (a) => top(doc.results[a].stream_rms);
    const toPost = Math.abs(Math.log10(g('hybrid') / g('post_ln')));
    const toPre = Math.abs(Math.log10(g('hybrid') / g('pre_ln')));
    assert.equal(q.answer, toPost < toPre ? 'post_ln' : 'pre_ln', `seed ${seed}`);
    assert.equal(q.answer, 'post_ln', `seed ${seed}: ${toPost} against ${toPre}`);
    assert.ok(q.explanation.includes(s3(g('hybrid'))));
  }
});

test('attnres-init: the key is the engine’s read weight of the embedding before training, 1/(k + 1)', async () => {
  for (const seed of SEEDS_TRIED) {
    const q = await archQuestion(engine, { seed, kind: 'attnres-init' });
    const tr = rn.trainer({ ...q.numbers.config });
    try {
      const w = tr.attnResWeights()[q.params.k - 1][0];
      assert.ok(Math.abs(w - 1 / (q.params.k + 1)) <= 1e-6, `seed ${seed}: ${w}`);
      assert.equal(q.answer, 'uniform');
      assert.ok(q.explanation.includes(significant(w, 6)));
    } finally {
      tr.delete();
    }
  }
});

test('qk-logit: the key compares the largest logged attention logit without and with QK-norm, larger without at every rate and seed drawn', async () => {
  const largest = (lr, seed, qk) => {
    const tr = rn.trainer({ ...QK_TRAIN, lr, seed, qk_norm: qk });
    try {
      return Math.max(...tr.step(QK_TRAIN.steps).map((l) => l.max_logit));
    } finally {
      tr.delete();
    }
  };
  const keyOf = new Map();
  for (const lr of QK_RATES) {
    for (let seed = 0; seed < QK_SEEDS; seed++) {
      const a = largest(lr, seed, 'none');
      const b = largest(lr, seed, 'layernorm');
      const key = a >= LOGIT_FACTOR * b ? 'without' : b >= LOGIT_FACTOR * a ? 'with' : 'similar';
      assert.equal(key, 'without', `lr ${lr} seed ${seed}: ${a} against ${b}`);
      keyOf.set(`${lr} ${seed}`, { key, a, b });
    }
  }
  for (const seed of [0, 1, 2, 3, 4, 5]) {
    const q = await archQuestion(engine, { seed, kind: 'qk-logit' });
    const { key, a, b } = keyOf.get(`${q.params.lr} ${q.params.seed}`);
    assert.equal(q.answer, key, `seed ${seed}`);
    assert.ok(q.explanation.includes(s3(a)) && q.explanation.includes(s3(b)));
  }
});

test('trained-read: the key compares the weight each trained top gives h₀ with its init, AttnRes’s and DenseFormer’s both less in every draw', async () => {
  const trained = (arch, p) => {
    const tr = rn.trainer({ ...READ_TRAIN, arch, lr: p.lr, seed: p.seed });
    try {
      tr.step(READ_TRAIN.steps);
      return arch === 'attn_res' ? tr.attnResWeights().at(-1) : tr.dwaWeights().at(-1);
    } finally {
      tr.delete();
    }
  };
  // 1/3 at init: the final norm's softmax over h₀ and the block's two outputs; DenseFormer's w₁,₀ starts at 0
  assert.equal(READ_INIT.attnRes, 1 / 3);
  assert.equal(READ_INIT.dwa, 0);
  const move = (w, init) => (w < init - READ_MARGIN ? 'less' : w > init + READ_MARGIN ? 'more' : 'same');
  for (const seed of SEEDS_TRIED) {
    const q = await archQuestion(engine, { seed, kind: 'trained-read' });
    const a = trained('attn_res', q.params);
    const d = trained('dwa', q.params);
    assert.equal(a.length, 3);
    assert.equal(d.length, 2);
    assert.deepEqual(q.numbers.attnRes, Array.from(a));
    assert.deepEqual(q.numbers.dwa, Array.from(d));
    const moves = [move(a[0], 1 / 3), move(d[0], 0)];
    assert.deepEqual(moves, ['less', 'less'], `seed ${seed}: AttnRes ${a[0]}, DenseFormer ${d[0]}`);
    assert.equal(q.answer, 'both-less', `seed ${seed}`);
    for (const v of [a[0], a[1], a[2], d[0], d[1]]) assert.ok(q.explanation.includes(s3(v)), `seed ${seed}: ${s3(v)}`);
  }
});

test('numbers that do not show the paper’s effect give the honest key', async () => {
  // A fake simulation where DyT's stream ends above Pre-LN's and HC's gradients depart.
  const fake = archEngine({
    simulate: (c) => {
      const doc = rn.simulate(c);
      const results = { ...doc.results };
      if (results.dyt)
        results.dyt = { ...results.dyt, stream_rms: Array.from(results.pre_ln.stream_rms, (v) => 2 * v) };
      if (results.hyper)
        results.hyper = { ...results.hyper, grad_norm: Array.from(results.pre_ln.grad_norm, (v) => 1.1 * v) };
      return { ...doc, results };
    },
    trainer: (c) => rn.trainer(c),
  });
  const dyt = await archQuestion(fake, { seed: 0, kind: 'dyt-stream' });
  assert.equal(dyt.answer, 'larger');
  assert.match(dyt.explanation, /ratio of 2\b/);
  const same = await archQuestion(fake, { seed: 0, kind: 'same-grad' });
  assert.equal(same.answer, 'mhc');
  assert.match(same.explanation, /Hyper-Connections 1\.0×10\^-1/);
  // A diverged run without QK-norm: its logit is not finite and counts as the largest.
  const runs = archEngine({
    simulate: (c) => rn.simulate(c),
    trainer: (c) => ({
      stopped: false,
      step: async () => [{ max_logit: c.qk_norm === 'none' ? Infinity : 3, heldout_loss: 2 }],
      delete: () => {},
    }),
  });
  const qk = await archQuestion(runs, { seed: 0, kind: 'qk-logit' });
  assert.equal(qk.answer, 'without');
  assert.match(qk.explanation, /not finite without QK-norm, 3 with it/);
  // Trained read weights where AttnRes reads h₀ more than at init, then where DenseFormer's is not finite.
  const reads = (attnRes, dwa) =>
    archEngine({
      simulate: (c) => rn.simulate(c),
      trainer: () => ({
        stopped: false,
        step: async () => [{ max_logit: 3, heldout_loss: 0.5 }],
        attnResWeights: () => [[0.5, 0.5], attnRes],
        dwaWeights: () => [dwa],
        delete: () => {},
      }),
    });
  const more = await archQuestion(reads([0.5, 0.25, 0.25], [-0.3, 0.6]), { seed: 0, kind: 'trained-read' });
  assert.equal(more.answer, 'dwa-less');
  assert.match(
    more.explanation,
    /AttnRes gives h₀ more weight than at initialization \(1\/3 there\) and DenseFormer less weight/,
  );
  assert.doesNotMatch(more.explanation, /turned h₀ down/);
  const lost = await archQuestion(reads([0.2, 0.4, 0.4], [NaN, 1]), { seed: 0, kind: 'trained-read' });
  assert.equal(lost.answer, 'other');
  assert.match(lost.explanation, /DenseFormer a weight that is not finite/);
});
