// One panel of the papers page: its controls, chart(s), legend, the
// measured-vs-claimed table, the numbers behind the chart, and the caption;
// DenseFormer's also the matrix of its trained averaging weights (the lab's,
// ../shared/dwa-matrix.js).
// The numbers come from the engine worker (../engine/experiments.js), the
// rows and the sentence from repro.js and captions.js; this module only builds the DOM (no inline styles: CSP).
import { ARCH_BY_KEY } from '../shared/archs.js';
import { lineSwatch } from '../shared/swatch.js';
import { el } from '../shared/dom.js';
import { scrollRegion } from '../shared/scroll-region.js';
import { fixed, fmtPlain } from '../shared/format.js';
import { heatColours } from '../shared/theme.js';
import { createDwaView } from '../shared/dwa-matrix.js';
import { createChart, colors } from './chart.js';
import { caption, VERDICT_TEXT } from './captions.js';
import { FIG3_WEIGHTS, PANELS } from './repro.js';

const LABELS = {
  post_ln: 'Post-LN',
  pre_ln: 'Pre-LN',
  deepnorm: 'DeepNorm',
  gpt2: 'GPT-2 init (Pre-LN)',
  residual: 'residual, no norm',
  rezero: 'ReZero',
  lns: 'LNS (Pre-LN, 1/√l)',
  mix_ln: 'Mix-LN',
  layerscale: 'LayerScale',
  dwa: 'DenseFormer',
};
const CLAIM_DASH = [6, 5];

// ---------------------------------------------------------------- what each panel draws

const archSeries = (col, arch, values, extra = {}) => ({
  key: arch,
  label: LABELS[arch],
  values,
  color: col.arch[arch],
  dash: ARCH_BY_KEY[arch]?.dash ?? [],
  ...extra,
});
const claimSeries = (col, label, values) => ({
  key: 'claim',
  label,
  values,
  color: col.claim,
  dash: CLAIM_DASH,
  width: 1.5,
});

// A chart over depth L, both axes logarithmic, one point per depth for each arch.
const overDepth = (chart, col, depths, arches, claims) => ({
  chart,
  spec: {
    x: depths,
    xLog: true,
    xLabel: 'depth L',
    yLog: true,
    series: [...Object.entries(arches).map(([a, v]) => archSeries(col, a, v, { points: true })), ...claims],
  },
});

// One chart per [chart, metric] of `archs` over layers 0..L, log y (r.data[arch][metric]).
const perLayer = (r, col, archs, charts) => {
  const layers = r.data[archs[0]].grad_norm.map((_, l) => l);
  return charts.map(([chart, metric]) => ({
    chart,
    spec: {
      x: layers,
      xLabel: 'layer l',
      yLog: true,
      series: archs.map((a) => archSeries(col, a, r.data[a][metric])),
    },
  }));
};

