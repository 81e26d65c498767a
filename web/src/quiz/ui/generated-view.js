// Questions generated from the simulation (quiz/generated.js), asked on the quiz page:
//   "Which is which": unlabeled gradient and stream curves of a random config; the learner assigns
//   every curve an architecture, then checks.
//   "Predict the number": a number the engine computes, guessed on a log scale; after the guess the
//   curve is drawn with the answer and the guess on it.
//   "Pick the architecture": one of four architectures, answered from the engine's numbers; after the check the
//   curves the answer was read from are drawn, labelled.
//   "Norms" (generated-norms.js): LayerNorm, BatchNorm and RMSNorm, answered from small trained runs and
//   the padded batch; a card of the same shape as "Pick the architecture", without a chart.
//   "Newer architectures" (generated-archs.js): Hyper-Connections, mHC, AttnRes, DenseFormer, DyT,
//   HybridNorm and QK-norm, answered from simulations, an untrained trainer and short training runs;
//   the same card.
// A select above each picks the pool or the kind ("any" draws it from the seed). Each card's
// data-state is loading, asked or checked (a multiple-choice card's is error when no question could be made). All four count toward the session score. Text from generated.js is plain Unicode, set as text.

import {
  whichIsWhich,
  predictNumber,
  pickArch,
  normQuestion,
  normEngine,
  PREDICT_KIND_IDS,
  PICK_KIND_IDS,
  NORM_KIND_IDS,
  NORM_KIND_NAMES,
} from '../generated.js';
import { archQuestion, archEngine, ARCH_KIND_IDS, ARCH_KIND_NAMES } from '../generated-archs.js';
import { significant } from '../../shared/format.js';
import { archLabel } from '../../shared/archs.js';
import { el, replace } from '../../shared/dom.js';
import { createLineChart } from './mini-chart.js';
import { explorerHref, describeSetting, claimHref } from './experiment.js';
import { labHref } from '../train-checks.js';
import { randomSeed } from './session.js';

const DASHES = [[], [9, 4], [2, 3], [12, 3, 2, 3]];

// What the "predict the number" chart shows, per kind: the curve, and where the answer sits.
const PREDICT_CHARTS = {
  'plain-gradient': {
    title: 'Gradient at layer l relative to the top',
    xLabel: 'layer l',
    curve: (doc) => {
      const g = doc.results.plain.grad_norm;
      return Array.from(g, (v) => v / g[g.length - 1]);
    },
    at: () => 0,
  },
  'preln-stream': {
    title: 'Stream RMS at layer l',
    xLabel: 'layer l',
    curve: (doc) => Array.from(doc.results.pre_ln.stream_rms),
    at: (c) => c.depth,
  },
  'residual-growth': {
    title: 'Stream RMS at layer l relative to layer 0',
    xLabel: 'layer l',
    curve: (doc) => {
      const s = doc.results.residual.stream_rms;
      return Array.from(s, (v) => v / s[0]);
    },
    at: (c) => c.depth,
  },
  'lns-stream': {
    title: 'Stream RMS of LNS at layer l',
    xLabel: 'layer l',
    curve: (doc) => Array.from(doc.results.lns.stream_rms),
    at: (c) => c.depth,
  },
  'lns-vs-preln': {
    title: "Pre-LN's stream RMS over LNS's at layer l",
    xLabel: 'layer l',
    curve: (doc) => Array.from(doc.results.pre_ln.stream_rms, (v, i) => v / doc.results.lns.stream_rms[i]),
    at: (c) => c.depth,
  },
  'layerscale-update': {
    title: 'Update ratio of LayerScale block l, ‖u_l‖ / ‖h_(l−1)‖',
    xLabel: 'block l',
    // Block l's ratio at x = l (x = 0 has none).
    curve: (doc) => [NaN, ...Array.from(doc.results.layerscale.update_ratio)],
    at: (c, d) => d.block,
  },
  'mix-ln-post-blocks': {
    title: 'Stream RMS of Mix-LN at layer l: 1 after each Post-LN block',
    xLabel: 'layer l',
    curve: (doc) => Array.from(doc.results.mix_ln.stream_rms),
    // The answer is a count of blocks, not a value on this axis: mark where the stream leaves 1.
    at: (c, d, answer) => answer,
    onCurve: true,
  },
};

