// The training lab's claim of Liu et al. (2020, Admin) and Wang et al. (2022, DeepNet), depth: Post-LN
// trains shallow and fails deep, where Pre-LN, DeepNorm and Admin train. Its settings and runs, and
// judge(): the checks and the caption from the runs' numbers.
import { significant } from '../../shared/format.js';
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { check, lossText, nearChanceText } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>) and the C++ reproductions'. */
export const id = 'depth';

/** The citation its button shows. */
export const cite = 'Liu et al. 2020; DeepNet 2022';

/** Its button's title. */
export const title = 'Depth';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper = 'Liu et al. 2020 (Admin); Wang et al. 2022 (DeepNet)';

/** The claim, in words. */
export const claim =
  'Post-LN trains when shallow and fails when deep; Pre-LN, DeepNorm and Admin train at the same depth.';

/** The small setting that reproduces it, in words. */
export const setting =
  'reverse 4 of 8 symbols, Adam at 4\u00d710\u207b\u00b3 without warmup, 200 steps, 6 and 18 blocks';

/** Its settings, over the lab's defaults (claimConfig); tests/core/test_reproductions.cpp reads the same. */
export const config = { ...REVERSE_TASK, depth: 18, lr: 4e-3, warmup: 0, steps: 200, log_every: 10 };

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = false;

/** Its runs: each an architecture with its own overrides and a label (session.js's run specs). */
export const runs = [
  {
    key: 'post_ln_6',
    arch: 'post_ln',
    label: 'Post-LN, 6 blocks',
    overrides: { depth: 6 },
    dash: [],
    stopWhenTrained: true,
  },
  { key: 'post_ln', arch: 'post_ln', label: 'Post-LN, 18 blocks' },
  { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN, 18 blocks', stopWhenTrained: true },
  { key: 'deepnorm', arch: 'deepnorm', label: 'DeepNorm, 18 blocks', stopWhenTrained: true },
  { key: 'admin', arch: 'admin', label: 'Admin, 18 blocks', stopWhenTrained: true },
];

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key):
 * {checks, caption}; claimVerdict() adds the rest.
 */
export function judge(s) {
  const { post_ln_6: post6, post_ln: post18, pre_ln: pre, deepnorm: deep, admin } = s;
  const by = (x) =>
    !x.finite
      ? `diverged at step ${x.divergedAt}`
      : x.firstTrainedStep === null
        ? `not below halfway in ${x.step} steps (held-out loss ${lossText(x)})`
        : `step ${x.firstTrainedStep} (${lossText(x)})`;
  return {
    checks: [
      check('Post-LN trains at 6 blocks', post6.trained, lossText(post6)),
      check('Post-LN fails at 18 blocks (within 10% of chance)', post18.fails, nearChanceText(post18)),
      check('Post-LN at 18 blocks fails with every value finite', post18.finite, lossText(post18)),
      check('Pre-LN trains at 18 blocks', pre.trained, lossText(pre)),
      check('DeepNorm trains at 18 blocks', deep.trained, lossText(deep)),
      check('Admin trains at 18 blocks', admin.trained, lossText(admin)),
    ],
    caption:
      `Below halfway from chance to the optimum (held-out loss), by step: Post-LN at 6 blocks ${by(post6)}; ` +
      `at 18 blocks Pre-LN ${by(pre)}, DeepNorm ${by(deep)}, Admin ${by(admin)}. Post-LN at 18 blocks ended at ` +
      `${lossText(post18)} after ${post18.step} steps (chance ${significant(post18.chance, 3)}, top cosine ` +
      `${significant(post18.topCosine, 3)}).`,
  };
}
