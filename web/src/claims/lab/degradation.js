// The training lab's claim of He et al. (2016), degradation: a deeper plain stack fits worse than a
// shallower one, a residual stack of the same depth better than both. Its settings and runs, and
// judge(): the checks and the caption from the runs' numbers.
import { significant } from '../../shared/format.js';
import { TEACHER_TASK } from '../../shared/train-tasks.js';
import { check, lossText, lower } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>) and the C++ reproductions'. */
export const id = 'degradation';

/** The citation its button shows. */
export const cite = 'He et al. 2016';

/** Its button's title. */
export const title = 'Degradation';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper = 'He et al. 2016, Deep Residual Learning for Image Recognition';

/** The claim, in words. */
export const claim =
  'A deeper plain stack fits worse than a shallower one; a residual stack of the same depth fits better than both.';

/** The small setting that reproduces it, in words. */
export const setting =
  'teacher regression, MLP blocks of width 32, SGD with momentum at 3\u00d710\u207b\u00b3, 200 steps';

/** Its settings, over the lab's defaults (claimConfig); tests/core/test_reproductions.cpp reads the same. */
export const config = { ...TEACHER_TASK, depth: 56, lr: 3e-3, warmup: 0, steps: 200, log_every: 10 };

/**
 * Its deep setting (index.js): none of its own. He et al. compare plain nets of 20 and 56 layers
 * with a residual net of 56 (CIFAR-10), the depths the quick setting already runs.
 */
export const deep = {
  setting: 'the quick setting: He et al.\u2019s own depths, plain at 20 and 56 layers, residual at 56',
};

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = false;

/** Its runs: each an architecture with its own overrides and a label (session.js's run specs). */
export const runs = [
  { key: 'plain_20', arch: 'plain', label: 'plain, 20 layers', overrides: { depth: 20 }, dash: [6, 3] },
  { key: 'plain', arch: 'plain', label: 'plain, 56 layers' },
  { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN, 56 layers' },
];

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key):
 * {checks, caption}; claimVerdict() adds the rest.
 */
export function judge(s) {
  const { plain_20: p20, plain: p56, pre_ln: pre } = s;
  return {
    checks: [
      check('plain at 56 layers ends above plain at 20', lower(p20, p56), `${lossText(p56)} against ${lossText(p20)}`),
      check('Pre-LN at 56 layers ends below plain at 20', lower(pre, p20), `${lossText(pre)} against ${lossText(p20)}`),
      check('Pre-LN at 56 layers ends below plain at 56', lower(pre, p56), `${lossText(pre)} against ${lossText(p56)}`),
    ],
    caption:
      `Plain at 20 layers ended at held-out loss ${lossText(p20)}, plain at 56 layers ${lossText(p56)} ` +
      `(chance ${significant(p56.chance, 3)}, top cosine ${significant(p56.topCosine, 3)}); ` +
      `Pre-LN at 56 layers ${lossText(pre)}.`,
  };
}