// What the kind selects offer (the ids are generated.js's).
const PREDICT_KIND_NAMES = {
  'plain-gradient': 'plain stack: gradient at layer 0',
  'preln-stream': 'Pre-LN: stream RMS at the top',
  'residual-growth': 'residual, no norm: stream growth',
  'lns-stream': 'LNS: stream RMS at the top',
  'lns-vs-preln': 'Pre-LN over LNS: stream ratio',
  'layerscale-update': 'LayerScale: update ratio of a block',
  'mix-ln-post-blocks': 'Mix-LN: how many Post-LN blocks',
};
const PICK_KIND_NAMES = {
  'identity-gradient': 'every gradient equal to the top’s',
  'smallest-update': 'the smallest updates',
};
const POOL_NAMES = { classic: 'the article’s architectures', newer: 'ReZero, LayerScale, LNS, Mix-LN, DenseFormer' };

/** After a check: the link that opens the question's stack in the explorer, and what it is. */
const explorerLink = (config) => [
  el('a', { class: 'button-link', href: explorerHref(config) }, 'Open in the explorer'),
  el('span', { class: 'hint' }, ` ${describeSetting(config)}`),
];

function kindSelect(id, label, ids, names, anyLabel) {
  const select = el(
    'select',
    { id },
    anyLabel ? el('option', { value: '' }, anyLabel) : null,
    ids.map((k) => el('option', { value: k }, names[k] ?? k)),
  );
  return { select, row: el('p', { class: 'gen-kind' }, el('label', { for: id }, `${label} `), select) };
}

function chartBox(id, title, label) {
  const host = el('div', { class: 'mini-chart', id, role: 'img', 'aria-label': label });
  return {
    figure: el(
      'figure',
      { class: 'chart-figure' },
      el('figcaption', {}, el('span', { class: 'chart-title' }, title)),
      host,
    ),
    host,
  };
}

/** "Which is which": the card's parts, placed into `which`; the charts go into `charts`. */
function whichLayout(which, charts) {
  const w = {};
  w.prompt = el('p', { class: 'gen-prompt' }, 'Press “New question” to draw one.');
  w.pool = kindSelect('which-pool', 'Architectures:', Object.keys(POOL_NAMES), POOL_NAMES, null);
  w.grad = chartBox(
    'which-grad',
    'Gradient reaching layer l (log scale)',
    'Chart: gradient norm per layer for the unlabeled curves. The numbers are in the table under Numbers.',
  );
  w.stream = chartBox(
    'which-stream',
    'Size of the residual stream, RMS of h_l (log scale)',
    'Chart: stream RMS per layer for the unlabeled curves. The numbers are in the table under Numbers.',
  );
  w.gradChart = createLineChart(w.grad.host, { xLabel: 'layer l' });
  w.streamChart = createLineChart(w.stream.host, { xLabel: 'layer l' });
  charts.push(w.gradChart, w.streamChart);
  w.assign = el('fieldset', { class: 'assign' }, el('legend', {}, 'Which architecture is each curve?'));
  w.check = el('button', { type: 'button', class: 'primary', 'data-action': 'which-check', disabled: true }, 'Check');
  w.fresh = el('button', { type: 'button', class: 'secondary', 'data-action': 'which-new' }, 'New question');
  w.result = el('p', { class: 'gen-result', role: 'status', 'aria-live': 'polite' });
  w.after = el('div', { class: 'gen-after' });
  w.numbers = el(
    'details',
    { class: 'gen-numbers' },
    el('summary', {}, 'Numbers'),
    el('div', { class: 'numbers-wrap' }),
  );
  replace(
    which,
    el('h3', { id: 'which-title' }, 'Which is which?'),
    w.pool.row,
    w.prompt,
    w.grad.figure,
    w.stream.figure,
    w.assign,
    el('div', { class: 'item-actions' }, w.check, w.fresh),
    w.result,
    w.after,
    w.numbers,
  );
  return w;
}

