// One panel of the papers page: its controls, chart(s), legend, the
// measured-vs-claimed table, the numbers behind the chart, and the caption;
// DenseFormer's also the matrix of its trained averaging weights (the lab's,
// ../shared/dwa-matrix.js).
// The numbers come from the engine worker (../engine/experiments.js); the
// rows and the sentence from repro.js and captions.js, and the panel's controls,
// its charts' series and the matrix from its claim (../claims/papers/<id>.js, through
// ../claims/papers/index.js); this module only builds the DOM (no inline styles: CSP).
import { lineSwatch } from '../shared/swatch.js';
import { el } from '../shared/dom.js';
import { scrollRegion } from '../shared/scroll-region.js';
import { fixed, fmtPlain } from '../shared/format.js';
import { heatColours } from '../shared/theme.js';
import { createDwaView } from '../shared/dwa-matrix.js';
import { createChart, colors } from './chart.js';
import { caption, VERDICT_TEXT } from './captions.js';
import { FIG3_WEIGHTS, PANELS } from './repro.js';
import { claimOf } from '../claims/papers/index.js';

// ---------------------------------------------------------------- controls

const CONTROL_LABELS = {
  seeds: 'Seeds',
  seed0: 'First seed',
  deepest: 'Deepest L',
  width: 'Width d',
  depth: 'Depth',
  samples: 'Paths per length',
  path_seed: 'Path seed',
  seed: 'Seed',
  weight: 'Weights',
};

const VIEW_ONLY = new Set(['weight']); // changes what is shown, not what is computed
const MAX_SEED = 4294967295;

function buildControls(form, id, params, view, onChange) {
  const choices = { ...PANELS[id].choices, weight: Object.keys(FIG3_WEIGHTS) };
  for (const name of claimOf(id).controls) {
    const inputId = `${id}-${name}`;
    const field = el('div', { class: 'paper-field' });
    field.append(el('label', { for: inputId }, CONTROL_LABELS[name]));
    let input;
    if (choices[name]) {
      input = el('select', { id: inputId, name });
      for (const v of choices[name]) {
        const text = name === 'weight' ? FIG3_WEIGHTS[v] : name === 'width' ? `${v}` : String(v);
        input.append(el('option', { value: String(v) }, text));
      }
      input.value = String(VIEW_ONLY.has(name) ? view[name] : params[name]);
    } else {
      input = el('input', {
        id: inputId,
        name,
        type: 'number',
        class: 'number',
        min: '0',
        max: String(MAX_SEED),
        step: '1',
        inputmode: 'numeric',
      });
      input.value = String(params[name]);
    }
    input.addEventListener('change', () => {
      if (VIEW_ONLY.has(name)) {
        view[name] = input.value;
        onChange({ view: true });
        return;
      }
      const v = Number(input.value);
      const ok = input.value.trim() !== '' && Number.isInteger(v) && v >= 0 && v <= MAX_SEED;
      input.setAttribute('aria-invalid', String(!ok));
      if (!ok) return;
      params[name] = v;
      onChange({ view: false });
    });
    field.append(input);
    form.append(field);
  }
  form.addEventListener('submit', (e) => e.preventDefault());
}

// ---------------------------------------------------------------- results

function resultsTable(summary, label) {
  const table = el('table', { class: 'measured' });
  table.append(el('caption', { class: 'visually-hidden' }, 'Measured and claimed numbers'));
  const head = el(
    'tr',
    {},
    el('th', { scope: 'col' }, 'quantity'),
    el('th', { scope: 'col' }, 'measured'),
    el('th', { scope: 'col' }, 'claimed'),
    el('th', { scope: 'col' }, 'meets it'),
  );
  table.append(el('thead', {}, head));
  const body = el('tbody');
  for (const row of summary.rows) {
    const ok = row.ok === null ? '—' : row.ok ? 'yes' : 'no';
    const okCell = el('td', { class: `ok ok-${row.ok === null ? 'na' : row.ok ? 'yes' : 'no'}` }, ok);
    const measured = el('td', { class: 'num', 'data-key': row.key, 'data-value': String(row.value) }, row.measured);
    body.append(el('tr', {}, el('th', { scope: 'row' }, row.label), measured, el('td', {}, row.claimed), okCell));
  }
  table.append(body);
  return scrollRegion(el('div', { class: 'measured-scroll' }, table), label);
}

function dataTable(specs) {
  const details = el('details', { class: 'paper-data' });
  details.append(el('summary', {}, 'All the numbers behind the chart'));
  for (const { spec } of specs) {
    const table = el('table', { class: 'data-table' });
    const tr = el('tr', {}, el('th', { scope: 'col' }, spec.xLabel));
    for (const s of spec.series) tr.append(el('th', { scope: 'col' }, s.label));
    table.append(el('thead', {}, tr));
    const body = el('tbody');
    spec.x.forEach((x, i) => {
      const row = el('tr', {}, el('th', { scope: 'row' }, String(x)));
      for (const s of spec.series) row.append(el('td', {}, fmtPlain(s.values[i])));
      body.append(row);
    });
    table.append(body);
    details.append(el('div', { class: 'numbers-wrap' }, table));
  }
  return details;
}

function legend(list, specs) {
  list.replaceChildren();
  const seen = new Set();
  for (const { spec } of specs)
    for (const s of spec.series) {
      if (seen.has(s.label)) continue;
      seen.add(s.label);
      list.append(el('li', {}, lineSwatch(s.key, s.dash), s.label));
    }
}

// ---------------------------------------------------------------- the panel

