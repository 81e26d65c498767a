// The claim of Veit et al. (2016), Figure 6 (`claim` below) on the papers page. Judged by the path length
// under which 95% of Pre-LN's gradient lies (rn.pathGradients' distribution).
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its figures and what their charts draw) and
// embedView() (what its Embed button embeds); ./index.js lists it, and the papers page's views
// (../../papers/) and the build read it from there.
import { archSeries, charted } from './series.js';

export const id = 'veit';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { depth: 54, samples: 32, path_seed: 0, seed: 0, width: 64, tokens: 8 };

/**
 * Path statistics of a Pre-LN and an unnormalized residual MLP stack.
 */
export function compute(rn, p) {
  const out = rn.pathGradients({
    arch: ['pre_ln', 'residual'],
    depth: p.depth,
    width: p.width,
    tokens: p.tokens,
    seed: p.seed,
    samples: p.samples,
    path_seed: p.path_seed,
  });
  const res = {};
  for (const [arch, r] of Object.entries(out.results))
    res[arch] = {
      units: r.units,
      full_norm: r.full_norm,
      count: Array.from(r.count),
      measured: Array.from(r.measured),
      mean_norm: Array.from(r.mean_norm),
      sd_norm: Array.from(r.sd_norm),
      total: Array.from(r.total),
    };
  return res;
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Veit et al. (2016), Figure 6';

/** The claim, in words. */
export const claim =
  'Unrolled into paths, a residual stack takes most of its gradient from short paths (5–17 blocks of 54), though the paths centre on half the depth.';

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker (the citation unless it says otherwise) and title, then the claim, the
 * paper and the setting in prose. HTML; TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`Veit et al.: the unrolled view, paths of each length`,
  kicker: 'Veit et al. (2016), the unrolled view',
  title: String.raw`Most of the gradient comes from short paths`,
  claim: String.raw`
    Unrolled, a stack of \(n\) residual blocks is a collection of \(2^n\) paths, \(\binom{n}{k}\) of them through
    \(k\) branches: the path lengths follow a binomial distribution centred on <span class="nw">\(n/2\).</span> Yet
    the gradient a path carries shrinks quickly with its length, so in a 110-layer ResNet (54 blocks) almost all of
    the gradient comes from paths 5 to 17 blocks long: the effective paths are short.
  `,
  paper: String.raw`
    A. Veit, M. Wilber, S. Belongie, <cite>Residual Networks Behave Like Ensembles of Relatively Shallow
    Networks</cite>, NeurIPS 2016 (<a href="https://arxiv.org/abs/1605.06431">arXiv:1605.06431</a>), Section 5 and
    Figure 6.
  `,
  setting: String.raw`
    The paper's measurement on the engine: one forward pass, then backward along a single path, through the branch
    of \(k\) chosen blocks and the skip of all the others (one term of the expansion of <span class="nw">\(\prod_l
    (I + J_l)\)),</span> for paths drawn uniformly among those of each length (every one of them where a length has
    no more paths than the samples); measured: the mean of \(\lVert \partial \mathcal{L} / \partial h_0 \rVert\)
    along the path. The gradient of all paths of length \(k\) is \(\binom{n}{k}\) times that mean, a magnitude as in
    the paper (not the norm of their sum). MLP blocks, \(n = 54\), \(d = 64\), \(T = 8\). The stack is Pre-LN, whose
    branch reads a normalized copy of the stream, as a ResNet's batch-normalized residual block does; the norm's
    Jacobian is part of the branch and the expansion stays exact. The unnormalized residual stack is shown for
    contrast.
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  article: true,
  title: citation,
  defaults,
  choices: { depth: [18, 36, 54], samples: [16, 32, 64] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['depth', 'samples', 'path_seed', 'seed'];

// 95% of the gradient from paths shorter than U/2
export const criteria = {};

/** Path-length quantiles of a distribution over k = 0..U: the first k where the cumulative share reaches q. */
export function quantileLength(weights, q) {
  const sum = weights.reduce((s, v) => s + v, 0);
  let cum = 0;
  for (let k = 0; k < weights.length; k++) {
    cum += weights[k];
    if (cum >= q * sum) return k;
  }
  return weights.length - 1;
}

/** Where the gradient and the paths lie over the path lengths of one stack of rn.pathGradients' result. */
export function pathSummary(r) {
  const U = r.units;
  let peak = 0;
  for (let k = 0; k <= U; k++) if (r.total[k] > r.total[peak]) peak = k;
  const sum = r.total.reduce((s, v) => s + v, 0);
  const shorter = r.total.reduce((s, v, k) => (k < U / 2 ? s + v : s), 0) / sum;
  return {
    k05: quantileLength(r.total, 0.05),
    k95: quantileLength(r.total, 0.95),
    peak,
    shorter,
    count05: quantileLength(r.count, 0.05),
    count95: quantileLength(r.count, 0.95),
  };
}

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data) {
  const rows = [];
  const pre = pathSummary(data.pre_ln),
    res = pathSummary(data.residual);
  const U = data.pre_ln.units;
  rows.push({
    key: 'pre_k95',
    label: 'Pre-LN: 95% of the gradient from paths of length ≤',
    value: pre.k95,
    measured: String(pre.k95),
    claimed: `< ${U / 2} (the mean path length)`,
    ok: pre.k95 < U / 2,
  });
  rows.push({
    key: 'pre_range',
    label: 'Pre-LN: lengths carrying the central 90%',
    value: pre.k05,
    measured: `${pre.k05}–${pre.k95}`,
    claimed:
      U === 54 ? '5–17 (of 54)' : `5–17 of 54, i.e. ${Math.round((5 * U) / 54)}–${Math.round((17 * U) / 54)} of ${U}`,
    ok: null,
  });
  rows.push({
    key: 'paths_range',
    label: 'Paths: lengths of the central 90% of all paths',
    value: pre.count05,
    measured: `${pre.count05}–${pre.count95}`,
    claimed: 'binomial, centred on U/2',
    ok: null,
  });
  rows.push({
    key: 'res_k95',
    label: 'Unnormalized residual (contrast): 95% of the gradient from paths ≤',
    value: res.k95,
    measured: String(res.k95),
    claimed: '— (not the paper\u2019s setting)',
    ok: null,
  });
  return { rows, verdict: pre.k95 < U / 2 ? 'holds' : 'fails', facts: { pre, res, U } };
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const p = result.params;
  const { pre, res, U } = s.facts;
  const text =
    `In the Pre-LN stack of ${U} blocks, 95% of the total gradient magnitude comes from paths of at most ` +
    `${pre.k95} blocks and 90% from lengths ${pre.k05}–${pre.k95}, peaking at ${pre.peak} (Veit et al.: 5–17 of 54), ` +
    `while the paths themselves centre on ${U / 2} (90% of them between ${pre.count05} and ${pre.count95}). ` +
    'Each branch on a path scales its gradient by about 1/RMS of the stream where it reads, so long paths carry ' +
    `almost nothing. Without a norm (the unnormalized residual stack) each branch keeps the gradient's size at ` +
    `initialization, the gradient follows the path count, and 95% of it needs paths up to ${res.k95} blocks: ` +
    'there the claim would not hold. ' +
    `(${p.samples} paths per length: the jagged curve is sampling noise, one path can weigh more than the rest.)`;
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
    chart: 'veit',
    title: 'Share of paths, and of the gradient, by path length \\(k\\)',
    sub: 'each curve sums to 1',
    aria: 'Chart: the binomial distribution of path lengths and the share of the total gradient magnitude carried by paths of each length, for Pre-LN and the unnormalized residual stack.',
  },
  {
    chart: 'veit-mean',
    title: 'Gradient carried by one path of length \\(k\\)',
    sub: 'mean <span class="nw">\\(\\lVert \\partial \\mathcal{L} / \\partial h_0 \\rVert\\),</span> log scale',
    short: true,
    aria: 'Chart: mean gradient norm at the input carried by a single path of each length, log scale.',
  },
];

