// The claim of Sun et al. (2025), LayerNorm Scaling (`claim` below) on the papers page. Judged by the log–log
// slope of Var(h_L)/Var(h_0) and LNS's variance over Pre-LN's at every depth.
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its figures and what their charts draw) and
// embedView() (what its Embed button embeds); ./index.js lists it, and the papers page's views
// (../../papers/) and the build read it from there.
import { decimals, fixed } from '../../shared/format.js';
import { judged } from './common.js';
import { charted, claimSeries, overDepth } from './series.js';
import { depthsUpTo, fit, seedList, transformer, transformerFields } from './compute.js';

export const id = 'lns';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { seeds: 4, seed0: 0, deepest: 96, width: 64, tokens: 16, heads: 4, causal: true };

/**
 * The top stream's variance over the input's, Var(h_L) / Var(h_0) =
 * (RMS h_L / RMS h_0)^2, for each depth from 12 up, mean over seeds.
 */
export function compute(rn, p) {
  const depths = depthsUpTo(p.deepest, 12);
  const archs = ['pre_ln', 'lns'];
  const variance = Object.fromEntries(archs.map((a) => [a, depths.map(() => 0)]));
  const seeds = seedList(p.seed0, p.seeds);
  for (const seed of seeds)
    depths.forEach((L, i) => {
      const r = rn.simulate({ ...transformer(p, 'lns', L, seed), arch: archs }).results;
      for (const a of archs) variance[a][i] += (r[a].stream_rms[L] / r[a].stream_rms[0]) ** 2 / seeds.length;
    });
  const lx = depths.map(Math.log);
  return {
    depths,
    variance,
    fit: Object.fromEntries(archs.map((a) => [a, fit(lx, variance[a].map(Math.log))])),
  };
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Sun et al. (2025), LayerNorm Scaling';

/** The claim, in words. */
export const claim = "Dividing each LayerNorm's output by √l bounds the growth of Pre-LN's output variance with depth.";

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker (the citation unless it says otherwise) and title, then the claim, the
 * paper and the setting in prose. HTML; TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`LayerNorm Scaling: the stream's growth with depth`,
  title: String.raw`Scaling each LayerNorm by \(1/\sqrt{l}\) tames the stream's growth`,
  claim: String.raw`
    In Pre-LN the output variance grows with depth, between \(\Theta(L)\) and \(\Theta(\exp L)\), so deep blocks
    come close to the identity and contribute little: the curse of depth. LayerNorm Scaling multiplies the output of
    the LayerNorm in block \(l\) by <span class="nw">\(1/\sqrt{l}\),</span> which mitigates the growth of the output
    variance with depth. Checked here: the top stream's variance against the depth, LNS against Pre-LN.
  `,
  paper: String.raw`
    W. Sun, X. Song, P. Li, L. Yin, Y. Zheng, S. Liu, <cite>The Curse of Depth in Large Language Models</cite>, 2025
    (<a href="https://arxiv.org/abs/2502.05795">arXiv:2502.05795</a>), Sections 3 and 4.
  `,
  setting: String.raw`
    Pre-LN causal transformer blocks with a final LayerNorm, \(d = 64\), \(T = 16\), 4 heads; LNS scales both
    LayerNorms of block \(l\) (attention's and the MLP's) by \(1/\sqrt{l}\), <span class="nw">\(l = 1..L\).</span>
    Depths \(L = 12, 24, 48, 96\). Plotted: \(\mathrm{Var}(h_L) / \mathrm{Var}(h_0)\), the squared ratio of the RMS,
    mean over seeds. "Tames": LNS's log–log slope at most half Pre-LN's, and LNS's variance below Pre-LN's at every
    depth.
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  title: citation,
  defaults,
  choices: { seeds: [1, 2, 4, 8], deepest: [48, 96, 192] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['seeds', 'deepest', 'seed0'];

// LNS's log-log slope of Var(h_L)/Var(h_0) at most half Pre-LN's, and below it at every L
export const criteria = { slopeShare: 0.5 };

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params) {
  const rows = [];
  let facts = { params };
  const sL = data.fit.lns.slope,
    sP = data.fit.pre_ln.slope;
  const ratios = data.variance.lns.map((v, i) => v / data.variance.pre_ln[i]);
  const worst = Math.max(...ratios);
  facts = { ...facts, ratios, worst };
  rows.push({
    key: 'lns_slope',
    label: 'LNS: slope of log(Var h_L / Var h_0) over log L',
    value: sL,
    measured: fixed(sL, 2),
    claimed: `≤ ${fixed(criteria.slopeShare * sP, 2)} (half of Pre-LN’s)`,
    ok: sL <= criteria.slopeShare * sP,
  });
  rows.push({
    key: 'pre_ln_slope',
    label: 'Pre-LN: slope of log(Var h_L / Var h_0) over log L',
    value: sP,
    measured: fixed(sP, 2),
    claimed: '— (the growth LNS is to bound; 1 is Var ∝ L)',
    ok: null,
  });
  rows.push({
    key: 'lns_over_pre',
    label: 'LNS’s top variance over Pre-LN’s, largest over the depths',
    value: worst,
    measured: `${fixed(worst, 2)}×`,
    claimed: '< 1 at every depth',
    ok: worst < 1,
  });
  return judged(rows, facts);
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const d = result.data;
  const p = result.params;
  const v = d.variance;
  const last = d.depths.length - 1;
  const text =
    `Over L = ${d.depths.join(', ')} (${p.seeds} seed${p.seeds > 1 ? 's' : ''}), Pre-LN's top variance grows ` +
    `from ${decimals(v.pre_ln[0])}× to ${decimals(v.pre_ln[last])}× the input's (log–log slope ` +
    `${fixed(d.fit.pre_ln.slope, 2)}; Var ∝ L would be 1) and LNS's from ${decimals(v.lns[0])}× to ` +
    `${decimals(v.lns[last])}× (slope ${fixed(d.fit.lns.slope, 2)}); at L = ${d.depths[last]} LNS's is ` +
    `${fixed(s.facts.ratios[last], 2)}× Pre-LN's. Each branch of block l reads its LayerNorm's output divided ` +
    'by √l, so what block l adds to the stream shrinks with l instead of staying unit-size. At initialization ' +
    'Pre-LN’s variance grows linearly (as Lemma 2 has it for MLP blocks), the lower end of the paper’s ' +
    'Θ(L) to exp(L).';
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
    chart: 'lns',
    title: 'Variance at the top over the variance at the input',
    sub: "log–log; dashes: \\(\\propto L\\) through Pre-LN's first point",
    aria: 'Chart: top-of-stream variance over input variance against depth for Pre-LN and LayerNorm Scaling, log-log.',
  },
];

/** What the panel's charts draw: a spec for each chart of pageFigures, in its order (charted() names them). */
export function figures(r, col) {
  const { depths, variance } = r.data;
  return charted(pageFigures, [
    overDepth(col, depths, { pre_ln: variance.pre_ln, lns: variance.lns }, [
      claimSeries(
        col,
        '∝ L',
        depths.map((L) => (variance.pre_ln[0] * L) / depths[0]),
      ),
    ]),
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
    arch: ['pre_ln', 'lns'],
    depth: p.deepest,
    final_norm: 'layernorm',
    seed: p.seed0,
  },
  charts: ['stream'],
  note:
    `The panel plots the top of the stream\u2019s variance over its input\u2019s against the depth L, over ${p.seeds} ` +
    `seeds; the embed shows the stream at every layer of the deepest stack (L = ${p.deepest}, seed ${p.seed0}), ` +
    'whose last point over its first, squared, is the panel\u2019s ratio at that depth.',
});