/** "Which is which": one select per curve label, offering the question's architectures. */
function assignRows(q, onchange) {
  return [
    el('legend', {}, 'Which architecture is each curve?'),
    q.labels.map((label) => {
      const id = `assign-${label}`;
      return el(
        'div',
        { class: 'assign-row' },
        el('label', { for: id }, `Curve ${label}`),
        el(
          'select',
          { id, 'data-label': label, onchange },
          el('option', { value: '' }, 'choose…'),
          q.choices.map((a) => el('option', { value: a }, archLabel(a))),
        ),
      );
    }),
  ];
}

/** "Which is which", after the check: each curve's architecture and the learner's, then the explorer link. */
function whichVerdict(r, config) {
  return [
    el(
      'ul',
      { class: 'gen-details' },
      r.details.map((d) =>
        el(
          'li',
          { 'data-correct': String(d.correct) },
          `Curve ${d.label} is ${archLabel(d.expected)}${d.correct ? ' ✓' : `; you said ${archLabel(d.given)} ✗`}`,
        ),
      ),
    ),
    el('p', { class: 'exp-actions' }, ...explorerLink(config)),
  ];
}

/** "Which is which": the table under Numbers, per layer the gradient norm and stream RMS of each curve. */
function numbersTable(question, x) {
  return el(
    'table',
    { class: 'data-table' },
    el('caption', {}, 'Per layer: gradient norm and stream RMS of each curve'),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'col' }, 'layer'),
        question.curves.map((c) => [
          el('th', { scope: 'col' }, `${c.label} gradient`),
          el('th', { scope: 'col' }, `${c.label} stream`),
        ]),
      ),
    ),
    el(
      'tbody',
      {},
      x.map((l) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row' }, String(l)),
          question.curves.map((c) => [
            el('td', {}, significant(c.grad_norm[l])),
            el('td', {}, significant(c.stream_rms[l])),
          ]),
        ),
      ),
    ),
  );
}

/** The "Which is which" card in `which`: draws a question, takes the assignment, checks it. */
function createWhichCard(which, { simulate, session, charts }) {
  const w = whichLayout(which, charts);
  let q = null; // the current question
  let qDone = false;

  async function newWhich() {
    which.dataset.state = 'loading';
    w.fresh.disabled = true;
    w.check.disabled = true;
    w.result.textContent = 'Asking the engine…';
    replace(w.after);
    try {
      q = await whichIsWhich(simulate, { seed: randomSeed(), pool: w.pool.select.value });
    } catch (e) {
      w.result.textContent = `The engine could not make a question: ${e.message}`;
      w.fresh.disabled = false;
      return;
    }
    qDone = false;
    w.prompt.textContent = q.prompt;
    w.result.textContent = '';
    which.dataset.seed = String(q.seed);
    which.dataset.pool = q.pool;
    const x = Array.from({ length: q.config.depth + 1 }, (_, i) => i);
    const lines = (key, names) =>
      q.curves.map((c, i) => ({
        label: names ? `${c.label}: ${archLabel(names[c.label])}` : `curve ${c.label}`,
        values: c[key],
        color: `--curve-${i}`,
        dash: DASHES[i],
      }));
    w.draw = (names) => {
      w.gradChart.draw({ x, lines: lines('grad_norm', names) });
      w.streamChart.draw({ x, lines: lines('stream_rms', names) });
    };
    w.draw(null);
    replace(
      w.assign,
      ...assignRows(q, () => {
        w.check.disabled = !complete();
      }),
    );
    replace(w.numbers.querySelector('.numbers-wrap'), numbersTable(q, x));
    w.check.disabled = true;
    w.fresh.disabled = false;
    which.dataset.state = 'asked';
  }

  const selects = () => [...w.assign.querySelectorAll('select')];
  const complete = () => selects().every((s) => s.value);

  function checkWhich() {
    if (!q || qDone) return;
    if (!complete()) {
      w.result.textContent = 'Give every curve an architecture first.';
      return;
    }
    const assignment = Object.fromEntries(selects().map((s) => [s.dataset.label, s.value]));
    const r = q.check(assignment);
    qDone = true;
    for (const s of selects()) s.disabled = true;
    w.check.disabled = true;
    session.answerGenerated(r.allCorrect);
    const truth = q.reveal();
    w.result.textContent = r.message;
    w.result.dataset.correct = String(r.allCorrect);
    w.draw(truth);
    replace(w.after, ...whichVerdict(r, q.config));
    which.dataset.state = 'checked';
    w.fresh.focus();
  }

  w.pool.select.addEventListener('change', () => newWhich());
  w.check.addEventListener('click', checkWhich);
  w.fresh.addEventListener('click', newWhich);
  return { start: newWhich };
}

