// The claim "RMSNorm keeps LayerNorm's quality for less time" (`claim` below) on the papers page, after
// Zhang and Sennrich (2019): small reverse runs trained with LayerNorm (Pre-LN) and with RMSNorm (Pre-RMS)
// over five seeds, their held-out losses compared against the seeds' spread, and the engine's own norm
// kernels timed live (rn.timeNorms, core/src/norm_timing.cpp), forward and backward, at three widths.
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its two figures) and embedView() (what its Embed
// button embeds); ./index.js lists it, and the papers page's views (../../papers/) and the build read it
// from there.
import { fixed, significant } from '../../shared/format.js';
import { judged } from './common.js';
import { charted } from './series.js';
import { DWA_TRAIN, dwaStack } from './compute.js';
import { defaultTrainConfig } from '../../shared/train-fields.js';

export const id = 'rmsnorm';

/** The computation's parameters when a request leaves them out (reproduce()): the first of the five seeds. */
export const defaults = { seed0: 0 };

/** How many seeds each norm trains (seed0, seed0 + 1, ...). */
export const SEEDS = 5;

/**
 * What every run trains: reverse 4 of 8 symbols, two causal transformer blocks with d = 16 and a final
 * norm of the block's kind, Adam at 2e-3 for 300 steps (DenseFormer's task, ./compute.js, at depth 2).
 */
export const RMS_TRAIN = { ...DWA_TRAIN, depth: 2, log_every: DWA_TRAIN.steps };

/** The widths the norm kernels are timed at, each on TIMED_VALUES / d tokens, and the samples per width. */
export const TIMED_WIDTHS = [64, 512, 2048];
export const TIMED_VALUES = 65536;
export const TIMED_SAMPLES = 21;
/** The width the caption quotes (the paper's Transformer has d = 512). */
export const QUOTED_WIDTH = 512;

/** One run's last held-out loss and its outcome; the trainer is deleted. */
function run(rn, config) {
  const tr = rn.trainer(config);
  try {
    const logs = tr.step(config.steps);
    const l = logs[logs.length - 1];
    return { loss: l.heldout_loss, accuracy: l.heldout_accuracy, outcome: tr.outcome() };
  } finally {
    tr.delete();
  }
}

/** LayerNorm's four kernels against RMSNorm's at one width, with its settings under `config`. */
function timed(rn, width) {
  const {
    width: w,
    tokens,
    samples,
    inner,
    ...times
  } = rn.timeNorms({
    width,
    tokens: TIMED_VALUES / width,
    samples: TIMED_SAMPLES,
  });
  return { config: { width: w, tokens, samples, inner }, ...times };
}

/**
 * Pre-LN and Pre-RMS trained on seeds seed0 .. seed0 + SEEDS - 1 (the last logged step's held-out loss of
 * each), then the norm kernels timed at each width of TIMED_WIDTHS, in this engine.
 */
export function compute(rn, p) {
  const seeds = Array.from({ length: SEEDS }, (_, i) => p.seed0 + i);
  const layernorm = seeds.map((seed) => run(rn, { ...RMS_TRAIN, arch: 'pre_ln', seed }));
  const rmsnorm = seeds.map((seed) => run(rn, { ...RMS_TRAIN, arch: 'pre_rms', seed }));
  const timing = TIMED_WIDTHS.map((width) => timed(rn, width));
  // the settings under `config`, as every result keeps them
  return { config: { seeds, steps: RMS_TRAIN.steps, widths: TIMED_WIDTHS }, layernorm, rmsnorm, timing };
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'RMSNorm: Zhang and Sennrich (2019), the experiments’ quality and running time';

/** The claim, in words. */
export const claim =
  'RMSNorm, LayerNorm without the mean, trains as well as LayerNorm and takes less time in the norm layer.';

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker and title, then the claim, the paper and the setting in prose. HTML;
 * TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`RMSNorm: LayerNorm's quality with one reduction fewer`,
  kicker: String.raw`Zhang and Sennrich (2019)`,
  title: String.raw`RMSNorm trains like LayerNorm, for less time in the norm`,
  claim: String.raw`
    The article: RMSNorm, \(x / \sqrt{\tfrac{1}{d}\sum_i x_i^2 + \epsilon} \odot \gamma\), drops LayerNorm's mean
    subtraction and its bias. It keeps invariance to the scale of the input and gives up re-centering, which the
    paper hypothesized contributes little; one reduction over \(d\) fewer, no bias, the same quality, and, in the
    article's words, 7 to 64 percent less time in the normalization layer. The paper's abstract puts the same
    range differently: RMSNorm "reduces the running time by 7%~64% on different models", the running time of
    its experiments' whole models (recurrent translation, a Transformer, reading comprehension, image-caption
    retrieval, image classification), not of the norm layer alone. Checked here on small trained runs for
    quality, and on the engine's own norm kernels, timed in your browser, for the time.
  `,
  paper: String.raw`
    B. Zhang, R. Sennrich, <cite>Root Mean Square Layer Normalization</cite>, NeurIPS 2019 (<a
    href="https://arxiv.org/abs/1910.07467">arXiv:1910.07467</a>): the abstract and the experiments' tables of
    quality against running time.
  `,
  setting: String.raw`
    Reverse 4 of 8 symbols; two causal transformer blocks with \(d = 16\), 4 heads, learned positions and a
    final norm of the blocks' kind; Adam at \(2 \times 10^{-3}\), batch 16, 300 steps; five seeds, each trained
    with LayerNorm (Pre-LN) and with RMSNorm (Pre-RMS), nothing else changed. Quality: the last held-out loss;
    the claim holds when the difference of the two means over the seeds is no larger than the seeds' spread (the
    larger of the two standard deviations). Time: the engine's float LayerNorm and RMSNorm kernels, forward and
    backward, on 65,536 values (\(d\) = 64, 512 and 2048 features, tokens to match), timed interleaved over 21
    samples and summarized by their medians. The times are measured on your machine as the page loads; they
    are reported, not judged, since they change with the machine and its load. Trained when the page loads,
    like every panel's computation.
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = { trains: true, title: citation, defaults, choices: {} };

/** The panel's controls, in the order its form shows them. */
export const controls = ['seed0'];

// Quality: |mean(RMSNorm) - mean(LayerNorm)| of the held-out losses over the seeds at most `spread` times
// the larger of the two sample standard deviations. The times are not judged (a measurement of the machine).
export const criteria = { spread: 1 };

const mean = (v) => v.reduce((s, x) => s + x, 0) / v.length;
/** Sample standard deviation (n - 1). */
const sd = (v) => {
  const m = mean(v);
  return Math.sqrt(v.reduce((s, x) => s + (x - m) ** 2, 0) / (v.length - 1));
};
const signed = (v) => `${v >= 0 ? '+' : '−'}${significant(Math.abs(v), 2)}`;
/** RMSNorm's time over LayerNorm's as a saving: "25% less" or "3% more". */
const saving = (ratio) =>
  Number.isFinite(ratio)
    ? `${fixed(Math.abs(1 - ratio) * 100, 0)}% ${ratio <= 1 ? 'less' : 'more'}`
    : `not measured (${significant(ratio)})`;
/** RMSNorm's median time over LayerNorm's at one width, forward or backward (from the medians themselves). */
const ratioOf = (t, pass) => t[`rms_${pass}`].median_ms / t[`ln_${pass}`].median_ms;
const signedPct = (ratio) =>
  Number.isFinite(ratio) ? `${ratio <= 1 ? '−' : '+'}${fixed(Math.abs(ratio - 1) * 100, 0)}%` : 'not measured';

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params) {
  const { layernorm, rmsnorm, timing } = data;
  const ln = layernorm.map((r) => r.loss),
    rms = rmsnorm.map((r) => r.loss);
  const finite = [...ln, ...rms].every(Number.isFinite);
  const lnMean = mean(ln),
    rmsMean = mean(rms);
  const lnSd = sd(ln),
    rmsSd = sd(rms);
  const diff = rmsMean - lnMean;
  const spread = Math.max(lnSd, rmsSd);
  const widths = timing.map((t) => t.config.width);
  const q = Math.max(0, widths.indexOf(QUOTED_WIDTH));
  const rows = [
    {
      key: 'quality',
      label:
        `Held-out loss over seeds ${data.config.seeds.join(', ')}: RMSNorm’s mean − LayerNorm’s, against the ` +
        'seeds’ spread (the larger standard deviation)',
      value: diff,
      measured: finite ? `${signed(diff)} (spread ${significant(spread, 2)})` : 'not finite (a run diverged)',
      claimed: `|difference| ≤ ${criteria.spread === 1 ? '' : `${criteria.spread} × `}spread (comparable quality)`,
      ok: finite && Math.abs(diff) <= criteria.spread * spread,
    },
    ...['forward', 'backward'].map((pass) => ({
      key: pass,
      label:
        `Norm layer ${pass} at d = ${widths.join(', ')}: RMSNorm’s median time over LayerNorm’s, − 1 ` +
        '(measured here, not judged)',
      value: ratioOf(timing[q], pass) - 1,
      measured: timing.map((t) => signedPct(ratioOf(t, pass))).join(', '),
      claimed: '7–64% less running time, whole models (not judged)',
      ok: null,
    })),
  ];
  return judged(rows, { params, finite, lnMean, rmsMean, lnSd, rmsSd, diff, spread, quoted: timing[q] });
}

const OUTCOME_WORDS = { trained: 'trained', slow: 'still learning', collapsed: 'at chance', diverged: 'diverged' };
/** How the runs of one norm ended: "all 5 trained" or "3 trained, 2 still learning". */
function outcomes(runs) {
  const counts = new Map();
  for (const r of runs) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  if (counts.size === 1) return `all ${runs.length} ${OUTCOME_WORDS[runs[0].outcome] ?? runs[0].outcome}`;
  return [...counts].map(([o, n]) => `${n} ${OUTCOME_WORDS[o] ?? o}`).join(', ');
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const d = result.data;
  const f = s.facts;
  const seeds = d.config.seeds;
  const loss = (v) => (Number.isFinite(v) ? significant(v, 2) : 'not finite');
  // one norm's losses, their mean and standard deviation where every loss is finite, and the outcomes
  const norm = (runs, m, sdev) => {
    const stats = runs.every((r) => Number.isFinite(r.loss))
      ? `mean ${significant(m, 2)}, standard deviation ${significant(sdev, 2)}; `
      : '';
    return `${runs.map((r) => loss(r.loss)).join(', ')} (${stats}${outcomes(runs)})`;
  };
  let text =
    `After ${d.config.steps} steps on seeds ${seeds[0]} to ${seeds[seeds.length - 1]}, LayerNorm's held-out ` +
    `loss is ${norm(d.layernorm, f.lnMean, f.lnSd)} and RMSNorm's ${norm(d.rmsnorm, f.rmsMean, f.rmsSd)}. `;
  if (!f.finite) text += 'A run diverged, its held-out loss not finite, so the means cannot be compared. ';
  else if (s.rows[0].ok)
    text +=
      `The means differ by ${signed(f.diff)}, within the seeds' spread of ${significant(f.spread, 2)}: ` +
      ([...d.layernorm, ...d.rmsnorm].every((r) => r.outcome === 'trained')
        ? "RMSNorm keeps LayerNorm's quality here. "
        : 'the two norms are alike here, though not every run trained: these are losses compared at the same step. ');
  else
    text +=
      `The means differ by ${signed(f.diff)}, more than the seeds' spread of ${significant(f.spread, 2)}: ` +
      `RMSNorm trains ${f.diff > 0 ? 'worse' : 'better'} than LayerNorm here. `;
  const t = f.quoted;
  text +=
    `In this engine on this machine, at d = ${t.config.width} (${t.config.tokens} tokens, medians of ` +
    `${t.config.samples} interleaved samples), RMSNorm's forward took ${saving(ratioOf(t, 'forward'))} time than ` +
    `LayerNorm's (${significant(t.rms_forward.median_ms, 2)} against ${significant(t.ln_forward.median_ms, 2)} ms) ` +
    `and its backward ${saving(ratioOf(t, 'backward'))} (${significant(t.rms_backward.median_ms, 2)} against ` +
    `${significant(t.ln_backward.median_ms, 2)} ms). These times are of the norm layer alone and change with the ` +
    "machine and its load; the paper's 7–64% is the running time of whole models.";
  return text;
}

/**
 * The panel's figures as the page lays them out (../../papers/figures.js writes them into papers.html at
 * build time): each one's data-chart key, title, subtitle and description for screen readers.
 */
export const pageFigures = [
  {
    chart: 'rmsnorm',
    title: 'Held-out loss of each seed',
    sub: 'after 300 steps; LayerNorm and RMSNorm on the same seeds',
    aria: 'Chart: held-out loss of each seed for LayerNorm and RMSNorm.',
  },
  {
    chart: 'rmsnorm-time',
    title: 'Time in the norm layer',
    sub: 'ms per call on 65,536 values, median over samples; measured as the page loaded; log axes',
    short: true,
    aria: 'Chart: time per call of the LayerNorm and RMSNorm kernels, forward and backward, against width d, log axes.',
  },
];

/**
 * What the panel's charts draw: held-out loss by seed, and the kernels' times over the width. Each line is
 * keyed by its architecture, whose colour its legend's swatch takes; the dash tells backward from forward.
 */
export function figures(r, col) {
  const { layernorm, rmsnorm, timing, config } = r.data;
  const line = (key, label, values, color, dash) => ({ key, label, values, color, dash, points: true });
  const times = (kernel) => timing.map((t) => t[kernel].median_ms);
  return charted(pageFigures, [
    {
      x: config.seeds,
      xLabel: 'seed',
      series: [
        line(
          'pre_ln',
          'LayerNorm',
          layernorm.map((x) => x.loss),
          col.arch.pre_ln,
          [],
        ),
        line(
          'pre_rms',
          'RMSNorm',
          rmsnorm.map((x) => x.loss),
          col.arch.pre_rms,
          [6, 5],
        ),
      ],
    },
    {
      x: timing.map((t) => t.config.width),
      xLog: true,
      yLog: true,
      xLabel: 'width d',
      series: [
        line('pre_ln', 'LayerNorm forward', times('ln_forward'), col.arch.pre_ln, []),
        line('pre_rms', 'RMSNorm forward', times('rms_forward'), col.arch.pre_rms, []),
        line('pre_ln', 'LayerNorm backward', times('ln_backward'), col.arch.pre_ln, [6, 5]),
        line('pre_rms', 'RMSNorm backward', times('rms_backward'), col.arch.pre_rms, [6, 5]),
      ],
    },
  ]);
}

/**
 * What the panel's Embed button embeds at its parameters `p`: the panel's two blocks at initialization with
 * LayerNorm and with RMSNorm (the explorer does not train), and a note saying so.
 */
export const embedView = (p) => ({
  config: {
    ...dwaStack({ ...defaultTrainConfig(), ...RMS_TRAIN, seed: p.seed0 }),
    arch: ['pre_ln', 'pre_rms'],
  },
  charts: ['grad'],
  note:
    'The explorer does not train: this is the panel\u2019s two blocks at initialization (seed ' +
    `${p.seed0}) with LayerNorm and with RMSNorm; the panel\u2019s losses come from training and its times ` +
    'from the norm kernels alone, which the explorer does not show.',
});
