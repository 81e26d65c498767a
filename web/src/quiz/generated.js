// Questions generated from the simulation and answered by the engine when they are asked.
//
// Every function takes `simulate(config)`, sync or async, returning the document rn.simulate gives
// ({config, results}) or a lane's {out: document, ms}, so the page can pass
//   (cfg) => rn.simulate(cfg)   or   (cfg) => engine.call('simulate', [cfg])   or   (cfg) => lane.request('simulate', [cfg])
// A null result (a lane resolves null when a newer request superseded this one) rejects with an
// Error: use engine.call(), which answers every call, or a lane of the quiz's own. Questions are deterministic for a given seed: same configs, same shuffle.
//
// whichIsWhich(simulate, {seed}): unlabeled curves of 2-4 stacks; the learner maps labels to archs.
//   Draw: depth 16..96, gain 0.80..1.20 in steps of 0.05, 2-4 archs from WHICH_POOL (never pre_ln
//   with pre_rms: at initialization they coincide, rapid-07), engine seed 0..9999, other fields at
//   their defaults. Distinguishable: every pair of archs must be at least MIN_SEPARATION decades
//   apart by separation(): the larger, over grad_norm and stream_rms, of the mean over layers of
//   |log10 a_l - log10 b_l|, the mean vertical gap of the two curves on the page's log axes.
//   0.15 decades is a factor of 1.4 on average. It rejects pre_ln against pre_rms (about 0.005) and
//   most post_ln/deepnorm pairs (identical stream curves, gradients 0.02-0.19 apart depending on
//   depth and seed), and keeps such a pair only when its gradients do differ. Non-finite values are
//   rejected too. A rejected draw is re-drawn (up to MAX_DRAWS), then FALLBACK is used.
//   {pool: 'newer'} draws instead from ReZero, LayerScale, LNS, Mix-LN, DenseFormer (dwa), Pre-LN and
//   Post-LN, at least one of the first five every time, never dwa with pre_ln (bit for bit the same
//   at init) nor rezero with layerscale (ε ≤ 0.1 leaves LayerScale within 0.02 decades of ReZero's
//   flat curves). The same rule decides the rest: ReZero's curves are flat (gradient exactly the
//   top's, stream exactly h_0's), LNS differs from Pre-LN in the stream (√(1 + g²H_l) against
//   √(1 + g²l)), Mix-LN from Post-LN above its first quarter; it rejects most rezero/post_ln and
//   layerscale/post_ln draws (both flat-ish streams) and keeps those whose gradients differ.
//
// predictNumber(simulate, {seed, kind}): "predict the number", graded on a log scale:
//   correct iff |log10(guess / answer)| <= the kind's tolerance (in decades):
//   plain-gradient  grad_norm[0] / grad_norm[L] of a plain linear orthogonal stack. Rule of thumb
//                   g^L, exact here (each layer scales norms by exactly g). Tolerance 0.3 decades
//                   (within a factor of 2): the answer spans 5e-10..4e7, so the skill is the
//                   exponent, and a factor of 2 separates 1.1^50 = 117 from 1.1^40 = 45.
//   preln-stream    stream_rms[L] of a Pre-LN stack (ReLU, Gaussian). Rule sqrt(1 + g^2 L) for an
//                   input of RMS 1: within 0.08 decades of the engine over 300 seeds. Tolerance 0.15
//                   decades (within a factor of 1.4): the answer is only 3..12, so a factor of 2
//                   would accept nearly any guess.
//   residual-growth stream_rms[L] / stream_rms[0] of a residual stack without norm (ReLU, Gaussian),
//                   L even in 16..48. Rule (1 + g^2)^(L/2), an average over random weights; a single
//                   run at width 64 scatters around it (over 300 seeds: rule/engine within -0.26..+0.45
//                   decades for 90% of draws, extremes -0.54 and +0.64). Tolerance 0.5 decades (a
//                   factor of 3.2): the rule passes in 98% of draws.
//   lns-stream      stream_rms[L] of an LNS stack (Pre-LN with LN(h) / √l in block l; ReLU,
//                   Gaussian). Rule sqrt(1 + g^2 H_L), H_L = 1 + 1/2 + ... + 1/L: block l adds
//                   variance g^2 / l. Over 300 seeds the rule is within 0.051 decades of the engine.
//                   Tolerance 0.06 decades (a factor of 1.15): the answer is only 1.5..2.7, and Pre-LN's
//                   rule sqrt(1 + g^2 L), the likely wrong guess, is 0.4 decades or more away.
//   lns-vs-preln    pre_ln's stream_rms[L] / lns's, same weights. Rule sqrt((1 + g^2 L) / (1 + g^2 H_L)):
//                   within 0.065 decades over 300 seeds. Tolerance 0.08 decades (a factor of 1.2):
//                   the answer is 2..4, so a wider factor would accept "about 3" at every depth.
//   layerscale-update update_ratio of block l (drawn 1..L, the question's `detail`) of LayerScale.
//                   Rule ε·g with ε by depth (0.1, 1e-5, 1e-6; the prompt says so): f(LN(h)) has RMS
//                   about g and the stream stays at RMS about 1. Within 0.114 decades over 300 seeds,
//                   beyond 0.1 in one. Tolerance 0.1 decades (a factor of 1.26): the answer spans
//                   8e-7..0.12, so the skill is ε, and a wrong ε is a factor of 10 or more off.
//   mix-ln-post-blocks how many blocks from the bottom leave Mix-LN's stream at RMS 1 (a LayerNorm's
//                   output, within 1e-3): the Post-LN blocks, read from the engine's stream. Rule
//                   floor(L/4), exact in all 300 seeds. Tolerance 0.01 decades: for answers 4..24
//                   only the exact count passes (one more or less is 0.018 decades or further off).
//
// pickArch(simulate, {seed, kind}): "pick the architecture", one of four drawn architectures (depth 16..96,
//   gain of GAINS, engine seed 0..9999), answered from the engine's numbers by each kind's score:
//   identity-gradient  the arch whose max_l |grad_norm[l] / grad_norm[L] - 1| is exactly 0 (ReZero,
//                   drawn with 3 of PICK_DISTRACTORS); the draw counts only if exactly one arch is
//                   exact and every other departs by at least MIN_GRADIENT_DEPARTURE (0.05, visible on
//                   the chart: it rejects deep LayerScale, whose ε = 1e-5 departs by about 1e-5).
//   smallest-update the arch with the smallest mean over blocks of log10 update_ratio (LayerScale
//                   drawn with 3 others, never ReZero, whose ratio is exactly 0); the draw counts only
//                   if the runner-up is MIN_UPDATE_GAP (0.3 decades, a factor of 2) above. LayerScale
//                   in 39 of seeds 0..39; DeepNet in a shallow draw where LayerScale's ε is 0.1.
//   Undecided draws are re-drawn, up to MAX_DRAWS; then it rejects.
//
// normQuestion(normEngine({trainer, batchVsLayerNorm}), {seed, kind}): multiple-choice questions on
//   LayerNorm, BatchNorm and RMSNorm answered from small trained runs; six kinds, in generated-norms.js.
//
// archQuestion(archEngine({simulate, trainer}), {seed, kind}) (generated-archs.js, imported from there):
//   multiple-choice questions on Hyper-Connections, mHC, AttnRes, DenseFormer, DyT, HybridNorm and
//   QK-norm; seven kinds.