/** "Predict the number": the card's parts, placed into `predict`; the chart goes into `charts`. */
function predictLayout(predict, charts, onSubmit) {
  const p = {};
  p.prompt = el('p', { class: 'gen-prompt' }, 'Press “New question” to draw one.');
  p.kind = kindSelect('predict-kind', 'Kind:', PREDICT_KIND_IDS, PREDICT_KIND_NAMES, 'any');
  p.input = el('input', {
    id: 'guess',
    type: 'text',
    class: 'number guess',
    inputmode: 'decimal',
    autocomplete: 'off',
    'aria-describedby': 'guess-hint',
    disabled: true,
  });
  p.check = el('button', { type: 'button', class: 'primary', 'data-action': 'predict-check', disabled: true }, 'Check');
  p.fresh = el('button', { type: 'button', class: 'secondary', 'data-action': 'predict-new' }, 'New question');
  p.hint = el(
    'p',
    { class: 'hint', id: 'guess-hint' },
    'A number or an expression such as 120, 1.5e-3, 2*10^-4, sqrt(2) or 1.1^50. Graded on a log scale.',
  );
  p.result = el('p', { class: 'gen-result', role: 'status', 'aria-live': 'polite' });
  p.explain = el('p', { class: 'gen-explain' });
  p.chart = chartBox(
    'predict-chart',
    '',
    "Chart: the engine's curve, with the answer marked and your guess as a dashed line.",
  );
  p.chart.figure.hidden = true;
  p.lineChart = createLineChart(p.chart.host, { xLabel: 'layer l' });
  charts.push(p.lineChart);
  p.after = el('p', { class: 'exp-actions' });
  const form = el(
    'form',
    { class: 'guess-form', novalidate: true },
    el('label', { for: 'guess' }, 'Your estimate'),
    p.input,
    p.check,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    onSubmit();
  });
  p.check.type = 'submit';
  replace(
    predict,
    el('h3', { id: 'predict-title' }, 'Predict the number'),
    p.kind.row,
    p.prompt,
    form,
    p.hint,
    el('div', { class: 'item-actions' }, p.fresh),
    p.result,
    p.explain,
    p.chart.figure,
    p.after,
  );
  return p;
}

/** "Predict the number", after the check: the lines of the engine's curve, the guess and the answer. */
function predictLines(spec, pq, doc, r) {
  const curve = spec.curve(doc);
  const x = curve.map((_, i) => i);
  const at = spec.at(pq.config, pq.detail, r.answer);
  const mark = spec.onCurve ? curve[at] : r.answer;
  return {
    x,
    lines: [
      { label: 'engine', values: curve, color: '--curve-0' },
      // A count is not a value on the curve's axis: then the guess is in the text only.
      spec.onCurve
        ? null
        : { label: 'your guess', values: x.map(() => r.guess), color: '--curve-guess', dash: [6, 4], width: 1.5 },
      {
        label: spec.onCurve ? `answer (layer ${at})` : 'answer',
        values: x.map((i) => (i === at ? mark : NaN)),
        color: '--curve-answer',
        points: true,
        width: 1,
      },
    ].filter(Boolean),
  };
}

