// Multiple-choice questions on LayerNorm, BatchNorm and RMSNorm, generated from a seed and answered
// by the engine's numbers when they are asked: small trained runs (rn.trainer) and the norm panel's
// padded batch (rn.batchVsLayerNorm). The key is what the runs show, never a table: a draw whose
// runs do not show the textbook effect gets the key the runs give, and its explanation says so.
//
// normQuestion(engine, {seed, kind}) with engine = normEngine({trainer, batchVsLayerNorm}):
//   trainer(config)          rn.trainer(config) or the engine client's trainer(config) (sync or async)
//   batchVsLayerNorm(input)  rn.batchVsLayerNorm(input) or engine.call('batchVsLayerNorm', [input])
// normEngine caches each training run by its config, so the questions of a session share runs.
//
// The runs: BN_TRAIN of the papers page's BatchNorm claim (reverse up to 6 of 8 symbols, lengths 2..6
// padded to the batch's longest, two Pre-LN transformer blocks, d = 16, Adam, 200 steps), at an
// engine seed of 0..SEEDS-1 (few, so the runs are shared); each run takes a fraction of a second.
// A log's three held-out losses: train mode (each batch's own statistics), eval mode (BatchNorm's
// running statistics, what a model is served with), one sequence (each sequence normalized alone).
// LayerNorm and RMSNorm read only the token's own features, so their three are the same number.
//
// Kinds, each with how the key is read from the numbers:
//   one-seq     batch of BATCHES, BatchNorm's pads of PADS: LayerNorm and BatchNorm served one
//               sequence at a time; a norm's loss rises when one-sequence minus eval mode exceeds
//               ONE_SEQ_MARGIN of chance (the lab claim's margin). Key: LayerNorm, BatchNorm, both, neither.
//   mode-gap    the same runs: train mode against eval mode; a gap is a relative difference above
//               SAME (1e-9); BatchNorm's gap is small below GAP_SPLIT (5%) of its train-mode loss,
//               large from it. Key: neither, LayerNorm, BatchNorm small, BatchNorm large, both.
//   batch-size  both norms (pads masked) at batch 2 and at batch 16: whose eval-mode loss changes
//               more, |ln(loss at 16 / loss at 2)|; within SIMILAR (0.02) of each other is "about the same".
//   rms-vs-ln   Pre-LN with LayerNorm and with RMSNorm, same seed and batch: are the held-out losses
//               within x% (x of WITHIN) of LayerNorm's? Key: yes or no.
//   padding     the norm panel's batch (ui/norm-data.js, its values drawn from the seed) padded by p1
//               and by p2 positions, pads counted or not: does a real token's BatchNorm output change,
//               and its LayerNorm output (max |difference| above CHANGED, 1e-9)? Key: LayerNorm, BatchNorm, both, neither.
//   axis        the engine's BatchNorm mean on a padded batch (pads left out) against four averages
//               computed here: each feature over every real token of the batch, each token over its
//               features, each feature over the first sequence's tokens, each feature over position 0
//               of every sequence. Key: the one equal to the engine's to 1e-9, or "none of these".

import { randInt, pick, shuffled } from './random.js';
import { kindQuestion } from './kind-question.js';
import { significant, percent } from '../shared/format.js';
import { BN_TRAIN } from '../claims/papers/batchnorm.js';
import { ONE_SEQ_MARGIN, modes } from '../claims/lab/batchnorm.js';
import { BATCH, batchValues, batchInput, tokenAt, maxAbsDiff, moments } from './ui/norm-data.js';

/** Engine seeds the training runs use: few, so questions share runs. */
export const SEEDS = 5;
export const BATCHES = Object.freeze([4, 8, 16]);
export const PADS = Object.freeze(['mask', 'count']);
export const WITHIN = Object.freeze([1, 2, 5, 10]);
export const GAP_SPLIT = 0.05;
export const SIMILAR = 0.02;
export const SAME = 1e-9;
export const CHANGED = 1e-9;
export { ONE_SEQ_MARGIN };

