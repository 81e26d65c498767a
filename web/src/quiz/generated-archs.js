// Multiple-choice questions on the architectures published after the article (Hyper-Connections,
// mHC, Attention Residuals, DyT, HybridNorm, QK-norm; DenseFormer beside Attention Residuals),
// generated from a seed and answered by the engine's numbers when they are asked: simulations at
// initialization (rn.simulate), an untrained trainer's read weights (rn.trainer().attnResWeights())
// and short training runs (rn.trainer; after training, the read weights the lab's learned panel
// shows: attnResWeights(), dwaWeights()). The key is what the numbers show, never a table: a draw
// whose numbers do not show the paper's effect gets the key the numbers give, and its explanation
// quotes them.
//
// archQuestion(engine, {seed, kind}) with engine = archEngine({simulate, trainer}):
//   simulate(config)  rn.simulate(config) or engine.call('simulate', [config]) (sync or async)
//   trainer(config)   rn.trainer(config) or the engine client's trainer(config) (sync or async)
// archEngine caches each training run by its config, so the questions of a session share runs.
//
// Kinds, each with how the key is read from the numbers and how robust it is: the counts are over
// question seeds 0..39 (0..59 for hybrid-stream's), measured with the wasm engine when the kinds were
// chosen; tests/node/quiz/quiz-generated-archs.test.js recomputes each key from the engine directly
// over question seeds 0..9 and asserts the paper's answer in every one of them:
//   same-grad     simulation (MLP blocks, depth 8..64, gain of GAINS, engine seed 0..9999) of Pre-LN,
//                 HC, mHC, AttnRes and DyT: which of the four have per-layer gradient norms equal to
//                 Pre-LN's, every layer within SAME_GRAD (1e-5) relative? Key: the set of them, among
//                 five sets or "another combination". HC's streams are Pre-LN's at init (Zhu et al.
//                 2025, Eq. 14; its gradient, a sum over the streams, within 1.1e-7 over 40 draws);
//                 mHC's near-identity (sigmoid(±8), exp(-8)) within 2.3e-7..2.3e-6; AttnRes 0.89..0.98
//                 and DyT 0.25..2.7 away. HC and mHC in every draw.
//   dyt-stream    simulation of Pre-LN and DyT (alpha_0 = DYT_ALPHA, the paper's 0.5; depth 8..96): the
//                 stream RMS at the top, DyT's against Pre-LN's: larger or smaller by more than SIMILAR
//                 (2%), or about the same. Smaller in every draw (ratio 0.58..0.82 over 40); at
//                 alpha_0 = 1 or 2 the ratio reaches 0.98..1.002 and the key would flip.
//   attnres-stream simulation of Pre-LN and AttnRes (MLP or transformer blocks, depth 4..32): the same
//                 question for AttnRes, whose stream is the mean of the embedding and the outputs at
//                 init. Smaller in every draw.
//   hybrid-stream simulation of Post-LN, Pre-LN and HybridNorm (MLP or transformer blocks, depth
//                 8..48): is HybridNorm's stream RMS at the top closer to Post-LN's or Pre-LN's, by
//                 |log10| distance? Post-LN's in every draw (40 of 40; 60 of 60 at depth 4..48). Its
//                 gradient norm at layer 1 is not asked: nearer Post-LN's in 37 of 40 draws and
//                 Pre-LN's in 3 (the whole gradient curve: 47 of 60 against 13), so its key would flip
//                 with the seed.
//   attnres-init  an untrained AttnRes trainer (the lab's teacher task, MLP blocks, depth 3..8): the
//                 weight the input of unit k + 1 (k 2..depth - 1) gives the embedding, against 1/(k + 1),
//                 1/k, 1/2^k, 1 and 0 (the key: the one within SAME_WEIGHT, 1e-6, of the engine's, or
//                 "none of these").
//   qk-logit      Pre-LN transformers on the lab's reverse task (QK_TRAIN: 2 blocks, Adam, QK_STEPS
//                 steps at a learning rate of QK_RATES) without and with QK-norm: the largest
//                 attention logit logged (max_logit) over the run; one is larger when it is at least
//                 LOGIT_FACTOR (2) times the other, else "within a factor of 2". Larger without
//                 QK-norm at both rates and seeds 0..QK_SEEDS - 1 (every pair the draw can give; the
//                 smallest ratio seen 3.2, the largest about 200).
//   trained-read  AttnRes and DenseFormer (dwa) transformers of 1 block on the lab's reverse task
//                 (READ_TRAIN: Adam, READ_STEPS steps at a learning rate of READ_RATES, engine seed
//                 0..9999), trained: the weight the top gives the embedding h₀, AttnRes's final norm's
//                 read weight (attnResWeights(), 1/3 at init) and DenseFormer's w₁,₀ (dwaWeights(), 0 at
//                 init), each less or more than at init by over READ_MARGIN (0.01), or within it. Both
//                 less in every draw (40 of 40: AttnRes 0.16..0.30, DenseFormer -0.47..-0.31; held-out loss
//                 at most 0.03). Not asked, as their keys flip with the seed: which of h₀, the attention
//                 output and the MLP output AttnRes's final norm reads most (attention in 24 draws, the MLP
//                 in 16); the same at 2 or 3 blocks, or the teacher task's MLP blocks at 3 to 6 (every
//                 row's largest weight moves between h₀, the unit below and another from seed to seed);
//                 and h₀'s weight at 2 blocks (AttnRes's above its 1/5 or within READ_MARGIN of it in 3 of
//                 40 engine seeds at 1e-2 and 2 of 40 at 4e-3).