/** The "Predict the number" card in `predict`: draws a question, grades the guess, draws the curve. */
function createPredictCard(predict, { simulate, session, charts }) {
  const p = predictLayout(predict, charts, () => checkPredict());
  let pq = null;
  let pDoc = null;
  let pDone = false;

  async function newPredict() {
    predict.dataset.state = 'loading';
    p.fresh.disabled = true;
    p.result.textContent = 'Asking the engine…';
    let doc = null;
    try {
      pq = await predictNumber(async (cfg) => (doc = await simulate(cfg)), {
        seed: randomSeed(),
        kind: p.kind.select.value || undefined,
      });
    } catch (e) {
      p.result.textContent = `The engine could not make a question: ${e.message}`;
      p.fresh.disabled = false;
      return;
    }
    pDoc = doc;
    pDone = false;
    p.prompt.textContent = pq.prompt;
    p.result.textContent = '';
    delete p.result.dataset.correct;
    p.explain.textContent = '';
    p.input.value = '';
    p.input.disabled = false;
    p.check.disabled = false;
    p.chart.figure.hidden = true;
    p.lineChart.clear();
    replace(p.after);
    const factor = Number((10 ** pq.toleranceDex).toPrecision(2));
    // A tolerance this tight (mix-ln-post-blocks) accepts only the exact count.
    const how =
      pq.toleranceDex <= 0.01
        ? 'Only the exact value is counted right.'
        : `Counted right within a factor of ${factor} of the engine's value (log scale).`;
    p.hint.textContent = `A number or an expression such as 120, 1.5e-3, 2*10^-4, sqrt(2) or 1.1^50. ${how}`;
    predict.dataset.kind = pq.kind;
    predict.dataset.state = 'asked';
    p.fresh.disabled = false;
  }

  function checkPredict() {
    if (!pq || pDone) return;
    const r = pq.grade(p.input.value);
    if (!(r.guess > 0) || !Number.isFinite(r.guess)) {
      p.result.textContent = r.message;
      p.input.focus();
      return;
    }
    pDone = true;
    p.input.disabled = true;
    p.check.disabled = true;
    session.answerGenerated(r.correct);
    p.result.textContent = r.message;
    p.result.dataset.correct = String(r.correct);
    p.explain.textContent = pq.explanation;
    const spec = PREDICT_CHARTS[pq.kind];
    if (spec && pDoc) {
      p.chart.figure.querySelector('.chart-title').textContent = spec.title;
      p.chart.figure.hidden = false;
      p.lineChart.draw(predictLines(spec, pq, pDoc, r));
    }
    replace(p.after, ...explorerLink(pq.config));
    predict.dataset.state = 'checked';
    p.fresh.focus();
  }

  p.kind.select.addEventListener('change', () => newPredict());
  p.fresh.addEventListener('click', newPredict);
  return { start: newPredict };
}

// The multiple-choice cards: "Pick the architecture" (generated.js) and "Norms" (generated-norms.js).
// Each source: its element ids' prefix, heading, kinds, ask(deps, seed, kind) -> question, choice(c)
// -> {id, label} of one of the question's choices, and after(q) -> the nodes under the explanation.
const PICK_SOURCE = {
  prefix: 'pick',
  title: 'Pick the architecture',
  kinds: PICK_KIND_IDS,
  names: PICK_KIND_NAMES,
  empty: 'Choose an architecture first.',
  ask: (deps, seed, kind) => pickArch(deps.simulate, { seed, kind }),
  choice: (a) => ({ id: a, label: archLabel(a) }),
  after: (q) => explorerLink(q.config),
};
const NORM_SOURCE = {
  prefix: 'norms',
  title: 'Norms: LayerNorm, BatchNorm, RMSNorm',
  kinds: NORM_KIND_IDS,
  names: NORM_KIND_NAMES,
  empty: 'Choose an answer first.',
  ask: (deps, seed, kind) => normQuestion(deps.norms, { seed, kind }),
  choice: (c) => c,
  after: () => [el('a', { class: 'button-link', href: claimHref('batchnorm') }, 'Train the norms in the lab')],
};

