// The claim of Pagliardini et al. (2024), DenseFormer (`claim` below) on the papers page. Judged at
// initialization against Pre-LN and, trained, by the late blocks' weights (shared/dwa-weights.js's dwaFacts).
//
// The module holds all of the claim: its computation (defaults, compute(), run by the engine worker
// through reproduce()), its citation and the claim in words, the section's prose, the panel's metadata and
// controls, the criteria, summarize() (the measured-vs-claimed rows and the verdict), caption() (the
// sentence under the panel), pageFigures and figures() (its figures and what their charts draw) and
// embedView() (what its Embed button embeds); ./index.js lists it, and the papers page's views
// (../../papers/) and the build read it from there.
import { decimals, fixed, significant } from '../../shared/format.js';
import { dwaFacts, sourceName } from '../../shared/dwa-weights.js';
import { judged, GRAD_BY_LAYER } from './common.js';
import { charted, perLayer } from './series.js';
import { DWA_TRAIN, dwaStack, largestDifference } from './compute.js';
import { defaultTrainConfig } from '../../shared/train-fields.js';

export const id = 'dwa';

/** The computation's parameters when a request leaves them out (reproduce()). */
export const defaults = { depth: 8, seed: 0 };

/**
 * DenseFormer against Pre-LN at initialization, then DenseFormer trained. At initialization: spec
 * v1's per-layer numbers of the stack the trainer builds (train_config.cpp's stack_config: T = 2n
 * tokens, causal, the final LayerNorm both train with), and the first training step of each
 * (its loss and per-layer numbers, the gradients at the initial weights on the same batch).
 * Then DenseFormer's run of DWA_TRAIN and its learned averaging weights. Every trainer made here
 * is deleted before it returns.
 */
export function compute(rn, p) {
  const train = { ...DWA_TRAIN, depth: p.depth, seed: p.seed };
  const firsts = {};
  for (const arch of ['dwa', 'pre_ln']) {
    const tr = rn.trainer({ ...train, arch, log_every: 1 });
    try {
      firsts[arch] = { config: tr.config, log: tr.step(1)[0] };
    } finally {
      tr.delete();
    }
  }
  const sim = rn.simulate({ ...dwaStack(firsts.dwa.config), arch: ['dwa', 'pre_ln'] });
  const simPairs = Object.keys(sim.results.dwa)
    .filter((k) => ArrayBuffer.isView(sim.results.dwa[k]))
    .map((k) => [sim.results.dwa[k], sim.results.pre_ln[k]]);
  const a = firsts.dwa.log,
    b = firsts.pre_ln.log;
  const stepPairs = [
    [[a.train_loss], [b.train_loss]],
    ...Object.keys(a)
      .filter((k) => ArrayBuffer.isView(a[k]))
      .map((k) => [a[k], b[k]]),
  ];
  const tr = rn.trainer({ ...train, arch: 'dwa' });
  let trained;
  try {
    const logs = tr.step(train.steps);
    const last = logs[logs.length - 1];
    trained = {
      config: tr.config,
      steps: tr.stepsDone,
      outcome: tr.outcome(),
      chance: tr.task.chance,
      optimal: tr.task.optimal,
      heldout_loss: last.heldout_loss,
      heldout_accuracy: last.heldout_accuracy,
      weights: tr.dwaWeights().map((row) => Array.from(row)),
    };
  } finally {
    tr.delete();
  }
  const pick = (r) => ({ grad_norm: Array.from(r.grad_norm), stream_rms: Array.from(r.stream_rms) });
  return {
    init: {
      config: sim.config,
      dwa: pick(sim.results.dwa),
      pre_ln: pick(sim.results.pre_ln),
      simulate: largestDifference(simPairs),
      firstStep: largestDifference(stepPairs),
      // the global gradient norms, over every parameter: DenseFormer's has its averaging weights too
      gradGlobal: { dwa: a.grad_norm_global, pre_ln: b.grad_norm_global },
      mixGrad: Math.sqrt(Math.max(0, a.grad_norm_global ** 2 - b.grad_norm_global ** 2)),
    },
    trained,
  };
}