import { randInt, pick, shuffled } from './random.js';
import { kindQuestion } from './kind-question.js';
import { significant } from '../shared/format.js';
import { REVERSE_TASK, TEACHER_TASK } from '../shared/train-tasks.js';
import { run } from './generated.js';

export const GAINS = Object.freeze([0.8, 0.9, 1, 1.1, 1.2]);
export const SAME_GRAD = 1e-5;
export const SIMILAR = 0.02;
/** How close a read weight must be to a choice's value (the engine's softmax is in float). */
export const SAME_WEIGHT = 1e-6;
export const DYT_ALPHA = 0.5;
export const LOGIT_FACTOR = 2;
export const QK_RATES = Object.freeze([2e-2, 1e-1]);
export const QK_STEPS = 150;
export const QK_SEEDS = 3;
/** The QK-norm runs' setting over the reverse task: small, so a question trains in about a second. */
export const QK_TRAIN = Object.freeze({
  ...REVERSE_TASK,
  arch: 'pre_ln',
  depth: 2,
  warmup: 0,
  steps: QK_STEPS,
  log_every: 10,
});
/** The trained-read runs' learning rates and steps. */
export const READ_RATES = Object.freeze([4e-3, 1e-2]);
export const READ_STEPS = 150;
/** How far a trained read weight must be from its value at initialization to count as more or less. */
export const READ_MARGIN = 0.01;
/**
 * The trained-read runs' setting over the reverse task: one transformer block (two units, so
 * AttnRes's final norm reads three sources), so a run trains in about a tenth of a second.
 */
export const READ_TRAIN = Object.freeze({
  ...REVERSE_TASK,
  depth: 1,
  warmup: 0,
  steps: READ_STEPS,
  log_every: 50,
});
/** The read weights at initialization: AttnRes's final norm over h₀ and its two units' outputs, DenseFormer's w₁,₀. */
export const READ_INIT = Object.freeze({ attnRes: 1 / 3, dwa: 0 });
/** The untrained AttnRes trainer's setting (its weights are read before any step). */
const INIT_TRAIN = Object.freeze({ ...TEACHER_TASK, arch: 'attn_res', steps: 1, log_every: 1 });