const ARCH_SOURCE = {
  prefix: 'archs',
  title: 'Newer architectures: HC, mHC, AttnRes, DenseFormer, DyT, HybridNorm, QK-norm',
  kinds: ARCH_KIND_IDS,
  names: ARCH_KIND_NAMES,
  empty: 'Choose an answer first.',
  ask: (deps, seed, kind) => archQuestion(deps.archs, { seed, kind }),
  choice: (c) => c,
  // a simulation opens in the explorer, the QK-norm runs in the lab's claim, the trained read
  // weights in the lab with the question's runs (its learned panel shows the same weights)
  after: (q) =>
    q.kind === 'qk-logit'
      ? [el('a', { class: 'button-link', href: claimHref('qknorm') }, 'Train the QK-norm sweep in the lab')]
      : q.kind === 'trained-read'
        ? [
            el(
              'a',
              { class: 'button-link', href: labHref({ ...q.numbers.config, arch: ['attn_res', 'dwa'] }) },
              'Train these two runs in the lab',
            ),
          ]
        : Array.isArray(q.numbers.config?.arch)
          ? explorerLink(q.numbers.config)
          : [],
};

/** A multiple-choice card's parts, placed into `host`; the chart goes into `charts`. */
function choiceLayout(host, charts, src) {
  const k = {};
  k.kind = kindSelect(`${src.prefix}-kind`, 'Kind:', src.kinds, src.names, 'any');
  k.prompt = el('p', { class: 'gen-prompt' }, 'Press “New question” to draw one.');
  k.choices = el('fieldset', { class: 'assign pick-choices' }, el('legend', {}, 'Your answer'));
  k.check = el(
    'button',
    { type: 'button', class: 'primary', 'data-action': `${src.prefix}-check`, disabled: true },
    'Check',
  );
  k.fresh = el('button', { type: 'button', class: 'secondary', 'data-action': `${src.prefix}-new` }, 'New question');
  k.result = el('p', { class: 'gen-result', role: 'status', 'aria-live': 'polite' });
  k.explain = el('p', { class: 'gen-explain' });
  k.chart = chartBox(
    `${src.prefix}-chart`,
    '',
    "Chart: the engine's curves the answer was read from, one per architecture.",
  );
  k.chart.figure.hidden = true;
  k.lineChart = createLineChart(k.chart.host, { xLabel: 'layer l' });
  charts.push(k.lineChart);
  k.after = el('p', { class: 'exp-actions' });
  replace(
    host,
    el('h3', { id: `${src.prefix}-title` }, src.title),
    k.kind.row,
    k.prompt,
    k.choices,
    el('div', { class: 'item-actions' }, k.check, k.fresh),
    k.result,
    k.explain,
    k.chart.figure,
    k.after,
  );
  return k;
}

/** One radio button per choice the question offers. */
function radioChoices(q, src, onchange) {
  return [
    el('legend', {}, 'Your answer'),
    q.choices
      .map(src.choice)
      .map((c) =>
        el(
          'label',
          { class: 'pick-choice' },
          el('input', { type: 'radio', name: `${src.prefix}-choice`, value: c.id, onchange }),
          ` ${c.label}`,
        ),
      ),
  ];
}

