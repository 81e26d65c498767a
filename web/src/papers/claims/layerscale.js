// The claim of Touvron et al. (2021), LayerScale (`claim` below) on the papers page. Judged by that ratio
// over ε; the training lab's Late layers run of LayerScale shows how the ratios and the gates move with
// training (not judged).
//
// The claim's part of the papers page: its citation and the claim in words, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel) and figures() (what its charts draw); ./index.js lists it, and ../repro.js,
// ../captions.js and ../panels.js read it from there.
import { DEFAULTS } from '../../engine/experiments.js';
import { decimals, fixed, significant } from '../../shared/format.js';
import { median } from '../../claims/lab/common.js';
import { judged, sci, worstFactor } from './common.js';
import { archSeries, claimSeries } from '../series.js';

export const id = 'layerscale';

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Touvron et al. (2021), LayerScale';

/** The claim, in words. */
export const claim =
  "A per-channel λ = ε on each branch makes every block's update ratio ‖u_l‖/‖h_(l−1)‖ about ε at initialization.";

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  trains: true,
  title: citation,
  defaults: DEFAULTS.layerscale,
  choices: { depth: [12, 18, 24, 36] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['depth', 'seed'];

// every block's ratio / eps within 1/2..2; block 1's attention unit exactly eps x Pre-LN's
export const criteria = { about: 2, same: 1e-4 };

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes. */
export function summarize(result) {
  const d = result.data;
  const p = result.params;
  const C = criteria;
  const rows = [];
  let facts = { params: p };
  const eps = d.epsilon;
  const ls = d.layerscale.update_ratio.map((v) => v / eps);
  const pre = d.pre_ln.update_ratio;
  const first = d.layerscale.attn_update_ratio[0] / (eps * d.pre_ln.attn_update_ratio[0]);
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
    claimed: `about 1 (≤ ${C.about}×)`,
    ok: worst <= C.about,
  });
  rows.push({
    key: 'ls_first',
    label: 'Block 1’s attention: LayerScale’s ratio over ε × Pre-LN’s',
    value: first,
    measured: fixed(first, 6),
    claimed: `1 (same input and weights; ± ${sci(C.same)})`,
    ok: Math.abs(first - 1) <= C.same,
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
  if (d.trained) {
    const T = d.trained.layerscale;
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
      claimed: `about 1 (≤ ${C.about}×)`,
      ok: trained.initWorst <= C.about,
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
 * The panel's figures as the page lays them out (../figures.js writes them into papers.html at build
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

/** What the panel's chart(s) draw: [{chart, spec}], each chart named by its data-chart in papers.html. */
export function figures(r, col) {
  const d = r.data;
  const blocks = d.layerscale.update_ratio.map((_, l) => l + 1);
  return [
    {
      chart: 'layerscale',
      spec: {
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
    },
  ];
}