/** The architectures of same-grad, and the sets of them its choices name (each in this order). */
export const SAME_GRAD_ARCHS = Object.freeze(['hyper', 'mhc', 'attn_res', 'dyt']);
const SAME_GRAD_SETS = Object.freeze([
  { id: 'hc-mhc', archs: ['hyper', 'mhc'], label: 'Hyper-Connections and mHC' },
  { id: 'hc', archs: ['hyper'], label: 'Hyper-Connections only' },
  { id: 'mhc', archs: ['mhc'], label: 'mHC only' },
  { id: 'attnres-dyt', archs: ['attn_res', 'dyt'], label: 'AttnRes and DyT' },
  { id: 'none', archs: [], label: 'none of them' },
]);
/** The architectures' short names in the questions' text. */
const NAMES = Object.freeze({
  pre_ln: 'Pre-LN',
  post_ln: 'Post-LN',
  hyper: 'Hyper-Connections',
  mhc: 'mHC',
  attn_res: 'AttnRes',
  dyt: 'DyT',
  hybrid: 'HybridNorm',
});
const archName = (a) => NAMES[a] ?? a;

/** A trainer's weight rows (typed arrays) as plain arrays; null stays null. */
const plainRows = (rows) => (rows ? Array.from(rows, (r) => Array.from(r)) : null);

/**
 * The questions' engine: simulate(config) resolves to the simulate document; train(config) to
 * {maxLogit, heldout, stopped, attnRes, dwa} of the run (cached by config; attnRes and dwa the
 * trained read weights of an attn_res or dwa run, as the lab's learned panel reads them, else
 * null); initWeights(config) to an untrained trainer's AttnRes read weights (rows of plain arrays).
 * @param {{simulate: Function, trainer: Function}} ops
 */
export function archEngine({ simulate, trainer }) {
  const cache = new Map();
  async function trainOnce(config) {
    const tr = await trainer(config);
    try {
      const logs = await tr.step(config.steps);
      const logits = logs.map((l) => l.max_logit);
      // A non-finite logit is the largest of all (a diverged run's).
      const maxLogit = logits.some((v) => !Number.isFinite(v)) ? Infinity : Math.max(...logits);
      const attnRes = config.arch === 'attn_res' ? plainRows(await tr.attnResWeights()) : null;
      const dwa = config.arch === 'dwa' ? plainRows(await tr.dwaWeights()) : null;
      return { maxLogit, heldout: logs.at(-1)?.heldout_loss, stopped: Boolean(tr.stopped), attnRes, dwa };
    } finally {
      await tr.delete();
    }
  }
  return {
    runs: cache,
    simulate: (config) => run(simulate, config),
    train(config) {
      const key = JSON.stringify(config);
      if (!cache.has(key)) {
        const p = trainOnce(config);
        cache.set(key, p);
        // A failed run is not kept: the next question asks again.
        p.catch(() => cache.delete(key));
      }
      return cache.get(key);
    },
    async initWeights(config) {
      const tr = await trainer(config);
      try {
        return plainRows(await tr.attnResWeights());
      } finally {
        await tr.delete();
      }
    },
  };
}

/** The largest over layers of |a_l / b_l - 1|; NaN if any value is not finite. */
export function maxRelativeGap(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const r = Math.abs(a[i] / b[i] - 1);
    if (!Number.isFinite(r)) return NaN;
    worst = Math.max(worst, r);
  }
  return worst;
}

/** "larger", "smaller" or "same": a against b, within SIMILAR relative of b being "same". */
export function compareTo(a, b) {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return 'none';
  const r = a / b - 1;
  return Math.abs(r) <= SIMILAR ? 'same' : r > 0 ? 'larger' : 'smaller';
}