/** What the panel's charts draw: a spec for each chart of pageFigures, in its order (charted() names them). */
export function figures(r, col) {
  const pre = r.data.pre_ln,
    res = r.data.residual;
  const ks = pre.count.map((_, k) => k);
  const share = (a) => {
    const s = a.reduce((t, v) => t + v, 0);
    return a.map((v) => v / s);
  };
  return charted(pageFigures, [
    {
      x: ks,
      xLabel: 'path length k',
      series: [
        {
          key: 'paths',
          label: 'paths of length k (binomial)',
          values: share(pre.count),
          color: col.muted,
          dash: [2, 3],
          width: 2,
        },
        archSeries(col, 'pre_ln', share(pre.total), { label: 'gradient, Pre-LN' }),
        archSeries(col, 'residual', share(res.total), { label: 'gradient, residual (no norm)' }),
      ],
    },
    {
      x: ks,
      xLabel: 'path length k',
      yLog: true,
      series: [
        archSeries(col, 'pre_ln', pre.mean_norm, { label: 'one path, Pre-LN' }),
        archSeries(col, 'residual', res.mean_norm, { label: 'one path, residual (no norm)' }),
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
  config: { arch: ['residual', 'pre_ln'], depth: p.depth, width: p.width, tokens: p.tokens, seed: p.seed },
  charts: ['grad'],
  note:
    'The panel splits the gradient into paths by their length, which the explorer does not draw; the embed ' +
    `shows the gradient reaching each layer of the same two stacks (${p.depth} MLP blocks, seed ${p.seed}).`,
});
