// The claim of Bachlechner et al. (2020), ReZero (`claim` below) on the papers page. The trained half is
// judged by the lab's own checks (../lab/).
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its figures and what their charts draw) and
// embedView() (what its Embed button embeds); ./index.js lists it, and the papers page's views
// (../../papers/) and the build read it from there.
import { decimals, significant } from '../../shared/format.js';
import { halfway, verdict as labVerdict } from '../lab/index.js';
import { judged, sci, worstDeviation, streamFigure } from './common.js';
import { charted, perLayer } from './series.js';
import { trainLabRuns, transformer, transformerFields } from './compute.js';

export const id = 'rezero';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { depth: 96, seed: 0, width: 64, tokens: 16, heads: 4, causal: true };

/**
 * One stack of ReZero and of Pre-LN, no final norm: the gradient at every
 * layer over the top's, and the stream. Then the training lab's ReZero claim, trained.
 */
export function compute(rn, p) {
  const L = p.depth;
  const out = rn.simulate({ ...transformer(p, 'rezero', L, p.seed), arch: ['rezero', 'pre_ln'] }).results;
  const pick = (r) => ({
    grad_norm: Array.from(r.grad_norm),
    rel_grad: Array.from(r.grad_norm, (g) => g / r.grad_norm[L]),
    stream_rms: Array.from(r.stream_rms),
  });
  return { rezero: pick(out.rezero), pre_ln: pick(out.pre_ln), trained: trainLabRuns(rn, 'rezero') };
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Bachlechner et al. (2020), ReZero';

/** The claim, in words. */
export const claim =
  "With every gate α = 0 the stack starts as the identity, each layer's gradient the top's; trained (the training lab's ReZero claim), the deep ReZero stack trains where the plain one does not.";

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker (the citation unless it says otherwise) and title, then the claim, the
 * paper and the setting in prose. HTML; TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`ReZero: the identity at initialization`,
  title: String.raw`ReZero starts as the identity: every gradient equals the top's`,
  claim: String.raw`
    ReZero drops the norm and gates each residual branch with a learnable scalar initialized to zero, \(x_{i+1} =
    x_i + \alpha_i F(x_i)\), <span class="nw">\(\alpha_i = 0\):</span> at initialization the network is the
    identity, so its input-output Jacobian is the identity and every layer receives the gradient of the top exactly
    (dynamical isometry). The paper's headline is that such deep stacks then train, and faster. Checked here: both
    halves, the identity at initialization and, trained, a deep ReZero stack against the plain stack of the same
    depth.
  `,
  paper: String.raw`
    T. Bachlechner, B. P. Majumder, H. H. Mao, G. W. Cottrell, J. McAuley, <cite>ReZero is All You Need: Fast
    Convergence at Large Depth</cite>, UAI 2021 (<a href="https://arxiv.org/abs/2003.04887">arXiv:2003.04887</a>),
    Section 3.
  `,
  setting: String.raw`
    Causal transformer blocks, \(d = 64\), \(T = 16\), 4 heads, one \(\alpha\) per sublayer (two per block), no norm
    anywhere and no final norm; Pre-LN on the same weights (no final norm either) for contrast. Measured: the
    largest \(\lvert g_l / g_L - 1 \rvert\) over the layers, \(g_l = \lVert \partial \mathcal{L} / \partial h_l
    \rVert\), and the same for the stream's RMS against the input's. "Exactly": at most \(10^{-6}\) in float32.
    Trained: the training lab's ReZero claim, teacher regression with 56 MLP blocks of width 32, SGD with momentum
    at \(3\times10^{-3}\) for 200 steps, ReZero, the plain stack and the residual stack without a norm, judged as
    the lab judges them: ReZero trains (held-out loss below halfway from chance to the optimum), the plain stack
    ends within 10% of chance, the residual stack does not train.
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  trains: true,
  title: citation,
  defaults,
  choices: { depth: [12, 48, 96, 192] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['depth', 'seed'];

// every |g_l / g_L - 1| and |RMS h_l / RMS h_0 - 1| <= 1e-6 (float32 sums of zeros)
export const criteria = { exact: 1e-6 };

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params) {
  const rows = [];
  let facts = { params };
  const z = data.rezero,
    pre = data.pre_ln;
  const L = params.depth;
  const grad = worstDeviation(z.grad_norm, z.grad_norm[L]);
  const stream = worstDeviation(z.stream_rms, z.stream_rms[0]);
  const preGrad = worstDeviation(pre.grad_norm, pre.grad_norm[L]);
  facts = { ...facts, grad, stream, preGrad, preBottom: pre.rel_grad[0] };
  rows.push({
    key: 'rezero_grad',
    label: 'ReZero: largest |g_l / g_L − 1| over the layers',
    value: grad,
    measured: grad === 0 ? '0' : decimals(grad),
    claimed: `0 (≤ ${sci(criteria.exact)})`,
    ok: grad <= criteria.exact,
  });
  rows.push({
    key: 'rezero_stream',
    label: 'ReZero: largest |RMS(h_l) / RMS(h_0) − 1|',
    value: stream,
    measured: stream === 0 ? '0' : decimals(stream),
    claimed: `0, the identity (≤ ${sci(criteria.exact)})`,
    ok: stream <= criteria.exact,
  });
  rows.push({
    key: 'pre_ln_grad',
    label: 'Pre-LN (contrast): largest |g_l / g_L − 1|',
    value: preGrad,
    measured: decimals(preGrad),
    claimed: '— (the highway plus every branch)',
    ok: null,
  });
  // trained: the lab's ReZero claim, judged by the lab's own checks (../lab/)
  if (data.trained) {
    const T = data.trained;
    const lab = labVerdict('rezero', T);
    const [zCheck, plainCheck, resCheck] = lab.checks;
    const n = T.rezero.config.depth,
      steps = T.rezero.config.steps;
    const chance = T.rezero.task.chance;
    const last = (k) => T[k].logs.at(-1).heldout_loss;
    facts = { ...facts, lab, trainedDepth: n, steps, chance, line: halfway(T.rezero.task) };
    rows.push({
      key: 'trained_rezero',
      label: `Trained (the lab’s ReZero claim: ${n} MLP blocks, ${steps} steps): ReZero’s held-out loss (chance ${significant(chance, 3)})`,
      value: last('rezero'),
      measured: zCheck.measured,
      claimed: `trains (< ${significant(facts.line, 3)}, halfway from chance to the optimum)`,
      ok: zCheck.holds,
    });
    rows.push({
      key: 'trained_plain',
      label: `The plain stack, ${n} layers, same training: held-out loss`,
      value: last('plain'),
      measured: plainCheck.measured,
      claimed: `does not train (> ${significant(0.9 * chance, 3)}, within 10% of chance)`,
      ok: plainCheck.holds,
    });
    rows.push({
      key: 'trained_residual',
      label: `The residual stack without a norm, ${n} blocks: held-out loss`,
      value: Number.isFinite(last('residual')) ? last('residual') : Infinity, // a loss that is not finite as ∞
      measured: resCheck.measured,
      claimed: 'does not train (not below halfway)',
      ok: resCheck.holds,
    });
  }
  return judged(rows, facts);
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const d = result.data;
  const p = result.params;
  const { grad, stream, preGrad, preBottom } = s.facts;
  const L = p.depth;
  let text =
    `With α = 0 in all ${2 * L} sublayers of the ${L} blocks, every branch is multiplied by zero: the stream ` +
    `stays h₀ (largest |RMS(h_l)/RMS(h₀) − 1| = ${stream === 0 ? '0' : decimals(stream)}) and the gradient ` +
    `reaching every layer is the top's (largest |g_l/g_L − 1| = ${grad === 0 ? '0' : decimals(grad)}). ` +
    `Pre-LN, on the same weights, departs from the top's gradient by up to ${decimals(preGrad)} ` +
    `(layer 0 receives ${decimals(preBottom)}× the top's): its branches add their Jacobians to the identity. ` +
    'The identity is where ReZero starts, not where it stays: the gradient of each α is the stream gradient ' +
    'against the branch output, which is not zero, so α moves at the first step. ';
  if (d.trained) {
    const { lab, trainedDepth: n, steps } = s.facts;
    const [z, plain, res] = lab.checks;
    text +=
      `Trained, as the training lab\u2019s ReZero claim trains them (teacher regression, ${n} MLP blocks of ` +
      `width ${d.trained.rezero.config.width}, ${steps} steps of SGD with momentum): ${lab.caption} ` +
      (z.holds && plain.holds
        ? `So the deep ReZero stack trains where the plain stack of the same depth does not`
        : z.holds
          ? 'ReZero trains, but so does the plain stack of the same depth here'
          : 'ReZero does not train here') +
      (res.holds
        ? ', and the residual stack without its gates does not train either.'
        : ', while the residual stack without its gates trains too.');
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
    chart: 'rezero',
    title: "Gradient reaching layer \\(l\\) over the top's",
    sub: '<span class="nw">\\(g_l / g_L\\),</span> log scale',
    aria: "Chart: the gradient at each layer over the top's, for ReZero and Pre-LN, log scale.",
  },
  streamFigure('rezero', 'ReZero and Pre-LN'),
];

/** What the panel's charts draw: a spec for each chart of pageFigures, in its order (charted() names them). */
export function figures(r, col) {
  return charted(pageFigures, perLayer(r, col, ['rezero', 'pre_ln'], ['rel_grad', 'stream_rms']));
}

/**
 * What the panel's Embed button embeds at its parameters `p`: the explorer's view of its setting
 * ({config, charts, exact, note}; ../../papers/embed-views.js completes it), and in words how it
 * differs from the panel's figure.
 */
export const embedView = (p) => ({
  config: { ...transformerFields(p), arch: ['pre_ln', 'rezero'], depth: p.depth, final_norm: 'none', seed: p.seed },
  charts: ['grad', 'stream'],
  note:
    'The same stacks, both charts: the panel divides each layer\u2019s gradient by the top\u2019s, the explorer ' +
    `draws it as it is (${p.depth} transformer blocks, seed ${p.seed}, no final norm).`,
});