/** The run names the questions train, as their configs over BN_TRAIN. */
const NORMS = Object.freeze({
  layernorm: { arch: 'pre_ln', norm: 'auto' },
  rmsnorm: { arch: 'pre_rms', norm: 'auto' },
  batchnorm: { arch: 'pre_ln', norm: 'batchnorm' },
});

/** The config of one run: a norm of NORMS at a batch size and seed (BatchNorm with its pads). */
export function runConfig(norm, { batch, seed, pads = 'mask' }) {
  const c = { ...BN_TRAIN, ...NORMS[norm], batch, seed };
  if (norm === 'batchnorm') c.bn_pads = pads;
  return c;
}

/**
 * The questions' engine: train(config) resolves to {train, evalMode, oneSeq, chance, stopped} of the
 * run's last log (cached by config), and batchVsLayerNorm(input) as the engine answers it.
 * @param {{trainer: Function, batchVsLayerNorm: Function}} ops
 */
export function normEngine({ trainer, batchVsLayerNorm }) {
  const cache = new Map();
  async function trainOnce(config) {
    const tr = await trainer(config);
    try {
      // the last log's three held-out losses, read as the lab's BatchNorm claim reads them
      const logs = await tr.step(config.steps);
      return { ...modes({ logs }), chance: tr.task.chance, stopped: Boolean(tr.stopped) };
    } finally {
      await tr.delete();
    }
  }
  return {
    runs: cache,
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
    batchVsLayerNorm: async (input) => batchVsLayerNorm(input),
  };
}

/** A loss for the text: 3 significant digits, "not finite" for NaN or infinity. */
const loss = (v) => (Number.isFinite(v) ? significant(v, 3) : 'not finite');
/** A relative difference for the text, with its sign in words left to the caller. */
const rel = (v) => (Number.isFinite(v) ? percent(Math.abs(v)) : 'not finite');

function allFinite(...values) {
  return values.every((v) => Number.isFinite(v));
}

/** Choices "LayerNorm's", "BatchNorm's", "both", "neither" and the key from two booleans. */
const WHOSE = Object.freeze([
  { id: 'layernorm', label: 'LayerNorm’s' },
  { id: 'batchnorm', label: 'BatchNorm’s' },
  { id: 'both', label: 'both' },
  { id: 'neither', label: 'neither' },
]);
const whoseKey = (ln, bn) => (ln && bn ? 'both' : ln ? 'layernorm' : bn ? 'batchnorm' : 'neither');

/** "1 extra pad", "4 extra pads". */
const padCount = (n) => `${n} extra pad${n === 1 ? '' : 's'}`;

/** The training setting in words, for the prompts. */
const settingText = (batch) =>
  `A Pre-LN transformer of ${BN_TRAIN.depth} blocks (d = ${BN_TRAIN.width}) trained for ${BN_TRAIN.steps} steps at batch ${batch} to reverse up to ` +
  `${BN_TRAIN.seq} of ${BN_TRAIN.vocab} symbols, each sequence ${BN_TRAIN.seq_min} to ${BN_TRAIN.seq} long and padded to the batch’s longest`;
const padsText = (pads) =>
  pads === 'count' ? 'its pads counted in the statistics' : 'its pads left out of the statistics';

/** Draws the trained pair of one-seq and mode-gap. */
const drawPair = (rand) => ({ batch: pick(rand, BATCHES), pads: pick(rand, PADS), seed: randInt(rand, 0, SEEDS - 1) });

async function trainPair(engine, p) {
  const [ln, bn] = await Promise.all([
    engine.train(runConfig('layernorm', p)),
    engine.train(runConfig('batchnorm', p)),
  ]);
  return { ln, bn };
}