import { mulberry32, randInt, pick, shuffled } from './random.js';
import { significant, superscript } from '../shared/format.js';
import { evaluate } from './expr.js';
import { archLabel, archNames } from '../shared/archs.js';

export { normQuestion, normEngine, NORM_KINDS, NORM_KIND_IDS, NORM_KIND_NAMES } from './generated-norms.js';

export const WHICH_POOL = Object.freeze(['plain', 'residual', 'post_ln', 'pre_ln', 'pre_rms', 'deepnorm']);
export const NEVER_TOGETHER = Object.freeze([['pre_ln', 'pre_rms']]);
export const MIN_SEPARATION = 0.15;
export const MAX_DRAWS = 30;
export const LABELS = 'ABCDEF';
/** Used when MAX_DRAWS draws were all rejected (its curves are far apart; a test checks it). */
export const FALLBACK = Object.freeze({ arch: ['plain', 'post_ln', 'pre_ln'], depth: 64, gain: 1, seed: 0 });
/** The architectures that answer "keep the highway and make late layers count" (ReZero .. DenseFormer). */
export const NEWER_ARCHS = Object.freeze(['rezero', 'layerscale', 'lns', 'mix_ln', 'dwa']);
/**
 * The pools "which is which" draws from (see the header): archs, pairs never drawn together, the
 * archs of which at least one is drawn (null: any), and the fallback config.
 */
export const WHICH_POOLS = Object.freeze({
  classic: Object.freeze({ archs: WHICH_POOL, neverTogether: NEVER_TOGETHER, oneOf: null, fallback: FALLBACK }),
  newer: Object.freeze({
    archs: Object.freeze([...NEWER_ARCHS, 'pre_ln', 'post_ln']),
    neverTogether: Object.freeze([
      ['dwa', 'pre_ln'],
      ['rezero', 'layerscale'],
    ]),
    oneOf: NEWER_ARCHS,
    fallback: Object.freeze({ arch: ['rezero', 'lns', 'post_ln'], depth: 64, gain: 1, seed: 0 }),
  }),
});
export const WHICH_POOL_IDS = Object.freeze(Object.keys(WHICH_POOLS));

function whichPool(id) {
  if (!Object.prototype.hasOwnProperty.call(WHICH_POOLS, id))
    throw new RangeError(`unknown pool ${JSON.stringify(String(id))} (known: ${WHICH_POOL_IDS.join(', ')})`);
  return WHICH_POOLS[id];
}

