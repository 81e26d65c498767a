// bench/tfjs/train.js: the training contender in TensorFlow.js: the core's
// language model for the pre_ln architecture (docs/model.md, "Training")
// written with tf ops and trained the way a TF.js user would train it:
// tf.variableGrads for every gradient, tf.train.adam for the update.
//
//   h_0    = onehot(tokens) E + P                 E (V, d), learned positions P (T, d)
//   block  h += Attn(LN(h)); h += W2 gelu(W1 LN(h))   causal attention, `heads` heads of d / heads,
//                                                 no biases (as the core), GELU with erf, m = e d
//   logits = LN_final(h) U                        U (d, V)
//   loss   = mean over every position but the last of -log softmax(logits)[next token]
//
// One step is one update on a batch of B sequences of T tokens (B T training
// tokens), the loss read back (dataSync) so the step has finished when it returns.
// What differs from the core's trainer, none of it in the arithmetic per token:
//  - the B sequences go through the model as one batched pass (the core runs one
//    pass per sequence and adds up the gradients); attention stays within a sequence;
//  - the embedding is a one-hot product: the wasm backend has no kernel for the
//    gradient of a gather (UnsortedSegmentSum);
//  - its own init (tf.randomNormal at the core's scales) and its own data: a
//    random bigram chain of V symbols, 3 successors each, as the markov task's,
//    drawn here in JS (not the core's task stream), so losses are not compared.
//
//   const { tf } = await initTf();                     // bench/tfjs/engine.js
//   const tr = new TfTrainer(tf, { depth: 4, width: 64, heads: 4, seq: 64, vocab: 65, batch: 16 });
//   const losses = tr.step(10);                        // train_loss of each update
//   tr.dispose();

import { mulberry32 as rng } from '../../web/src/quiz/random.js';

const SUCCESSORS = 3;
const EPS = 1e-5;

/** A bigram chain of `vocab` symbols: each followed by one of SUCCESSORS symbols, with random probabilities. */
export function bigramChain(vocab, seed) {
  const r = rng(seed);
  return Array.from({ length: vocab }, () => {
    const next = Array.from({ length: SUCCESSORS }, () => Math.floor(r() * vocab));
    const w = next.map(() => r() + 0.1);
    const sum = w.reduce((a, b) => a + b, 0);
    let acc = 0;
    return { next, cdf: w.map((x) => (acc += x / sum)) };
  });
}

/** B sequences of T tokens of `chain`: x_1 uniform, then the chain. Int32Array (B T). */
export function sampleBatch(chain, batch, seq, r) {
  const out = new Int32Array(batch * seq);
  for (let b = 0; b < batch; b++) {
    let s = Math.floor(r() * chain.length);
    for (let t = 0; t < seq; t++) {
      out[b * seq + t] = s;
      const u = r();
      const c = chain[s];
      s = c.next[c.cdf.findIndex((x) => u <= x)] ?? c.next[SUCCESSORS - 1];
    }
  }
  return out;
}

const DEFAULTS = {
  depth: 4,
  width: 64,
  expansion: 4,
  heads: 4,
  seq: 64,
  vocab: 65,
  batch: 16,
  lr: 1e-3,
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  seed: 0,
};

export class TfTrainer {
  constructor(tf, config = {}) {
    this.tf = tf;
    const c = (this.config = { ...DEFAULTS, ...config });
    const { depth: L, width: d, heads: H, seq: T, vocab: V } = c;
    if (d % H) throw new RangeError(`heads: ${H} does not divide width ${d}`);
    const m = d * c.expansion;
    this.tokensPerStep = c.batch * T;
    let seed = c.seed * 1000 + 1;
    // tidy frees each initial value once its variable holds a copy.
    const variable = (init) => tf.tidy(() => tf.variable(init()));
    const normal = (shape, std) => variable(() => tf.randomNormal(shape, 0, std, 'float32', seed++));
    const ones = () => variable(() => tf.ones([d]));
    const zeros = () => variable(() => tf.zeros([d]));
    this.E = normal([V, d], Math.SQRT1_2);
    this.P = normal([T, d], Math.SQRT1_2);
    this.blocks = Array.from({ length: L }, () => ({
      g1: ones(),
      b1: zeros(),
      Wq: normal([d, d], 1 / Math.sqrt(d)),
      Wk: normal([d, d], 1 / Math.sqrt(d)),
      Wv: normal([d, d], 1 / Math.sqrt(d)),
      Wo: normal([d, d], 1 / Math.sqrt(d)),
      g2: ones(),
      b2: zeros(),
      W1: normal([d, m], Math.sqrt(2 / d)),
      W2: normal([m, d], 1 / Math.sqrt(m)),
    }));
    this.gf = ones();
    this.bf = zeros();
    this.U = normal([d, V], 1 / Math.sqrt(d));
    // Causal mask: 0 where a token may attend (j <= i), -1e9 above the diagonal.
    const mask = new Float32Array(T * T);
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = -1e9;
    this.mask = tf.tensor2d(mask, [T, T]);
    this.optimizer = tf.train.adam(c.lr, c.beta1, c.beta2, c.eps);
    this.chain = bigramChain(V, c.seed);
    this.random = rng(c.seed + 0x9e3779b9);
    this.stepsDone = 0;
  }