const num = (v, d = 3) => (Number.isFinite(v) ? significant(v, d) : 'not finite');
const top = (a) => a[a.length - 1];
const sci = (v) => (Number.isFinite(v) ? v.toExponential(1).replace('e', '×10^') : 'not finite');

/** depth, gain, engine seed of a simulation. */
const drawSim = (rand, lo = 8, hi = 64) => ({
  depth: randInt(rand, lo, hi),
  gain: pick(rand, GAINS),
  seed: randInt(rand, 0, 9999),
});
const blockText = (c) => (c.block === 'transformer' ? 'transformer blocks' : 'MLP blocks');
const simText = (c) => `${c.depth} ${blockText(c)} at initialization, gain ${c.gain}, engine seed ${c.seed}`;

/** The choices larger / smaller / about the same, of `what`. */
const COMPARE = Object.freeze([
  { id: 'larger', label: 'larger' },
  { id: 'smaller', label: 'smaller' },
  { id: 'same', label: `about the same (within ${SIMILAR * 100}%)` },
]);
const compareWords = {
  larger: 'larger than',
  smaller: 'smaller than',
  same: 'about the same as',
  none: 'not comparable with',
};

/** The prompt, choices, key and explanation of a stream question: `arch`'s top stream RMS against Pre-LN's. */
function streamQuestion(doc, c, arch, extra, why) {
  const pre = top(doc.results.pre_ln.stream_rms);
  const other = top(doc.results[arch].stream_rms);
  const key = compareTo(other, pre);
  return {
    numbers: { preLn: pre, other, ratio: other / pre },
    key,
    choices: key === 'none' ? [...COMPARE, { id: 'none', label: 'not finite' }] : COMPARE,
    explanation:
      `The engine’s stream RMS at the top (layer ${c.depth}): Pre-LN ${num(pre)}, ${archName(arch)} ${num(other)}, ` +
      `${archName(arch)}’s is ${compareWords[key]} Pre-LN’s (a ratio of ${num(other / pre)}). ${extra} ${why(key)}`,
  };
}

