// The training lab's Late layers claim (the article's open question): Pre-LN's late blocks add little
// to a stream that keeps growing, and each of ReZero, LayerScale, LNS, Mix-LN, DenseFormer,
// Hyper-Connections, mHC and Attention Residuals aims to make them count; DyT, HybridNorm and nGPT,
// which change the norm for other aims, are trained and shown beside them, not judged. Its settings and
// runs, how much the last quarter of blocks matters against the first (lateOverEarly, LATE_MARGIN),
// and judge(): the checks and the caption from the runs' numbers.
import { significant } from '../../shared/format.js';
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { check, gradSpread, lossText, notTrainedText } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>) and the C++ reproductions'. */
export const id = 'late';

/** The citation its button shows. */
export const cite = 'the article\u2019s open question';

/** Its button's title. */
export const title = 'Late layers';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper =
  'ReZero (Bachlechner et al. 2020), LayerScale (Touvron et al. 2021), LNS (Sun et al. 2025), Mix-LN (Li et al. 2024), DenseFormer (Pagliardini et al. 2024), Hyper-Connections (Zhu et al. 2025), mHC (Xie et al. 2025), Attention Residuals (Kimi Team 2026); shown beside them: DyT (Zhu et al. 2025), HybridNorm (Zhuo et al. 2025), nGPT (Loshchilov et al. 2025)';

/** The claim, in words. */
export const claim =
  'Pre-LN keeps the gradient highway, but its late blocks add little to a stream that keeps growing; each of these answers aims to make the late blocks count. DyT, HybridNorm and nGPT change the norm for other aims (matching LayerNorm without one; Post-LN\u2019s quality with Pre-LN\u2019s stability; fewer steps on the unit sphere): they are trained and shown, not judged.';

/** The small setting that reproduces it, in words. */
export const setting =
  'reverse 4 of 8 symbols, 8 transformer blocks, Adam at 2\u00d710\u207b\u00b3, 300 steps (Post-LN with 100 warmup steps; Hyper-Connections and mHC with 4 streams, the lab\u2019s default); then each block skipped in turn';

/** Its settings, over the lab's defaults (claimConfig); tests/core/test_reproductions.cpp reads the same. */
export const config = { ...REVERSE_TASK, depth: 8, lr: 2e-3, warmup: 0, steps: 300, log_every: 10 };

/**
 * Its deep setting (index.js): the quick recipe at 48 blocks, six times the quick setting's 8: the
 * late-layer papers' claim is about deep stacks. No run names a depth, so the quick runs and judge
 * serve; each quarter is 12 blocks.
 */
export const deep = {
  setting:
    'reverse 4 of 8 symbols, 48 transformer blocks, Adam at 2\u00d710\u207b\u00b3, 300 steps (Post-LN with 100 warmup steps; Hyper-Connections and mHC with 4 streams, the lab\u2019s default); then each block skipped in turn',
  config: { ...config, depth: 48 },
};

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = true;

/**
 * Its runs: each an architecture with its own overrides and a label (session.js's run specs). Pre-LN
 * is what each answer is judged against, Post-LN with warmup what Mix-LN's gradient check reads, and
 * every other run is an answer the verdict judges, one whose paper aims to make the late blocks
 * count: ReZero's and LayerScale's gates, LNS's 1/sqrt(l), Mix-LN's Post-LN first quarter,
 * DenseFormer's weighted reads; Hyper-Connections (Pre-norm's deep layers collapse to similar
 * representations, Zhu et al. 2025) and mHC, which keeps HC's streams and constrains their mixing;
 * Attention Residuals (Pre-norm's sum dilutes each layer's contribution as the stream grows, Kimi
 * Team 2026). A run marked `shown` is trained, lesioned and drawn, its numbers in the caption, and
 * no check reads it: DyT (Zhu et al. 2025) replaces each LayerNorm by a tanh, aiming to match it;
 * HybridNorm (Zhuo et al. 2025) moves the norms, aiming at Post-LN's quality with Pre-LN's
 * stability; nGPT (Loshchilov et al. 2025) keeps the stream on the unit sphere, aiming at fewer
 * steps; none claims anything of the late blocks' share. One line a run.
 */