const GAINS = [0.8, 0.85, 0.9, 0.95, 1, 1.05, 1.1, 1.15, 1.2];

/** The simulate document of `config` from a simulate(config) that returns it, or a lane's {out}; rejects on null. */
export async function run(simulate, config) {
  const r = await simulate(config);
  const doc = r && r.results ? r : r && r.out && r.out.results ? r.out : null;
  if (!doc) throw new Error('the engine returned no results (was the request superseded?)');
  return doc;
}

/** Mean over layers of |log10 a_l - log10 b_l|; NaN if any value is not finite and positive. */
export function meanLogDistance(a, b) {
  if (!a || !b || a.length !== b.length || a.length === 0) return NaN;
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    if (!(a[i] > 0 && b[i] > 0 && Number.isFinite(a[i]) && Number.isFinite(b[i]))) return NaN;
    sum += Math.abs(Math.log10(a[i]) - Math.log10(b[i]));
  }
  return sum / a.length;
}

/** How far apart two archs' curves are, in decades (see the header). */
export function separation(ra, rb) {
  return Math.max(meanLogDistance(ra.grad_norm, rb.grad_norm), meanLogDistance(ra.stream_rms, rb.stream_rms));
}

/**
 * Whether every pair of `archs` in a simulate() document is told apart.
 * @returns {{ok: boolean, worst: {a: string, b: string, separation: number}|null}}
 */
export function distinguishable(doc, archs) {
  const pairs = [];
  for (let i = 0; i < archs.length; i++) {
    for (let j = i + 1; j < archs.length; j++) {
      const ra = doc && doc.results && doc.results[archs[i]];
      const rb = doc && doc.results && doc.results[archs[j]];
      pairs.push({ a: archs[i], b: archs[j], separation: ra && rb ? separation(ra, rb) : NaN });
    }
  }
  if (pairs.length === 0) return { ok: false, worst: null };
  // NaN (a non-finite curve) is the worst of all.
  const key = (p) => (Number.isNaN(p.separation) ? -Infinity : p.separation);
  const worst = pairs.reduce((w, p) => (key(p) < key(w) ? p : w));
  return { ok: pairs.every((p) => p.separation >= MIN_SEPARATION), worst };
}

/** One random config for "which is which" from a pool of WHICH_POOLS (see the header). */
export function drawWhichConfig(rand, poolId = 'classic') {
  const pool = whichPool(poolId);
  const depth = randInt(rand, 16, 96);
  const gain = pick(rand, GAINS);
  const k = randInt(rand, 2, 4);
  const arch = [];
  // With a oneOf list, its first arch in the shuffled order is taken first, so one is always drawn.
  const order = shuffled(pool.archs, rand);
  if (pool.oneOf)
    order.unshift(
      ...order.splice(
        order.findIndex((a) => pool.oneOf.includes(a)),
        1,
      ),
    );
  for (const a of order) {
    if (arch.length === k) break;
    const clash = pool.neverTogether.some((pair) => pair.includes(a) && pair.some((b) => b !== a && arch.includes(b)));
    if (!clash) arch.push(a);
  }
  return { arch, depth, gain, seed: randInt(rand, 0, 9999) };
}

/**
 * "Which is which": unlabeled curves, a hidden mapping, and a grader.
 * @param {Function} simulate (config) -> document or Promise of it
 * @param {{seed?: number|string, pool?: string}} [options] pool: one of WHICH_POOL_IDS ('classic')
 * @returns {Promise<{seed, pool, config, draws: number, labels: string[], choices: string[],
 *   curves: {label: string, grad_norm: ArrayLike<number>, stream_rms: ArrayLike<number>}[],
 *   prompt: string, check: (assignment: object|Map) => object, reveal: () => object}>}
 *   choices: the archs present, sorted (what the learner picks from); check({A: 'pre_ln', ...})
 *   returns {correct, total, allCorrect, details: [{label, given, expected, correct}], message}.
 */
