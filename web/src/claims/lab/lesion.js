// The training lab's claim of Veit et al. (2016), lesion: removing one block of a trained residual
// stack costs little, one layer of a plain stack nearly all. Its settings and runs, what a removal
// costs as a share of the way to chance (lesionShares, shareText), and judge(): the checks and the
// caption from the runs' numbers.
import { significant } from '../../shared/format.js';
import { TEACHER_TASK } from '../../shared/train-tasks.js';
import { check, lossText, median, notTrainedText } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>) and the C++ reproductions'. */
export const id = 'lesion';

/** The citation its button shows. */
export const cite = 'Veit et al. 2016';

/** Its button's title. */
export const title = 'Lesion';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper = 'Veit et al. 2016, Residual Networks Behave Like Ensembles of Relatively Shallow Networks';

/** The claim, in words. */
export const claim =
  'Removing one block of a trained residual stack costs little; removing one layer of a plain stack costs nearly all.';

/** The small setting that reproduces it, in words. */
export const setting =
  'teacher regression, 20 MLP blocks of width 32, SGD with momentum at 3\u00d710\u207b\u00b3, 200 steps';

/** Its settings, over the lab's defaults (claimConfig); tests/core/test_reproductions.cpp reads the same. */
export const config = { ...TEACHER_TASK, depth: 20, lr: 3e-3, warmup: 0, steps: 200, log_every: 10 };

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = true;

/** The runs with the plain stack at `plain` layers and Pre-LN at `L` blocks (the config's depth). */
const runsAt = (plain, L) => [
  {
    key: 'plain',
    arch: 'plain',
    label: `plain, ${plain} layers`,
    ...(plain === L ? {} : { overrides: { depth: plain } }),
  },
  { key: 'pre_ln', arch: 'pre_ln', label: `Pre-LN, ${L} blocks` },
];

/** Its runs: each an architecture with its own overrides and a label (session.js's run specs). */
export const runs = runsAt(config.depth, config.depth);

/**
 * Its deep setting (index.js): the quick recipe with the residual stack at Veit et al.'s depth, 54
 * blocks (their 110-layer ResNet); the plain stack stays at the quick 20 layers, since the claim is
 * about a plain stack that trained and a plain stack of 54 does not (the degradation claim). The
 * judge names no depth, so the quick one serves.
 */
export const deep = {
  setting:
    'teacher regression, MLP blocks of width 32, Pre-LN at 54 blocks and plain at 20 layers, SGD with momentum at ' +
    '3\u00d710\u207b\u00b3, 200 steps',
  config: { ...config, depth: 54 },
  runs: runsAt(20, 54),
};

/**
 * Each removal of a block as the fraction of the way from the trained loss to
 * chance it goes: (lesioned - base) / (chance - base); {fractions, median,
 * largest: {block, loss, fraction}}. Null without a lesion.
 */
export function lesionShares(lesion, chance) {
  if (!lesion || !lesion.loss?.length) return null;
  const fractions = Array.from(lesion.loss, (l) => (l - lesion.base) / (chance - lesion.base));
  let best = 0;
  for (let i = 1; i < fractions.length; i++) if (!(fractions[i] <= fractions[best])) best = i;
  return {
    fractions,
    median: median(fractions),
    medianLoss: median(Array.from(lesion.loss)),
    largest: { block: best + 1, loss: lesion.loss[best], fraction: fractions[best] },
  };
}

/**
 * A removal's share of the way from the trained loss to chance, in words: "0.3 of the way to
 * chance", past chance when it is over 1, below the trained loss when it is negative.
 */
export function shareText(share) {
  if (!Number.isFinite(share)) return 'not measured';
  if (share > 1) return `past chance: ${significant(share, 2)} times the way from the trained loss to chance`;
  if (share < 0) return `below the trained loss: ${significant(share, 2)} of the way to chance`;
  return `${significant(share, 2)} of the way to chance`;
}

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key) and the
 * runs themselves (`trained`, by run key): {checks, caption, numbers}; claimVerdict() adds the rest.
 */
export function judge(s, trained) {
  const { pre_ln: pre, plain } = s;
  const sp = lesionShares(trained.pre_ln.lesion, pre.chance);
  const sq = lesionShares(trained.plain.lesion, plain.chance);
  // a stack that did not train has no way from its loss to chance for a removal to go
  const share = (x, r) => notTrainedText(r) ?? (x ? significant(x.median, 2) : 'not measured');
  const text = (x, base, r) =>
    notTrainedText(r)
      ? `it ${notTrainedText(r)}, so no removal is measured against it`
      : x
        ? `median ${significant(x.medianLoss, 3)} from ${significant(base, 3)} (${shareText(x.median)}), ` +
          `largest ${significant(x.largest.loss, 3)} (block ${x.largest.block})`
        : 'no lesion';
  return {
    checks: [
      check('both stacks train first', pre.trained && plain.trained, `${lossText(pre)}, ${lossText(plain)}`),
      check(
        'removing the median block of Pre-LN costs little (under 0.1 of the way to chance)',
        pre.trained && sp && sp.median < 0.1,
        share(sp, pre),
      ),
      check(
        'removing the median layer of the plain stack goes most of the way to chance (over 0.7)',
        plain.trained && sq && sq.median > 0.7,
        share(sq, plain),
      ),
    ],
    caption:
      `One block removed from the trained Pre-LN stack: ${text(sp, trained.pre_ln.lesion?.base, pre)}; ` +
      `one layer removed from the plain stack: ${text(sq, trained.plain.lesion?.base, plain)} (chance ${significant(pre.chance, 3)}).`,
    numbers: {
      'pre_ln.lesion_median': sp?.median,
      'plain.lesion_median': sq?.median,
      'pre_ln.lesion_base': trained.pre_ln.lesion?.base,
      'plain.lesion_base': trained.plain.lesion?.base,
    },
  };
}
