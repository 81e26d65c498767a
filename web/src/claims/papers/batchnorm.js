// The claim "why not BatchNorm" (`claim` below) on the papers page, after Wu and He (2018), Shen et al.
// (2020) and Wang, Wu and Huang (2022): small padded reverse runs trained with LayerNorm and with BatchNorm
// at several batch sizes, BatchNorm's held-out loss with one sequence's own statistics, and pads counted.
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its figure and what its chart draws) and
// embedView() (what its Embed button embeds); ./index.js lists it, and the papers page's views
// (../../papers/) and the build read it from there.
import { fixed, significant } from '../../shared/format.js';
import { judged } from './common.js';
import { charted } from './series.js';
import { dwaStack } from './compute.js';
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { defaultTrainConfig } from '../../shared/train-fields.js';

export const id = 'batchnorm';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { seed: 0 };

/** The batch sizes the sweep trains at, and the one the one-sequence and pads rows use. */
export const BATCHES = [2, 4, 8, 16, 32, 64];
export const AT_BATCH = 8;

/**
 * What every run trains: reverse 6 of 8 symbols, each sequence's n drawn from 2..6 and padded, two
 * causal Pre-LN transformer blocks with d = 16, Adam at 2e-3 for 200 steps.
 */
export const BN_TRAIN = {
  ...REVERSE_TASK,
  seq: 6,
  seq_min: 2,
  depth: 2,
  arch: 'pre_ln',
  lr: 2e-3,
  warmup: 0,
  steps: 200,
  log_every: 200,
};

/** One run's last held-out losses (eval mode, train mode, one sequence) and its outcome; the trainer is deleted. */
function run(rn, config) {
  const tr = rn.trainer(config);
  try {
    const logs = tr.step(config.steps);
    const l = logs[logs.length - 1];
    return {
      eval: l.heldout_loss_eval_mode,
      train: l.heldout_loss_train_mode,
      one_seq: l.heldout_loss_one_seq,
      outcome: tr.outcome(),
    };
  } finally {
    tr.delete();
  }
}

/**
 * LayerNorm and BatchNorm (pads masked) at each batch size of BATCHES, then BatchNorm with the pads
 * counted at AT_BATCH: the last logged step's three held-out losses of each run.
 */