/**
 * Wires the panel `id` inside `root` (its <section>). `request(params)`
 * resolves to an experiments.js result (or null when superseded); `onRender(id, info)`
 * is told about every render; with `onEmbed`, an "Embed" button under the figures calls
 * onEmbed(params), the panel's parameters at that moment.
 */
export function createPanel({ root, id, request, onRender, onEmbed = null, cancel = null }) {
  const params = { ...PANELS[id].defaults };
  const view = { weight: 'all' };
  const charts = Object.fromEntries(
    [...root.querySelectorAll('[data-chart]')].map((c) => [c.dataset.chart, createChart(c)]),
  );
  const resultEl = root.querySelector('[data-result]');
  const legends = Object.fromEntries([...root.querySelectorAll('[data-legend]')].map((l) => [l.dataset.legend, l]));
  const status = el('p', { class: 'paper-status', role: 'status', 'aria-live': 'polite' }, 'waiting for the engine…');
  // Over a second: the time so far and, with `cancel`, a button that stops it.
  const stop = el('button', { type: 'button', class: 'secondary paper-cancel', hidden: true }, 'Cancel');
  const again = el('button', { type: 'button', class: 'secondary paper-again', hidden: true }, 'Compute again');
  const form = root.querySelector('[data-controls]');
  form.after(el('div', { class: 'paper-status-row' }, status, stop, again));
  let slowTimer = 0;
  let tickTimer = 0;
  const stopWaiting = () => {
    clearTimeout(slowTimer);
    clearInterval(tickTimer);
    stop.hidden = true;
  };
  function startWaiting() {
    const t0 = performance.now();
    again.hidden = true;
    slowTimer = setTimeout(() => {
      const tick = () => (status.textContent = `computing for ${fixed((performance.now() - t0) / 1000, 1)} s…`);
      tick();
      tickTimer = setInterval(tick, 100);
      stop.hidden = !cancel;
    }, 1000);
  }
  stop.addEventListener('click', () => {
    latest++; // whatever is on its way is not shown
    const seconds = status.textContent.match(/[\d.]+ s/)?.[0] ?? '';
    stopWaiting();
    cancel?.();
    root.removeAttribute('aria-busy');
    status.textContent = `cancelled after ${seconds}${result ? '; the figure shows the settings before it' : ''}`;
    again.hidden = false;
    again.focus();
  });
  again.addEventListener('click', () => run());
  let latest = 0;
  let result = null;
  root.dataset.verdict = 'pending';
  const matrixBox = root.querySelector('[data-matrix]');
  const matrix = matrixBox
    ? createDwaView(matrixBox, { colours: () => heatColours(), legendTitle: 'Averaging weight w (linear)' })
    : null;
  let matrixFrom = null;

  function render() {
    if (!result) return;
    const col = colors();
    const specs = claimOf(id).figures(result, col, view);
    for (const { chart, spec } of specs) charts[chart].draw(spec);
    for (const spec of specs) if (legends[spec.chart]) legend(legends[spec.chart], [spec]);
    const sub = root.querySelector('[data-sub]');
    if (sub) sub.textContent = `${FIG3_WEIGHTS[view.weight]}, mean over seeds, log scale`;
    const cap = caption(id, result, view);
    const verdict = el(
      'p',
      { class: 'verdict', 'data-verdict': cap.verdict },
      el('span', { class: 'verdict-badge' }, VERDICT_TEXT[cap.verdict]),
      ' ',
      el('strong', {}, cap.lead),
      ' ',
      cap.text,
    );
    const title = root.querySelector('.paper-title')?.textContent.trim();
    resultEl.replaceChildren(
      resultsTable(cap.summary, title ? `${title}: measured and claimed` : 'Measured and claimed'),
      verdict,
      dataTable(specs),
    );
    const learned = matrix ? claimOf(id).matrix(result) : null;
    if (learned && matrixFrom !== result) matrix.update([learned]);
    else if (learned) matrix.redraw(); // the theme changed, or the view
    matrixFrom = result;
    root.dataset.verdict = cap.verdict;
    onRender(id, {
      ...(learned ? { matrix: learned.rows } : {}),
      params: { ...result.params },
      view: { ...view },
      verdict: cap.verdict,
      caption: `${cap.lead} ${cap.text}`,
      rows: cap.summary.rows.map(({ key, value, ok }) => ({ key, value, ok })),
      ms: result.ms,
    });
  }

  async function run() {
    const mine = ++latest;
    status.textContent = 'computing…';
    status.classList.remove('is-error');
    root.setAttribute('aria-busy', 'true');
    stopWaiting();
    startWaiting();
    try {
      const r = await request({ ...params });
      if (r === null || mine !== latest) return;
      stopWaiting();
      result = r;
      status.textContent = `computed in ${fixed(r.ms / 1000, r.ms < 1000 ? 2 : 1)} s`;
      root.removeAttribute('aria-busy');
      render();
    } catch (e) {
      if (mine !== latest) return;
      stopWaiting();
      root.removeAttribute('aria-busy');
      status.textContent = `could not compute: ${e.message}`;
      status.classList.add('is-error');
    }
  }

  buildControls(form, id, params, view, ({ view: onlyView }) => (onlyView ? render() : run()));
  if (onEmbed)
    root.querySelector('.paper-figures').append(
      el(
        'p',
        { class: 'paper-embed' },
        el(
          'button',
          {
            type: 'button',
            class: 'secondary',
            'data-embed': id,
            'aria-haspopup': 'dialog',
            'aria-label': `Embed: ${PANELS[id].title}`,
            onclick: () => onEmbed({ ...params }),
          },
          'Embed…',
        ),
      ),
    );
  return { run, retheme: render };
}
