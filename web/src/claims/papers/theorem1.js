// The claim of Xiong et al. (2020), Theorem 1 (`claim` below) on the papers page. Judged by the log–log slope
// over L of what compute() measures.
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
import { depthsUpTo, fit, mean, seedList, transformer, transformerFields } from './compute.js';

export const id = 'theorem1';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { seeds: 8, seed0: 0, deepest: 96, width: 64, tokens: 16, heads: 4, causal: false };

/**
 * ||dL/dW2|| of the last block against depth; the fit pools every (L, seed).
 */
export function compute(rn, p) {
  const depths = depthsUpTo(p.deepest);
  const archs = ['post_ln', 'pre_ln'];
  const logs = Object.fromEntries(archs.map((a) => [a, depths.map(() => [])]));
  for (const seed of seedList(p.seed0, p.seeds))
    // one weight bank per seed, grown with L
    depths.forEach((L, i) => {
      for (const arch of archs) {
        const r = rn.simulate(transformer(p, arch, L, seed)).results[arch];
        logs[arch][i].push(Math.log(r.w2_grad_norm[L - 1]));
      }
    });
  const out = { depths, geomean: {}, fit: {} };
  for (const arch of archs) {
    const x = [],
      y = [];
    depths.forEach((L, i) =>
      logs[arch][i].forEach((v) => {
        x.push(Math.log(L));
        y.push(v);
      }),
    );
    out.fit[arch] = fit(x, y);
    out.geomean[arch] = logs[arch].map((v) => Math.exp(mean(v)));
  }
  return out;
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Xiong et al. (2020), Theorem 1';

/** The claim, in words. */
export const claim =
  "At initialization the last block's ‖∂L/∂W₂‖ is flat in the depth L for Post-LN and falls like 1/√L for Pre-LN.";

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker (the citation unless it says otherwise) and title, then the claim, the
 * paper and the setting in prose. HTML; TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`Xiong et al., Theorem 1: the last layer's gradient against depth`,
  title: String.raw`The last layer's gradient: flat in \(L\) for Post-LN, like \(1/\sqrt{L}\) for Pre-LN`,
  claim: String.raw`
    At initialization, the gradient of the last FFN sublayer's second weight matrix \(W^{2,L}\) has Frobenius norm
    \(O(d\sqrt{\ln d})\) in a Post-LN Transformer, whatever its depth \(L\), and \(O(d\sqrt{\ln d / L})\) in a
    Pre-LN Transformer: flat in \(L\) for Post-LN, shrinking like \(1/\sqrt{L}\) for Pre-LN. Large last-layer
    gradients are the paper's explanation of why Post-LN needs a learning-rate warm-up.
  `,
  paper: String.raw`
    R. Xiong, Y. Yang, D. He, K. Zheng, S. Zheng, C. Xing, H. Zhang, Y. Lan, L. Wang, T.-Y. Liu, <cite>On Layer
    Normalization in the Transformer Architecture</cite>, ICML 2020 (<a
    href="https://arxiv.org/abs/2002.04745">arXiv:2002.04745</a>), Theorem 1.
  `,
  setting: String.raw`
    Transformer blocks (attention, then the MLP), \(d = 64\), \(T = 16\) tokens, 4 heads, no causal mask, \(m = d\),
    ReLU; a final LayerNorm for Pre-LN, whose stack the paper ends with one (Post-LN's last block ends in a
    LayerNorm already). Depths \(L = 6, 12, 24, 48, 96\). The slope is a least-squares fit of \(\log \lVert \partial
    \mathcal{L} / \partial W_2 \rVert_F\) of the last block against \(\log L\), over every (depth, seed) point at
    once.
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  article: true,
  title: citation,
  defaults,
  choices: { seeds: [2, 4, 8, 16], deepest: [48, 96, 192] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['seeds', 'deepest', 'seed0'];

export const criteria = { post_ln: { claimed: 0, tol: 0.15 }, pre_ln: { claimed: -0.5, tol: 0.15 } };

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params) {
  const rows = [];
  for (const arch of ['post_ln', 'pre_ln']) {
    const s = data.fit[arch].slope;
    const { claimed, tol } = criteria[arch];
    rows.push({
      key: `${arch}_slope`,
      label: `${arch === 'post_ln' ? 'Post-LN' : 'Pre-LN'}: slope of log ‖∂L/∂W₂‖ over log L`,
      value: s,
      measured: fixed(s, 2),
      claimed: `${claimed === 0 ? '0' : fixed(claimed, 1)} ± ${tol}`,
      ok: Math.abs(s - claimed) <= tol,
    });
  }
  return judged(rows, { params });
}

/** The caption's text, from the result and its summary. */
export function caption(result) {
  const d = result.data;
  const p = result.params;
  const first = d.depths[0],
    last = d.depths[d.depths.length - 1];
  const post = d.geomean.post_ln,
    pre = d.geomean.pre_ln;
  const text =
    `Over L = ${d.depths.join(', ')} and ${p.seeds} seed${p.seeds > 1 ? 's' : ''}, the last block's ‖∂L/∂W₂‖ ` +
    `fits a log–log slope of ${fixed(d.fit.post_ln.slope, 2)} for Post-LN (claimed 0 ± 0.15) and ${fixed(d.fit.pre_ln.slope, 2)} ` +
    `for Pre-LN (claimed −0.5 ± 0.15): from L = ${first} to ${last}, Post-LN's goes from ${decimals(post[0])} to ` +
    `${decimals(post[post.length - 1])} and Pre-LN's from ${decimals(pre[0])} to ${decimals(pre[pre.length - 1])}. ` +
    'Post-LN\u2019s last block reads and writes a stream of unit RMS at any depth. Pre-LN ends in a LayerNorm ' +
    'that divides by the RMS of a stream grown to about √(1 + cL) (Lemma 2), and the last block\u2019s W₂ gradient ' +
    'is the gradient out of that division times a unit-size activation.';
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
    chart: 'theorem1',
    title: '\\(\\lVert \\partial \\mathcal{L} / \\partial W_2 \\rVert_F\\) of the last block',
    sub: 'geometric mean over seeds, log–log; dashes: the claimed laws',
    aria: "Chart: the last block's W2 gradient norm against depth L for Post-LN and Pre-LN, log-log.",
  },
];

/** What the panel's charts draw: a spec for each chart of pageFigures, in its order (charted() names them). */
export function figures(r, col) {
  const { depths, geomean } = r.data;
  const post = geomean.post_ln,
    pre = geomean.pre_ln;
  return charted(pageFigures, [
    overDepth(col, depths, { post_ln: post, pre_ln: pre }, [
      claimSeries(
        col,
        'claimed: flat (Post-LN)',
        depths.map(() => post[0]),
      ),
      claimSeries(
        col,
        'claimed: ∝ 1/√L (Pre-LN)',
        depths.map((L) => pre[0] * Math.sqrt(depths[0] / L)),
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
    arch: ['post_ln', 'pre_ln'],
    depth: p.deepest,
    final_norm: 'layernorm',
    seed: p.seed0,
  },
  charts: ['grad'],
  note:
    `The panel plots the last block\u2019s W\u2082 gradient against the depth L, over ${p.seeds} seeds; the explorer ` +
    `draws the gradient reaching each layer of one stack. The embed shows the panel\u2019s transformer blocks at its ` +
    `deepest L = ${p.deepest}, seed ${p.seed0}, with a final LayerNorm for both (the panel gives one to Pre-LN only).`,
});
