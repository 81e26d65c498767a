// The training lab's claim of Dehghani et al. (2023) and Wortsman et al. (2023), QK-norm: without a
// LayerNorm on the queries and keys the attention logits grow and training fails at a large
// learning rate; with it the logits stay small and the final loss depends less on the learning
// rate. Pre-LN transformers with and without QK-norm over a learning-rate sweep; its settings and
// runs, and judge(): the checks and the caption from the runs' numbers (each run's held-out loss
// at the end and the largest attention logit it logged, the engine's max_logit).
import { significant, superscript } from '../../shared/format.js';
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { check, lossText, prose } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>). */
export const id = 'qknorm';

/** The citation its button shows. */
export const cite = 'Dehghani et al. 2023; Wortsman et al. 2023';

/** Its button's title. */
export const title = 'QK-norm';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper =
  'Dehghani et al. 2023, Scaling Vision Transformers to 22 Billion Parameters; Wortsman et al. 2023, Small-scale proxies for large-scale Transformer training instabilities';

/** The claim, in words. */
export const claim =
  'Without QK-norm the attention logits grow and training fails at a large learning rate; with a LayerNorm on the queries and keys the logits stay small and the final loss depends less on the learning rate.';

/** The learning rates of the sweep, lowest first: 10^-3 to 10^-1. */
export const RATES = [1e-3, 5e-3, 2e-2, 1e-1];

/** A learning rate for prose: "10⁻³", "5×10⁻³". */
export function rateText(lr) {
  const e = Math.floor(Math.log10(lr) + 1e-9);
  const m = Math.round(lr / 10 ** e);
  return `${m === 1 ? '' : `${m}\u00d7`}10${superscript(e)}`;
}

/** The small setting that reproduces it, in words. */
export const setting = `reverse 4 of 8 symbols, 6 Pre-LN transformer blocks, Adam at ${RATES.map(rateText).join(', ')}, 300 steps, with and without QK-norm`;

/** Its settings, over the lab's defaults (claimConfig). */
export const config = { ...REVERSE_TASK, depth: 6, lr: 1e-3, warmup: 0, steps: 300, log_every: 10, qk_norm: 'none' };

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = false;

/** A run key's part for a rate: 1e-3 -> "1e3". */
const rateKey = (lr) => lr.toExponential().replace(/e-?/, 'e').replace('+', '');

/** The dashes of the rates, lowest first: solid-ish without QK-norm, dotted with it. */
const DASH_NONE = [[], [10, 3], [10, 3, 2, 3], [4, 4]];
const DASH_QK = [
  [1, 3],
  [2, 2],
  [6, 2, 1, 2],
  [1, 6],
];

/** Its runs: Pre-LN at every rate, without QK-norm and with it (session.js's run specs). */
export const runs = [
  ...RATES.map((lr, i) => ({
    key: `none_${rateKey(lr)}`,
    arch: 'pre_ln',
    label: `Pre-LN, lr ${rateText(lr)}`,
    overrides: { lr, qk_norm: 'none' },
    dash: DASH_NONE[i],
  })),
  ...RATES.map((lr, i) => ({
    key: `qk_${rateKey(lr)}`,
    arch: 'pre_ln',
    label: `Pre-LN + QK-norm, lr ${rateText(lr)}`,
    overrides: { lr, qk_norm: 'layernorm' },
    dash: DASH_QK[i],
  })),
];

/** The run keys of one arm, lowest rate first. */
const keysOf = (arm) => RATES.map((lr) => `${arm}_${rateKey(lr)}`);

/**
 * The largest attention logit a run logged over its training (the engine's max_logit of each
 * logged step's batch): NaN when a logged value is not finite (a run that diverged) or it logged none.
 */
export function peakLogit(run) {
  const v = (run?.logs ?? []).map((l) =>
    l.max_logit === null || l.max_logit === undefined ? NaN : Number(l.max_logit),
  );
  if (!v.length || v.some((x) => !Number.isFinite(x))) return NaN;
  return Math.max(...v);
}

