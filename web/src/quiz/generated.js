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

import { mulberry32, randInt, pick, shuffled } from './random.js';
import { significant, superscript } from '../shared/format.js';
import { evaluate } from './expr.js';

export const WHICH_POOL = Object.freeze(['plain', 'residual', 'post_ln', 'pre_ln', 'pre_rms', 'deepnorm']);
export const NEVER_TOGETHER = Object.freeze([['pre_ln', 'pre_rms']]);
export const MIN_SEPARATION = 0.15;
export const MAX_DRAWS = 30;
export const LABELS = 'ABCDEF';
/** Used when MAX_DRAWS draws were all rejected (its curves are far apart; a test checks it). */
export const FALLBACK = Object.freeze({ arch: ['plain', 'post_ln', 'pre_ln'], depth: 64, gain: 1, seed: 0 });

const GAINS = [0.8, 0.85, 0.9, 0.95, 1, 1.05, 1.1, 1.15, 1.2];

async function run(simulate, config) {
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

/** One random config for "which is which" (see the header). */
export function drawWhichConfig(rand) {
  const depth = randInt(rand, 16, 96);
  const gain = pick(rand, GAINS);
  const k = randInt(rand, 2, 4);
  const arch = [];
  for (const a of shuffled(WHICH_POOL, rand)) {
    if (arch.length === k) break;
    const clash = NEVER_TOGETHER.some((pair) => pair.includes(a) && pair.some((b) => b !== a && arch.includes(b)));
    if (!clash) arch.push(a);
  }
  return { arch, depth, gain, seed: randInt(rand, 0, 9999) };
}

/**
 * "Which is which": unlabeled curves, a hidden mapping, and a grader.
 * @param {Function} simulate (config) -> document or Promise of it
 * @param {{seed?: number|string}} [options]
 * @returns {Promise<{seed, config, draws: number, labels: string[], choices: string[],
 *   curves: {label: string, grad_norm: ArrayLike<number>, stream_rms: ArrayLike<number>}[],
 *   prompt: string, check: (assignment: object|Map) => object, reveal: () => object}>}
 *   choices: the archs present, sorted (what the learner picks from); check({A: 'pre_ln', ...})
 *   returns {correct, total, allCorrect, details: [{label, given, expected, correct}], message}.
 */
export async function whichIsWhich(simulate, { seed = 0 } = {}) {
  const rand = mulberry32(seed);
  let config = null;
  let doc = null;
  let draws = 0;
  while (draws < MAX_DRAWS && !doc) {
    draws += 1;
    const c = drawWhichConfig(rand);
    const d = await run(simulate, c);
    if (distinguishable(d, c.arch).ok) {
      config = c;
      doc = d;
    }
  }
  if (!doc) {
    config = { ...FALLBACK, arch: [...FALLBACK.arch] };
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
    config,
    draws,
    labels,
    choices,
    curves,
    prompt:
      `${curves.length} stacks of depth ${config.depth} at gain ${config.gain}: ${choices.join(', ')}. ` +
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
        .map((d) => `${d.label} is ${d.expected}${d.given ? `, not ${d.given}` : ''}`);
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

// Kinds of "predict the number". draw(rand) -> config; answer(doc) -> number;
// rule(config, doc) -> {value, text}; prompt(config) and explain(config, answer, rule) -> strings.
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
      `how large is the gradient at layer 0 relative to the top, grad_norm[0] / grad_norm[${c.depth}]?`,
    explain: (c, answer, rule) =>
      `The engine gives grad_norm[0] / grad_norm[${c.depth}] = ${significant(answer, 4)}. ` +
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
      `what is the RMS of the residual stream at the top, stream_rms[${c.depth}]?`,
    explain: (c, answer, rule) =>
      `The engine gives stream_rms[${c.depth}] = ${significant(answer, 4)}. ` +
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
      `The engine gives stream_rms[${c.depth}] / stream_rms[0] = ${significant(answer, 4)}. ` +
      "Rule of thumb: each block adds f(h), whose RMS is about g times the stream's and roughly uncorrelated with it, " +
      `so the variance is multiplied by 1 + g² per block: ${rule.text}. ` +
      'That is an average over random weights; a single run at width 64 can land a factor of 2 or 3 away from it.',
  },
});

export const PREDICT_KIND_IDS = Object.freeze(Object.keys(PREDICT_KINDS));

/**
 * "Predict the number".
 * @param {Function} simulate (config) -> document or Promise of it
 * @param {{seed?: number|string, kind?: string}} [options] kind: one of PREDICT_KIND_IDS (drawn
 *   from the seed when omitted)
 * @returns {Promise<{kind, seed, config, prompt: string, answer: number, toleranceDex: number,
 *   rule: {value: number, text: string}, explanation: string, grade: (guess) => object}>}
 *   grade(guess) is gradeGuess(guess, answer, toleranceDex).
 */
export async function predictNumber(simulate, { seed = 0, kind } = {}) {
  const rand = mulberry32(seed);
  const id = kind === undefined ? pick(rand, PREDICT_KIND_IDS) : kind;
  const spec = Object.prototype.hasOwnProperty.call(PREDICT_KINDS, id) ? PREDICT_KINDS[id] : null;
  if (!spec) throw new RangeError(`unknown kind ${JSON.stringify(String(id))} (known: ${PREDICT_KIND_IDS.join(', ')})`);
  const config = spec.draw(rand);
  const doc = await run(simulate, config);
  const answer = spec.answer(doc);
  if (!(answer > 0) || !Number.isFinite(answer)) throw new Error(`the engine gave no usable answer (${answer})`);
  const rule = spec.rule(config);
  return {
    kind: id,
    seed,
    config,
    prompt: spec.prompt(config),
    answer,
    toleranceDex: spec.toleranceDex,
    rule,
    explanation: spec.explain(config, answer, rule),
    grade: (guess) => gradeGuess(guess, answer, spec.toleranceDex),
  };
}