// Returns [{chart: name, spec}] and the legend entries.
const VIEWS = {
  theorem1(r, col) {
    const { depths, geomean } = r.data;
    const post = geomean.post_ln,
      pre = geomean.pre_ln;
    return [
      overDepth('theorem1', col, depths, { post_ln: post, pre_ln: pre }, [
        claimSeries(
          col,
          'claimed: flat (Post-LN)',
          depths.map(() => post[0]),
        ),
        claimSeries(
          col,
          'claimed: ∝ 1/√L (Pre-LN)',
          depths.map((L) => pre[0] * Math.sqrt(depths[0] / L)),
        ),
      ]),
    ];
  },
  figure3(r, col, view) {
    const w = view.weight ?? 'all';
    return [
      {
        chart: 'figure3',
        spec: {
          x: r.data.layers,
          xLabel: 'block l',
          yLog: true,
          series: [
            archSeries(col, 'post_ln', r.data.norms.post_ln[w], { points: true }),
            archSeries(col, 'pre_ln', r.data.norms.pre_ln[w], { points: true }),
          ],
        },
      },
    ];
  },
  lemma2(r, col) {
    const { layers, pre, post } = r.data;
    return [
      {
        chart: 'lemma2',
        spec: {
          x: layers,
          xLabel: 'layer l',
          series: [
            archSeries(col, 'pre_ln', pre),
            archSeries(col, 'post_ln', post),
            claimSeries(
              col,
              'claimed: 1 + l/2',
              layers.map((l) => 1 + l / 2),
            ),
          ],
        },
      },
    ];
  },
  deepnet(r, col) {
    return perLayer(
      r,
      col,
      ['deepnorm', 'post_ln'],
      [
        ['deepnet', 'grad_norm'],
        ['deepnet-stream', 'stream_rms'],
      ],
    );
  },
  gpt2(r, col) {
    const { depths, ratio } = r.data;
    return [
      overDepth('gpt2', col, depths, { gpt2: ratio.gpt2, pre_ln: ratio.pre_ln }, [
        claimSeries(
          col,
          '∝ √L',
          depths.map((L) => ratio.pre_ln[0] * Math.sqrt(L / depths[0])),
        ),
      ]),
    ];
  },
  rezero(r, col) {
    return perLayer(
      r,
      col,
      ['rezero', 'pre_ln'],
      [
        ['rezero', 'rel_grad'],
        ['rezero-stream', 'stream_rms'],
      ],
    );
  },
  lns(r, col) {
    const { depths, variance } = r.data;
    return [
      overDepth('lns', col, depths, { pre_ln: variance.pre_ln, lns: variance.lns }, [
        claimSeries(
          col,
          '∝ L',
          depths.map((L) => (variance.pre_ln[0] * L) / depths[0]),
        ),
      ]),
    ];
  },
  mixln(r, col) {
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
  },
  layerscale(r, col) {
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
  },
  // DenseFormer and Pre-LN at initialization (Pre-LN drawn first, DenseFormer's dashes over it)
  dwa(r, col) {
    return perLayer({ data: r.data.init }, col, ['pre_ln', 'dwa'], [['dwa', 'grad_norm']]);
  },
  veit(r, col) {
    const pre = r.data.pre_ln,
      res = r.data.residual;
    const ks = pre.count.map((_, k) => k);
    const share = (a) => {
      const s = a.reduce((t, v) => t + v, 0);
      return a.map((v) => v / s);
    };
    return [
      {
        chart: 'veit',
        spec: {
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
      },
      {
        chart: 'veit-mean',
        spec: {
          x: ks,
          xLabel: 'path length k',
          yLog: true,
          series: [
            archSeries(col, 'pre_ln', pre.mean_norm, { label: 'one path, Pre-LN' }),
            archSeries(col, 'residual', res.mean_norm, { label: 'one path, residual (no norm)' }),
          ],
        },
      },
    ];
  },
};

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
const CONTROLS = {
  theorem1: ['seeds', 'deepest', 'seed0'],
  figure3: ['weight', 'width', 'seeds', 'seed0'],
  lemma2: ['depth', 'seeds', 'seed0'],
  deepnet: ['depth', 'seed'],
  gpt2: ['seeds', 'deepest', 'seed0'],
  veit: ['depth', 'samples', 'path_seed', 'seed'],
  rezero: ['depth', 'seed'],
  lns: ['seeds', 'deepest', 'seed0'],
  mixln: ['depth', 'seeds', 'seed0'],
  layerscale: ['depth', 'seed'],
  dwa: ['depth', 'seed'],
};

// The panels with a matrix of learned averaging weights ([data-matrix]): the run a result holds.
const MATRICES = {
  dwa: (r) => ({ key: 'dwa', label: `DenseFormer after ${r.data.trained.steps} steps`, rows: r.data.trained.weights }),
};
const VIEW_ONLY = new Set(['weight']); // changes what is shown, not what is computed
const MAX_SEED = 4294967295;

function buildControls(form, id, params, view, onChange) {
  const choices = { ...PANELS[id].choices, weight: Object.keys(FIG3_WEIGHTS) };
  for (const name of CONTROLS[id]) {
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
    const specs = VIEWS[id](result, col, view);
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
    const learned = matrix ? MATRICES[id](result) : null;
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