export async function whichIsWhich(simulate, { seed = 0, pool = 'classic' } = {}) {
  const { fallback } = whichPool(pool);
  const rand = mulberry32(seed);
  let config = null;
  let doc = null;
  let draws = 0;
  while (draws < MAX_DRAWS && !doc) {
    draws += 1;
    const c = drawWhichConfig(rand, pool);
    const d = await run(simulate, c);
    if (distinguishable(d, c.arch).ok) {
      config = c;
      doc = d;
    }
  }
  if (!doc) {
    config = { ...fallback, arch: [...fallback.arch] };
    doc = await run(simulate, config);
    if (!distinguishable(doc, config.arch).ok)
      throw new Error('the engine gave indistinguishable curves for the fallback config');
  }
  const order = shuffled(config.arch, rand);
  const labels = order.map((_, i) => LABELS[i]);
  const truth = Object.fromEntries(order.map((a, i) => [labels[i], a]));
  const curves = order.map((arch, i) => ({
    label: labels[i],
    grad_norm: doc.results[arch].grad_norm,
    stream_rms: doc.results[arch].stream_rms,
  }));
  const choices = [...config.arch].sort();
  return {
    seed,
    pool,
    config,
    draws,
    labels,
    choices,
    curves,
    prompt:
      `${curves.length} stacks of depth ${config.depth} at gain ${config.gain}: ${archNames(choices)}. ` +
      `Which curve (${labels.join(', ')}) is which? Look at the gradient norm and the stream RMS per layer.`,
    check(assignment) {
      const get = (l) => (assignment instanceof Map ? assignment.get(l) : assignment ? assignment[l] : undefined);
      const details = labels.map((label) => {
        const given = get(label) ?? null;
        return { label, given, expected: truth[label], correct: given === truth[label] };
      });
      const right = details.filter((d) => d.correct).length;
      const wrong = details
        .filter((d) => !d.correct)
        .map((d) => `${d.label} is ${archLabel(d.expected)}${d.given ? `, not ${archLabel(d.given)}` : ''}`);
      return {
        correct: right,
        total: labels.length,
        allCorrect: right === labels.length,
        details,
        message:
          right === labels.length
            ? `All ${labels.length} right.`
            : `${right} of ${labels.length} right: ${wrong.join('; ')}.`,
      };
    },
    reveal: () => ({ ...truth }),
  };
}

/**
 * A guess as a number: a safe arithmetic expression (expr.js) such as "117", "1.2e-3", "sqrt(2)",
 * "1.1^50", "2*10^-4", "3×10^5". NaN when it is not one.
 * @param {number|string} input
 * @returns {number}
 */
export function parseGuess(input) {
  if (typeof input === 'number') return input;
  const r = evaluate(input);
  return r.ok ? r.value : NaN;
}

/**
 * Grades a guess on a log scale: correct iff |log10(guess / answer)| <= toleranceDex.
 * @param {number|string} input the learner's guess (parseGuess)
 * @param {number} answer the engine's number (> 0)
 * @param {number} toleranceDex
 * @returns {{correct: boolean, guess: number, answer: number, dex: number, message: string}}
 */
export function gradeGuess(input, answer, toleranceDex) {
  const read = typeof input === 'number' ? { ok: true, value: input } : evaluate(input);
  const guess = read.ok ? read.value : NaN;
  const factor = Number((10 ** toleranceDex).toPrecision(3));
  if (!(guess > 0) || !Number.isFinite(guess)) {
    const why = read.ok
      ? `${significant(guess)} is not positive`
      : `${read.error[0].toUpperCase()}${read.error.slice(1)}`;
    return {
      correct: false,
      guess,
      answer,
      dex: NaN,
      message: `${why}. Enter a positive number, e.g. 120, 1.5e-3, sqrt(2) or 1.1^50.`,
    };
  }
  const dex = Math.log10(guess / answer);
  const correct = Math.abs(dex) <= toleranceDex + 1e-12;
  const off = 10 ** Math.abs(dex);
  const how = off < 1.005 ? 'spot on' : `${dex > 0 ? 'high' : 'low'} by a factor of ${significant(off)}`;
  const message = correct
    ? `Right (within a factor of ${factor}): the engine says ${significant(answer, 4)}, you said ${significant(guess, 4)}, ${how}.`
    : `Not quite: the engine says ${significant(answer, 4)}, you said ${significant(guess, 4)}, ${how} (needs to be within a factor of ${factor}).`;
  return { correct, guess, answer, dex, message };
}

/** H_n = 1 + 1/2 + ... + 1/n. */
export function harmonic(n) {
  let h = 0;
  for (let i = 1; i <= n; i++) h += 1 / i;
  return h;
}

/** LayerScale's λ at init by depth, as in CaiT and the engine's recipe. */
export function layerScaleEpsilon(depth) {
  return depth <= 18 ? 0.1 : depth <= 24 ? 1e-5 : 1e-6;
}

/** How many blocks from the bottom leave the stream at RMS 1 (within 1e-3): the Post-LN ones. */
export function leadingNormalizedBlocks(streamRms) {
  let m = 0;
  while (m + 1 < streamRms.length && Math.abs(streamRms[m + 1] - 1) < 1e-3) m += 1;
  return m;
}

/** A draw of depth 16..96, a gain of GAINS and an engine seed, for the archs given. */
function drawDepthGainSeed(arch) {
  return (rand) => ({
    arch: [...arch],
    depth: randInt(rand, 16, 96),
    gain: pick(rand, GAINS),
    seed: randInt(rand, 0, 9999),
  });
}

