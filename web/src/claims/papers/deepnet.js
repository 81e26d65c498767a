// The claim of Wang et al. (2022), DeepNet (`claim` below) on the papers page. Judged by max/min over the
// layers.
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its figures and what their charts draw) and
// embedView() (what its Embed button embeds); ./index.js lists it, and the papers page's views
// (../../papers/) and the build read it from there.
import { decimals, fixed, fmtFactor } from '../../shared/format.js';
import { judged, spread, GRAD_BY_LAYER, streamFigure } from './common.js';
import { charted, perLayer } from './series.js';
import { transformerFields } from './compute.js';

export const id = 'deepnet';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { depth: 1000, seed: 0, width: 64, tokens: 16, heads: 4, causal: true };

/**
 * One decoder-only stack of `depth` transformer blocks, DeepNorm and Post-LN.
 */
export function compute(rn, p) {
  const N = p.depth;
  const out = rn.simulate({
    arch: ['deepnorm', 'post_ln'],
    block: 'transformer',
    depth: N,
    width: p.width,
    tokens: p.tokens,
    heads: p.heads,
    causal: p.causal,
    final_norm: 'none',
    seed: p.seed,
  });
  const pick = (r) => ({
    grad_norm: Array.from(r.grad_norm),
    stream_rms: Array.from(r.stream_rms),
    update_ratio: Array.from(r.update_ratio),
    first_nonfinite: r.first_nonfinite,
  });
  return {
    alpha: (2 * N) ** 0.25,
    beta: (8 * N) ** -0.25,
    deepnorm: pick(out.results.deepnorm),
    post_ln: pick(out.results.post_ln),
  };
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Wang et al. (2022), DeepNet';

/** The claim, in words. */
export const claim =
  "With DeepNorm's α and β the gradient and the stream stay within a small factor over 1,000 blocks, where Post-LN's gradient does not.";

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker (the citation unless it says otherwise) and title, then the claim, the
 * paper and the setting in prose. HTML; TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`DeepNet: 1,000 blocks`,
  title: String.raw`DeepNorm at 1,000 blocks`,
  claim: String.raw`
    DeepNorm, \(x_{l+1} = \mathrm{LN}(\alpha x_l + f(x_l))\) with the branch weights scaled by \(\beta\) at
    initialization, bounds the model update by a constant and so lets a Post-LN-style Transformer train at 1,000
    layers; for a decoder-only model of \(N\) layers the paper's Table 1 gives \(\alpha = (2N)^{1/4}\), <span
    class="nw">\(\beta = (8N)^{-1/4}\).</span> Checked here, at initialization: DeepNorm keeps the gradient and the
    stream within a small factor across all 1,000 blocks, Post-LN does not.
  `,
  paper: String.raw`
    H. Wang, S. Ma, L. Dong, S. Huang, D. Zhang, F. Wei, <cite>DeepNet: Scaling Transformers to 1,000 Layers</cite>,
    2022 (<a href="https://arxiv.org/abs/2203.00555">arXiv:2203.00555</a>), Section 4 and Table 1.
  `,
  setting: String.raw`
    Decoder-only: causal transformer blocks, \(d = 64\), \(T = 16\), 4 heads, no final norm, \(N\) = the number of
    blocks. \(\beta\) multiplies \(W_V\), \(W_O\), \(W_1\) and \(W_2\) (not \(W_Q\), \(W_K\)), as in the paper. "A
    small factor": the largest value over the layers is at most 2× the smallest.
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  article: true,
  title: citation,
  defaults,
  choices: { depth: [100, 200, 500, 1000] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['depth', 'seed'];

// "within a small factor": max/min over layers <= 2
export const criteria = { small: 2 };

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params) {
  const rows = [];
  // The claim: DeepNorm's gradient and stream stay within a small factor
  // over the layers, Post-LN's gradient does not. Post-LN's stream is a row
  // of this page's own, shown for contrast and not judged: every Post-LN
  // block ends in a LayerNorm, so its stream RMS is 1 by construction.
  for (const arch of ['deepnorm', 'post_ln']) {
    const name = arch === 'deepnorm' ? 'DeepNorm' : 'Post-LN';
    const want = arch === 'deepnorm'; // DeepNorm within the factor, Post-LN not
    for (const [metric, label] of [
      ['grad_norm', 'gradient'],
      ['stream_rms', 'stream RMS'],
    ]) {
      const s = spread(data[arch][metric]);
      const claim = want || metric === 'grad_norm';
      rows.push({
        key: `${arch}_${metric}`,
        label: `${name}: ${label}, max/min over layers`,
        value: s,
        measured: fmtFactor(s),
        claimed: !claim
          ? '— (1 by construction; not the paper\u2019s claim)'
          : want
            ? `≤ ${criteria.small}×`
            : `> ${criteria.small}×`,
        ok: !claim ? null : want ? s <= criteria.small : s > criteria.small,
      });
    }
  }
  return judged(rows, { params });
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const d = result.data;
  const p = result.params;
  const N = p.depth;
  const row = (k) => s.rows.find((r) => r.key === k).value;
  const g0 = d.post_ln.grad_norm[0] / d.post_ln.grad_norm[N];
  let text =
    `With α = (2N)^¼ = ${fixed(d.alpha, 3)} and β = (8N)^−¼ = ${fixed(d.beta, 4)} for N = ${N}, DeepNorm's gradient ` +
    `varies by ${fmtFactor(row('deepnorm_grad_norm'))} over the ${N} blocks and its stream by ` +
    `${fmtFactor(row('deepnorm_stream_rms'))}; Post-LN's gradient spans ${fmtFactor(row('post_ln_grad_norm'))}, ` +
    `layer 0 receiving ${decimals(g0)} of the top's. `;
  text +=
    row('post_ln_stream_rms') <= 2
      ? `Post-LN's stream, though, stays within ${fmtFactor(row('post_ln_stream_rms'))} too: every Post-LN block ends in ` +
        'a LayerNorm, so its stream RMS is 1 by construction. At initialization the stream does not tell the two ' +
        'apart; the gradient does.'
      : `Post-LN's stream spreads over ${fmtFactor(row('post_ln_stream_rms'))}.`;
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
    chart: 'deepnet',
    title: 'Gradient reaching layer \\(l\\)',
    sub: GRAD_BY_LAYER,
    aria: 'Chart: gradient norm at each layer for DeepNorm and Post-LN, log scale.',
  },
  streamFigure('deepnet', 'DeepNorm and Post-LN'),
];

/** What the panel's charts draw: a spec for each chart of pageFigures, in its order (charted() names them). */
export function figures(r, col) {
  return charted(pageFigures, perLayer(r, col, ['deepnorm', 'post_ln'], ['grad_norm', 'stream_rms']));
}

/**
 * What the panel's Embed button embeds at its parameters `p`: the explorer's view of its setting
 * ({config, charts, exact, note}; ../../papers/embed-views.js completes it), and in words how it
 * differs from the panel's figure.
 */
export const embedView = (p) => ({
  config: { ...transformerFields(p), arch: ['post_ln', 'deepnorm'], depth: p.depth, final_norm: 'none', seed: p.seed },
  charts: ['grad', 'stream'],
  exact: true,
  note: 'This is the panel\u2019s figure: the same stacks, both charts, the same numbers.',
});
