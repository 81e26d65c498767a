// After the DyT claim trains: its Pre-LN run's LayerNorms, each norm's input against its output as
// a scatter, the S-curve Zhu et al. (2025) start from. The run holds `normSamples` (session.js asks
// its trainer for normSamples() when the run's spec says so: the DyT claim's Pre-LN run, first
// seed): per branch-input norm (and the final norm), every element of held-out batch 0's last
// pass, the stream the norm reads (x) and what it writes (y, its gain and bias applied). Three
// panels, the first, a middle and the last branch-input norm, each its points and the least-squares
// y = a tanh(b x) + c (../shared/tanh-fit.js) as a dashed curve; one sentence per panel from the
// fits (the S-curve's R^2 against a line's, and the shape they say), the pairs that are not finite
// counted and left out, and the fits' numbers as a table.
//
//   const s = createNormScatter(panel, { palette });
//   s.update({ runs, looks, state, claim })  // returns what it drew, or null: {key, seed, layers: [...]}
//   s.redraw(); s.destroy()
import { createChartHost, axisStyle } from '../shared/chart-host.js';
import { el } from '../shared/dom.js';
import { scrollRegion } from '../shared/scroll-region.js';
import { significant } from '../shared/format.js';
import { unitName } from '../shared/attn-res-weights.js';
import { fitTanh, shapeOf } from '../shared/tanh-fit.js';

/** The claim whose panel shows the scatter. */
export const CLAIM = 'dyt';

/** The panels: indices into the branch-input norms (first, middle, last), without repeats. */
export function pickNorms(count) {
  return [...new Set([0, Math.floor((count - 1) / 2), count - 1])].filter((i) => i >= 0 && i < count);
}

/** The finite pairs of x and y sorted by x (ties in their order): the chart's columns. */
export function scatterColumns(x, y) {
  const idx = [];
  for (let i = 0; i < x.length; i++) if (Number.isFinite(x[i]) && Number.isFinite(y[i])) idx.push(i);
  idx.sort((a, b) => x[a] - x[b] || a - b);
  return [Float64Array.from(idx, (i) => x[i]), Float64Array.from(idx, (i) => y[i])];
}

/** A number of the sentences: 3 significant digits, more when the two R^2 would read the same. */
function r2Pair(f) {
  let digits = 2;
  while (digits < 6 && f.r2 !== f.line.r2 && significant(f.r2, digits) === significant(f.line.r2, digits)) digits++;
  return [significant(f.r2, digits), significant(f.line.r2, digits)];
}

/** The sentence of one panel, from its fit: "block 1 attention: tanh fit R^2 0.97 against 0.88 for a line: S-shaped." */
export function fitSentence(name, f) {
  const dropped = f.dropped ? ` (${f.dropped} of ${f.n + f.dropped} pairs not finite, left out)` : '';
  if (!Number.isFinite(f.r2) || !Number.isFinite(f.line.r2))
    return `${name}: no fit (${f.n} finite pair${f.n === 1 ? '' : 's'}, or every x or every y the same)${dropped}.`;
  const [t, l] = r2Pair(f);
  return `${name}: tanh fit R\u00b2 ${t} against ${l} for a line: ${shapeOf(f)}${dropped}.`;
}

/** The caption over the panels: whose run and seed, what the points are. */
export function scatterIntro(label, seed, samples) {
  return (
    `${label}, seed ${seed} (the first seed), after training, on held-out batch 0: each point one element of the ` +
    `${samples.rows} rows \u00d7 ${samples.width} features of the batch\u2019s last pass (padded positions included), ` +
    'the stream a LayerNorm reads (x) against what it writes (y), its per-channel gain and bias applied. ' +
    'Zhu et al. plot the output before the gain and bias, so here the gains also spread the points. ' +
    'Dashed: the least-squares y = a tanh(b x) + c.'
  );
}

/** The fits in numbers: per panel a, b, c, R^2 of the S-curve and of the line, points, left out. */
function fitsTable(layers) {
  const th = (t) => el('th', { scope: 'col' }, t);
  const head = el('tr', {}, ['norm', 'a', 'b', 'c', 'R\u00b2 tanh', 'R\u00b2 line', 'points', 'not finite'].map(th));
  const rows = layers.map(({ name, fit: f }) =>
    el(
      'tr',
      {},
      el('th', { scope: 'row' }, name),
      [f.a, f.b, f.c, f.r2, f.line.r2].map((v) => el('td', {}, significant(v, 4))),
      el('td', {}, String(f.n)),
      el('td', {}, String(f.dropped)),
    ),
  );
  return el('table', { class: 'readout-table norm-scatter-table' }, el('thead', {}, head), el('tbody', {}, rows));
}