export const ARCH_KINDS = Object.freeze({
  'same-grad': {
    name: 'the same gradients as Pre-LN',
    draw: (rand) => drawSim(rand),
    async ask(engine, p) {
      const c = { arch: ['pre_ln', ...SAME_GRAD_ARCHS], ...p };
      const doc = await engine.simulate(c);
      const pre = doc.results.pre_ln.grad_norm;
      const gaps = Object.fromEntries(SAME_GRAD_ARCHS.map((a) => [a, maxRelativeGap(doc.results[a].grad_norm, pre)]));
      const same = SAME_GRAD_ARCHS.filter((a) => gaps[a] <= SAME_GRAD);
      const key = SAME_GRAD_SETS.find((set) => set.archs.join() === same.join())?.id ?? 'other';
      const gapText = SAME_GRAD_ARCHS.map(
        (a) => `${archName(a)} ${gaps[a] === 0 ? '0 (bit for bit)' : sci(gaps[a])}`,
      ).join(', ');
      return {
        numbers: { gaps, same, config: c },
        prompt:
          `Pre-LN, Hyper-Connections (4 streams), mHC (4 streams, 20 Sinkhorn iterations), AttnRes and DyT, ${simText(c)}. ` +
          `Which of the four have the same per-layer gradient norms as Pre-LN, every layer within ${sci(SAME_GRAD)} relative?`,
        choices: [
          ...SAME_GRAD_SETS.map(({ id, label }) => ({ id, label })),
          { id: 'other', label: 'another combination' },
        ],
        key,
        explanation:
          `The engine’s largest relative gap from Pre-LN’s gradient norm over the ${c.depth + 1} layers: ${gapText}. ` +
          'Hyper-Connections start as Pre-LN (Zhu et al. 2025, their Eq. 14: each unit reads one stream and writes its output to every stream, the mixing the identity), so every stream carries Pre-LN’s h and only float rounding in the sum over the streams remains; ' +
          'mHC (Xie et al. 2025) writes its weights as sigmoids and a Sinkhorn projection of exp(R), which at its init (logits ±8) reach that identity up to about e^-8 per unit, so it starts near Pre-LN, a few parts in a million here; ' +
          'AttnRes (Kimi Team 2026) averages the earlier outputs at init instead of summing them, and DyT (Zhu et al. 2025) squashes instead of normalizing.',
      };
    },
  },
  'dyt-stream': {
    name: 'DyT’s stream against Pre-LN’s',
    draw: (rand) => ({ ...drawSim(rand, 8, 96), dyt_alpha: DYT_ALPHA }),
    async ask(engine, p) {
      const c = { arch: ['pre_ln', 'dyt'], ...p };
      const doc = await engine.simulate(c);
      const q = streamQuestion(
        doc,
        c,
        'dyt',
        `DyT (Zhu, Chen, He, LeCun and Liu 2025) replaces each LayerNorm by γ tanh(αx) + β, here α₀ = ${c.dyt_alpha}: it squashes the stream entry by entry instead of rescaling it to RMS 1.`,
        (key) =>
          key === 'smaller'
            ? 'So each block’s input has RMS below Pre-LN’s 1, its update is smaller, and the stream grows less.'
            : key === 'larger'
              ? 'Here the squashed input has a larger RMS than a LayerNorm’s output, so the updates and the stream are larger.'
              : 'Here the two end within the margin.',
      );
      return {
        ...q,
        prompt: `Pre-LN and DyT (α₀ = ${c.dyt_alpha}), ${simText(c)}. Is DyT’s stream RMS at the top larger or smaller than Pre-LN’s?`,
      };
    },
  },
  'attnres-stream': {
    name: 'AttnRes’s stream against Pre-LN’s',
    draw: (rand) => ({ ...drawSim(rand, 4, 32), block: pick(rand, ['mlp', 'transformer']) }),
    async ask(engine, p) {
      const c = { arch: ['pre_ln', 'attn_res'], ...p };
      const doc = await engine.simulate(c);
      const q = streamQuestion(
        doc,
        c,
        'attn_res',
        'With Attention Residuals (Kimi Team 2026) every pseudo-query starts at 0, so each unit reads the uniform average, weight 1/(k + 1), of the embedding and the k outputs below it, where Pre-LN adds every output with weight 1.',
        (key) =>
          key === 'smaller'
            ? 'An average of outputs of RMS about g stays near g or below, while Pre-LN’s sum grows like √(1 + g²l): the paper’s more uniform magnitudes over depth.'
            : key === 'larger'
              ? 'Here the average ends larger, by the engine’s numbers.'
              : 'Here the two end within the margin.',
      );
      return {
        ...q,
        prompt: `Pre-LN and Attention Residuals (AttnRes), ${simText(c)}. Is AttnRes’s stream RMS at the top larger or smaller than Pre-LN’s?`,
      };
    },
  },
  'hybrid-stream': {
    name: 'HybridNorm’s stream at the top',
    draw: (rand) => ({ ...drawSim(rand, 8, 48), block: pick(rand, ['mlp', 'transformer']) }),
    async ask(engine, p) {
      const c = { arch: ['post_ln', 'pre_ln', 'hybrid'], ...p };
      const doc = await engine.simulate(c);
      const s = (a) => top(doc.results[a].stream_rms);
      const toPost = Math.abs(Math.log10(s('hybrid') / s('post_ln')));
      const toPre = Math.abs(Math.log10(s('hybrid') / s('pre_ln')));
      const key = !Number.isFinite(toPost) || !Number.isFinite(toPre) ? 'none' : toPost < toPre ? 'post_ln' : 'pre_ln';
      return {
        numbers: { hybrid: s('hybrid'), postLn: s('post_ln'), preLn: s('pre_ln'), toPost, toPre, config: c },
        prompt: `Post-LN, Pre-LN and HybridNorm, ${simText(c)}. Is HybridNorm’s stream RMS at the top closer (on a log scale) to Post-LN’s or to Pre-LN’s?`,
        choices: [
          { id: 'post_ln', label: 'Post-LN’s' },
          { id: 'pre_ln', label: 'Pre-LN’s' },
          ...(key === 'none' ? [{ id: 'none', label: 'not finite' }] : []),
        ],
        key,
        explanation:
          `The engine’s stream RMS at the top (layer ${c.depth}): Post-LN ${num(s('post_ln'))}, Pre-LN ${num(s('pre_ln'))}, HybridNorm ${num(s('hybrid'))}; ` +
          `HybridNorm is ${num(toPost, 2)} decades from Post-LN and ${num(toPre, 2)} from Pre-LN. ` +
          'HybridNorm (Zhuo et al. 2025) normalizes Q, K and V inside attention and puts a Post-Norm on the FFN, h ← LN(h) + f(LN(h)): ' +
          (key === 'post_ln'
            ? 'the stream passes a LayerNorm in every block and restarts near RMS 1, as Post-LN’s does, instead of adding up every update as Pre-LN’s does.'
            : key === 'pre_ln'
              ? 'here its stream nevertheless ends nearer Pre-LN’s, by the engine’s numbers.'
              : 'here a value was not finite.'),
      };
    },
  },
  'attnres-init': {
    name: 'AttnRes’s read weight before training',
    draw: (rand) => {
      const depth = randInt(rand, 3, 8);
      return {
        depth,
        k: randInt(rand, 2, depth - 1),
        seed: randInt(rand, 0, 9999),
        order: shuffled([0, 1, 2, 3, 4], rand),
      };
    },
    async ask(engine, p) {
      const config = { ...INIT_TRAIN, depth: p.depth, seed: p.seed };
      const rows = await engine.initWeights(config);
      // row k - 1: the weights of the input of unit k + 1 over the embedding and units 1..k
      const w = rows?.[p.k - 1]?.[0];
      const k = p.k;
      const candidates = [
        { id: 'uniform', label: `1/(k + 1) = 1/${k + 1}`, value: 1 / (k + 1) },
        { id: 'one-over-k', label: `1/k = 1/${k}`, value: 1 / k },
        { id: 'halving', label: `1/2^k = 1/${2 ** k}`, value: 1 / 2 ** k },
        { id: 'one', label: '1 (the embedding alone)', value: 1 },
        { id: 'zero', label: '0 (the embedding not read)', value: 0 },
      ];
      // k >= 2, so the five values are distinct
      const choices = p.order.map((i) => candidates[i]);
      const match = choices.find((cnd) => Number.isFinite(w) && Math.abs(cnd.value - w) <= SAME_WEIGHT);
      const key = match ? match.id : 'none';
      return {
        numbers: { weight: w, rows, config },
        prompt:
          `Attention Residuals on MLP blocks, ${p.depth} blocks, before any training step (engine seed ${p.seed}): ` +
          `the input of block ${k + 1} is a softmax-weighted sum of the embedding and the outputs of blocks 1..${k}. What weight does it give the embedding?`,
        choices: [...choices.map(({ id, label }) => ({ id, label })), { id: 'none', label: 'none of these' }],
        key,
        explanation:
          `The engine’s read weight of the embedding at block ${k + 1}, averaged over the held-out tokens: ${num(w, 6)}` +
          (match ? `, ${match.label}. ` : ', none of the choices. ') +
          'Attention Residuals (Kimi Team 2026) start every pseudo-query at zero, so every score is 0 and the softmax over the embedding and the k outputs is uniform: ' +
          'the model starts by averaging its depth, and training decides what to read.',
      };
    },
  },
  'qk-logit': {
    name: 'the largest attention logit with and without QK-norm',
    draw: (rand) => ({ lr: pick(rand, QK_RATES), seed: randInt(rand, 0, QK_SEEDS - 1) }),
    async ask(engine, p) {
      const cfg = (qk) => ({ ...QK_TRAIN, lr: p.lr, seed: p.seed, qk_norm: qk });
      const [none, qk] = await Promise.all([engine.train(cfg('none')), engine.train(cfg('layernorm'))]);
      const a = none.maxLogit;
      const b = qk.maxLogit;
      const key =
        Number.isNaN(a) || Number.isNaN(b)
          ? 'none'
          : a >= LOGIT_FACTOR * b
            ? 'without'
            : b >= LOGIT_FACTOR * a
              ? 'with'
              : 'similar';
      return {
        numbers: { without: none, with: qk, config: cfg('none') },
        prompt:
          `Pre-LN transformers of ${QK_TRAIN.depth} blocks (d = ${QK_TRAIN.width}, ${QK_TRAIN.heads} heads) trained with Adam at a learning rate of ${p.lr} for ${QK_STEPS} steps ` +
          `to reverse ${QK_TRAIN.seq} of ${QK_TRAIN.vocab} symbols, engine seed ${p.seed}, once without and once with QK-norm (a LayerNorm on each head’s queries and keys). ` +
          'Which run’s largest attention logit over training is larger?',
        choices: [
          { id: 'without', label: `without QK-norm, by a factor of ${LOGIT_FACTOR} or more` },
          { id: 'with', label: `with QK-norm, by a factor of ${LOGIT_FACTOR} or more` },
          { id: 'similar', label: `within a factor of ${LOGIT_FACTOR} of each other` },
          ...(key === 'none' ? [{ id: 'none', label: 'not comparable' }] : []),
        ],
        key,
        explanation:
          `The engine’s largest attention logit over the logged steps: ${num(a)} without QK-norm, ${num(b)} with it` +
          (Number.isFinite(a / b) ? ` (a ratio of ${num(a / b)}). ` : '. ') +
          `With QK-norm each head’s query and key rows are LayerNorm outputs, so a logit is at most √dh times the two gains, however large W_Q and W_K grow; ` +
          'without it nothing bounds them, and Dehghani et al. 2023 and Wortsman et al. 2023 saw the logits grow and training fail at large learning rates. ' +
          `Held-out loss at the end: ${num(none.heldout)} without, ${num(qk.heldout)} with.`,
      };
    },
  },
  'trained-read': {
    name: 'what AttnRes and DenseFormer read of the embedding after training',
    draw: (rand) => ({ lr: pick(rand, READ_RATES), seed: randInt(rand, 0, 9999) }),
    async ask(engine, p) {
      const cfg = (arch) => ({ ...READ_TRAIN, arch, lr: p.lr, seed: p.seed });
      const [attn, dense] = await Promise.all([engine.train(cfg('attn_res')), engine.train(cfg('dwa'))]);
      // the final norm's row: h₀, the attention output, the MLP output; the stream after block 1: w₁,₀, w₁,₁
      const a = attn.attnRes?.at(-1) ?? [];
      const d = dense.dwa?.at(-1) ?? [];
      const moves = { attnRes: readMove(a[0], READ_INIT.attnRes), dwa: readMove(d[0], READ_INIT.dwa) };
      const key = readKey(moves.attnRes, moves.dwa);
      const moveWords = {
        less: 'less weight than at initialization',
        more: 'more weight than at initialization',
        same: `the weight it had at initialization (within ${READ_MARGIN})`,
        none: 'a weight that is not finite',
      };
      return {
        numbers: {
          attnRes: a,
          dwa: d,
          moves,
          heldout: { attnRes: attn.heldout, dwa: dense.heldout },
          config: cfg('attn_res'),
        },
        prompt:
          `Attention Residuals (AttnRes) and DenseFormer, each a transformer of ${READ_TRAIN.depth} block (d = ${READ_TRAIN.width}, ${READ_TRAIN.heads} heads) ` +
          `trained with Adam at a learning rate of ${p.lr} for ${READ_STEPS} steps to reverse ${READ_TRAIN.seq} of ${READ_TRAIN.vocab} symbols, engine seed ${p.seed}. ` +
          'At initialization AttnRes’s final norm reads the embedding h₀, the attention output and the MLP output with softmax weight 1/3 each, ' +
          'and DenseFormer’s stream after the block is 0 · h₀ + 1 · y₁ (y₁ the block’s output, h₀ plus its updates). ' +
          'After training, how does the weight each gives h₀ at the top compare with its start?',
        choices: [
          { id: 'both-less', label: 'both give h₀ less weight' },
          { id: 'attnres-less', label: 'AttnRes less, DenseFormer more' },
          { id: 'dwa-less', label: 'AttnRes more, DenseFormer less' },
          { id: 'both-more', label: 'both give h₀ more weight' },
          { id: 'other', label: `another outcome (one within ${READ_MARGIN} of its start, or not finite)` },
        ],
        key,
        explanation:
          `The engine’s weights after ${READ_STEPS} steps: AttnRes’s final norm reads h₀ with ${num(a[0])}, the attention output with ${num(a[1])} and the MLP output with ${num(a[2])}, averaged over the held-out tokens; ` +
          `DenseFormer’s stream after the block is ${num(d[0])} · h₀ + ${num(d[1])} · y₁. ` +
          `So AttnRes gives h₀ ${moveWords[moves.attnRes]} (1/3 there) and DenseFormer ${moveWords[moves.dwa]} (0 there). ` +
          (key === 'both-less'
            ? 'In this task the next symbol is one seen earlier in the sequence, which only attention brings to a position, while h₀ at a position holds its own symbol and place; ' +
              'AttnRes (Kimi Team 2026) turned h₀ down by moving softmax weight to the outputs, DenseFormer (Pagliardini et al. 2024) by subtracting part of the h₀ its block’s skip carries in y₁. '
            : 'Here the two did not both turn h₀ down, by the engine’s numbers. ') +
          `Held-out loss at the end: ${num(attn.heldout)} AttnRes, ${num(dense.heldout)} DenseFormer.`,
      };
    },
  },
});

