// The training lab's claim of Xiong et al. (2020), warmup: at a large learning rate Post-LN needs a
// warmup to train and Pre-LN does not. Its settings and runs, and judge(): the checks and the caption
// from the runs' numbers.
import { significant } from '../../shared/format.js';
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { check, lossText, lower } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>) and the C++ reproductions'. */
export const id = 'warmup';

/** The citation its button shows. */
export const cite = 'Xiong et al. 2020';

/** Its button's title. */
export const title = 'Warmup';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper = 'Xiong et al. 2020, On Layer Normalization in the Transformer Architecture';

/** The claim, in words. */
export const claim =
  'At a large learning rate Post-LN needs a warmup of the learning rate to train; Pre-LN trains without one.';

/** The small setting that reproduces it, in words. */
export const setting = 'reverse 4 of 8 symbols, 6 transformer blocks, Adam at 1.2\u00d710\u207b\u00b2, 300 steps';

/** Its settings, over the lab's defaults (claimConfig); tests/core/test_reproductions.cpp reads the same. */
export const config = { ...REVERSE_TASK, depth: 6, lr: 1.2e-2, warmup: 0, steps: 300, log_every: 10 };

/**
 * Its deep setting (index.js): the quick recipe at 24 blocks, four times the quick setting's 6.
 * No run names a depth, so the quick runs and judge serve.
 */
export const deep = {
  setting: 'reverse 4 of 8 symbols, 24 transformer blocks, Adam at 1.2\u00d710\u207b\u00b2, 300 steps',
  config: { ...config, depth: 24 },
};

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = false;

/** Its runs: each an architecture with its own overrides and a label (session.js's run specs). */
export const runs = [
  { key: 'post_ln', arch: 'post_ln', label: 'Post-LN, no warmup' },
  { key: 'post_ln_warmup', arch: 'post_ln', label: 'Post-LN, warmup 200', overrides: { warmup: 200 }, dash: [] },
  { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN, no warmup' },
];

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key):
 * {checks, caption}; claimVerdict() adds the rest.
 */
export function judge(s) {
  const { post_ln: post, post_ln_warmup: warm, pre_ln: pre } = s;
  return {
    checks: [
      check(
        'Post-LN without warmup does not train (above half of chance, or not finite)',
        !post.finite || post.loss > 0.5 * post.chance,
        `${lossText(post)}, half of chance ${significant(0.5 * post.chance, 3)}`,
      ),
      check(
        'with 200 warmup steps Post-LN ends lower',
        lower(warm, post),
        `${lossText(warm)} against ${lossText(post)}`,
      ),
      check('with warmup Post-LN trains', warm.trained, lossText(warm)),
      check('Pre-LN trains without warmup', pre.trained, lossText(pre)),
    ],
    caption:
      `Post-LN without warmup ended at held-out loss ${lossText(post)} (chance ${significant(post.chance, 3)}); ` +
      `with 200 warmup steps ${lossText(warm)}; Pre-LN without warmup ${lossText(pre)}.`,
  };
}
