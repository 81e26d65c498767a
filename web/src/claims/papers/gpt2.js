// The claim of Radford et al. (2019), GPT-2 (`claim` below) on the papers page. Judged by the top/input RMS
// and its log–log slope over L.
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its figures and what their charts draw) and
// embedView() (what its Embed button embeds); ./index.js lists it, and the papers page's views
// (../../papers/) and the build read it from there.
import { fixed } from '../../shared/format.js';
import { judged } from './common.js';
import { charted, claimSeries, overDepth } from './series.js';
import { depthsUpTo, fit, seedList, transformer, transformerFields } from './compute.js';

export const id = 'gpt2';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { seeds: 4, seed0: 0, deepest: 96, width: 64, tokens: 16, heads: 4, causal: true };

/**
 * Top stream RMS over the input's, for each depth, mean over seeds.
 */
export function compute(rn, p) {
  const depths = depthsUpTo(p.deepest);
  const archs = ['gpt2', 'pre_ln'];
  const ratio = Object.fromEntries(archs.map((a) => [a, depths.map(() => 0)]));
  const seeds = seedList(p.seed0, p.seeds);
  for (const seed of seeds)
    depths.forEach((L, i) => {
      const r = rn.simulate({ ...transformer(p, 'gpt2', L, seed), arch: archs }).results;
      for (const a of archs) ratio[a][i] += r[a].stream_rms[L] / r[a].stream_rms[0] / seeds.length;
    });
  const lx = depths.map(Math.log);
  return { depths, ratio, fit: Object.fromEntries(archs.map((a) => [a, fit(lx, ratio[a].map(Math.log))])) };
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Radford et al. (2019), GPT-2';

/** The claim, in words. */
export const claim =
  "Scaling the residual branches' output weights by 1/√(2L) keeps the top of the stream near the input's size at any depth, where Pre-LN's grows like √L.";

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker (the citation unless it says otherwise) and title, then the claim, the
 * paper and the setting in prose. HTML; TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`GPT-2's \(1/\sqrt{N}\) initialization`,
  title: String.raw`Scaling the residual branches by \(1/\sqrt{N}\)`,
  claim: String.raw`
    GPT-2 uses "a modified initialization which accounts for the accumulation on the residual path with model
    depth": the weights of residual layers are scaled at initialization by \(1/\sqrt{N}\), \(N\) the number of
    residual layers. Checked here: with it, the stream at the top stays near the input's size at every depth, where
    plain Pre-LN's grows like <span class="nw">\(\sqrt{L}\).</span>
  `,
  paper: String.raw`
    A. Radford, J. Wu, R. Child, D. Luan, D. Amodei, I. Sutskever, <cite>Language Models are Unsupervised Multitask
    Learners</cite>, OpenAI, 2019, Section 2.3.
  `,
  setting: String.raw`
    Pre-LN transformer blocks with a final LayerNorm, causal, \(d = 64\), \(T = 16\), 4 heads. The scaling
    multiplies each residual branch's output projection, \(W_O\) and \(W_2\), with \(N = 2L\) (two residual
    sublayers per block), as nanoGPT's reimplementation does on every <code>c_proj</code>. Plotted: RMS of \(h_L\)
    over RMS of \(h_0\), mean over seeds. "Near": within a factor 1.5 at every depth, log–log slope \(0 \pm 0.1\).
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  article: true,
  title: citation,
  defaults,
  choices: { seeds: [1, 2, 4, 8], deepest: [96, 192] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['seeds', 'deepest', 'seed0'];

export const criteria = { near: 1.5, flatSlope: 0.1, preSlope: 0.5, preTol: 0.15 };

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params) {
  const rows = [];
  const worst = Math.max(...data.ratio.gpt2.map((r) => Math.max(r, 1 / r)));
  const sG = data.fit.gpt2.slope,
    sP = data.fit.pre_ln.slope;
  rows.push({
    key: 'gpt2_worst',
    label: 'GPT-2 init: top RMS / input RMS, farthest from 1',
    value: worst,
    measured: `${fixed(worst, 2)}×`,
    claimed: `near 1 (≤ ${criteria.near}×)`,
    ok: worst <= criteria.near,
  });
  rows.push({
    key: 'gpt2_slope',
    label: 'GPT-2 init: slope of log(top/input) over log L',
    value: sG,
    measured: fixed(sG, 2),
    claimed: `0 ± ${criteria.flatSlope}`,
    ok: Math.abs(sG) <= criteria.flatSlope,
  });
  rows.push({
    key: 'pre_slope',
    label: 'Pre-LN: slope of log(top/input) over log L',
    value: sP,
    measured: fixed(sP, 2),
    claimed: `0.5 ± ${criteria.preTol}`,
    ok: Math.abs(sP - criteria.preSlope) <= criteria.preTol,
  });
  return judged(rows, { params });
}

/** The caption's text, from the result and its summary. */
export function caption(result) {
  const d = result.data;
  const p = result.params;
  const g = d.ratio.gpt2,
    pre = d.ratio.pre_ln;
  const lo = Math.min(...g),
    hi = Math.max(...g);
  const text =
    `Scaling W_O and W₂ by 1/√(2L) keeps the top of the stream at ${fixed(lo, 2)}–${fixed(hi, 2)}× the input's RMS for ` +
    `L = ${d.depths[0]} to ${d.depths[d.depths.length - 1]} (log–log slope ${fixed(d.fit.gpt2.slope, 2)}), where Pre-LN's grows from ` +
    `${fixed(pre[0], 2)}× to ${fixed(pre[pre.length - 1], 2)}×, a slope of ${fixed(d.fit.pre_ln.slope, 2)} against √L's 0.5 ` +
    `(${p.seeds} seed${p.seeds > 1 ? 's' : ''}).`;
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
    chart: 'gpt2',
    title: 'Stream at the top over the stream at the input',
    sub: "log–log; dashes: \\(\\sqrt{L}\\) through Pre-LN's first point",
    aria: 'Chart: top-of-stream RMS over input RMS against depth for GPT-2 initialization and Pre-LN, log-log.',
  },
];

/** What the panel's charts draw: a spec for each chart of pageFigures, in its order (charted() names them). */
export function figures(r, col) {
  const { depths, ratio } = r.data;
  return charted(pageFigures, [
    overDepth(col, depths, { gpt2: ratio.gpt2, pre_ln: ratio.pre_ln }, [
      claimSeries(
        col,
        '∝ √L',
        depths.map((L) => ratio.pre_ln[0] * Math.sqrt(L / depths[0])),
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
    arch: ['pre_ln', 'gpt2'],
    depth: p.deepest,
    final_norm: 'layernorm',
    seed: p.seed0,
  },
  charts: ['stream'],
  note:
    `The panel plots the top of the stream over its input against the depth L, over ${p.seeds} seeds; the embed ` +
    `shows the stream at every layer of the deepest stack (L = ${p.deepest}, seed ${p.seed0}), whose last point ` +
    `over its first is the panel\u2019s ratio at that depth.`,
});