/** 'less', 'more' or 'same' (within READ_MARGIN): a trained read weight against its value at init; 'none' if not finite. */
export function readMove(w, init) {
  if (!Number.isFinite(w)) return 'none';
  return w < init - READ_MARGIN ? 'less' : w > init + READ_MARGIN ? 'more' : 'same';
}

/** The trained-read key from AttnRes's move and DenseFormer's. */
export function readKey(attnRes, dwa) {
  const pairs = {
    'less less': 'both-less',
    'less more': 'attnres-less',
    'more less': 'dwa-less',
    'more more': 'both-more',
  };
  return pairs[`${attnRes} ${dwa}`] ?? 'other';
}

export const ARCH_KIND_IDS = Object.freeze(Object.keys(ARCH_KINDS));
/** Each kind's name in words, for a select. */
export const ARCH_KIND_NAMES = Object.freeze(Object.fromEntries(ARCH_KIND_IDS.map((k) => [k, ARCH_KINDS[k].name])));

/**
 * A question on the newer architectures: drawn from `seed`, answered by the engine.
 * @param {{simulate: Function, train: Function, initWeights: Function}} engine archEngine(...)
 * @param {{seed?: number|string, kind?: string}} [options] kind: one of ARCH_KIND_IDS (drawn from the seed when omitted)
 * @returns {Promise<{kind, seed, params, prompt: string, choices: {id, label}[], answer: string,
 *   numbers: object, explanation: string, check: (choice: string) => {correct, given, answer, message}}>}
 */
export const archQuestion = (engine, options) => kindQuestion(ARCH_KINDS, engine, options);
