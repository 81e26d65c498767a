// The claim of Xiong et al. (2020), Figure 3 (`claim` below) on the papers page. Judged by layer 6 over layer
// 1, for the weight the panel shows (FIG3_WEIGHTS).
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its figures and what their charts draw) and
// embedView() (what its Embed button embeds); ./index.js lists it, and the papers page's views
// (../../papers/) and the build read it from there.
import { decimals, fixed } from '../../shared/format.js';
import { judged } from './common.js';
import { archSeries, charted } from './series.js';
import { seedList, transformer, transformerFields, WEIGHTS } from './compute.js';

export const id = 'figure3';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { width: 512, seeds: 2, seed0: 0, tokens: 32, heads: 4, expansion: 2, causal: false };

/**
 * Per-layer weight-gradient norms of a 6-block model, means over seeds.
 */
export function compute(rn, p) {
  const archs = ['post_ln', 'pre_ln'];
  const keys = WEIGHTS;
  const sums = Object.fromEntries(
    archs.map((a) => [a, Object.fromEntries([...keys, 'all'].map((k) => [k, new Array(6).fill(0)]))]),
  );
  const seeds = seedList(p.seed0, p.seeds);
  for (const seed of seeds)
    for (const arch of archs) {
      const r = rn.simulate(transformer(p, arch, 6, seed)).results[arch];
      for (let l = 0; l < 6; l++) {
        let sq = 0;
        for (const k of keys) {
          const v = r[`${k}_grad_norm`][l];
          sums[arch][k][l] += v / seeds.length;
          sq += v * v;
        }
        sums[arch].all[l] += Math.sqrt(sq) / seeds.length;
      }
    }
  return { layers: [1, 2, 3, 4, 5, 6], norms: sums };
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Xiong et al. (2020), Figure 3';

/** The claim, in words. */
export const claim =
  'In a 6-layer model at initialization the weight gradient rises with the layer in Post-LN and stays roughly level in Pre-LN.';

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker (the citation unless it says otherwise) and title, then the claim, the
 * paper and the setting in prose. HTML; TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`Xiong et al., Figure 3: the gradient per layer`,
  title: String.raw`The weight gradient of each layer of a 6-layer model`,
  claim: String.raw`
    Measured in a 6-layer Transformer at initialization: the norm of the gradient of the weights grows with the
    layer index in Post-LN, largest next to the output, while in Pre-LN it stays roughly the same from layer to
    layer.
  `,
  paper: String.raw`
    Xiong et al., <cite>On Layer Normalization in the Transformer Architecture</cite>, ICML 2020, Section 3.3 and
    Figure 3.
  `,
  setting: String.raw`
    6 transformer blocks of the paper's width: \(d = 512\), MLP hidden width 1024, 4 heads, \(T = 32\) tokens, no
    causal mask (an encoder), ReLU; final LayerNorm for Pre-LN. Plotted: the norm of the gradient of the chosen
    weights of block \(l\), mean over seeds. "Rises": layer 6 is at least 1.2× layer 1; "roughly flat": between
    1/1.5× and 1.5×.
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  article: true,
  title: citation,
  defaults,
  choices: { width: [64, 128, 256, 512], seeds: [1, 2, 4] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['weight', 'width', 'seeds', 'seed0'];

// Post-LN top/bottom >= 1.2; Pre-LN within 1/1.5..1.5
export const criteria = { rising: 1.2, flat: 1.5 };

// The weights the panel can show; 'all' is the norm of the gradient of
// every weight of the block together.
export const FIG3_WEIGHTS = {
  all: 'all weights of the block',
  w1: 'W₁ (FFN, first)',
  w2: 'W₂ (FFN, second)',
  wq: 'W_Q',
  wk: 'W_K',
  wv: 'W_V',
  wo: 'W_O',
};

const trend = (r, up = 1.2) => (r >= up ? 'rises' : r <= 1 / up ? 'falls' : 'stays roughly level');

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params, view = {}) {
  const rows = [];
  let facts = { params };
  const w = view.weight ?? 'all';
  const post = data.norms.post_ln[w],
    pre = data.norms.pre_ln[w];
  const rPost = post[5] / post[0],
    rPre = pre[5] / pre[0];
  facts = { ...facts, weight: w, post, pre, rPost, rPre };
  rows.push({
    key: 'post_ratio',
    label: 'Post-LN: layer 6 / layer 1',
    value: rPost,
    measured: `${fixed(rPost, 2)}×`,
    claimed: `rises (≥ ${criteria.rising}×)`,
    ok: rPost >= criteria.rising,
  });
  rows.push({
    key: 'pre_ratio',
    label: 'Pre-LN: layer 6 / layer 1',
    value: rPre,
    measured: `${fixed(rPre, 2)}×`,
    claimed: `roughly flat (${fixed(1 / criteria.flat, 2)}–${criteria.flat}×)`,
    ok: rPre >= 1 / criteria.flat && rPre <= criteria.flat,
  });
  return judged(rows, facts);
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const p = result.params;
  const { weight: w, post, pre, rPost, rPre } = s.facts;
  let text =
    `For ${FIG3_WEIGHTS[w]} at d = ${p.width}, Post-LN's gradient ${trend(rPost)} from ${decimals(post[0])} at layer 1 to ` +
    `${decimals(post[5])} at layer 6 (${fixed(rPost, 2)}×); Pre-LN's ${trend(rPre)}, from ${decimals(pre[0])} to ${decimals(pre[5])} ` +
    `(${fixed(rPre, 2)}×).`;
  if (rPre < 1 / 1.5)
    text +=
      ' In this engine Pre-LN\u2019s gradient falls toward the top instead of staying level: each pre-norm ' +
      'branch reads the stream divided by its RMS, which grows like √(1 + c l) (Lemma 2), so the gradient ' +
      'reaching block l, and with it the block\u2019s weight gradient, shrinks like 1/√(1 + c l). ' +
      'Theorem 1\u2019s 1/√L is the same law read at the last block.';
  if (rPost < 1.2)
    text +=
      ' Post-LN\u2019s rise needs the paper\u2019s width: at small d its per-layer gradients stay level ' +
      '(each LayerNorm\u2019s 1/σ and the branch\u2019s added Jacobian cancel on average); try d = 512.';
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
    chart: 'figure3',
    title: 'Weight-gradient norm of block \\(l\\)',
    sub: 'log scale',
    subKey: 'figure3',
    aria: 'Chart: weight-gradient norm of each of the 6 blocks for Post-LN and Pre-LN, log scale.',
  },
];

/** What the panel's charts draw: a spec for each chart of pageFigures, in its order (charted() names them). */
export function figures(r, col, view) {
  const w = view.weight ?? 'all';
  return charted(pageFigures, [
    {
      x: r.data.layers,
      xLabel: 'block l',
      yLog: true,
      series: [
        archSeries(col, 'post_ln', r.data.norms.post_ln[w], { points: true }),
        archSeries(col, 'pre_ln', r.data.norms.pre_ln[w], { points: true }),
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
  config: { ...transformerFields(p), arch: ['post_ln', 'pre_ln'], depth: 6, final_norm: 'layernorm', seed: p.seed0 },
  charts: ['grad'],
  note:
    `The panel plots the weight gradient of each of the 6 blocks, mean over ${p.seeds} seed${p.seeds === 1 ? '' : 's'}; ` +
    `the explorer draws the gradient of the stream at each layer. The embed shows the same 6 blocks ` +
    `(d = ${p.width}), seed ${p.seed0}, with a final LayerNorm for both (the panel gives one to Pre-LN only).`,
});
