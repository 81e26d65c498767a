// The claim of Xiong et al. (2020), Lemma 2 (`claim` below) on the papers page. Judged by the fitted slope
// and the largest deviation from 1 + l/2.
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its figures and what their charts draw) and
// embedView() (what its Embed button embeds); ./index.js lists it, and the papers page's views
// (../../papers/) and the build read it from there.
import { fixed, percent } from '../../shared/format.js';
import { judged } from './common.js';
import { archSeries, charted, claimSeries } from './series.js';
import { fit, seedList } from './compute.js';

export const id = 'lemma2';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { depth: 48, seeds: 32, seed0: 0, width: 64, tokens: 16 };

/**
 * E||x_l||^2 / d over seeds: the mean of stream_rms[l]^2 (rms^2 = ||h||^2 / (T d)).
 */
export function compute(rn, p) {
  const L = p.depth;
  const pre = new Array(L + 1).fill(0),
    post = new Array(L + 1).fill(0);
  const seeds = seedList(p.seed0, p.seeds);
  for (const seed of seeds) {
    const r = rn.simulate({
      arch: ['pre_ln', 'post_ln'],
      depth: L,
      width: p.width,
      tokens: p.tokens,
      gain: Math.SQRT1_2,
      seed,
    }).results;
    for (let l = 0; l <= L; l++) {
      pre[l] += r.pre_ln.stream_rms[l] ** 2 / seeds.length;
      post[l] += r.post_ln.stream_rms[l] ** 2 / seeds.length;
    }
  }
  const layers = Array.from({ length: L + 1 }, (_, l) => l);
  return { layers, pre, post, fit: fit(layers, pre) };
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Xiong et al. (2020), Lemma 2';

/** The claim, in words. */
export const claim = "Pre-LN's stream grows linearly, E‖x_l‖²/d = 1 + l/2, while Post-LN's stays at 1.";

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker (the citation unless it says otherwise) and title, then the claim, the
 * paper and the setting in prose. HTML; TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`Xiong et al., Lemma 2: how Pre-LN's stream grows`,
  title: String.raw`Pre-LN's stream grows linearly: \(\mathbb{E}\lVert x_l \rVert^2 = (1 + l/2)\, d\)`,
  claim: String.raw`
    With FFN sublayers and Xavier-initialized weights, the squared norm of Pre-LN's stream grows linearly with the
    layer, \(\mathbb{E}\lVert x_l \rVert^2 = (1 + l/2)\, d\), while Post-LN's, a LayerNorm output, stays at <span
    class="nw">\(d\).</span> This growth is what shrinks the Pre-LN gradients of Theorem 1.
  `,
  paper: String.raw`
    Xiong et al., <cite>On Layer Normalization in the Transformer Architecture</cite>, ICML 2020, Lemma 2 (Section
    3.2).
  `,
  setting: String.raw`
    The lemma's: MLP blocks only, \(x \mapsto \mathrm{ReLU}(x W_1)\, W_2\) with \(m = d = 64\), inputs with
    \(\mathbb{E}\lVert x_0 \rVert^2 = d\). The engine scales \(W_1\) by \(\sqrt{2/d}\) and \(W_2\) by
    \(g/\sqrt{m}\); at gain \(g = 1/\sqrt{2}\) the product of the two is \(1/d\), the same as Xavier's
    \(1/\sqrt{d}\) twice, and since ReLU is positively homogeneous the function is exactly the same. \(T = 16\)
    tokens; plotted: the mean over seeds of <span class="nw">\(\lVert h_l \rVert_F^2 / (T d)\).</span>
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  article: true,
  title: citation,
  defaults,
  choices: { depth: [12, 24, 48, 96], seeds: [8, 16, 32, 64] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['depth', 'seeds', 'seed0'];

export const criteria = { slope: 0.5, slopeTol: 0.05, worst: 0.1 };

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params) {
  const rows = [];
  const worst = data.pre.reduce((m, v, l) => Math.max(m, Math.abs(v / (1 + l / 2) - 1)), 0);
  rows.push({
    key: 'slope',
    label: 'Pre-LN: fitted slope of E‖x_l‖²/d over l',
    value: data.fit.slope,
    measured: fixed(data.fit.slope, 3),
    claimed: `0.5 ± ${criteria.slopeTol}`,
    ok: Math.abs(data.fit.slope - criteria.slope) <= criteria.slopeTol,
  });
  rows.push({
    key: 'worst',
    label: 'Pre-LN: largest deviation from 1 + l/2',
    value: worst,
    measured: percent(worst),
    claimed: `0 (≤ ${percent(criteria.worst)})`,
    ok: worst <= criteria.worst,
  });
  return judged(rows, { params });
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const d = result.data;
  const p = result.params;
  const L = p.depth;
  const text =
    `At l = ${L}, Pre-LN's E‖x_l‖²/d is ${fixed(d.pre[L], 2)} against the lemma's 1 + ${L}/2 = ${fixed(1 + L / 2, 1)}; ` +
    `the straight line through all ${L + 1} layers has slope ${fixed(d.fit.slope, 3)} (claimed 1/2) and no layer is ` +
    `more than ${fixed(100 * s.rows[1].value, 1)}% off 1 + l/2 (${p.seeds} seeds). Post-LN's is ` +
    `${fixed(d.post[L], 4)} at every layer after the first: a LayerNorm output has unit mean square, up to ε.`;
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
    chart: 'lemma2',
    title: '\\(\\mathbb{E}\\lVert x_l \\rVert^2 / d\\) at layer \\(l\\)',
    sub: 'mean over seeds; dashes: \\(1 + l/2\\)',
    aria: 'Chart: mean squared stream norm over d at each layer for Pre-LN and Post-LN, with the line 1 + l/2.',
  },
];

/** What the panel's charts draw: a spec for each chart of pageFigures, in its order (charted() names them). */
export function figures(r, col) {
  const { layers, pre, post } = r.data;
  return charted(pageFigures, [
    {
      x: layers,
      xLabel: 'layer l',
      series: [
        archSeries(col, 'pre_ln', pre),
        archSeries(col, 'post_ln', post),
        claimSeries(
          col,
          'claimed: 1 + l/2',
          layers.map((l) => 1 + l / 2),
        ),
      ],
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
    arch: ['post_ln', 'pre_ln'],
    depth: p.depth,
    width: p.width,
    tokens: p.tokens,
    gain: Math.SQRT1_2,
    seed: p.seed0,
  },
  charts: ['stream'],
  note:
    `The same stacks and quantity: the explorer\u2019s stream chart draws the RMS of h_l, whose square is the ` +
    `panel\u2019s E\u2016x_l\u2016\u00b2/d, for seed ${p.seed0}, where the panel averages ${p.seeds} seeds.`,
});
