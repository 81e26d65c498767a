// The claim of Touvron et al. (2021), LayerScale (`claim` below) on the papers page. Judged by that ratio
// over ε; the training lab's Late layers run of LayerScale shows how the ratios and the gates move with
// training (not judged).
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its figures and what their charts draw) and
// embedView() (what its Embed button embeds); ./index.js lists it, and the papers page's views
// (../../papers/) and the build read it from there.
import { decimals, fixed, significant } from '../../shared/format.js';
import { median } from '../lab/common.js';
import { judged, sci, worstFactor } from './common.js';
import { archSeries, charted, claimSeries } from './series.js';
import { layerscaleEpsilon, trainLabRuns, transformer, transformerFields } from './compute.js';

export const id = 'layerscale';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { depth: 12, seed: 0, width: 64, tokens: 16, heads: 4, causal: true };

/** The Late layers run this panel trains (its gates and update ratios after training). */
export const LAYERSCALE_TRAINED = ['layerscale'];

/**
 * Each block's update ratio ||u_l|| / ||h_{l-1}|| of LayerScale and Pre-LN, on one weight bank.
 * Then the training lab's Late layers run of LayerScale, trained: its gates and update ratios.
 */
export function compute(rn, p) {
  const L = p.depth;
  const out = rn.simulate({ ...transformer(p, 'layerscale', L, p.seed), arch: ['layerscale', 'pre_ln'] }).results;
  const pick = (r) => ({
    update_ratio: Array.from(r.update_ratio),
    attn_update_ratio: Array.from(r.attn_update_ratio),
    mlp_update_ratio: Array.from(r.mlp_update_ratio),
  });
  return {
    epsilon: layerscaleEpsilon(L),
    layerscale: pick(out.layerscale),
    pre_ln: pick(out.pre_ln),
    trained: trainLabRuns(rn, 'late', LAYERSCALE_TRAINED),
  };
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Touvron et al. (2021), LayerScale';

/** The claim, in words. */
export const claim =
  "A per-channel λ = ε on each branch makes every block's update ratio ‖u_l‖/‖h_(l−1)‖ about ε at initialization.";

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker (the citation unless it says otherwise) and title, then the claim, the
 * paper and the setting in prose. HTML; TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`LayerScale: every block's update is about \(\varepsilon\)`,
  title: String.raw`A per-channel \(\lambda = \varepsilon\) makes every block's update about \(\varepsilon\)`,
  claim: String.raw`
    LayerScale multiplies each residual branch's output by a learnable diagonal matrix, \(x_{l}' = x_l +
    \mathrm{diag}(\lambda_{l}) F(\mathrm{LN}(x_l))\), initialized to a small \(\varepsilon\) chosen by depth: 0.1 up
    to 18 blocks, \(10^{-5}\) up to 24, \(10^{-6}\) deeper. At initialization each block then changes the stream by
    about \(\varepsilon\) of its size, close to the identity, and the training learns how much each channel of each
    block adds. Checked here: the update ratio of every block at initialization, and how it and the gates move with
    training.
  `,
  paper: String.raw`
    H. Touvron, M. Cord, A. Sablayrolles, G. Synnaeve, H. Jégou, <cite>Going deeper with Image Transformers</cite>
    (CaiT), ICCV 2021 (<a href="https://arxiv.org/abs/2103.17239">arXiv:2103.17239</a>), Section 2.
  `,
  setting: String.raw`
    Pre-LN causal transformer blocks with a final LayerNorm, \(d = 64\), \(T = 16\), 4 heads; one \(\lambda\) per
    sublayer and channel; Pre-LN on the same weights for contrast. Plotted: the update ratio of block \(l\),
    \(\lVert u_l \rVert / \lVert h_{l-1} \rVert\), the attention's and the MLP's combined as the explorer does.
    "About \(\varepsilon\)": every block's ratio between \(\varepsilon/2\) and <span
    class="nw">\(2\varepsilon\).</span> Trained: the training lab's Late layers run of LayerScale (8 blocks of \(d =
    16\), \(\varepsilon = 0.1\), Adam at \(2\times10^{-3}\) for 300 steps), its update ratios at initialization and
    at the end and its gates \(\lambda\) at the end, each over \(\varepsilon\).
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  trains: true,
  title: citation,
  defaults,
  choices: { depth: [12, 18, 24, 36] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['depth', 'seed'];

// every block's ratio / eps within 1/2..2; block 1's attention unit exactly eps x Pre-LN's
export const criteria = { about: 2, same: 1e-4 };

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params) {
  const rows = [];
  let facts = { params };
  const eps = data.epsilon;
  const ls = data.layerscale.update_ratio.map((v) => v / eps);
  const pre = data.pre_ln.update_ratio;
  const first = data.layerscale.attn_update_ratio[0] / (eps * data.pre_ln.attn_update_ratio[0]);
  const worst = worstFactor(ls);
  facts = {
    ...facts,
    eps,
    ls,
    lo: Math.min(...ls),
    hi: Math.max(...ls),
    preLo: Math.min(...pre),
    preHi: Math.max(...pre),
  };
  rows.push({
    key: 'ls_about_eps',
    label: `LayerScale: update ratio / ε (ε = ${sci(eps)}), farthest from 1 over the blocks (${fixed(facts.lo, 2)}–${fixed(facts.hi, 2)})`,
    value: worst,
    measured: `${fixed(worst, 2)}×`,
    claimed: `about 1 (≤ ${criteria.about}×)`,
    ok: worst <= criteria.about,
  });
  rows.push({
    key: 'ls_first',
    label: 'Block 1’s attention: LayerScale’s ratio over ε × Pre-LN’s',
    value: first,
    measured: fixed(first, 6),
    claimed: `1 (same input and weights; ± ${sci(criteria.same)})`,
    ok: Math.abs(first - 1) <= criteria.same,
  });
  rows.push({
    key: 'pre_ln_range',
    label: 'Pre-LN (contrast): update ratio, lowest–highest over the blocks',
    value: facts.preLo,
    measured: `${decimals(facts.preLo)}–${decimals(facts.preHi)}`,
    claimed: '— (ε = 1 in effect)',
    ok: null,
  });
  // trained: the lab's Late layers run of LayerScale, its lesion's contributions ‖u_l‖/‖h_(l−1)‖
  // (the update ratio above) at init and at the end, and its gates λ
  if (data.trained) {
    const T = data.trained.layerscale;
    const eps0 = T.gates.init[0];
    const initOver = Array.from(T.lesion.contribution_init, (v) => v / eps0);
    const endOver = Array.from(T.lesion.contribution, (v) => v / eps0);
    const gateOver = Array.from(T.gates.magnitude, (v, k) => v / T.gates.init[k]);
    const n = T.config.depth,
      steps = T.logs.at(-1).step;
    const trained = {
      eps: eps0,
      depth: n,
      steps,
      loss: T.logs.at(-1).heldout_loss,
      chance: T.task.chance,
      initWorst: worstFactor(initOver),
      initLo: Math.min(...initOver),
      initHi: Math.max(...initOver),
      endMedian: median(endOver),
      endLo: Math.min(...endOver),
      endHi: Math.max(...endOver),
      gateMedian: median(gateOver),
      gateLo: Math.min(...gateOver),
      gateHi: Math.max(...gateOver),
      units: gateOver.length,
    };
    facts = { ...facts, trained };
    rows.push({
      key: 'trained_init_about_eps',
      label: `The lab’s Late layers run (${n} blocks, d = ${T.config.width}, ε = ${sci(eps0)}) at initialization: update ratio / ε, farthest from 1 (${fixed(trained.initLo, 2)}–${fixed(trained.initHi, 2)})`,
      value: trained.initWorst,
      measured: `${fixed(trained.initWorst, 2)}×`,
      claimed: `about 1 (≤ ${criteria.about}×)`,
      ok: trained.initWorst <= criteria.about,
    });
    rows.push({
      key: 'trained_end_over_eps',
      label: `The same run after ${steps} steps: update ratio / ε, median over the blocks (${fixed(trained.endLo, 2)}–${fixed(trained.endHi, 2)})`,
      value: trained.endMedian,
      measured: `${fixed(trained.endMedian, 2)}×`,
      claimed: '— (how it moves with training)',
      ok: null,
    });
    rows.push({
      key: 'trained_gate_over_eps',
      label: `Its gates after ${steps} steps: mean |λ| of each of the ${trained.units} units over ε, median (${fixed(trained.gateLo, 2)}–${fixed(trained.gateHi, 2)})`,
      value: trained.gateMedian,
      measured: `${fixed(trained.gateMedian, 2)}×`,
      claimed: '— (λ = ε at init)',
      ok: null,
    });
  }
  return judged(rows, facts);
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const d = result.data;
  const p = result.params;
  const { eps, lo, hi, preLo, preHi } = s.facts;
  const first = s.rows.find((r) => r.key === 'ls_first').value;
  let text =
    `With λ = ε = ${sci(eps)} at L = ${p.depth} (CaiT's rule: 0.1 up to 18 blocks, 10⁻⁵ up to 24, 10⁻⁶ ` +
    `deeper), every block's update ratio ‖u_l‖/‖h_(l−1)‖ is ${fixed(lo, 2)}–${fixed(hi, 2)} times ε: λ scales ` +
    'every branch, whose output at initialization is about the size of the stream it reads, and LayerScale’s ' +
    `stream stays near h₀. Pre-LN's ratios on the same weights run from ${decimals(preHi)} down to ` +
    `${decimals(preLo)}, falling as its stream grows. In block 1 both read h₀, and LayerScale's attention ` +
    `ratio is ${fixed(first, 6)} × ε × Pre-LN's. `;
  if (d.trained) {
    const t = s.facts.trained;
    text +=
      `Trained, in the training lab\u2019s Late layers run of LayerScale (${t.depth} blocks, ε = ${sci(t.eps)}; ` +
      `held-out loss ${significant(t.loss, 3)} after ${t.steps} steps, chance ${fixed(t.chance, 2)}), the update ` +
      `ratios start at ${fixed(t.initLo, 2)}–${fixed(t.initHi, 2)} × ε and end at ${fixed(t.endLo, 2)}–` +
      `${fixed(t.endHi, 2)} × ε (median ${fixed(t.endMedian, 2)}×): ` +
      (t.endMedian >= 1.1
        ? 'the blocks come to add more of the stream than λ first let them'
        : t.endMedian <= 1 / 1.1
          ? 'the blocks come to add less of the stream than at initialization'
          : 'the blocks add about as much of the stream as at initialization') +
      (t.gateMedian < t.endMedian
        ? `; the gates move less: each unit's mean |λ| ends at a median ${fixed(t.gateMedian, 2)}× ε ` +
          `(${fixed(t.gateLo, 2)}–${fixed(t.gateHi, 2)}), so the rest of the change is in the branches and the ` +
          'stream they are measured against.'
        : `; each unit's mean |λ| ends at a median ${fixed(t.gateMedian, 2)}× ε ` +
          `(${fixed(t.gateLo, 2)}–${fixed(t.gateHi, 2)}).`);
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
    chart: 'layerscale',
    title: 'Update ratio of block \\(l\\)',
    sub: 'log scale; dashes: \\(\\varepsilon\\)',
    aria: 'Chart: the update ratio of each block for LayerScale and Pre-LN, with the line epsilon, log scale.',
  },
];

/** What the panel's charts draw: a spec for each chart of pageFigures, in its order (charted() names them). */
export function figures(r, col) {
  const d = r.data;
  const blocks = d.layerscale.update_ratio.map((_, l) => l + 1);
  return charted(pageFigures, [
    {
      x: blocks,
      xLabel: 'block l',
      yLog: true,
      series: [
        archSeries(col, 'layerscale', d.layerscale.update_ratio, { points: true }),
        archSeries(col, 'pre_ln', d.pre_ln.update_ratio, { points: true }),
        claimSeries(
          col,
          'claimed: ε',
          blocks.map(() => d.epsilon),
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
    ...transformerFields(p),
    arch: ['pre_ln', 'layerscale'],
    depth: p.depth,
    final_norm: 'layernorm',
    seed: p.seed,
  },
  charts: ['update'],
  exact: true,
  note:
    'This is the panel\u2019s figure: the same stacks and update ratios, where the explorer draws its 1/\u221al ' +
    'line the panel draws \u03b5.',
});