export function compute(rn, p) {
  const train = { ...BN_TRAIN, seed: p.seed };
  const layernorm = [],
    batchnorm = [];
  for (const batch of BATCHES) {
    layernorm.push(run(rn, { ...train, batch, norm: 'auto' }));
    batchnorm.push(run(rn, { ...train, batch, norm: 'batchnorm', bn_pads: 'mask' }));
  }
  const counted = run(rn, { ...train, batch: AT_BATCH, norm: 'batchnorm', bn_pads: 'count' });
  // the settings under `config`, as every result keeps them
  return { config: { batches: BATCHES, at: AT_BATCH, steps: train.steps }, layernorm, batchnorm, counted };
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Why not BatchNorm: Wu and He (2018), Shen et al. (2020)';

/** The claim, in words. */
export const claim =
  "BatchNorm's held-out loss depends on the batch size and on whose statistics normalize it; LayerNorm's does not.";

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker and title, then the claim, the paper and the setting in prose. HTML;
 * TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`Why not BatchNorm: the batch size and the statistics it serves with`,
  kicker: String.raw`Wu and He (2018); Shen et al. (2020); Wang, Wu and Huang (2022)`,
  title: String.raw`BatchNorm depends on the batch; LayerNorm does not`,
  claim: String.raw`
    The article: BatchNorm normalizes each feature with statistics over the batch, "fine for images and terrible for
    sequences": padding decides which examples the statistics at a position come from, small per-device batches
    make them noisy, and one sequence served alone needs running averages that no longer match training. LayerNorm
    uses only the token's own \(d\) features. Group Normalization's Figure 1 shows BatchNorm's error rising sharply
    as the batch shrinks while normalizations without batch statistics do not change; PowerNorm's Figure 2 shows
    the batch statistics of a Transformer with BatchNorm on text far from the running ones; Wang, Wu and Huang
    name the training-inference discrepancy. Checked here on small trained runs.
  `,
  paper: String.raw`
    Y. Wu, K. He, <cite>Group Normalization</cite>, ECCV 2018 (<a
    href="https://arxiv.org/abs/1803.08494">arXiv:1803.08494</a>), Figure 1; S. Shen, Z. Yao, A. Gholami,
    M. W. Mahoney, K. Keutzer, <cite>PowerNorm: Rethinking Batch Normalization in Transformers</cite>, ICML 2020
    (<a href="https://arxiv.org/abs/2003.07845">arXiv:2003.07845</a>), Figure 2; J. Wang, J. Wu, L. Huang,
    <cite>Understanding the Failure of Batch Normalization for Transformers in NLP</cite>, NeurIPS 2022 (<a
    href="https://arxiv.org/abs/2210.05153">arXiv:2210.05153</a>).
  `,
  setting: String.raw`
    Reverse up to 6 of 8 symbols, each sequence's length drawn from 2 to 6 and padded to the batch's longest; two
    causal Pre-LN transformer blocks with \(d = 16\), 4 heads, learned positions and a final norm; Adam at \(2
    \times 10^{-3}\), 200 steps, at batch sizes 2, 4, 8, 16, 32 and 64. LayerNorm, then every norm BatchNorm (pads
    left out of the statistics), its held-out loss in eval mode (the running statistics). The sweep's two measures:
    for each norm, the worst held-out loss over the batch sizes divided by the best, which holds when BatchNorm's
    ratio is the larger; and BatchNorm's loss over LayerNorm's at the smallest batch against the same at the largest,
    which holds when BatchNorm loses ground as the batch shrinks (Group Normalization's Figure 1 in this form: both
    norms train better with more sequences a step, and the question is whether BatchNorm falls further behind). At
    8 sequences: BatchNorm's held-out loss with each sequence's own statistics against eval mode, and
    with the pads counted in the statistics. Trained when the page loads, like every panel's computation.
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = { trains: true, title: citation, defaults, choices: {} };

/** The panel's controls, in the order its form shows them. */
export const controls = ['seed'];

// BatchNorm's worst-over-best held-out loss across the batch sizes exceeds LayerNorm's; BatchNorm's loss
// over LayerNorm's is higher at the smallest batch than at the largest; serving one
// sequence with its own statistics costs BatchNorm at least 5% over eval mode while LayerNorm's three
// losses agree to 1e-9; counting the pads moves BatchNorm's held-out loss by at least 1%
export const criteria = { oneSeqGap: 0.05, same: 1e-9, padsMove: 0.01 };

const ratio = (runs) => Math.max(...runs.map((r) => r.eval)) / Math.min(...runs.map((r) => r.eval));

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params) {
  const { layernorm, batchnorm, counted } = data;
  const { batches, at } = data.config;
  const i = batches.indexOf(at);
  const ln = ratio(layernorm),
    bn = ratio(batchnorm);
  const bnAt = batchnorm[i],
    lnAt = layernorm[i];
  const oneSeq = bnAt.one_seq / bnAt.eval - 1;
  const lnSpread = Math.max(Math.abs(lnAt.train - lnAt.eval), Math.abs(lnAt.one_seq - lnAt.eval));
  const pads = counted.eval / bnAt.eval - 1;
  const last = batches.length - 1;
  const relSmall = batchnorm[0].eval / layernorm[0].eval,
    relLarge = batchnorm[last].eval / layernorm[last].eval;
  const rows = [
    {
      key: 'sweep',
      label: `Held-out loss over batch sizes ${batches.join(', ')}: worst over best, BatchNorm (eval mode) against LayerNorm`,
      value: bn / ln,
      measured: `${fixed(bn, 2)}× against ${fixed(ln, 2)}×`,
      claimed: 'BatchNorm’s larger (Wu and He 2018, Fig. 1)',
      ok: bn > ln,
    },
    {
      key: 'small_batch',
      label: `BatchNorm’s held-out loss over LayerNorm’s at batch ${batches[0]}, against the same at batch ${batches[last]}`,
      value: relSmall / relLarge,
      measured: `${fixed(relSmall, 2)}× against ${fixed(relLarge, 2)}×`,
      claimed: 'higher at the small batch (BatchNorm falls behind as the batch shrinks)',
      ok: relSmall > relLarge,
    },
    {
      key: 'one_seq',
      label: `Batch ${at}: BatchNorm’s held-out loss with each sequence’s own statistics over eval mode, − 1`,
      value: oneSeq,
      measured: `${oneSeq >= 0 ? '+' : '−'}${fixed(Math.abs(oneSeq) * 100, 1)}%`,
      claimed: `≥ +${criteria.oneSeqGap * 100}% (the training-inference discrepancy)`,
      ok: oneSeq >= criteria.oneSeqGap,
    },
    {
      key: 'layernorm_modes',
      label: `Batch ${at}: LayerNorm’s largest |difference| of its three held-out losses (train, eval, one sequence)`,
      value: lnSpread,
      measured: lnSpread === 0 ? '0' : significant(lnSpread, 2),
      claimed: '0 (no batch statistics)',
      ok: lnSpread <= criteria.same,
    },
    {
      key: 'pads',
      label: `Batch ${at}: BatchNorm’s held-out loss with the pads counted over the pads masked, − 1`,
      value: pads,
      measured: `${pads >= 0 ? '+' : '−'}${fixed(Math.abs(pads) * 100, 1)}%`,
      claimed: `|·| ≥ ${criteria.padsMove * 100}% (padding changes the statistics)`,
      ok: Math.abs(pads) >= criteria.padsMove,
    },
  ];
  return judged(rows, { params, bn, ln, relSmall, relLarge, oneSeq, pads, lnSpread });
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const d = { ...result.data, ...result.data.config };
  const f = s.facts;
  const loss = (r) => significant(r.eval, 3);
  const i = d.batches.indexOf(d.at);
  const pct = (v) => `${v >= 0 ? '+' : '−'}${fixed(Math.abs(v) * 100, 1)}%`;
  let text =
    `After ${d.steps} steps (seed ${result.params.seed}), LayerNorm's held-out loss over batch sizes ` +
    `${d.batches.join(', ')} is ${d.layernorm.map(loss).join(', ')}, BatchNorm's (running statistics) ` +
    `${d.batchnorm.map(loss).join(', ')}: worst over best ${fixed(f.ln, 2)}× for LayerNorm and ` +
    `${fixed(f.bn, 2)}× for BatchNorm, `;
  text +=
    f.bn > f.ln
      ? 'so BatchNorm depends on the batch size more, as Group Normalization found. '
      : 'so BatchNorm does not depend on the batch size more than LayerNorm here. ';
  const first = d.batches[0],
    lastBatch = d.batches[d.batches.length - 1];
  text +=
    `Against LayerNorm, BatchNorm's held-out loss is ${fixed(f.relSmall, 2)}× at batch ${first} and ` +
    `${fixed(f.relLarge, 2)}× at batch ${lastBatch}: ` +
    (f.relSmall > f.relLarge
      ? 'it falls behind as the batch shrinks. '
      : 'it does not fall behind as the batch shrinks here. ');
  text +=
    `At ${d.at} sequences, serving each sequence with its own statistics changes BatchNorm's held-out loss by ` +
    `${pct(f.oneSeq)} (${significant(d.batchnorm[i].one_seq, 3)} against ${loss(d.batchnorm[i])}), while ` +
    `LayerNorm's three held-out losses ${f.lnSpread === 0 ? 'are the same number' : `differ by up to ${significant(f.lnSpread, 2)}`}. ` +
    `Counting the pads in BatchNorm's statistics changes its held-out loss by ${pct(f.pads)}.`;
  const runs = [...d.layernorm, ...d.batchnorm, d.counted];
  const outcomes = [...new Set(runs.map((r) => r.outcome).filter((o) => o !== 'trained'))];
  const short = runs.filter((r) => r.outcome !== 'trained').length;
  if (short)
    text +=
      ` The engine's outcome of ${short} of the ${runs.length} runs is ${outcomes.join(' or ')}, not trained: ` +
      'these are the losses of small runs still learning, compared at the same step.';
  return text;
}