// Kinds of "predict the number". draw(rand) -> config; detail(rand, config) -> what else the
// question asks about, e.g. {block} (absent: {}); answer(doc, config, detail) -> number;
// rule(config, detail) -> {value, text}; prompt(config, detail) and
// explain(config, answer, rule, detail) -> strings.
export const PREDICT_KINDS = Object.freeze({
  'plain-gradient': {
    toleranceDex: 0.3,
    draw(rand) {
      const gain = pick(
        rand,
        GAINS.filter((g) => g !== 1),
      );
      return {
        arch: ['plain'],
        depth: randInt(rand, 16, 96),
        gain,
        activation: 'linear',
        init: 'orthogonal',
        seed: randInt(rand, 0, 9999),
      };
    },
    answer(doc) {
      const g = doc.results.plain.grad_norm;
      return g[0] / g[g.length - 1];
    },
    rule(c) {
      const value = c.gain ** c.depth;
      return { value, text: `g^L = ${c.gain}${superscript(c.depth)} ≈ ${significant(value, 4)}` };
    },
    prompt: (c) =>
      `A plain stack (no skip connections) of ${c.depth} linear layers with orthogonal weights at gain ${c.gain}: ` +
      `how large is the gradient at layer 0 relative to the gradient at the top, layer ${c.depth}?`,
    explain: (c, answer, rule) =>
      `The engine gives the gradient at layer 0 over the gradient at layer ${c.depth}: ${significant(answer, 4)}. ` +
      `Rule of thumb: without a skip, every layer multiplies the gradient by about the gain, so over L layers ${rule.text}. ` +
      'With linear layers and orthogonal weights each layer scales norms by exactly g, so here the rule is exact; ' +
      'with ReLU and Gaussian weights it is only the first estimate.',
  },
  'preln-stream': {
    toleranceDex: 0.15,
    draw(rand) {
      return { arch: ['pre_ln'], depth: randInt(rand, 16, 96), gain: pick(rand, GAINS), seed: randInt(rand, 0, 9999) };
    },
    answer(doc) {
      const s = doc.results.pre_ln.stream_rms;
      return s[s.length - 1];
    },
    rule(c) {
      const value = Math.sqrt(1 + c.gain * c.gain * c.depth);
      return { value, text: `√(1 + g²L) = √(1 + ${c.gain}² × ${c.depth}) ≈ ${significant(value, 3)}` };
    },
    prompt: (c) =>
      `A Pre-LN stack of depth ${c.depth} at gain ${c.gain} (ReLU, Gaussian weights), fed tokens of RMS about 1: ` +
      `what is the RMS of the residual stream at the top, layer ${c.depth}?`,
    explain: (c, answer, rule) =>
      `The engine gives the stream's RMS at layer ${c.depth}: ${significant(answer, 4)}. ` +
      'Rule of thumb: each block adds an update of RMS about g (its input is normalized), roughly uncorrelated with the stream, ' +
      `so the stream's variance grows like 1 + g²·l and its RMS at the top is about ${rule.text}.`,
  },
  'residual-growth': {
    toleranceDex: 0.5,
    draw(rand) {
      return {
        arch: ['residual'],
        depth: 2 * randInt(rand, 8, 24),
        gain: pick(rand, GAINS),
        seed: randInt(rand, 0, 9999),
      };
    },
    answer(doc) {
      const s = doc.results.residual.stream_rms;
      return s[s.length - 1] / s[0];
    },
    rule(c) {
      const base = 1 + c.gain * c.gain;
      const value = base ** (c.depth / 2);
      return {
        value,
        text: `(1 + g²)^(L/2) = ${Number(base.toFixed(4))}${superscript(c.depth / 2)} ≈ ${significant(value, 3)}`,
      };
    },
    prompt: (c) =>
      `A residual stack with no norm at all (h ← h + f(h)) of depth ${c.depth} at gain ${c.gain} (ReLU, Gaussian weights): ` +
      `by what factor does the stream RMS grow from layer 0 to layer ${c.depth}?`,
    explain: (c, answer, rule) =>
      `The engine gives the stream's RMS at layer ${c.depth} over its RMS at layer 0: ${significant(answer, 4)}. ` +
      "Rule of thumb: each block adds f(h), whose RMS is about g times the stream's and roughly uncorrelated with it, " +
      `so the variance is multiplied by 1 + g² per block: ${rule.text}. ` +
      'That is an average over random weights; a single run at width 64 can land a factor of 2 or 3 away from it.',
  },
  'lns-stream': {
    toleranceDex: 0.06,
    draw: drawDepthGainSeed(['lns']),
    answer(doc) {
      const s = doc.results.lns.stream_rms;
      return s[s.length - 1];
    },
    rule(c) {
      const h = harmonic(c.depth);
      const value = Math.sqrt(1 + c.gain * c.gain * h);
      return {
        value,
        text: `√(1 + g²·H_L) = √(1 + ${c.gain}² × ${significant(h, 4)}) ≈ ${significant(value, 3)}`,
      };
    },
    prompt: (c) =>
      `A LayerNorm-Scaling (LNS) stack of depth ${c.depth} at gain ${c.gain} (Pre-LN whose LayerNorm output is scaled by 1/√l in block l; ReLU, Gaussian weights), ` +
      `fed tokens of RMS about 1: what is the RMS of the residual stream at the top, layer ${c.depth}?`,
    explain: (c, answer, rule) =>
      `The engine gives the stream's RMS at layer ${c.depth}: ${significant(answer, 4)}. ` +
      "Rule of thumb: block l's input is normalized and then scaled by 1/√l, so its update has RMS about g/√l and adds g²/l to the stream's variance; " +
      `summed over the blocks that is g² times the harmonic number H_L = 1 + 1/2 + … + 1/L ≈ ln L + 0.58, so the RMS at the top is about ${rule.text}. ` +
      `Pre-LN would be at √(1 + g²L) ≈ ${significant(Math.sqrt(1 + c.gain * c.gain * c.depth), 3)}: the scaling turns linear growth of the variance into logarithmic growth.`,
  },
  'lns-vs-preln': {
    toleranceDex: 0.08,
    draw: drawDepthGainSeed(['pre_ln', 'lns']),
    answer(doc) {
      const p = doc.results.pre_ln.stream_rms;
      const s = doc.results.lns.stream_rms;
      return p[p.length - 1] / s[s.length - 1];
    },
    rule(c) {
      const g2 = c.gain * c.gain;
      const h = harmonic(c.depth);
      const value = Math.sqrt((1 + g2 * c.depth) / (1 + g2 * h));
      return {
        value,
        text: `√((1 + g²L) / (1 + g²·H_L)) = √((1 + ${significant(g2, 4)} × ${c.depth}) / (1 + ${significant(g2, 4)} × ${significant(h, 4)})) ≈ ${significant(value, 3)}`,
      };
    },
    prompt: (c) =>
      `Pre-LN and LayerNorm Scaling (LNS, the LayerNorm output scaled by 1/√l in block l), both of depth ${c.depth} at gain ${c.gain}, same weights (ReLU, Gaussian): ` +
      `how many times larger is Pre-LN's stream RMS at the top (layer ${c.depth}) than LNS's?`,
    explain: (c, answer, rule) =>
      `The engine gives ${significant(answer, 4)}. ` +
      "Rule of thumb: Pre-LN's stream variance grows by about g² per block (1 + g²L), LNS's by g²/l in block l (1 + g²·H_L, H_L the harmonic number), " +
      `so the ratio of the RMS is about ${rule.text}. It keeps growing with depth, like √(L / ln L).`,
  },
  'layerscale-update': {
    toleranceDex: 0.1,
    draw: drawDepthGainSeed(['layerscale']),
    detail: (rand, c) => ({ block: randInt(rand, 1, c.depth) }),
    answer(doc, c, d) {
      return doc.results.layerscale.update_ratio[d.block - 1];
    },
    rule(c) {
      const eps = layerScaleEpsilon(c.depth);
      const value = eps * c.gain;
      return { value, text: `ε·g = ${significant(eps)} × ${c.gain} = ${significant(value, 3)}` };
    },
    prompt: (c, d) =>
      `A LayerScale stack (h ← h + diag(λ) f(LN(h)), every λ = ε at init, ε chosen by depth as in CaiT: 0.1 up to 18 blocks, 10⁻⁵ up to 24, 10⁻⁶ deeper) ` +
      `of depth ${c.depth} at gain ${c.gain} (ReLU, Gaussian weights), fed tokens of RMS about 1: ` +
      `what is the update ratio of block ${d.block}, ‖u‖ / ‖h‖ (the RMS of what the block adds over the RMS of the stream it adds to)?`,
    explain: (c, answer, rule, d) =>
      `The engine gives the update ratio of block ${d.block} = ${significant(answer, 4)}. ` +
      `Rule of thumb: f(LN(h)) has RMS about g, whatever the stream, and λ = ε = ${significant(layerScaleEpsilon(c.depth))} scales it down; ` +
      `the stream stays at RMS about 1 because every block adds so little, so the ratio is about ${rule.text} in every block. ` +
      "Pre-LN's blocks start at about g and fall like 1/√l; LayerScale starts every block almost switched off and lets training open λ.",
  },
  'mix-ln-post-blocks': {
    toleranceDex: 0.01,
    draw: drawDepthGainSeed(['mix_ln']),
    answer(doc) {
      return leadingNormalizedBlocks(doc.results.mix_ln.stream_rms);
    },
    rule(c) {
      const value = Math.floor(c.depth / 4);
      return { value, text: `⌊L/4⌋ = ⌊${c.depth}/4⌋ = ${value}` };
    },
    prompt: (c) =>
      `A Mix-LN stack of depth ${c.depth} at gain ${c.gain} (Post-LN in its early blocks, Pre-LN in the rest, with the paper's default fraction): ` +
      'in how many blocks, counted from the bottom, does the stream come out of a LayerNorm? Read it from where the stream RMS leaves 1.',
    explain: (c, answer, rule) =>
      `The engine's stream RMS is 1 (the output of a LayerNorm) after each of the first ${answer} blocks and grows after that. ` +
      `Mix-LN uses Post-LN in the first quarter of the blocks, ${rule.text}, and Pre-LN above, so the early layers get Post-LN's larger gradients ` +
      "and the deep ones keep Pre-LN's highway. Only the exact count is right.",
  },
});

