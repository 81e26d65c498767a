// The claim of Li et al. (2024), Mix-LN (`claim` below) on the papers page. Judged by max/min of the block
// gradients at initialization and, after the training lab's Late layers runs, at their last logged step
// (../lab/'s gradSpread).
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its figures and what their charts draw) and
// embedView() (what its Embed button embeds); ./index.js lists it, and the papers page's views
// (../../papers/) and the build read it from there.
import { fixed, fmtFactor } from '../../shared/format.js';
import { gradSpread } from '../lab/common.js';
import { judged, spread, variation } from './common.js';
import { archSeries, charted } from './series.js';
import { blockGradNorms, seedList, trainLabRuns, transformer, transformerFields } from './compute.js';

export const id = 'mixln';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { depth: 24, seeds: 4, seed0: 0, width: 64, tokens: 16, heads: 4, causal: true };

/** The Late layers runs this panel trains (their blocks' gradient spread after training). */
export const MIXLN_TRAINED = ['post_ln_warmup', 'pre_ln', 'mix_ln'];

/**
 * Per-block weight-gradient norms (all six matrices), mean over seeds, of
 * Post-LN, Pre-LN and Mix-LN, each with its own final norm. Then those three of the training
 * lab's Late layers runs, trained.
 */
export function compute(rn, p) {
  const L = p.depth;
  const archs = ['post_ln', 'pre_ln', 'mix_ln'];
  const norms = Object.fromEntries(archs.map((a) => [a, new Array(L).fill(0)]));
  const seeds = seedList(p.seed0, p.seeds);
  let fraction = null; // Mix-LN's share of Post-LN blocks, as the engine ran it
  for (const seed of seeds)
    for (const arch of archs) {
      const out = rn.simulate(transformer(p, arch, L, seed));
      blockGradNorms(out.results[arch]).forEach((v, l) => (norms[arch][l] += v / seeds.length));
      if (arch === 'mix_ln') fraction = out.config.mix_fraction;
    }
  // early: the Post-LN blocks, counted as the core's mix_ln_early_blocks counts them
  const early = Math.min(L, Math.floor(fraction * L + 1e-9));
  return {
    blocks: Array.from({ length: L }, (_, l) => l + 1),
    early,
    fraction,
    norms,
    trained: trainLabRuns(rn, 'late', MIXLN_TRAINED),
  };
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Li et al. (2024), Mix-LN';

/** The claim, in words. */
export const claim =
  'Post-LN in the first quarter of the blocks and Pre-LN above makes the block gradients more uniform than either.';

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker (the citation unless it says otherwise) and title, then the claim, the
 * paper and the setting in prose. HTML; TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`Mix-LN: how uniform the layers' gradients are`,
  title: String.raw`Post-LN below, Pre-LN above: more uniform gradients?`,
  claim: String.raw`
    Pre-LN's deep layers receive small gradients and Post-LN's shallow ones do; Mix-LN applies Post-LN to the first
    25% of the layers and Pre-LN to the rest, so that the gradient norms are more uniform across the layers and
    every layer contributes. Checked here: the uniformity at initialization and after training.
  `,
  paper: String.raw`
    P. Li, L. Yin, S. Liu, <cite>Mix-LN: Unleashing the Power of Deeper Layers by Combining Pre-LN and
    Post-LN</cite>, ICLR 2025 (<a href="https://arxiv.org/abs/2412.13795">arXiv:2412.13795</a>), Sections 3 and 4.
  `,
  setting: String.raw`
    Causal transformer blocks, \(d = 64\), \(T = 16\), 4 heads; a final LayerNorm for Pre-LN and Mix-LN (whose top
    blocks are Pre-LN), none for Post-LN; Mix-LN's Post-LN blocks are the first \(\lfloor L/4 \rfloor\). Plotted:
    the norm of the gradient of all of block \(l\)'s weights together, mean over seeds. Uniformity is measured by
    the largest over the smallest of these norms (max/min, 1 is uniform); the coefficient of variation is shown
    beside it. "More uniform": Mix-LN's max/min at most 0.9× Post-LN's and at most 0.9× Pre-LN's (10% lower or more,
    so that a tie is not a win). After training: the training lab's Late layers runs of Post-LN (100 warmup steps),
    Pre-LN and Mix-LN, reverse 4 of 8 symbols with 8 blocks of \(d = 16\), Adam at \(2\times10^{-3}\) for 300 steps,
    the same max/min at the last step, judged as the lab does: Mix-LN's below both.
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  trains: true,
  title: citation,
  defaults,
  choices: { depth: [12, 24, 48], seeds: [1, 2, 4, 8] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['depth', 'seeds', 'seed0'];

// Mix-LN's max/min of the block gradients at most 0.9x Post-LN's and 0.9x Pre-LN's
export const criteria = { margin: 0.9 };

const argmin = (a) => a.indexOf(Math.min(...a));
const argmax = (a) => a.indexOf(Math.max(...a));

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params) {
  const rows = [];
  let facts = { params };
  const s = Object.fromEntries(Object.entries(data.norms).map(([a, v]) => [a, spread(v)]));
  const cv = Object.fromEntries(Object.entries(data.norms).map(([a, v]) => [a, variation(v)]));
  facts = { ...facts, spread: s, cv };
  for (const [arch, name] of [
    ['post_ln', 'Post-LN'],
    ['pre_ln', 'Pre-LN'],
    ['mix_ln', 'Mix-LN'],
  ])
    rows.push({
      key: `${arch}_spread`,
      label: `${name}: max/min of the block gradients (CV ${fixed(cv[arch], 2)})`,
      value: s[arch],
      measured: fmtFactor(s[arch]),
      claimed: arch === 'mix_ln' ? '— (judged in the two rows below)' : '—',
      ok: null,
    });
  for (const [arch, name] of [
    ['post_ln', 'Post-LN'],
    ['pre_ln', 'Pre-LN'],
  ]) {
    const r = s.mix_ln / s[arch];
    rows.push({
      key: `mix_over_${arch}`,
      label: `Mix-LN’s max/min over ${name}’s`,
      value: r,
      measured: `${fixed(r, 3)}×`,
      claimed: `≤ ${criteria.margin} (more uniform by 10% or more)`,
      ok: r <= criteria.margin,
    });
  }
  // after training: the lab's Late layers runs, the same measure at their last logged step
  // (../lab/'s gradSpread) and the lab's check (Mix-LN's below both)
  if (data.trained) {
    const T = data.trained;
    const ts = Object.fromEntries(Object.entries(T).map(([k, run]) => [k, gradSpread(run)]));
    const steps = T.mix_ln.logs.at(-1).step;
    const names = {
      post_ln_warmup: `Post-LN (warmup ${T.post_ln_warmup.config.warmup})`,
      pre_ln: 'Pre-LN',
      mix_ln: 'Mix-LN',
    };
    facts = { ...facts, trainedSpread: ts, steps, trainedDepth: T.mix_ln.config.depth, names };
    for (const k of ['post_ln_warmup', 'pre_ln', 'mix_ln'])
      rows.push({
        key: `trained_${k}_spread`,
        label: `After training (the lab’s Late layers run, ${T[k].config.depth} blocks, step ${steps}), ${names[k]}: max/min of the block gradients`,
        value: ts[k],
        measured: fmtFactor(ts[k]),
        claimed: k === 'mix_ln' ? '— (judged in the two rows below)' : '—',
        ok: null,
      });
    for (const k of ['post_ln_warmup', 'pre_ln']) {
      const r = ts.mix_ln / ts[k];
      rows.push({
        key: `trained_mix_over_${k}`,
        label: `After training: Mix-LN’s max/min over ${names[k]}’s`,
        value: r,
        measured: `${fixed(r, 3)}×`,
        claimed: '< 1 (more uniform, the lab’s check)',
        ok: r < 1,
      });
    }
  }
  return judged(rows, facts);
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const d = result.data;
  const p = result.params;
  const { spread: sp, cv } = s.facts;
  const n = d.norms;
  const NAME = { post_ln: 'Post-LN', pre_ln: 'Pre-LN', mix_ln: 'Mix-LN' };
  const beaten = ['post_ln', 'pre_ln'].filter((a) => sp.mix_ln <= 0.9 * sp[a]).map((a) => NAME[a]);
  const where = (a) => `smallest at block ${argmin(n[a]) + 1}, largest at ${argmax(n[a]) + 1}`;
  let text =
    `Over the ${p.depth} blocks (mean of ${p.seeds} seed${p.seeds > 1 ? 's' : ''}), the gradient of each block's ` +
    `weights spans ${fmtFactor(sp.post_ln)} in Post-LN (CV ${fixed(cv.post_ln, 2)}; ${where('post_ln')}), ` +
    `${fmtFactor(sp.pre_ln)} in Pre-LN (CV ${fixed(cv.pre_ln, 2)}; ${where('pre_ln')}) and ` +
    `${fmtFactor(sp.mix_ln)} in Mix-LN (CV ${fixed(cv.mix_ln, 2)}; ${where('mix_ln')}), whose first ` +
    `${d.early} blocks are Post-LN. `;
  text +=
    beaten.length === 2
      ? 'Mix-LN’s are the most uniform of the three.'
      : beaten.length === 1
        ? `Mix-LN’s are more uniform than ${beaten[0]}’s only.`
        : 'Mix-LN’s are not more uniform than either.';
  if (sp.post_ln < sp.mix_ln)
    text +=
      ' Above its Post-LN blocks Mix-LN is Pre-LN, whose block gradients fall as the stream grows (as in Figure ' +
      '3’s panel), while at this width Post-LN’s stay nearly level: at initialization Post-LN is the uniform one.';
  if (d.trained) {
    const ts = s.facts.trainedSpread;
    const T = d.trained;
    const names = s.facts.names;
    const better = ['post_ln_warmup', 'pre_ln'].filter((k) => ts.mix_ln < ts[k]).map((k) => names[k]);
    text +=
      ` After training (the training lab\u2019s Late layers runs: reverse ${T.mix_ln.config.seq} of ` +
      `${T.mix_ln.config.vocab} symbols, ${s.facts.trainedDepth} blocks of width ${T.mix_ln.config.width}, ` +
      `${s.facts.steps} steps), the same max/min at the last step is ${fmtFactor(ts.post_ln_warmup)} for ` +
      `${names.post_ln_warmup}, ${fmtFactor(ts.pre_ln)} for Pre-LN and ${fmtFactor(ts.mix_ln)} for Mix-LN: ` +
      (better.length === 2
        ? 'Mix-LN’s are the most uniform after training too.'
        : better.length === 1
          ? `Mix-LN’s are more uniform than ${better[0]}’s only.`
          : 'after training Mix-LN’s block gradients are the least uniform of the three, as the lab’s Late layers verdict finds.');
  }
  return text;
}