export const runs = [
  { key: 'pre_ln', arch: 'pre_ln', label: 'Pre-LN' },
  { key: 'post_ln_warmup', arch: 'post_ln', label: 'Post-LN, warmup 100', overrides: { warmup: 100 } },
  { key: 'rezero', arch: 'rezero', label: 'ReZero' },
  { key: 'layerscale', arch: 'layerscale', label: 'LayerScale' },
  { key: 'lns', arch: 'lns', label: 'LNS' },
  { key: 'mix_ln', arch: 'mix_ln', label: 'Mix-LN' },
  { key: 'dwa', arch: 'dwa', label: 'DenseFormer' },
  { key: 'hyper', arch: 'hyper', label: 'Hyper-Connections' },
  { key: 'mhc', arch: 'mhc', label: 'mHC' },
  { key: 'attn_res', arch: 'attn_res', label: 'AttnRes' },
  { key: 'dyt', arch: 'dyt', label: 'DyT', shown: true },
  { key: 'hybrid', arch: 'hybrid', label: 'HybridNorm', shown: true },
  { key: 'ngpt', arch: 'ngpt', label: 'nGPT', shown: true },
];

/** The runs no answer is: the one each answer is judged against and the one Mix-LN's gradient check reads. */
const REFERENCES = ['pre_ln', 'post_ln_warmup'];

/** The mean of a list of numbers (NaN for none). */
const mean = (x) => (x.length ? x.reduce((a, b) => a + b, 0) / x.length : NaN);

/**
 * How much the last quarter of a trained stack's blocks matters against its
 * first quarter: the mean held-out loss increase when one block of the last
 * floor(L/4) is skipped, over the same for the first floor(L/4) (at least one
 * block each). {early, late, ratio, quarter}, or null without a lesion.
 */
export function lateOverEarly(lesion) {
  const inc = Array.from(lesion?.increase ?? []);
  if (!inc.length) return null;
  const quarter = Math.max(1, Math.floor(inc.length / 4));
  const early = mean(inc.slice(0, quarter));
  const late = mean(inc.slice(-quarter));
  return { early, late, ratio: late / early, quarter };
}

/**
 * How many times Pre-LN's last-over-first-quarter ratio a Late layers run's ratio has to be to
 * count as higher. On seeds 0, 1 and 2 the runs that beat Pre-LN's ratio do so by 1.36 times at
 * the least (DenseFormer, seed 1) and Mix-LN comes within 1.06 times of it (seed 0): a margin
 * between the two gives every run the same answer on each seed; without one, a 6% difference
 * would decide. Hyper-Connections, mHC and AttnRes are judged by the same margin, which was not
 * chosen on their runs (docs/reproductions.md has what they measure).
 */