export const NORM_KINDS = Object.freeze({
  'one-seq': {
    name: 'one sequence at a time',
    draw: drawPair,
    async ask(engine, p) {
      const { ln, bn } = await trainPair(engine, p);
      const margin = ONE_SEQ_MARGIN * ln.chance;
      const rise = (r) => r.oneSeq - r.evalMode;
      const rises = (r) => allFinite(r.oneSeq, r.evalMode) && rise(r) > margin;
      const key = whoseKey(rises(ln), rises(bn));
      const part = (name, r) =>
        `${name}: eval mode ${loss(r.evalMode)}, one sequence alone ${loss(r.oneSeq)} (${
          allFinite(r.oneSeq, r.evalMode) ? `a rise of ${significant(rise(r), 2)}` : 'not finite'
        })`;
      const why = {
        batchnorm:
          'Alone, a sequence is normalized with its own few tokens’ statistics instead of those training used, so its loss rises; LayerNorm reads only each token’s own features and gives the same number.',
        layernorm:
          'Here LayerNorm’s loss rose and BatchNorm’s did not: that is what these runs show, though LayerNorm uses no batch statistics.',
        both: 'Both rose here by the engine’s numbers.',
        neither:
          'In this run BatchNorm’s rise stayed under the margin: the effect the article predicts is too small to count at this batch and seed.',
      }[key];
      return {
        numbers: { ln, bn, margin },
        prompt:
          `${settingText(p.batch)}, once with LayerNorm and once with BatchNorm (${padsText(p.pads)}), engine seed ${p.seed}. ` +
          'Served one sequence at a time, each normalized with its own statistics instead of running averages: whose held-out loss rises above eval mode by more than 10% of chance?',
        choices: WHOSE,
        key,
        explanation: `The engine’s held-out losses (chance ${loss(ln.chance)}, 10% of it ${significant(margin, 2)}): ${part('LayerNorm', ln)}; ${part('BatchNorm', bn)}. ${why}`,
      };
    },
  },
  'mode-gap': {
    name: 'train mode against eval mode',
    draw: drawPair,
    async ask(engine, p) {
      const { ln, bn } = await trainPair(engine, p);
      const gap = (r) => (r.evalMode - r.train) / r.train;
      const has = (r) => allFinite(r.evalMode, r.train) && Math.abs(gap(r)) > SAME;
      const lnGap = has(ln);
      const bnGap = has(bn);
      const key =
        lnGap && bnGap
          ? 'both'
          : lnGap
            ? 'layernorm'
            : bnGap
              ? Math.abs(gap(bn)) < GAP_SPLIT
                ? 'batchnorm-small'
                : 'batchnorm-large'
              : 'neither';
      const split = `${GAP_SPLIT * 100}%`;
      const part = (name, r) =>
        `${name} train mode ${loss(r.train)}, eval mode ${loss(r.evalMode)}` +
        (has(r) ? ` (eval mode ${gap(r) > 0 ? 'higher' : 'lower'} by ${rel(gap(r))})` : ' (the same)');
      const why = {
        'batchnorm-small':
          'BatchNorm serves with running averages of the batch statistics, which are not the statistics of any one batch; here they differ by less than ' +
          `${GAP_SPLIT * 100}%.`,
        'batchnorm-large':
          'BatchNorm serves with running averages of the batch statistics, which are not the statistics of any one batch; here they differ by ' +
          `${GAP_SPLIT * 100}% or more.`,
        neither: 'Here the two modes agree for both norms.',
        layernorm: 'Here only LayerNorm’s modes differ, by the engine’s numbers.',
        both: 'Here both norms’ modes differ, by the engine’s numbers.',
      }[key];
      return {
        numbers: { ln, bn },
        prompt:
          `${settingText(p.batch)}, once with LayerNorm and once with BatchNorm (${padsText(p.pads)}), engine seed ${p.seed}. ` +
          'Held-out loss in train mode (each batch’s own statistics) against eval mode (running averages): which norm has a gap, and about how large?',
        choices: [
          { id: 'neither', label: 'neither' },
          { id: 'layernorm', label: 'LayerNorm only' },
          { id: 'batchnorm-small', label: `BatchNorm only, by less than ${split}` },
          { id: 'batchnorm-large', label: `BatchNorm only, by ${split} or more` },
          { id: 'both', label: 'both' },
        ],
        key,
        explanation: `The engine’s held-out losses: ${part('LayerNorm', ln)}; ${part('BatchNorm', bn)}. ${why} LayerNorm has no running statistics: its two modes are one computation.`,
      };
    },
  },
  'batch-size': {
    name: 'batch 2 against batch 16',
    draw: (rand) => ({ seed: randInt(rand, 0, SEEDS - 1) }),
    async ask(engine, p) {
      const at = (norm, batch) => engine.train(runConfig(norm, { batch, seed: p.seed, pads: 'mask' }));
      const [ln2, ln16, bn2, bn16] = await Promise.all([
        at('layernorm', 2),
        at('layernorm', 16),
        at('batchnorm', 2),
        at('batchnorm', 16),
      ]);
      const change = (a, b) => Math.abs(Math.log(b.evalMode / a.evalMode));
      const lnC = change(ln2, ln16);
      const bnC = change(bn2, bn16);
      const key = !allFinite(lnC, bnC)
        ? 'none'
        : Math.abs(lnC - bnC) < SIMILAR
          ? 'same'
          : bnC > lnC
            ? 'batchnorm'
            : 'layernorm';
      const part = (name, a, b, c) =>
        `${name} ${loss(a.evalMode)} at batch 2, ${loss(b.evalMode)} at batch 16 (a change of ${rel(Math.expm1(c))})`;
      const why = {
        batchnorm:
          'A larger batch trains both on more sequences per step, but BatchNorm’s statistics also come from the batch, so they are noisier at 2 and its loss moves more.',
        layernorm:
          'Here LayerNorm’s loss moved more: the larger batch helped its training more than BatchNorm’s noisier statistics cost, by these runs.',
        same: `The two changes are within ${SIMILAR * 100}% of each other, so neither moved clearly more here.`,
        none: 'A loss was not finite, so the engine’s numbers answer none of the three.',
      }[key];
      return {
        numbers: { ln2, ln16, bn2, bn16, lnChange: lnC, bnChange: bnC },
        prompt:
          `A Pre-LN transformer of ${BN_TRAIN.depth} blocks (d = ${BN_TRAIN.width}) trained for ${BN_TRAIN.steps} steps to reverse padded sequences, with LayerNorm and with BatchNorm (pads left out of the statistics), ` +
          `each at batch 2 and at batch 16, engine seed ${p.seed}. Whose held-out loss (eval mode, as served) changes more between the two batch sizes?`,
        choices: [
          { id: 'layernorm', label: 'LayerNorm’s' },
          { id: 'batchnorm', label: 'BatchNorm’s' },
          { id: 'same', label: `about the same (within ${SIMILAR * 100}%)` },
        ],
        key,
        explanation: `The engine’s held-out losses: ${part('LayerNorm', ln2, ln16, lnC)}; ${part('BatchNorm', bn2, bn16, bnC)}. ${why}`,
      };
    },
  },
  'rms-vs-ln': {
    name: 'RMSNorm against LayerNorm',
    draw: (rand) => ({ batch: pick(rand, BATCHES), seed: randInt(rand, 0, SEEDS - 1), within: pick(rand, WITHIN) }),
    async ask(engine, p) {
      const [ln, rms, lnNext] = await Promise.all([
        engine.train(runConfig('layernorm', p)),
        engine.train(runConfig('rmsnorm', p)),
        // LayerNorm at the next seed: how far one norm's runs fall apart by the seed alone
        engine.train(runConfig('layernorm', { ...p, seed: (p.seed + 1) % SEEDS })),
      ]);
      const d = (rms.evalMode - ln.evalMode) / ln.evalMode;
      const noise = (lnNext.evalMode - ln.evalMode) / ln.evalMode;
      const yes = allFinite(d) && Math.abs(d) <= p.within / 100;
      const key = yes ? 'yes' : 'no';
      return {
        numbers: { ln, rms, lnNext, difference: d, seedNoise: noise },
        prompt:
          `${settingText(p.batch)}, once with LayerNorm and once with RMSNorm (no mean subtracted, no bias), same seed ${p.seed}. ` +
          `Are their held-out losses within ${p.within}% of each other (of LayerNorm’s)?`,
        choices: [
          { id: 'yes', label: `yes, within ${p.within}%` },
          { id: 'no', label: `no, more than ${p.within}% apart` },
        ],
        key,
        explanation:
          `The engine’s held-out losses: LayerNorm ${loss(ln.evalMode)}, RMSNorm ${loss(rms.evalMode)}; RMSNorm’s is ` +
          `${allFinite(d) ? `${d > 0 ? 'higher' : 'lower'} by ${rel(d)}` : 'not comparable'}, ${yes ? 'within' : 'beyond'} ${p.within}%. ` +
          'RMSNorm keeps the rescaling and drops the re-centering. For scale: LayerNorm alone at engine seed ' +
          `${(p.seed + 1) % SEEDS} ends at ${loss(lnNext.evalMode)}, ${allFinite(noise) ? `${rel(noise)} from seed ${p.seed}` : 'not comparable'}: ` +
          `on runs this small the seed alone moves the loss ${allFinite(noise, d) && Math.abs(noise) >= Math.abs(d) ? 'as much as or more than' : 'less than'} the choice of norm did here.`,
      };
    },
  },
  padding: {
    name: 'a real token when the padding grows',
    draw(rand) {
      const batch = randInt(rand, 2, 4);
      const lengths = Array.from({ length: batch }, () => randInt(rand, 2, BATCH.maxLength));
      const p1 = randInt(rand, 0, 2);
      const p2 = randInt(rand, p1 + 2, BATCH.maxPadding);
      const b = randInt(rand, 0, batch - 1);
      return {
        values: randInt(rand, 1, 9999),
        batch,
        lengths,
        pads: [p1, p2],
        countPadding: rand() < 0.75,
        token: { b, t: randInt(rand, 0, lengths[b] - 1) },
      };
    },
    async ask(engine, p) {
      const values = batchValues(p.values);
      const inputs = p.pads.map((padding) =>
        batchInput(values, { batch: p.batch, lengths: p.lengths, padding, countPadding: p.countPadding }),
      );
      const outs = await Promise.all(inputs.map((input) => engine.batchVsLayerNorm(input)));
      const token = (i, which) => tokenAt(outs[i][which], inputs[i], p.token.b, p.token.t);
      const bnD = maxAbsDiff(token(0, 'batchnorm'), token(1, 'batchnorm'));
      const lnD = maxAbsDiff(token(0, 'layernorm'), token(1, 'layernorm'));
      const key = whoseKey(lnD > CHANGED, bnD > CHANGED);
      const vec = (a) => `(${a.map((v) => significant(v, 3)).join(', ')})`;
      const why = p.countPadding
        ? 'BatchNorm’s statistics count the pads here, so more zeros pull its mean and variance and move every real token; LayerNorm normalizes each token over its own features and never sees the pads.'
        : 'The pads are left out of BatchNorm’s statistics here, so more padding changes nothing for either norm; counted, they would move BatchNorm’s output.';
      return {
        numbers: { bnDiff: bnD, lnDiff: lnD },
        prompt:
          `A batch of ${p.batch} sequences of ${p.lengths.join(', ')} real tokens (d = ${BATCH.width}), padded with zeros to the longest${p.pads[0] ? ` plus ${p.pads[0]}` : ''}, ` +
          `then the same sequences padded to the longest plus ${p.pads[1]}; BatchNorm with ${padsText(p.countPadding ? 'count' : 'mask')}. ` +
          `Whose output for token ${p.token.t + 1} of sequence ${p.token.b + 1}, a real token, changes?`,
        choices: WHOSE,
        key,
        explanation:
          `The engine’s outputs for that token. BatchNorm: ${vec(token(0, 'batchnorm'))} with ${padCount(p.pads[0])}, ${vec(token(1, 'batchnorm'))} with ${padCount(p.pads[1])} (largest change ${significant(bnD, 3)}). ` +
          `LayerNorm: ${vec(token(0, 'layernorm'))}, then ${vec(token(1, 'layernorm'))} (largest change ${significant(lnD, 3)}). ${why}`,
      };
    },
  },
  axis: {
    name: 'what BatchNorm averages over',
    draw(rand) {
      const batch = randInt(rand, 2, 4);
      return {
        values: randInt(rand, 1, 9999),
        batch,
        lengths: Array.from({ length: batch }, () => randInt(rand, 2, BATCH.maxLength)),
        order: shuffled([0, 1, 2, 3], rand),
      };
    },
    async ask(engine, p) {
      const input = batchInput(batchValues(p.values), {
        batch: p.batch,
        lengths: p.lengths,
        padding: 1,
        countPadding: false,
      });
      const out = await engine.batchVsLayerNorm(input);
      const d = input.width;
      const at = (b, t) => tokenAt(input.x, input, b, t);
      const real = [];
      for (let b = 0; b < p.batch; b++) for (let t = 0; t < p.lengths[b]; t++) real.push(at(b, t));
      const perFeature = (tokens) => Array.from({ length: d }, (_, i) => moments(tokens.map((x) => x[i])).mean);
      const candidates = {
        'batch-tokens': perFeature(real),
        // one number per token, not per feature: its first d tokens' means, so it can be compared
        features: real.slice(0, d).map((x) => moments(x).mean),
        'one-sequence': perFeature(real.slice(0, p.lengths[0])),
        'one-position': perFeature(Array.from({ length: p.batch }, (_, b) => at(b, 0))),
      };
      const mean = Array.from(out.mean);
      const same = (a) => a.length === mean.length && maxAbsDiff(a, mean) <= 1e-9 * Math.max(1, ...mean.map(Math.abs));
      const key = Object.keys(candidates).find((k) => same(candidates[k])) ?? 'none';
      // LayerNorm's side, from its output: each real token's d outputs average 0 (its own features' mean).
      const lnOut = [];
      for (let b = 0; b < p.batch; b++)
        for (let t = 0; t < p.lengths[b]; t++) lnOut.push(tokenAt(out.layernorm, input, b, t));
      const lnWorst = Math.max(...lnOut.map((x) => Math.abs(moments(x).mean)));
      const labels = {
        'batch-tokens': 'each feature over every real token of the batch',
        features: 'each token over its own features',
        'one-sequence': 'each feature over the tokens of one sequence',
        'one-position': 'each feature over the same position in every sequence',
      };
      const choices = [
        ...p.order.map((i) => Object.keys(labels)[i]).map((id) => ({ id, label: labels[id] })),
        { id: 'none', label: 'none of these' },
      ];
      const vec = (a) => `(${a.map((v) => significant(v, 3)).join(', ')})`;
      return {
        numbers: { mean, candidates, lnWorst },
        prompt:
          `A batch of ${p.batch} sequences of ${p.lengths.join(', ')} real tokens with d = ${d} features, padded with zeros, pads left out. ` +
          'The engine’s BatchNorm returns the mean it normalized with, one number per feature: which positions did it average?',
        choices,
        key,
        explanation:
          `The engine’s BatchNorm mean: ${vec(mean)}. Computed here, ${labels['batch-tokens']}: ${vec(candidates['batch-tokens'])}; ` +
          `over the first sequence only: ${vec(candidates['one-sequence'])}; over position 1 of each sequence: ${vec(candidates['one-position'])}; each of the first ${d} tokens over its own features: ${vec(candidates.features)}. ` +
          (key === 'none' ? 'None of them equals the engine’s.' : `The engine’s equals ${labels[key]}. `) +
          `LayerNorm goes the other way, each token over its own d features: its outputs average 0 over every token’s features (the largest |mean| is ${significant(lnWorst, 2)}), whatever else is in the batch.`,
      };
    },
  },
});

export const NORM_KIND_IDS = Object.freeze(Object.keys(NORM_KINDS));
/** Each kind's name in words, for a select. */
export const NORM_KIND_NAMES = Object.freeze(Object.fromEntries(NORM_KIND_IDS.map((k) => [k, NORM_KINDS[k].name])));

/**
 * A norm question: drawn from `seed`, answered by the engine.
 * @param {{train: Function, batchVsLayerNorm: Function}} engine normEngine(...)
 * @param {{seed?: number|string, kind?: string}} [options] kind: one of NORM_KIND_IDS (drawn from the seed when omitted)
 * @returns {Promise<{kind, seed, params, prompt: string, choices: {id, label}[], answer: string,
 *   numbers: object, explanation: string, check: (choice: string) => {correct, given, answer, message}}>}
 */
export const normQuestion = (engine, options) => kindQuestion(NORM_KINDS, engine, options);
