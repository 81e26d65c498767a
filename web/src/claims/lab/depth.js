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

/** The depth of the shallow Post-LN run, at both settings. */
const SHALLOW = 6;

/** The runs with the deep ones at `L` blocks (the config's depth). */
const runsAt = (L) => [
  {
    key: 'post_ln_6',
    arch: 'post_ln',
    label: `Post-LN, ${SHALLOW} blocks`,
    overrides: { depth: SHALLOW },
    dash: [],
    stopWhenTrained: true,
  },
  { key: 'post_ln', arch: 'post_ln', label: `Post-LN, ${L} blocks` },
  { key: 'pre_ln', arch: 'pre_ln', label: `Pre-LN, ${L} blocks`, stopWhenTrained: true },
  { key: 'deepnorm', arch: 'deepnorm', label: `DeepNorm, ${L} blocks`, stopWhenTrained: true },
  { key: 'admin', arch: 'admin', label: `Admin, ${L} blocks`, stopWhenTrained: true },
];

/** Its runs: each an architecture with its own overrides and a label (session.js's run specs). */
export const runs = runsAt(config.depth);

/**
 * The checks of the claim, its deep runs at `L` blocks, on the runs' summaries `s` (common.js's
 * summarize, by run key): {checks, caption}; claimVerdict() adds the rest.
 */
const judgeAt = (L) => (s) => {
  const { post_ln_6: post6, post_ln: postL, pre_ln: pre, deepnorm: dn, admin } = s;
  const by = (x) =>
    !x.finite
      ? `diverged at step ${x.divergedAt}`
      : x.firstTrainedStep === null
        ? `not below halfway in ${x.step} steps (held-out loss ${lossText(x)})`
        : `step ${x.firstTrainedStep} (${lossText(x)})`;
  return {
    checks: [
      check(`Post-LN trains at ${SHALLOW} blocks`, post6.trained, lossText(post6)),
      check(`Post-LN fails at ${L} blocks (within 10% of chance)`, postL.fails, nearChanceText(postL)),
      check(`Post-LN at ${L} blocks fails with every value finite`, postL.finite, lossText(postL)),
      check(`Pre-LN trains at ${L} blocks`, pre.trained, lossText(pre)),
      check(`DeepNorm trains at ${L} blocks`, dn.trained, lossText(dn)),
      check(`Admin trains at ${L} blocks`, admin.trained, lossText(admin)),
    ],
    caption:
      `Below halfway from chance to the optimum (held-out loss), by step: Post-LN at ${SHALLOW} blocks ${by(post6)}; ` +
      `at ${L} blocks Pre-LN ${by(pre)}, DeepNorm ${by(dn)}, Admin ${by(admin)}. Post-LN at ${L} blocks ended at ` +
      `${lossText(postL)} after ${postL.step} steps (chance ${significant(postL.chance, 3)}, top cosine ` +
      `${significant(postL.topCosine, 3)}).`,
  };
};

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key):
 * {checks, caption}; claimVerdict() adds the rest.
 */
export const judge = judgeAt(config.depth);

/**
 * Its deep setting (index.js): the quick recipe with the deep runs at 48 blocks against Post-LN at
 * 6, toward the depths Admin (a 60-layer encoder) and DeepNet (up to 1,000 layers) train.
 */
export const deep = {
  setting: 'reverse 4 of 8 symbols, Adam at 4\u00d710\u207b\u00b3 without warmup, 200 steps, 6 and 48 blocks',
  config: { ...config, depth: 48 },
  runs: runsAt(48),
  judge: judgeAt(48),
};