export const PREDICT_KIND_IDS = Object.freeze(Object.keys(PREDICT_KINDS));

/**
 * "Predict the number".
 * @param {Function} simulate (config) -> document or Promise of it
 * @param {{seed?: number|string, kind?: string}} [options] kind: one of PREDICT_KIND_IDS (drawn
 *   from the seed when omitted)
 * @returns {Promise<{kind, seed, config, detail: object, prompt: string, answer: number, toleranceDex: number,
 *   rule: {value: number, text: string}, explanation: string, grade: (guess) => object}>}
 *   grade(guess) is gradeGuess(guess, answer, toleranceDex).
 */
export async function predictNumber(simulate, { seed = 0, kind } = {}) {
  const rand = mulberry32(seed);
  const id = kind === undefined ? pick(rand, PREDICT_KIND_IDS) : kind;
  const spec = Object.prototype.hasOwnProperty.call(PREDICT_KINDS, id) ? PREDICT_KINDS[id] : null;
  if (!spec) throw new RangeError(`unknown kind ${JSON.stringify(String(id))} (known: ${PREDICT_KIND_IDS.join(', ')})`);
  const config = spec.draw(rand);
  const detail = spec.detail ? spec.detail(rand, config) : {};
  const doc = await run(simulate, config);
  const answer = spec.answer(doc, config, detail);
  if (!(answer > 0) || !Number.isFinite(answer)) throw new Error(`the engine gave no usable answer (${answer})`);
  const rule = spec.rule(config, detail);
  return {
    kind: id,
    seed,
    config,
    detail,
    prompt: spec.prompt(config, detail),
    answer,
    toleranceDex: spec.toleranceDex,
    rule,
    explanation: spec.explain(config, answer, rule, detail),
    grade: (guess) => gradeGuess(guess, answer, spec.toleranceDex),
  };
}