/** The paper and the part of it the claim is from; the panel's title. */
export const citation = 'Pagliardini et al. (2024), DenseFormer';

/** The claim, in words. */
export const claim =
  'With its averaging weights at the identity it starts as Pre-LN to the bit, then learns to read earlier layers, the embedding most.';

/**
 * The claim's section of the papers page, written at build time by ../../papers/sections.js: its entry in
 * the table of contents, its kicker (the citation unless it says otherwise) and title, then the claim, the
 * paper and the setting in prose. HTML; TeX between \( \) becomes MathML.
 */
export const prose = {
  toc: String.raw`DenseFormer: Pre-LN at initialization, then what its blocks learn to read`,
  title: String.raw`DenseFormer starts as Pre-LN exactly, then learns to read earlier layers`,
  claim: String.raw`
    DenseFormer adds a depth-weighted average after every block: the stream after block \(l\) is \(x_l =
    \sum_{j=0}^{l} w_{l,j}\, y_j\), over the embedding \(y_0 = h_0\) and the outputs \(y_1, \dots, y_l\) of blocks 1
    to \(l\), with learned scalar weights initialized to \(w_{l,l} = 1\) and 0 elsewhere, so that at initialization
    it is the transformer it extends. After training, in the paper's words, "the learned DWA weights exhibit
    coherent patterns of information flow, revealing the strong and structured reuse of activations from distant
    layers". Checked here: the initialization, exactly, and the weights of a small trained run.
  `,
  paper: String.raw`
    M. Pagliardini, A. Mohtashami, F. Fleuret, M. Jaggi, <cite>DenseFormer: Enhancing Information Flow in
    Transformers via Depth Weighted Averaging</cite>, 2024 (<a
    href="https://arxiv.org/abs/2402.02622">arXiv:2402.02622</a>), abstract and Section 3.
  `,
  setting: String.raw`
    The training lab's Late layers run: reverse 4 of 8 symbols (\(T = 8\) tokens), causal Pre-LN transformer blocks
    with \(d = 16\), MLP width 32, 4 heads, GELU, learned positions and a final LayerNorm; Adam at \(2 \times
    10^{-3}\), 16 sequences a step, 300 steps. At initialization, DenseFormer against Pre-LN on the same weights:
    every per-layer number of the engine's analysis (gradient, stream RMS, update ratios, the six weight gradients)
    and the first training step's loss and per-layer numbers; "exactly" is a difference of 0. Trained, over the late
    blocks \(l > L/2\): the weight on layers two or more back over the block's own, \(\sum_{j \le l-2} \lvert
    w_{l,j} \rvert / \lvert w_{l,l} \rvert\), mean ("reused": at least 0.1); and the mean \(\lvert w_{l,0} \rvert\)
    over the mean \(\lvert w_{l,j} \rvert\), \(0 < j < l\) ("the embedding read most": above 1). Trained when the
    page loads, like every panel's computation.
  `,
};

/** The panel: its title, defaults and the choices its controls offer. */
export const metadata = {
  trains: true,
  title: citation,
  defaults,
  choices: { depth: [4, 8, 12] },
};

/** The panel's controls, in the order its form shows them (a choice where metadata.choices has one). */
export const controls = ['depth', 'seed'];

// at init DenseFormer's numbers are Pre-LN's to the bit; trained, the late blocks (l > L/2) take at
// least a tenth of their own weight from layers two or more back, and more from the embedding
// than from each of their other earlier layers (dwa-weights.js's dwaFacts)
export const criteria = { reuse: 0.1, embedding: 1 };

