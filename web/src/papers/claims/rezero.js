// The claim of Bachlechner et al. (2020), ReZero (`claim` below) on the papers page. The trained half is
// judged by the lab's own checks (shared/train-verdicts.js).
//
// The claim's part of the papers page: its citation and the claim in words, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel) and figures() (what its charts draw); ./index.js lists it, and ../repro.js,
// ../captions.js and ../panels.js read it from there.
import { DEFAULTS } from '../../engine/experiments.js';
import { decimals, significant } from '../../shared/format.js';
import { halfway, verdict as presetVerdict } from '../../claims/lab/index.js';
import { judged, sci, worstDeviation, streamFigure } from './common.js';
import { perLayer } from '../series.js';

export const id = 'rezero';

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Bachlechner et al. (2020), ReZero';

/** The claim, in words. */
export const claim =
  "With every gate α = 0 the stack starts as the identity, each layer's gradient the top's; trained (the training lab's ReZero preset), the deep ReZero stack trains where the plain one does not.";

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  trains: true,
  title: citation,
  defaults: DEFAULTS.rezero,
  choices: { depth: [12, 48, 96, 192] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['depth', 'seed'];

// every |g_l / g_L - 1| and |RMS h_l / RMS h_0 - 1| <= 1e-6 (float32 sums of zeros)
export const criteria = { exact: 1e-6 };

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes. */
export function summarize(result) {
  const d = result.data;
  const p = result.params;
  const C = criteria;
  const rows = [];
  let facts = { params: p };
  const z = d.rezero,
    pre = d.pre_ln;
  const L = p.depth;
  const grad = worstDeviation(z.grad_norm, z.grad_norm[L]);
  const stream = worstDeviation(z.stream_rms, z.stream_rms[0]);
  const preGrad = worstDeviation(pre.grad_norm, pre.grad_norm[L]);
  facts = { ...facts, grad, stream, preGrad, preBottom: pre.rel_grad[0] };
  rows.push({
    key: 'rezero_grad',
    label: 'ReZero: largest |g_l / g_L − 1| over the layers',
    value: grad,
    measured: grad === 0 ? '0' : decimals(grad),
    claimed: `0 (≤ ${sci(C.exact)})`,
    ok: grad <= C.exact,
  });
  rows.push({
    key: 'rezero_stream',
    label: 'ReZero: largest |RMS(h_l) / RMS(h_0) − 1|',
    value: stream,
    measured: stream === 0 ? '0' : decimals(stream),
    claimed: `0, the identity (≤ ${sci(C.exact)})`,
    ok: stream <= C.exact,
  });
  rows.push({
    key: 'pre_ln_grad',
    label: 'Pre-LN (contrast): largest |g_l / g_L − 1|',
    value: preGrad,
    measured: decimals(preGrad),
    claimed: '— (the highway plus every branch)',
    ok: null,
  });
  // trained: the lab's ReZero preset, judged by the lab's own checks (shared/train-verdicts.js)
  if (d.trained) {
    const T = d.trained;
    const lab = presetVerdict('rezero', T);
    const [zCheck, plainCheck, resCheck] = lab.checks;
    const n = T.rezero.config.depth,
      steps = T.rezero.config.steps;
    const chance = T.rezero.task.chance;
    const last = (k) => T[k].logs.at(-1).heldout_loss;
    facts = { ...facts, lab, trainedDepth: n, steps, chance, line: halfway(T.rezero.task) };
    rows.push({
      key: 'trained_rezero',
      label: `Trained (the lab’s ReZero preset: ${n} MLP blocks, ${steps} steps): ReZero’s held-out loss (chance ${significant(chance, 3)})`,
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
      `Trained, as the training lab\u2019s ReZero preset trains them (teacher regression, ${n} MLP blocks of ` +
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
 * The panel's figures as the page lays them out (../figures.js writes them into papers.html at build
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

/** What the panel's chart(s) draw: [{chart, spec}], each chart named by its data-chart in papers.html. */
export function figures(r, col) {
  return perLayer(
    r,
    col,
    ['rezero', 'pre_ln'],
    [
      ['rezero', 'rel_grad'],
      ['rezero-stream', 'stream_rms'],
    ],
  );
}
