// Questions generated from the simulation (quiz/generated.js), asked on the quiz page:
//   "Which is which": unlabeled gradient and stream curves of a random config; the learner assigns
//   every curve an architecture, then checks.
//   "Predict the number": a number the engine computes, guessed on a log scale; after the guess the
//   curve is drawn with the answer and the guess on it.
// Both count toward the session score. Text from generated.js is plain Unicode, set as text.

import { whichIsWhich, predictNumber } from '../generated.js';
import { significant } from '../../shared/format.js';
import { archLabel } from '../../shared/archs.js';
import { el, replace } from '../../shared/dom.js';
import { createLineChart } from './mini-chart.js';
import { explorerHref, describePreset } from './experiment.js';
import { randomSeed } from './session.js';

const DASHES = [[], [9, 4], [2, 3], [12, 3, 2, 3]];

// What the "predict the number" chart shows, per kind: the curve, and where the answer sits.
const PREDICT_CHARTS = {
  'plain-gradient': {
    title: 'Gradient at layer l relative to the top, grad_norm[l] / grad_norm[L]',
    xLabel: 'layer l',
    curve: (doc) => {
      const g = doc.results.plain.grad_norm;
      return Array.from(g, (v) => v / g[g.length - 1]);
    },
    at: () => 0,
  },
  'preln-stream': {
    title: 'Stream RMS at layer l, stream_rms[l]',
    xLabel: 'layer l',
    curve: (doc) => Array.from(doc.results.pre_ln.stream_rms),
    at: (c) => c.depth,
  },
  'residual-growth': {
    title: 'Stream RMS relative to layer 0, stream_rms[l] / stream_rms[0]',
    xLabel: 'layer l',
    curve: (doc) => {
      const s = doc.results.residual.stream_rms;
      return Array.from(s, (v) => v / s[0]);
    },
    at: (c) => c.depth,
  },
};

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

/**
 * @param {{which: HTMLElement, predict: HTMLElement, engine: {call: Function}, session: object}} deps
 */
export function createGeneratedView({ which, predict, engine, session }) {
  const simulate = (cfg) => engine.call('simulate', [cfg]);
  const charts = [];
  let started = false;

  // ---------------- which is which ----------------
  const w = {};
  w.prompt = el('p', { class: 'gen-prompt' }, 'Press “New question” to draw one.');
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
    w.prompt,
    w.grad.figure,
    w.stream.figure,
    w.assign,
    el('div', { class: 'item-actions' }, w.check, w.fresh),
    w.result,
    w.after,
    w.numbers,
  );
  let q = null; // the current question
  let qDone = false;

  async function newWhich() {
    w.fresh.disabled = true;
    w.check.disabled = true;
    w.result.textContent = 'Asking the engine…';
    replace(w.after);
    try {
      q = await whichIsWhich(simulate, { seed: randomSeed() });
    } catch (e) {
      w.result.textContent = `The engine could not make a question: ${e.message}`;
      w.fresh.disabled = false;
      return;
    }
    qDone = false;
    w.prompt.textContent = q.prompt;
    w.result.textContent = '';
    which.dataset.seed = String(q.seed);
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
      el('legend', {}, 'Which architecture is each curve?'),
      q.labels.map((label) => {
        const id = `assign-${label}`;
        return el(
          'div',
          { class: 'assign-row' },
          el('label', { for: id }, `Curve ${label}`),
          el(
            'select',
            {
              id,
              'data-label': label,
              onchange: () => {
                w.check.disabled = !complete();
              },
            },
            el('option', { value: '' }, 'choose…'),
            q.choices.map((a) => el('option', { value: a }, `${archLabel(a)} (${a})`)),
          ),
        );
      }),
    );
    fillNumbers(q, x);
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
    replace(
      w.after,
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
      el(
        'p',
        { class: 'exp-actions' },
        el('a', { class: 'button-link', href: explorerHref(q.config) }, 'Open in the explorer'),
        el('span', { class: 'hint' }, ` ${describePreset(q.config)}`),
      ),
    );
    which.dataset.state = 'checked';
    w.fresh.focus();
  }

  function fillNumbers(question, x) {
    const table = el(
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
    replace(w.numbers.querySelector('.numbers-wrap'), table);
  }

  w.check.addEventListener('click', checkWhich);
  w.fresh.addEventListener('click', newWhich);

  // ---------------- predict the number ----------------
  const p = {};
  p.prompt = el('p', { class: 'gen-prompt' }, 'Press “New question” to draw one.');
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
    checkPredict();
  });
  p.check.type = 'submit';
  replace(
    predict,
    el('h3', { id: 'predict-title' }, 'Predict the number'),
    p.prompt,
    form,
    p.hint,
    el('div', { class: 'item-actions' }, p.fresh),
    p.result,
    p.explain,
    p.chart.figure,
    p.after,
  );
  let pq = null;
  let pDoc = null;
  let pDone = false;

  async function newPredict() {
    p.fresh.disabled = true;
    p.result.textContent = 'Asking the engine…';
    let doc = null;
    try {
      pq = await predictNumber(async (cfg) => (doc = await simulate(cfg)), { seed: randomSeed() });
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
    p.hint.textContent = `A number or an expression such as 120, 1.5e-3, 2*10^-4, sqrt(2) or 1.1^50. Counted right within a factor of ${factor} of the engine's value (log scale).`;
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
      const curve = spec.curve(pDoc);
      const x = curve.map((_, i) => i);
      const at = spec.at(pq.config);
      p.chart.figure.querySelector('.chart-title').textContent = spec.title;
      p.chart.figure.hidden = false;
      p.lineChart.draw({
        x,
        lines: [
          { label: 'engine', values: curve, color: '--curve-0' },
          { label: 'your guess', values: x.map(() => r.guess), color: '--curve-guess', dash: [6, 4], width: 1.5 },
          {
            label: 'answer',
            values: x.map((i) => (i === at ? r.answer : NaN)),
            color: '--curve-answer',
            points: true,
            width: 1,
          },
        ],
      });
    }
    replace(
      p.after,
      el('a', { class: 'button-link', href: explorerHref(pq.config) }, 'Open in the explorer'),
      el('span', { class: 'hint' }, ` ${describePreset(pq.config)}`),
    );
    predict.dataset.state = 'checked';
    p.fresh.focus();
  }

  p.fresh.addEventListener('click', newPredict);

  return {
    /** Draws the first questions (once the area is first shown). */
    start() {
      if (started) return;
      started = true;
      newWhich();
      newPredict();
    },
    redraw: () => charts.forEach((c) => c.redraw()),
  };
}