/**
 * Learning-rate sensitivity as Wortsman et al. (2023) define it, over the rates' summaries `ss`:
 * the mean over the rates of min(loss, the loss at initialization) minus the best rate's loss; the
 * task's chance loss stands for the loss at initialization, and a run that is not finite counts at it.
 */
export function sensitivity(ss) {
  const capped = ss.map((x) => (x.finite ? Math.min(x.loss, x.chance) : x.chance));
  const best = Math.min(...capped);
  return capped.reduce((a, v) => a + (v - best), 0) / capped.length;
}

/** A largest logit for prose: 3 significant digits, "not finite" for NaN. */
const logitText = (v) => (Number.isFinite(v) ? significant(v, 3) : 'not finite');

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key) and the
 * runs themselves (`trained`, by run key, for their logged max_logit): {checks, caption, numbers};
 * claimVerdict() adds the rest.
 */
export function judge(s, trained) {
  const none = keysOf('none');
  const qk = keysOf('qk');
  const peak = Object.fromEntries([...none, ...qk].map((k) => [k, peakLogit(trained[k])]));
  const top = RATES.length - 1;
  const sNone = sensitivity(none.map((k) => s[k]));
  const sQk = sensitivity(qk.map((k) => s[k]));
  // a logit that is not finite is larger than any finite one (the run's logits overflowed)
  const above = (a, b) => (Number.isNaN(a) ? Number.isFinite(b) : a > b);
  const list = (keys, f) => RATES.map((lr, i) => `${f(keys[i])} at ${rateText(lr)}`).join(', ');
  const numbers = { 'sensitivity.none': sNone, 'sensitivity.qk': sQk };
  for (const k of [...none, ...qk]) numbers[`${k}.max_logit`] = peak[k];
  const hi = rateText(RATES[top]);
  return {
    checks: [
      check(
        `without QK-norm, Pre-LN at lr ${hi} does not train (above halfway from chance, or not finite)`,
        !s[none[top]].trained,
        lossText(s[none[top]]),
      ),
      check(
        'with QK-norm, every rate trains',
        qk.every((k) => s[k].trained),
        list(qk, (k) => lossText(s[k])),
      ),
      check(
        'at every rate the largest attention logit over training is larger without QK-norm',
        none.every((k, i) => above(peak[k], peak[qk[i]])),
        `without: ${list(none, (k) => logitText(peak[k]))}; with: ${list(qk, (k) => logitText(peak[k]))}`,
      ),
      check(
        'the learning-rate sensitivity is smaller with QK-norm',
        sQk < sNone,
        `${prose(sQk)} with, ${prose(sNone)} without`,
      ),
    ],
    caption:
      `Largest attention logit over training, by learning rate, without QK-norm: ${list(none, (k) => logitText(peak[k]))}; ` +
      `with QK-norm: ${list(qk, (k) => logitText(peak[k]))}. Held-out loss at the end without QK-norm: ` +
      `${list(none, (k) => lossText(s[k]))}; with: ${list(qk, (k) => lossText(s[k]))} (chance ` +
      `${significant(s[none[0]].chance, 3)}). Learning-rate sensitivity (the mean over the rates of the loss ` +
      `above the best rate\u2019s, capped at chance): ${prose(sNone)} without QK-norm, ${prose(sQk)} with.`,
    numbers,
  };
}

/**
 * What its checks measure, for the head of the panel's table of checks: '', each part names its
 * own (a held-out loss, a largest attention logit, or a learning-rate sensitivity).
 */
export const measured = '';

/**
 * Its deep setting (index.js): the quick recipe at 24 blocks, four times the quick setting's 6. No
 * run names a depth, so the quick runs and judge serve.
 */
export const deep = {
  setting: `reverse 4 of 8 symbols, 24 Pre-LN transformer blocks, Adam at ${RATES.map(rateText).join(', ')}, 300 steps, with and without QK-norm`,
  config: { ...config, depth: 24 },
};
