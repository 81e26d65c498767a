// The training lab's claim of the article (why LayerNorm rather than BatchNorm) and Wang, Wu and
// Huang (2022, the train-inference discrepancy): BatchNorm's statistics come from the other
// sequences and the padding of the batch, so one sequence served alone, or the running averages
// inference uses, do not normalize as training did; LayerNorm and RMSNorm read only the token's own
// features and are the same in every mode. Its settings and runs, and judge(): the checks and the caption
// from each run's three held-out losses (train mode, eval mode, one sequence alone).
import { significant } from '../../shared/format.js';
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { check, lossText, notTrainedText, prose } from './common.js';

/** The claim's id: its button's, its link's (#preset=<id>) and the C++ reproductions'. */
export const id = 'batchnorm';

/** The citation its button shows. */
export const cite = 'the article; Wang et al. 2022';

/** Its button's title. */
export const title = 'Why not BatchNorm';

/** The paper(s) the claim is from, as the panel's title names them. */
export const paper =
  'The article (why LayerNorm rather than BatchNorm); Wang, Wu and Huang 2022, Understanding the Failure of Batch Normalization for Transformers in NLP';

/** The claim, in words. */
export const claim =
  'BatchNorm normalizes with statistics of the whole padded batch, so a sequence served alone, or with the running ' +
  'averages inference keeps, is not normalized as in training; LayerNorm and RMSNorm use only the token\u2019s own ' +
  'features and are the same at train and test time.';

/** The small setting that reproduces it, in words. */
export const setting =
  'reverse 1 to 4 of 8 symbols (padded to the batch\u2019s longest), 2 transformer blocks with the norm before each ' +
  'sublayer, Adam at ' +
  '4\u00d710\u207b\u00b3, 300 steps';

/** Its settings, over the lab's defaults (claimConfig); tests/core/test_reproductions.cpp reads the same. */
export const config = { ...REVERSE_TASK, seq_min: 1, depth: 2, lr: 4e-3, warmup: 0, steps: 300, log_every: 10 };

/**
 * Its deep setting (index.js): the claim is about where a norm's statistics come from, not about
 * depth, so no paper names a depth for it; the deep setting is the quick recipe at 6 blocks, the
 * depth of the base Transformer's encoder (Vaswani et al. 2017), against the quick 2. No run names
 * a depth, so the quick runs and judge serve.
 */
export const deep = {
  setting:
    'reverse 1 to 4 of 8 symbols (padded to the batch\u2019s longest), 6 transformer blocks with the norm before each ' +
    'sublayer, Adam at 4\u00d710\u207b\u00b3, 300 steps',
  config: { ...config, depth: 6 },
};

/** Whether its verdict reads every run's lesion study. */
export const needsLesion = false;

/** Its runs: each an architecture with its own overrides and a label (session.js's run specs). */
export const runs = [
  { key: 'layernorm', arch: 'pre_ln', label: 'LayerNorm', overrides: { norm: 'auto' } },
  { key: 'rmsnorm', arch: 'pre_rms', label: 'RMSNorm', overrides: { norm: 'auto' } },
  {
    key: 'bn_mask',
    arch: 'pre_ln',
    label: 'BatchNorm, pads masked',
    overrides: { norm: 'batchnorm', bn_pads: 'mask' },
    dash: [6, 3],
  },
  {
    key: 'bn_count',
    arch: 'pre_ln',
    label: 'BatchNorm, pads counted',
    overrides: { norm: 'batchnorm', bn_pads: 'count' },
    dash: [2, 2],
  },
];

/**
 * How far above its eval-mode loss a BatchNorm run's one-sequence loss has to be to count as the
 * gap the article predicts, as a fraction of the task's chance loss (the "within 10% of chance"
 * of the claims' "fails", the other way round).
 */
export const ONE_SEQ_MARGIN = 0.1;

/** A log's value as a number: the CLI's null (not finite) is NaN. */
const num = (v) => (v === null || v === undefined ? NaN : Number(v));

/** A run's three held-out losses at its last logged step: {train, evalMode, oneSeq} (NaN when not finite). */
export function modes(run) {
  const last = run?.logs?.at(-1) ?? {};
  return {
    train: num(last.heldout_loss_train_mode),
    evalMode: num(last.heldout_loss_eval_mode),
    oneSeq: num(last.heldout_loss_one_seq),
  };
}

/** The same value to a part in 10^9 (every one finite). */
const equal = (a, b) => Number.isFinite(a) && Number.isFinite(b) && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/** A loss for prose, "not finite" for NaN. */
const text = (v) => (Number.isFinite(v) ? prose(v) : 'not finite');

/** The three losses for a check's measurement and the caption. */
const modesText = (m) =>
  `train mode ${text(m.train)}, eval mode ${text(m.evalMode)}, one sequence alone ${text(m.oneSeq)}`;

/** What a run did, for the caption: trained or not, and its three held-out losses. */
function runText(label, s, m) {
  return `${label} ${notTrainedText(s) ?? 'trained'}: ${modesText(m)}`;
}

/** The checks of a run that uses no batch statistics (LayerNorm, RMSNorm): it trains, and its three losses are equal. */
function ownFeaturesChecks(label, s, m) {
  return [
    check(`${label} trains`, s.trained, lossText(s)),
    check(
      `${label}: its three held-out losses are equal (train mode, eval mode, one sequence alone)`,
      equal(m.train, m.evalMode) && equal(m.oneSeq, m.evalMode),
      modesText(m),
    ),
  ];
}

/** The checks of one BatchNorm run: its one-sequence gap (a), and its train-vs-eval gap (b). */
function batchNormChecks(label, s, m) {
  const margin = ONE_SEQ_MARGIN * s.chance;
  return [
    check(
      `${label}: one sequence alone ends above eval mode by more than ${ONE_SEQ_MARGIN * 100}% of chance`,
      m.oneSeq - m.evalMode > margin,
      `${text(m.oneSeq)} against ${text(m.evalMode)} (a gap of ${text(m.oneSeq - m.evalMode)}; ${ONE_SEQ_MARGIN * 100}% of chance ${significant(margin, 3)})`,
    ),
    check(
      `${label}: the running averages (eval mode) end above each batch\u2019s own statistics (train mode)`,
      m.evalMode > m.train,
      `eval mode ${text(m.evalMode)}, train mode ${text(m.train)}`,
    ),
  ];
}

/**
 * The checks of the claim on the runs' summaries `s` (common.js's summarize, by run key) and the
 * runs themselves (their last logs' three held-out losses): {checks, caption, numbers};
 * claimVerdict() adds the rest.
 */
export function judge(s, trained) {
  const m = Object.fromEntries(runs.map((r) => [r.key, modes(trained[r.key])]));
  return {
    checks: [
      ...ownFeaturesChecks('LayerNorm', s.layernorm, m.layernorm),
      ...ownFeaturesChecks('RMSNorm', s.rmsnorm, m.rmsnorm),
      ...batchNormChecks('BatchNorm, pads masked', s.bn_mask, m.bn_mask),
      ...batchNormChecks('BatchNorm, pads counted', s.bn_count, m.bn_count),
    ],
    caption:
      `Held-out loss at the end (chance ${significant(s.layernorm.chance, 3)}). ` +
      runs.map((r) => `${runText(r.label, s[r.key], m[r.key])}.`).join(' '),
    numbers: Object.fromEntries(
      runs.flatMap((r) => [
        [`${r.key}.train_mode`, m[r.key].train],
        [`${r.key}.eval_mode`, m[r.key].evalMode],
        [`${r.key}.one_seq`, m[r.key].oneSeq],
      ]),
    ),
  };
}