/** A multiple-choice card in `host`: draws a question, checks the choice, draws the curves if it has any. */
function createChoiceCard(host, deps, src) {
  const { session, charts } = deps;
  const k = choiceLayout(host, charts, src);
  let kq = null;
  let kDone = false;
  const picked = () => k.choices.querySelector('input:checked')?.value;

  async function newQuestion() {
    host.dataset.state = 'loading';
    k.fresh.disabled = true;
    k.check.disabled = true;
    k.result.textContent = 'Asking the engine…';
    try {
      kq = await src.ask(deps, randomSeed(), k.kind.select.value || undefined);
    } catch (e) {
      k.result.textContent = `The engine could not make a question: ${e.message}`;
      k.fresh.disabled = false;
      host.dataset.state = 'error';
      return;
    }
    kDone = false;
    k.prompt.textContent = kq.prompt;
    k.result.textContent = '';
    delete k.result.dataset.correct;
    k.explain.textContent = '';
    k.chart.figure.hidden = true;
    k.lineChart.clear();
    replace(k.after);
    replace(
      k.choices,
      ...radioChoices(kq, src, () => {
        k.check.disabled = kDone;
      }),
    );
    host.dataset.kind = kq.kind;
    host.dataset.state = 'asked';
    k.fresh.disabled = false;
  }

  function checkChoice() {
    if (!kq || kDone) return;
    const choice = picked();
    if (!choice) {
      k.result.textContent = src.empty;
      return;
    }
    const r = kq.check(choice);
    kDone = true;
    for (const input of k.choices.querySelectorAll('input')) input.disabled = true;
    k.check.disabled = true;
    session.answerGenerated(r.correct);
    k.result.textContent = r.message;
    k.result.dataset.correct = String(r.correct);
    k.explain.textContent = kq.explanation;
    if (kq.curves) {
      const first = kq.curves[0];
      const x = first.values.map((_, i) => (first.x === 'blocks' ? i + 1 : i));
      k.chart.figure.querySelector('.chart-title').textContent = first.title;
      k.chart.figure.hidden = false;
      k.lineChart.draw({
        x,
        lines: kq.curves.map((c, i) => ({
          label: `${archLabel(c.arch)}${c.arch === kq.answer ? ' (answer)' : ''}`,
          values: c.values,
          color: `--curve-${i}`,
          dash: DASHES[i],
        })),
      });
    }
    replace(k.after, ...src.after(kq));
    host.dataset.state = 'checked';
    k.fresh.focus();
  }

  k.kind.select.addEventListener('change', () => newQuestion());
  k.check.addEventListener('click', checkChoice);
  k.fresh.addEventListener('click', newQuestion);
  return { start: newQuestion };
}

/**
 * The norms card is placed after `pick`, the newer architectures' card after it, in the same grid.
 * @param {{which: HTMLElement, predict: HTMLElement, pick: HTMLElement, engine: {call: Function, trainer: Function}, session: object}} deps
 */
export function createGeneratedView({ which, predict, pick, engine, session }) {
  const simulate = (cfg) => engine.call('simulate', [cfg]);
  const norms = normEngine({
    trainer: (cfg) => engine.trainer(cfg),
    batchVsLayerNorm: (input) => engine.call('batchVsLayerNorm', [input]),
  });
  const archs = archEngine({ simulate, trainer: (cfg) => engine.trainer(cfg) });
  const normsCard = el('article', { id: 'norms', class: 'card gen-card', 'aria-labelledby': 'norms-title' });
  const archsCard = el('article', { id: 'archs', class: 'card gen-card', 'aria-labelledby': 'archs-title' });
  pick.after(normsCard);
  normsCard.after(archsCard);
  const charts = [];
  let started = false;
  const deps = { simulate, norms, archs, session, charts };
  const cards = [
    createWhichCard(which, deps),
    createPredictCard(predict, deps),
    createChoiceCard(pick, deps, PICK_SOURCE),
    createChoiceCard(normsCard, deps, NORM_SOURCE),
    createChoiceCard(archsCard, deps, ARCH_SOURCE),
  ];

  return {
    /** Draws the first questions (once the area is first shown). */
    start() {
      if (started) return;
      started = true;
      for (const card of cards) card.start();
    },
    redraw: () => charts.forEach((c) => c.redraw()),
  };
}