/**
 * The panel's figure as the page lays it out (../../papers/figures.js writes it into papers.html at build
 * time): its data-chart key, title, subtitle and description for screen readers.
 */
export const pageFigures = [
  {
    chart: 'batchnorm',
    title: 'Held-out loss against the batch size',
    sub: 'after 200 steps; BatchNorm in eval mode (running statistics), pads masked; log batch size',
    aria: 'Chart: held-out loss against batch size for LayerNorm and BatchNorm, log x.',
  },
];

/** What the panel's chart draws: held-out loss over batch size, LayerNorm and BatchNorm. */
export function figures(r, col) {
  const { layernorm, batchnorm } = r.data;
  const { batches } = r.data.config;
  const line = (key, label, runs, color, dash) => ({
    key,
    label,
    values: runs.map((x) => x.eval),
    color,
    dash,
    points: true,
  });
  return charted(pageFigures, [
    {
      x: batches,
      xLog: true,
      xLabel: 'batch size',
      series: [
        // keyed by the legend swatch that colours them: Pre-LN's, and the claim's
        line('pre_ln', 'LayerNorm', layernorm, col.arch.pre_ln, []),
        line('claim', 'BatchNorm (eval mode)', batchnorm, col.claim, [6, 5]),
      ],
    },
  ]);
}

/**
 * What the panel's Embed button embeds at its parameters `p`: the explorer cannot show BatchNorm (a
 * simulation is one sequence, no batch), so the nearest explorer view, the same two Pre-LN blocks at
 * initialization, and a note saying so.
 */
export const embedView = (p) => ({
  config: {
    ...dwaStack({ ...defaultTrainConfig(), ...BN_TRAIN, seed: p.seed }),
    arch: ['pre_ln'],
  },
  charts: ['grad'],
  note:
    'The explorer cannot show BatchNorm: it simulates one sequence, with no batch to take statistics over. This ' +
    `is the nearest view, the panel\u2019s two Pre-LN blocks at initialization (seed ${p.seed}) with LayerNorm; ` +
    'the panel\u2019s numbers come from training, which the explorer does not do.',
});