// Kinds of "pick the architecture". draw(rand) -> config (arch: the choices, in the order shown);
// score(result, config) -> the number per arch the answer is read from; answerOf(scores) -> the
// arch, or null when the draw does not decide it clearly (the draw is then re-drawn);
// curve(result) -> {title, x: 'layers'|'blocks', values} for the chart; prompt(config) and
// explain(config, answer, scores) -> strings.
export const PICK_DISTRACTORS = Object.freeze([
  'plain',
  'residual',
  'post_ln',
  'pre_ln',
  'pre_rms',
  'sandwich',
  'deepnorm',
  'layerscale',
  'lns',
  'mix_ln',
  'dwa',
]);
/** A distractor of identity-gradient must depart from 1 by at least this much somewhere. */
export const MIN_GRADIENT_DEPARTURE = 0.05;
/** The answer of smallest-update must be this many decades below the runner-up. */
export const MIN_UPDATE_GAP = 0.3;

function drawPick(answer, distractors) {
  return (rand) => {
    const others = shuffled(
      distractors.filter((a) => a !== answer),
      rand,
    ).slice(0, 3);
    return {
      arch: shuffled([answer, ...others], rand),
      depth: randInt(rand, 16, 96),
      gain: pick(rand, GAINS),
      seed: randInt(rand, 0, 9999),
    };
  };
}

const entriesBy = (scores, key) => Object.entries(scores).sort((a, b) => key(a[1]) - key(b[1]));

// Why the answer of smallest-update adds so little (LayerScale nearly always; DeepNet in a few
// shallow draws, where LayerScale's ε is 0.1).
const SMALL_UPDATE_WHY = {
  layerscale: (c) =>
    `LayerScale multiplies every branch by diag(λ) with λ = ε at init (${significant(layerScaleEpsilon(c.depth))} at depth ${c.depth}, ` +
    'chosen by depth as in CaiT), so each block adds about ε·g to a stream of RMS about 1 and the stream barely moves; ' +
    'training then grows λ where it helps.',
  deepnorm: () =>
    'DeepNet scales its branch weights down by β and its skip up by α (both set by depth), so the update is small next to α h; ' +
    "at this depth LayerScale's ε is still 0.1.",
};

