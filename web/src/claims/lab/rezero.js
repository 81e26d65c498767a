// The training lab's claim of Bachlechner et al. (2020), ReZero: a stack whose branches start behind
// gates at zero trains where the plain stack does not and the residual stack without a norm diverges.
// Its settings and runs, and judge(): the checks and the caption from the runs' numbers. The papers
// page's ReZero panel trains and judges the same runs.
import { significant } from '../../shared/format.js';
import { TEACHER_TASK } from '../../shared/train-tasks.js';
import { check, lossText, nearChanceText } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>) and the C++ reproductions'. */
export const id = 'rezero';

/** The citation its button shows. */
export const cite = 'Bachlechner et al. 2020';

/** Its button's title. */
export const title = 'ReZero';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper = 'Bachlechner et al. 2020, ReZero is All You Need: Fast Convergence at Large Depth';

/** The claim, in words. */
export const claim =
  'A residual stack whose every branch starts behind a gate at zero trains at a depth where the plain stack does not and the residual stack without a norm diverges.';

/** The small setting that reproduces it, in words. */
export const setting =
  'teacher regression, 56 MLP blocks of width 32, SGD with momentum at 3\u00d710\u207b\u00b3, 200 steps';

/** Its settings, over the lab's defaults (claimConfig); tests/core/test_reproductions.cpp reads the same. */
export const config = { ...TEACHER_TASK, depth: 56, lr: 3e-3, warmup: 0, steps: 200, log_every: 10 };

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = false;

/** The runs at `L` blocks (the config's depth). */
const runsAt = (L) => [
  { key: 'plain', arch: 'plain', label: `plain, ${L} layers` },
  { key: 'residual', arch: 'residual', label: `residual, no norm, ${L} blocks` },
  { key: 'rezero', arch: 'rezero', label: `ReZero, ${L} blocks` },
];

/** Its runs: each an architecture with its own overrides and a label (session.js's run specs). */
export const runs = runsAt(config.depth);

/**
 * The checks of the claim at `L` blocks on the runs' summaries `s` (common.js's summarize, by run
 * key) and the runs themselves (`trained`, by run key): {checks, caption}; claimVerdict() adds the rest.
 */
const judgeAt = (L) => (s, trained) => {
  const { plain, residual, rezero } = s;
  const stop = trained.residual.logs.find((l) => l.first_nonfinite !== null && l.first_nonfinite !== undefined);
  const residualText = residual.finite ? lossText(residual) : `not finite (from step ${stop?.first_nonfinite ?? '?'})`;
  return {
    checks: [
      check(`ReZero trains at ${L} blocks`, rezero.trained, lossText(rezero)),
      check(`plain at ${L} layers does not (within 10% of chance)`, plain.fails, nearChanceText(plain)),
      check('the residual stack without a norm does not train', !residual.trained, residualText),
    ],
    caption:
      `At ${L} blocks ReZero ended at held-out loss ${lossText(rezero)} (chance ${significant(rezero.chance, 3)}); ` +
      `the plain stack at ${lossText(plain)}; the residual stack without a norm or a gate ${residualText}.`,
  };
};

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key) and the
 * runs themselves (`trained`, by run key): {checks, caption}; claimVerdict() adds the rest.
 */
export const judge = judgeAt(config.depth);

/**
 * Its deep setting (index.js): the quick recipe at 128 blocks, over the hundred layers Bachlechner
 * et al. train ReZero Transformers at.
 */
export const deep = {
  setting: 'teacher regression, 128 MLP blocks of width 32, SGD with momentum at 3\u00d710\u207b\u00b3, 200 steps',
  config: { ...config, depth: 128 },
  runs: runsAt(128),
  judge: judgeAt(128),
};
