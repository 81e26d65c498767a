// The claim of Li et al. (2024), Mix-LN (`claim` below) on the papers page. Judged by max/min of the block
// gradients at initialization and, after the training lab's Late layers runs, at their last logged step
// (shared/train-verdicts.js's gradSpread).
//
// The claim's part of the papers page: its citation and the claim in words, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel) and figures() (what its charts draw); ./index.js lists it, and ../repro.js,
// ../captions.js and ../panels.js read it from there.
import { DEFAULTS } from '../../engine/experiments.js';
import { fixed, fmtFactor } from '../../shared/format.js';
import { gradSpread } from '../../claims/lab/common.js';
import { judged, spread, variation } from './common.js';
import { archSeries } from '../series.js';

export const id = 'mixln';

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Li et al. (2024), Mix-LN';

/** The claim, in words. */
export const claim =
  'Post-LN in the first quarter of the blocks and Pre-LN above makes the block gradients more uniform than either.';

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  trains: true,
  title: citation,
  defaults: DEFAULTS.mixln,
  choices: { depth: [12, 24, 48], seeds: [1, 2, 4, 8] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['depth', 'seeds', 'seed0'];

// Mix-LN's max/min of the block gradients at most 0.9x Post-LN's and 0.9x Pre-LN's
export const criteria = { margin: 0.9 };

const argmin = (a) => a.indexOf(Math.min(...a));
const argmax = (a) => a.indexOf(Math.max(...a));

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes. */
export function summarize(result) {
  const d = result.data;
  const p = result.params;
  const C = criteria;
  const rows = [];
  let facts = { params: p };
  const s = Object.fromEntries(Object.entries(d.norms).map(([a, v]) => [a, spread(v)]));
  const cv = Object.fromEntries(Object.entries(d.norms).map(([a, v]) => [a, variation(v)]));
  facts = { ...facts, spread: s, cv };
  for (const [arch, name] of [
    ['post_ln', 'Post-LN'],
    ['pre_ln', 'Pre-LN'],
    ['mix_ln', 'Mix-LN'],
  ])
    rows.push({
      key: `${arch}_spread`,
      label: `${name}: max/min of the block gradients (CV ${fixed(cv[arch], 2)})`,
      value: s[arch],
      measured: fmtFactor(s[arch]),
      claimed: arch === 'mix_ln' ? '— (judged in the two rows below)' : '—',
      ok: null,
    });
  for (const [arch, name] of [
    ['post_ln', 'Post-LN'],
    ['pre_ln', 'Pre-LN'],
  ]) {
    const r = s.mix_ln / s[arch];
    rows.push({
      key: `mix_over_${arch}`,
      label: `Mix-LN’s max/min over ${name}’s`,
      value: r,
      measured: `${fixed(r, 3)}×`,
      claimed: `≤ ${C.margin} (more uniform by 10% or more)`,
      ok: r <= C.margin,
    });
  }
  // after training: the lab's Late layers runs, the same measure at their last logged step
  // (shared/train-verdicts.js's gradSpread) and the lab's check (Mix-LN's below both)
  if (d.trained) {
    const T = d.trained;
    const ts = Object.fromEntries(Object.entries(T).map(([k, run]) => [k, gradSpread(run)]));
    const steps = T.mix_ln.logs.at(-1).step;
    const names = {
      post_ln_warmup: `Post-LN (warmup ${T.post_ln_warmup.config.warmup})`,
      pre_ln: 'Pre-LN',
      mix_ln: 'Mix-LN',
    };
    facts = { ...facts, trainedSpread: ts, steps, trainedDepth: T.mix_ln.config.depth, names };
    for (const k of ['post_ln_warmup', 'pre_ln', 'mix_ln'])
      rows.push({
        key: `trained_${k}_spread`,
        label: `After training (the lab’s Late layers run, ${T[k].config.depth} blocks, step ${steps}), ${names[k]}: max/min of the block gradients`,
        value: ts[k],
        measured: fmtFactor(ts[k]),
        claimed: k === 'mix_ln' ? '— (judged in the two rows below)' : '—',
        ok: null,
      });
    for (const k of ['post_ln_warmup', 'pre_ln']) {
      const r = ts.mix_ln / ts[k];
      rows.push({
        key: `trained_mix_over_${k}`,
        label: `After training: Mix-LN’s max/min over ${names[k]}’s`,
        value: r,
        measured: `${fixed(r, 3)}×`,
        claimed: '< 1 (more uniform, the lab’s check)',
        ok: r < 1,
      });
    }
  }
  return judged(rows, facts);
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const d = result.data;
  const p = result.params;
  const { spread: sp, cv } = s.facts;
  const n = d.norms;
  const NAME = { post_ln: 'Post-LN', pre_ln: 'Pre-LN', mix_ln: 'Mix-LN' };
  const beaten = ['post_ln', 'pre_ln'].filter((a) => sp.mix_ln <= 0.9 * sp[a]).map((a) => NAME[a]);
  const where = (a) => `smallest at block ${argmin(n[a]) + 1}, largest at ${argmax(n[a]) + 1}`;
  let text =
    `Over the ${p.depth} blocks (mean of ${p.seeds} seed${p.seeds > 1 ? 's' : ''}), the gradient of each block's ` +
    `weights spans ${fmtFactor(sp.post_ln)} in Post-LN (CV ${fixed(cv.post_ln, 2)}; ${where('post_ln')}), ` +
    `${fmtFactor(sp.pre_ln)} in Pre-LN (CV ${fixed(cv.pre_ln, 2)}; ${where('pre_ln')}) and ` +
    `${fmtFactor(sp.mix_ln)} in Mix-LN (CV ${fixed(cv.mix_ln, 2)}; ${where('mix_ln')}), whose first ` +
    `${d.early} blocks are Post-LN. `;
  text +=
    beaten.length === 2
      ? 'Mix-LN’s are the most uniform of the three.'
      : beaten.length === 1
        ? `Mix-LN’s are more uniform than ${beaten[0]}’s only.`
        : 'Mix-LN’s are not more uniform than either.';
  if (sp.post_ln < sp.mix_ln)
    text +=
      ' Above its Post-LN blocks Mix-LN is Pre-LN, whose block gradients fall as the stream grows (as in Figure ' +
      '3’s panel), while at this width Post-LN’s stay nearly level: at initialization Post-LN is the uniform one.';
  if (d.trained) {
    const ts = s.facts.trainedSpread;
    const T = d.trained;
    const names = s.facts.names;
    const better = ['post_ln_warmup', 'pre_ln'].filter((k) => ts.mix_ln < ts[k]).map((k) => names[k]);
    text +=
      ` After training (the training lab\u2019s Late layers runs: reverse ${T.mix_ln.config.seq} of ` +
      `${T.mix_ln.config.vocab} symbols, ${s.facts.trainedDepth} blocks of width ${T.mix_ln.config.width}, ` +
      `${s.facts.steps} steps), the same max/min at the last step is ${fmtFactor(ts.post_ln_warmup)} for ` +
      `${names.post_ln_warmup}, ${fmtFactor(ts.pre_ln)} for Pre-LN and ${fmtFactor(ts.mix_ln)} for Mix-LN: ` +
      (better.length === 2
        ? 'Mix-LN’s are the most uniform after training too.'
        : better.length === 1
          ? `Mix-LN’s are more uniform than ${better[0]}’s only.`
          : 'after training Mix-LN’s block gradients are the least uniform of the three, as the lab’s Late layers verdict finds.');
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
    chart: 'mixln',
    title: 'Weight-gradient norm of block \\(l\\)',
    sub: 'all six matrices, mean over seeds, log scale',
    aria: 'Chart: the weight-gradient norm of each block for Post-LN, Pre-LN and Mix-LN, log scale.',
  },
];

/** What the panel's chart(s) draw: [{chart, spec}], each chart named by its data-chart in papers.html. */
export function figures(r, col) {
  const { blocks, norms } = r.data;
  return [
    {
      chart: 'mixln',
      spec: {
        x: blocks,
        xLabel: 'block l',
        yLog: true,
        series: ['post_ln', 'pre_ln', 'mix_ln'].map((a) => archSeries(col, a, norms[a], { points: true })),
      },
    },
  ];
}