export const PICK_KINDS = Object.freeze({
  'identity-gradient': {
    draw: drawPick('rezero', PICK_DISTRACTORS),
    score(r) {
      const g = r.grad_norm;
      const top = g[g.length - 1];
      let worst = 0;
      for (const v of g) worst = Math.max(worst, Math.abs(v / top - 1));
      return worst;
    },
    answerOf(scores) {
      const exact = Object.keys(scores).filter((a) => scores[a] === 0);
      const rest = Object.keys(scores).filter((a) => scores[a] !== 0);
      return exact.length === 1 && rest.every((a) => scores[a] >= MIN_GRADIENT_DEPARTURE) ? exact[0] : null;
    },
    curve(r) {
      const g = r.grad_norm;
      return {
        title: 'Gradient at layer l relative to the top',
        x: 'layers',
        values: Array.from(g, (v) => v / g[g.length - 1]),
      };
    },
    prompt: (c) =>
      `Four stacks of depth ${c.depth} at gain ${c.gain}, at initialization: ${archNames(c.arch)}. ` +
      "Which one keeps the gradient at every layer exactly equal to the top's?",
    explain: (c, answer, scores) =>
      `The engine's gradients: ${archLabel(answer)}'s gradient relative to the top's (layer ${c.depth}) is exactly 1 at every layer; ` +
      entriesBy(scores, (v) => -v)
        .filter(([a]) => a !== answer)
        .map(([a, v]) => `${archLabel(a)}'s departs from 1 by up to ${significant(v, 3)}`)
        .join(', ') +
      '. ReZero multiplies every branch by a learnable α that starts at 0, so at initialization every block is the identity, ' +
      'its Jacobian is exactly I and the gradient passes down unchanged; training then opens each α from 0.',
  },
  'smallest-update': {
    draw: drawPick(
      'layerscale',
      PICK_DISTRACTORS.filter((a) => a !== 'layerscale'),
    ),
    score(r) {
      const u = r.update_ratio;
      let sum = 0;
      for (const v of u) sum += Math.log10(v);
      return sum / u.length;
    },
    answerOf(scores) {
      const sorted = entriesBy(scores, (v) => (Number.isFinite(v) ? v : Infinity));
      if (!sorted.every(([, v]) => Number.isFinite(v))) return null;
      return sorted[1][1] - sorted[0][1] >= MIN_UPDATE_GAP ? sorted[0][0] : null;
    },
    curve(r) {
      return { title: 'Update ratio of block l, ‖u_l‖ / ‖h_(l−1)‖', x: 'blocks', values: Array.from(r.update_ratio) };
    },
    prompt: (c) =>
      `Four stacks of depth ${c.depth} at gain ${c.gain}, at initialization: ${archNames(c.arch)}. ` +
      'In which one do the blocks change the residual stream least, the smallest update ratio ‖u‖ / ‖h‖ on average over the blocks?',
    explain: (c, answer, scores) =>
      "The engine's update ratios, as a geometric mean over the blocks: " +
      entriesBy(scores, (v) => v)
        .map(([a, v]) => `${archLabel(a)} ${significant(10 ** v, 3)}`)
        .join(', ') +
      `. ${SMALL_UPDATE_WHY[answer] ? SMALL_UPDATE_WHY[answer](c) : `Here ${archLabel(answer)}'s blocks add the least, by the engine's numbers.`} ` +
      'ReZero is never a choice here: its blocks add exactly 0 at init.',
  },
});

export const PICK_KIND_IDS = Object.freeze(Object.keys(PICK_KINDS));

/**
 * "Pick the architecture": a multiple-choice question among four architectures, answered from the engine's
 * numbers (each kind's score), not from a table.
 * @param {Function} simulate (config) -> document or Promise of it
 * @param {{seed?: number|string, kind?: string}} [options] kind: one of PICK_KIND_IDS (drawn from
 *   the seed when omitted)
 * @returns {Promise<{kind, seed, config, draws: number, prompt: string, choices: string[],
 *   answer: string, scores: object, curves: {arch, title, x, values}[], explanation: string,
 *   check: (choice: string) => {correct: boolean, given, answer, message}}>}
 */
export async function pickArch(simulate, { seed = 0, kind } = {}) {
  const rand = mulberry32(seed);
  const id = kind === undefined ? pick(rand, PICK_KIND_IDS) : kind;
  const spec = Object.prototype.hasOwnProperty.call(PICK_KINDS, id) ? PICK_KINDS[id] : null;
  if (!spec) throw new RangeError(`unknown kind ${JSON.stringify(String(id))} (known: ${PICK_KIND_IDS.join(', ')})`);
  let config = null;
  let doc = null;
  let answer = null;
  let scores = null;
  let draws = 0;
  while (draws < MAX_DRAWS && answer === null) {
    draws += 1;
    config = spec.draw(rand);
    doc = await run(simulate, config);
    scores = Object.fromEntries(config.arch.map((a) => [a, spec.score(doc.results[a], config)]));
    answer = spec.answerOf(scores);
  }
  if (answer === null) throw new Error(`the engine did not decide a ${id} question in ${MAX_DRAWS} draws`);
  const curves = config.arch.map((arch) => ({ arch, ...spec.curve(doc.results[arch]) }));
  return {
    kind: id,
    seed,
    config,
    draws,
    prompt: spec.prompt(config),
    choices: [...config.arch],
    answer,
    scores,
    curves,
    explanation: spec.explain(config, answer, scores),
    check(choice) {
      const correct = choice === answer;
      return {
        correct,
        given: choice ?? null,
        answer,
        message: correct
          ? `Right: it is ${archLabel(answer)}.`
          : `Not quite: it is ${archLabel(answer)}${choice ? `, not ${archLabel(choice)}` : ''}.`,
      };
    },
  };
}