  // The wasm backend's OneHot writes int32 whatever dtype it is asked for: cast.
  _oneHot(indices) {
    return this.tf.cast(this.tf.oneHot(indices, this.config.vocab), 'float32');
  }

  _norm(x, gamma, beta) {
    const tf = this.tf;
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, EPS))), gamma), beta);
  }

  // x (B T, d) -> causal multi-head self-attention of LN(x), before the residual add.
  _attention(a, blk) {
    const tf = this.tf;
    const { batch: B, seq: T, width: d, heads: H } = this.config;
    const dh = d / H;
    const split = (w) => tf.transpose(tf.reshape(tf.matMul(a, w), [B, T, H, dh]), [0, 2, 1, 3]);
    const q = split(blk.Wq),
      k = split(blk.Wk),
      v = split(blk.Wv);
    const scores = tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)), this.mask);
    const ctx = tf.matMul(tf.softmax(scores), v); // (B, H, T, dh)
    return tf.matMul(tf.reshape(tf.transpose(ctx, [0, 2, 1, 3]), [B * T, d]), blk.Wo);
  }

  _loss(tokens, targets) {
    const tf = this.tf;
    const { batch: B, seq: T, width: d, vocab: V } = this.config;
    const emb = tf.matMul(this._oneHot(tokens), this.E);
    let h = tf.reshape(tf.add(tf.reshape(emb, [B, T, d]), this.P), [B * T, d]);
    for (const blk of this.blocks) {
      h = tf.add(h, this._attention(this._norm(h, blk.g1, blk.b1), blk));
      const p = tf.matMul(this._norm(h, blk.g2, blk.b2), blk.W1);
      const gelu = tf.mul(tf.mul(p, 0.5), tf.add(tf.erf(tf.mul(p, Math.SQRT1_2)), 1));
      h = tf.add(h, tf.matMul(gelu, blk.W2));
    }
    const logits = tf.reshape(tf.matMul(this._norm(h, this.gf, this.bf), this.U), [B, T, V]);
    const scored = tf.reshape(tf.slice(logits, [0, 0, 0], [B, T - 1, V]), [B * (T - 1), V]);
    const picked = tf.sum(tf.mul(tf.logSoftmax(scored), this._oneHot(targets)), -1);
    return tf.neg(tf.mean(picked));
  }

  /** Up to n updates; the train loss of each, before its update. */
  step(n = 1) {
    const tf = this.tf;
    const { batch: B, seq: T } = this.config;
    const losses = [];
    for (let i = 0; i < n; i++) {
      const seqs = sampleBatch(this.chain, B, T, this.random);
      const next = new Int32Array(B * (T - 1));
      for (let b = 0; b < B; b++) next.set(seqs.subarray(b * T + 1, (b + 1) * T), b * (T - 1));
      const loss = tf.tidy(() => {
        const tokens = tf.tensor1d(seqs, 'int32');
        const targets = tf.tensor1d(next, 'int32');
        const { value, grads } = tf.variableGrads(() => this._loss(tokens, targets));
        this.optimizer.applyGradients(grads);
        return value;
      });
      losses.push(loss.dataSync()[0]);
      loss.dispose();
      this.stepsDone++;
    }
    return losses;
  }

  /** Frees every tensor: the variables, the optimizer's moments, the mask. */
  dispose() {
    const tf = this.tf;
    const vars = [this.E, this.P, this.gf, this.bf, this.U, ...this.blocks.flatMap((b) => Object.values(b))];
    this.optimizer.dispose();
    tf.dispose([...vars, this.mask]);
  }
}