export const LATE_MARGIN = 1.25;

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key) and the
 * runs themselves (`trained`, by run key): {checks, caption, numbers}; claimVerdict() adds the rest.
 * A check per answer; the runs marked `shown` only in the caption (their costs, and their ratio
 * against Pre-LN's or what they did instead of training).
 */
export function judge(s, trained) {
  const r = Object.fromEntries(runs.map((p) => [p.key, lateOverEarly(trained[p.key].lesion)]));
  const label = Object.fromEntries(runs.map((p) => [p.key, p.label]));
  // a ratio exists when both quarters cost something: a first quarter that costs nothing (or less) has none
  const has = (k) => r[k] && r[k].early > 0 && r[k].ratio > 0 && Number.isFinite(r[k].ratio);
  const ratio = (k) => (has(k) ? `${significant(r[k].ratio, 2)}` : 'not measured');
  // a run that did not train has no lesion cost worth comparing: the caption says what it did instead
  const costs = (k) =>
    !s[k].finite
      ? `${label[k]} ${notTrainedText(s[k])}`
      : r[k]
        ? `${label[k]} ${significant(r[k].late, 2)} against ${significant(r[k].early, 2)} (${ratio(k)})` +
          (s[k].trained ? '' : ', but it did not train')
        : label[k];
  const spread = Object.fromEntries(['mix_ln', 'post_ln_warmup', 'pre_ln'].map((k) => [k, gradSpread(trained[k])]));
  const pre = r.pre_ln;
  const judged = runs.filter((p) => !p.shown).map((p) => p.key);
  const answers = judged.filter((k) => !REFERENCES.includes(k));
  const shown = runs.filter((p) => p.shown).map((p) => p.key);
  const compared = (k) => s[k].trained && s.pre_ln.trained && has(k) && has('pre_ln');
  const times = (k) => significant(r[k].ratio / pre.ratio, 2);
  const above = answers.filter((k) => compared(k) && r[k].ratio >= LATE_MARGIN * pre.ratio);
  const within = answers.filter((k) => compared(k) && !above.includes(k) && r[k].ratio > pre.ratio);
  const untrained = answers.filter((k) => s[k].finite && !s[k].trained);
  const diverged = answers.filter((k) => !s[k].finite);
  const below = answers.filter((k) => ![...above, ...within, ...untrained, ...diverged].includes(k));
  const names = (keys) => keys.map((k) => label[k]).join(', ');
  const list = (head, keys) => (keys.length ? `; ${head}: ${names(keys)}` : '');
  const measured = (k) =>
    notTrainedText(s[k]) ??
    (s.pre_ln.trained
      ? `ratio ${ratio(k)} against Pre-LN\u2019s ${ratio('pre_ln')}` +
        (has(k) && has('pre_ln') ? ` (${times(k)} times)` : '')
      : `Pre-LN ${notTrainedText(s.pre_ln)}`);
  // a shown run beside the answers: its ratio in Pre-LN's, or what it did instead of training
  const beside = (k) =>
    `${label[k]} (` +
    (!s[k].finite
      ? 'diverged'
      : !s[k].trained
        ? 'did not train'
        : compared(k)
          ? `${times(k)} times Pre-LN\u2019s ratio`
          : `ratio ${ratio(k)}`) +
    ')';
  return {
    checks: [
      check(
        'every stack the checks read trains first (held-out loss below halfway from chance)',
        judged.every((k) => s[k].trained),
        judged.map((k) => `${label[k]} ${lossText(s[k])}`).join('; '),
      ),
      ...answers.map((k) =>
        check(
          `${label[k]}: its last quarter over its first, at least ${LATE_MARGIN} times Pre-LN\u2019s ratio`,
          above.includes(k),
          measured(k),
        ),
      ),
      check(
        'Mix-LN: its blocks\u2019 weight gradients end more uniform than Post-LN\u2019s and Pre-LN\u2019s (largest over smallest, last step)',
        spread.mix_ln < spread.post_ln_warmup && spread.mix_ln < spread.pre_ln,
        `${significant(spread.mix_ln, 3)} against ${significant(spread.post_ln_warmup, 3)} and ${significant(spread.pre_ln, 3)}`,
      ),
    ],
    caption:
      `After training, skipping one block of the last quarter raises the held-out loss, on average, by (against ` +
      `one of the first quarter, and the ratio): ${runs.map((p) => costs(p.key)).join('; ')}. ` +
      (!s.pre_ln.trained
        ? `Pre-LN ${notTrainedText(s.pre_ln)}, so no run\u2019s ratio is compared with it.`
        : (above.length
            ? `A higher ratio than Pre-LN\u2019s: ${names(above)}`
            : 'None has a higher ratio than Pre-LN') +
          list('not higher', below) +
          list(`higher by less than the margin (${LATE_MARGIN} times)`, within) +
          list('did not train', untrained) +
          list('diverged', diverged) +
          '.') +
      (shown.length ? ` Shown beside them, not judged: ${shown.map(beside).join(', ')}.` : ''),
    numbers: {
      ...Object.fromEntries(runs.map((p) => [`${p.key}.late_over_early`, r[p.key]?.ratio])),
      ...Object.fromEntries(Object.entries(spread).map(([k, v]) => [`${k}.grad_spread`, v])),
    },
  };
}