/** The uPlot options of one panel: the points in the run's colour, the fit dashed. */
function scatterOptions(pal, colour, name) {
  const axis = axisStyle(pal);
  return {
    legend: { show: false },
    cursor: { show: false },
    scales: { x: { time: false } },
    axes: [
      { ...axis, label: `input x (${name})`, labelSize: 18, size: 34 },
      { ...axis, label: 'output y', labelSize: 18, size: 48 },
    ],
    series: [
      { label: 'x' },
      {
        label: 'y',
        stroke: colour,
        paths: () => null,
        points: { show: true, size: 3, width: 0, fill: colour, stroke: colour },
      },
      { label: 'fit', stroke: pal.text, width: 1.5, dash: [6, 4], points: { show: false } },
    ],
  };
}

export function createNormScatter(panel, { palette }) {
  const intro = el('p', { class: 'hint norm-scatter-intro', id: 'train-norm-scatter-intro' });
  const figures = el('div', { class: 'after-charts norm-scatter-charts' });
  const sentences = el('ul', { class: 'after-sentences', id: 'train-norm-scatter-caption' });
  const tableBox = scrollRegion(el('div', { class: 'readout-scroll' }), 'The fits in numbers');
  const box = el(
    'section',
    { class: 'norm-scatter', id: 'train-norm-scatter', 'aria-labelledby': 'train-norm-scatter-title' },
    el(
      'h4',
      { class: 'learned-title', id: 'train-norm-scatter-title' },
      'Each LayerNorm\u2019s input against its output (Pre-LN)',
    ),
    intro,
    figures,
    sentences,
    tableBox,
  );
  box.hidden = true;
  panel.append(box);
  let hosts = [];
  let drawnFrom = null;
  let drawn = null;

  function clear() {
    for (const h of hosts) h.destroy();
    hosts = [];
    figures.replaceChildren();
  }

  function draw(r, look) {
    clear();
    const s = r.normSamples;
    // units 1..L P carry the branch-input norms (P = 2 units a transformer block); L P + 1 is the final norm
    const depth = r.config?.depth ?? 1;
    const totalUnits = depth * (r.config?.block === 'transformer' ? 2 : 1);
    const branchCount = s.units.filter((k) => k <= totalUnits).length;
    const layers = pickNorms(branchCount).map((i) => {
      const unit = s.units[i];
      const name = unitName(unit, totalUnits, depth);
      const [xs, ys] = scatterColumns(s.input[i], s.output[i]);
      const fit = fitTanh(s.input[i], s.output[i]);
      const curve = Float64Array.from(xs, (x) => fit.a * Math.tanh(fit.b * x) + fit.c);
      const chart = el('div', {
        class: 'chart after-chart norm-scatter-chart',
        'data-unit': String(unit),
        role: 'img',
        'aria-label': `Scatter: the input against the output of the LayerNorm before ${name}; ${fitSentence(name, fit)}`,
      });
      figures.append(
        el(
          'figure',
          { class: 'chart-figure' },
          el('figcaption', {}, el('span', { class: 'chart-title' }, `LayerNorm before ${name}`)),
          chart,
        ),
      );
      const host = createChartHost(chart, { minHeight: 170 });
      hosts.push(host);
      host.draw(() => {
        const p = palette();
        return { opts: scatterOptions(p, p.arch[r.arch] ?? p.text, name), data: [xs, ys, curve] };
      });
      return { unit, index: i, name, fit, points: xs.length };
    });
    intro.textContent = scatterIntro(look?.label ?? r.label ?? r.arch, r.seed, s);
    sentences.replaceChildren(...layers.map((l) => el('li', {}, fitSentence(l.name, l.fit))));
    tableBox.replaceChildren(fitsTable(layers));
    return { key: r.key, seed: r.seed, units: s.units, layers };
  }

  return {
    update({ runs, looks, state, claim }) {
      const r = claim === CLAIM && state === 'done' ? runs.find((x) => x.normSamples) : null;
      box.hidden = !r;
      if (!r) {
        if (drawnFrom) clear();
        drawnFrom = null;
        drawn = null;
        return null;
      }
      if (drawnFrom !== r) {
        drawnFrom = r;
        drawn = draw(r, looks[r.key ?? r.arch]);
      }
      // what each panel plots: uPlot's own columns [x, y, fit]
      return { ...drawn, data: hosts.map((h) => h.u?.data ?? null) };
    },
    /** The theme changed: the points and axes are its colours. */
    redraw: () => hosts.forEach((h) => h.retheme()),
    destroy: clear,
  };
}