/**
 * The panel's figures as the page lays them out (../../papers/figures.js writes them into papers.html at build
 * time): each a chart (its data-chart key, drawn by figures() below) or a matrix, with its title and
 * subtitle (HTML; TeX between \( \) becomes MathML), a legend unless `legend: false`, and for a
 * chart its description for screen readers.
 */
export const pageFigures = [
  {
    chart: 'mixln',
    title: 'Weight-gradient norm of block \\(l\\)',
    sub: 'all six matrices, mean over seeds, log scale',
    aria: 'Chart: the weight-gradient norm of each block for Post-LN, Pre-LN and Mix-LN, log scale.',
  },
];

/** What the panel's charts draw: a spec for each chart of pageFigures, in its order (charted() names them). */
export function figures(r, col) {
  const { blocks, norms } = r.data;
  return charted(pageFigures, [
    {
      x: blocks,
      xLabel: 'block l',
      yLog: true,
      series: ['post_ln', 'pre_ln', 'mix_ln'].map((a) => archSeries(col, a, norms[a], { points: true })),
    },
  ]);
}

/**
 * What the panel's Embed button embeds at its parameters `p`: the explorer's view of its setting
 * ({config, charts, exact, note}; ../../papers/embed-views.js completes it), and in words how it
 * differs from the panel's figure.
 */
export const embedView = (p) => ({
  config: {
    ...transformerFields(p),
    arch: ['post_ln', 'pre_ln', 'mix_ln'],
    depth: p.depth,
    final_norm: 'layernorm',
    seed: p.seed0,
  },
  charts: ['grad'],
  note:
    `The panel plots the gradient of each block\u2019s weights, mean over ${p.seeds} seed${p.seeds === 1 ? '' : 's'}; ` +
    `the explorer draws the gradient of the stream at each layer. The embed shows the same ${p.depth} blocks, ` +
    `seed ${p.seed0}, with a final LayerNorm for all three (the panel gives none to Post-LN).`,
});
