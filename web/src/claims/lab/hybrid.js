// The training lab's question of Zhuo et al. (2025), HybridNorm: QKV-normalization inside attention
// and a Post-norm FFN, trained without warmup at the Warmup claim's large learning rate, beside
// Post-LN (which fails there) and Pre-LN. Its settings and runs, and judge(): the checks and the
// caption from the runs' numbers.
import { significant } from '../../shared/format.js';
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { check, lossText, prose } from './common.js';
import { config as warmupConfig } from './warmup.js';
import { config as depthConfig } from './depth.js';

/** The claim's id: its button's, its link's (#preset=<id>). */
export const id = 'hybrid';

/** The citation its button shows. */
export const cite = 'Zhuo et al. 2025';

/** Its button's title. */
export const title = 'HybridNorm';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper = 'Zhuo et al. 2025, HybridNorm: Towards Stable and Efficient Transformer Training';

/** The claim, in words. */
export const claim =
  'HybridNorm (QKV-normalization inside attention, a Post-norm FFN) trains without warmup where Post-LN fails, and ends as low as Pre-LN (here: at most 5% of chance above it).';

/** The small setting that reproduces it, in words: the Warmup claim's, every run without warmup. */
export const setting =
  'reverse 4 of 8 symbols, 6 transformer blocks, Adam at 1.2\u00d710\u207b\u00b2 without warmup, 300 steps';

/** Its settings, over the lab's defaults (claimConfig): the Warmup claim's quick ones. */
export const config = { ...REVERSE_TASK, ...warmupConfig, warmup: 0 };

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = false;

/**
 * How close "as low as Pre-LN" is: HybridNorm's final held-out loss at most this share of the
 * task's chance loss above Pre-LN's (at chance ln 8 = 2.08, 0.104 nats); the caption says by how
 * much it ends above or below.
 */
export const MARGIN = 0.05;

/** Its runs: Post-LN, Pre-LN and HybridNorm, none with warmup (session.js's run specs). */
export const runs = [
  { key: 'post_ln', arch: 'post_ln', label: 'Post-LN, no warmup' },
  { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN, no warmup' },
  { key: 'hybrid', arch: 'hybrid', label: 'HybridNorm, no warmup' },
];

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key):
 * {checks, caption, numbers}; claimVerdict() adds the rest.
 */
export function judge(s) {
  const { post_ln: post, pre_ln: pre, hybrid } = s;
  const gap = hybrid.loss - pre.loss; // NaN when either is not finite
  const margin = MARGIN * pre.chance;
  const asLow = pre.finite && hybrid.finite && gap <= margin;
  const gapText = Number.isFinite(gap)
    ? `HybridNorm ${gap >= 0 ? 'above' : 'below'} Pre-LN by ${prose(Math.abs(gap))}`
    : 'not compared (a loss is not finite)';
  const postText = post.finite ? lossText(post) : `diverged at step ${post.divergedAt}`;
  return {
    checks: [
      check(
        'Post-LN without warmup does not train (above half of chance, or not finite)',
        !post.finite || post.loss > 0.5 * post.chance,
        `${postText}, half of chance ${significant(0.5 * post.chance, 3)}`,
      ),
      check('HybridNorm trains without warmup', hybrid.trained, lossText(hybrid)),
      check(
        `HybridNorm ends at most ${significant(margin, 3)} above Pre-LN\u2019s held-out loss (${MARGIN * 100}% of chance)`,
        asLow,
        `${lossText(hybrid)} against ${lossText(pre)}: ${gapText}`,
      ),
    ],
    caption:
      `Held-out loss at the end, no warmup: Post-LN ${postText}, HybridNorm ${lossText(hybrid)}, Pre-LN ` +
      `${lossText(pre)} (chance ${significant(pre.chance, 3)}, halfway ${significant(0.5 * (pre.chance + pre.optimal), 3)}); ` +
      `HybridNorm ${hybrid.trained ? 'trained' : 'did not train'}; ${gapText}, ` +
      `${asLow ? 'within' : 'outside'} the margin of ${significant(margin, 3)} (${MARGIN * 100}% of chance).`,
    numbers: { gap },
  };
}

/**
 * Its deep setting (index.js): the Depth claim's quick setting, 18 blocks at Adam 4e-3 for 200 steps,
 * where Post-LN fails and Pre-LN trains. No run names a depth, so the quick runs and judge serve.
 */
export const deep = {
  setting: 'reverse 4 of 8 symbols, 18 transformer blocks, Adam at 4\u00d710\u207b\u00b3 without warmup, 200 steps',
  config: { ...REVERSE_TASK, ...depthConfig, warmup: 0 },
};
