// The training lab's claim of Zhu et al. (2025), DyT: a transformer with every LayerNorm replaced
// by Dynamic Tanh, gamma tanh(alpha x) + beta, trains to the loss of the same transformer with
// LayerNorm. Pre-LN and DyT on the same task and seed; its settings and runs, and judge(): the
// checks and the caption from the runs' numbers.
import { significant } from '../../shared/format.js';
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { check, lossText, prose } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>). */
export const id = 'dyt';

/** The citation its button shows. */
export const cite = 'Zhu et al. 2025';

/** Its button's title. */
export const title = 'DyT';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper = 'Zhu, Chen, He, LeCun and Liu 2025, Transformers without Normalization';

/** The claim, in words. */
export const claim =
  'A transformer whose every LayerNorm is replaced by Dynamic Tanh, gamma tanh(alpha x) + beta, trains to the loss of the same transformer with LayerNorm.';

/** The small setting that reproduces it, in words. */
export const setting = 'reverse 4 of 8 symbols, 6 transformer blocks, Adam at 4\u00d710\u207b\u00b3, 300 steps';

/** Its settings, over the lab's defaults (claimConfig). */
export const config = { ...REVERSE_TASK, depth: 6, lr: 4e-3, warmup: 0, steps: 300, log_every: 10 };

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = false;

/**
 * How close "matches" is: DyT's final held-out loss within this share of the task's chance loss of
 * Pre-LN's, either side (at chance ln 8 = 2.08, 0.104 nats).
 */
export const MARGIN = 0.05;

/**
 * Its runs: Pre-LN and DyT (session.js's run specs). Pre-LN's norms are kept after training
 * (normSamples): the lab draws each LayerNorm's input against its output, the S-curve the paper
 * starts from (train/norm-scatter.js).
 */
export const runs = [
  { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN', normSamples: true },
  { key: 'dyt', arch: 'dyt', label: 'DyT' },
];

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key):
 * {checks, caption, numbers}; claimVerdict() adds the rest.
 */
export function judge(s) {
  const { pre_ln: pre, dyt } = s;
  const gap = dyt.loss - pre.loss; // NaN when either is not finite
  const margin = MARGIN * pre.chance;
  const within = pre.finite && dyt.finite && Math.abs(gap) <= margin;
  const gapText = Number.isFinite(gap)
    ? `${gap >= 0 ? 'DyT above' : 'DyT below'} by ${prose(Math.abs(gap))}`
    : 'not finite';
  return {
    checks: [
      check('Pre-LN trains', pre.trained, lossText(pre)),
      check('DyT trains', dyt.trained, lossText(dyt)),
      check(
        `DyT ends within ${significant(margin, 3)} of Pre-LN\u2019s held-out loss (${MARGIN * 100}% of chance)`,
        within,
        `${lossText(dyt)} against ${lossText(pre)}: ${gapText}`,
      ),
    ],
    caption:
      `Held-out loss at the end: DyT ${lossText(dyt)}, Pre-LN ${lossText(pre)} (chance ${significant(pre.chance, 3)}); ` +
      `${gapText}, ${within ? 'within' : 'outside'} the margin of ${significant(margin, 3)} (${MARGIN * 100}% of chance).`,
    numbers: { gap },
  };
}

/**
 * Its deep setting (index.js): the quick recipe at 24 blocks, four times the quick setting's 6. No
 * run names a depth, so the quick runs and judge serve.
 */
export const deep = {
  setting: 'reverse 4 of 8 symbols, 24 transformer blocks, Adam at 4\u00d710\u207b\u00b3, 300 steps',
  config: { ...config, depth: 24 },
};