/** The measured-vs-claimed rows, the verdict and the facts the caption quotes, from a result's data and params. */
export function summarize(data, params) {
  const rows = [];
  let facts = { params };
  const { init, trained } = data;
  const L = trained.weights.length;
  const f = dwaFacts(trained.weights);
  facts = { ...facts, ...f, L };
  const zero = (v) => (v === 0 ? '0' : decimals(v));
  rows.push({
    key: 'init_simulate',
    label: `At initialization: largest |DenseFormer − Pre-LN| over the ${init.simulate.count} per-layer numbers of the engine’s analysis (gradient, stream RMS, update ratios, six weight gradients)`,
    value: init.simulate.max,
    measured: zero(init.simulate.max),
    claimed: '0, exactly (w_(l,l) = 1, every other w = 0)',
    ok: init.simulate.max === 0,
  });
  rows.push({
    key: 'init_first_step',
    label: `The first training step: largest |difference| of the loss and the ${init.firstStep.count - 1} per-layer numbers it logs`,
    value: init.firstStep.max,
    measured: zero(init.firstStep.max),
    claimed: '0, exactly',
    ok: init.firstStep.max === 0,
  });
  rows.push({
    key: 'init_mix_grad',
    label: 'The averaging weights’ own gradient at that step, √(‖g‖² of DenseFormer − ‖g‖² of Pre-LN)',
    value: init.mixGrad,
    measured: decimals(init.mixGrad),
    claimed: '— (not 0: what moves them off the identity)',
    ok: null,
  });
  rows.push({
    key: 'late_reuse',
    label: `After ${trained.steps} steps, blocks ${f.from}–${L}: weight on layers two or more back over the weight on themselves, Σ_(j≤l−2) |w_(l,j)| / |w_(l,l)|, mean`,
    value: f.reuse,
    measured: fixed(f.reuse, 3),
    claimed: `≥ ${criteria.reuse} (distant layers reused)`,
    ok: f.reuse >= criteria.reuse,
  });
  rows.push({
    key: 'late_embedding',
    label: `Blocks ${f.from}–${L}: mean |w_(l,0)| (the embedding) over the mean |w_(l,j)| of their other earlier layers`,
    value: f.embedding,
    measured: `${fixed(f.embedding, 2)}×`,
    claimed: `> ${criteria.embedding} (the embedding read most)`,
    ok: f.embedding > criteria.embedding,
  });
  rows.push({
    key: 'trained_loss',
    label: `DenseFormer’s held-out loss after ${trained.steps} steps (chance ${fixed(trained.chance, 2)})`,
    value: trained.heldout_loss,
    measured: significant(trained.heldout_loss, 3),
    claimed: '— (it must train for its weights to say anything)',
    ok: null,
  });
  return judged(rows, facts);
}

/** The caption's text, from the result and its summary. */
export function caption(result, s) {
  const d = result.data;
  const p = result.params;
  const { init, trained } = d;
  const f = s.facts;
  const L = f.L;
  const c = trained.config;
  const signed = (v) => significant(v, 2).replace('-', '\u2212');
  const n = init.simulate.count,
    m = init.firstStep.count - 1;
  let text =
    init.simulate.max === 0 && init.firstStep.max === 0
      ? `At initialization every averaging weight is 0 except w_(l,l) = 1, so each average is its own block's ` +
        `output: DenseFormer and Pre-LN (${L} blocks, seed ${p.seed}) agree to the bit on all ${n} per-layer ` +
        `numbers of the engine's analysis and, in the first training step, on the loss and all ${m} per-layer ` +
        'numbers it logs. '
      : `At initialization DenseFormer and Pre-LN (${L} blocks, seed ${p.seed}) differ by up to ` +
        `${decimals(init.simulate.max)} over the ${n} per-layer numbers of the engine's analysis and by up to ` +
        `${decimals(init.firstStep.max)} over the first training step's loss and ${m} per-layer numbers: ` +
        'DenseFormer does not start exactly as Pre-LN here. ';
  text +=
    `Only the global gradient norm differs (${decimals(init.gradGlobal.dwa)} against ` +
    `${decimals(init.gradGlobal.pre_ln)}): it includes the averaging weights' own gradient, ` +
    `${decimals(init.mixGrad)}, which moves them off the identity at the first step. ` +
    `After ${trained.steps} steps of reversing ${c.seq} of ${c.vocab} symbols (held-out loss ` +
    `${significant(trained.heldout_loss, 3)}, chance ${fixed(trained.chance, 2)}) the diagonal stays between ` +
    `${fixed(f.diagLo, 2)} and ${fixed(f.diagHi, 2)}; blocks ${f.from}–${L} take on average ` +
    `${fixed(f.reuse, 2)} of their own weight from layers two or more back, and their weights on the ` +
    `embedding are on average ${fixed(f.embedding, 2)}× as large as those on their other earlier layers. `;
  const e = f.embeddingWeights;
  const range = `${signed(Math.min(...e))} to ${signed(Math.max(...e))}`;
  text += e.every((w) => w < 0)
    ? `Those weights on h₀ are all negative (${range}): the late blocks subtract part of the embedding. `
    : e.every((w) => w > 0)
      ? `Those weights on h₀ are all positive (${range}): the late blocks add the embedding back. `
      : `Those weights on h₀ have both signs (${range}). `;
  if (f.off)
    text += `The largest weight off the diagonal is ${signed(f.off.w)} (block ${f.off.l} reading ${sourceName(f.off.l, f.off.j)}). `;
  if (trained.outcome !== 'trained')
    text += `The run did not train (${trained.outcome}), so its weights say little about the claim. `;
  text +=
    `The training lab\u2019s Late layers claim trains ${L === 8 ? 'this same run' : 'this run at 8 blocks'} ` +
    'beside Pre-LN and the other answers, and skips each block in turn.';
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
    chart: 'dwa',
    title: 'Gradient reaching layer \\(l\\) at initialization',
    sub: GRAD_BY_LAYER,
    short: true,
    aria: 'Chart: the gradient at each layer at initialization for Pre-LN and DenseFormer, log scale.',
  },
  {
    matrix: 'dwa',
    title: 'Which earlier layers each block reads, after training',
    sub: 'row \\(l\\): \\(w_{l,0}\\) (the embedding, left) to \\(w_{l,l}\\) (the block itself, the diagonal); at initialization the diagonal is 1 and the rest 0',
  },
];

/**
 * What the panel's charts draw: a spec for each chart of pageFigures, in its order (charted() names them);
 * here DenseFormer and Pre-LN at initialization (Pre-LN drawn first, DenseFormer's dashes over it).
 */
export function figures(r, col) {
  return charted(pageFigures, perLayer({ data: r.data.init }, col, ['pre_ln', 'dwa'], ['grad_norm']));
}

/** The matrix of learned averaging weights the panel shows beside its chart ([data-matrix]): the run the result holds. */
export const matrix = (r) => ({
  key: 'dwa',
  label: `DenseFormer after ${r.data.trained.steps} steps`,
  rows: r.data.trained.weights,
});

/**
 * What the panel's Embed button embeds at its parameters `p`: the explorer's view of its setting
 * ({config, charts, exact, note}; ../../papers/embed-views.js completes it), and in words how it
 * differs from the panel's figure.
 */
export const embedView = (p) => ({
  config: {
    ...dwaStack({ ...defaultTrainConfig(), ...DWA_TRAIN, depth: p.depth, seed: p.seed }),
    arch: ['pre_ln', 'dwa'],
  },
  charts: ['grad'],
  note:
    `The panel\u2019s first chart is this view: the gradient at each layer of the same ${p.depth} blocks at ` +
    `initialization (seed ${p.seed}), the same numbers. Its matrix comes from training, which the explorer does ` +
    `not do: the training lab\u2019s Late layers claim trains ${p.depth === 8 ? 'the same run' : 'this run at 8 blocks'}.`,
});
