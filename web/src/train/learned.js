// After training, what a run learned beyond its weights (session.js keeps it
// on the run): DenseFormer's averaging weights (run.dwaWeights, row l - 1 the
// weights w_{l,0..l} block l's stream takes of the embedding h_0 and of each
// block output up to its own) as a block x earlier-layer matrix on a diverging
// colour scale, with a pointer and keyboard readout; and ReZero's and
// LayerScale's gates (run.gates) per unit, their magnitude at the end beside
// their value at initialization, as a table. Each with a caption written from
// the numbers, and the weights as a table of numbers too.
//
//   const l = createLearned(section, { colours });
//   l.update({ runs, looks, state })  // returns {key: {dwaWeights, gates}} drawn (the engine's arrays)
//   l.destroy()
import { el } from '../shared/dom.js';
import { FONT } from '../shared/chart-host.js';
import { fmtPlain, significant } from '../shared/format.js';
import { diverging, signedAt } from './colormap.js';
import { cellText, hatchPattern } from './heatmap.js';

const KEYS = 'ArrowLeft ArrowRight ArrowUp ArrowDown Home End Escape';
const MARGIN = { left: 30, right: 6, top: 4, bottom: 18 };
const CELL_MAX = 28; // CSS px

/** What column j of block l's row is: the embedding, the block itself, or an earlier block. */
export function sourceName(l, j) {
  if (j === 0) return 'the embedding';
  return j === l ? 'itself' : `block ${j}`;
}

/** The largest |w| of the rows (0 when there is none finite). */
function maxAbs(rows) {
  let m = 0;
  for (const row of rows) for (const w of row) if (Number.isFinite(w)) m = Math.max(m, Math.abs(w));
  return m;
}

/** The caption of one run's averaging weights, from its numbers. */
export function dwaCaption(label, rows) {
  const L = rows.length;
  const last = Array.from(rows[L - 1], (w, j) => ({ w, j })).filter((e) => Number.isFinite(e.w));
  if (!last.length) return `${label}: the averaging weights are not finite.`;
  last.sort((a, b) => Math.abs(b.w) - Math.abs(a.w));
  const src = (e) => `${sourceName(L, e.j)} (${significant(e.w, 2)})`;
  const reads = last.length > 1 ? `${src(last[0])} and ${src(last[1])}` : src(last[0]);
  let off = null;
  rows.forEach((row, r) =>
    row.forEach((w, j) => {
      if (j !== r + 1 && Number.isFinite(w) && (!off || Math.abs(w) > Math.abs(off.w))) off = { w, l: r + 1, j };
    }),
  );
  const offText = off
    ? ` Off the diagonal the largest weight is ${significant(off.w, 2)} (block ${off.l} reading ${sourceName(off.l, off.j)}); at initialization every block read only itself, with weight 1.`
    : '';
  return `${label}: block ${L} reads mostly ${reads}.${offText}`;
}

/** Unit k's (1-based) name: "block l", or with two units a block "block l attention" / "block l MLP". */
export function unitName(k, units, depth) {
  const per = Math.max(1, Math.round(units / Math.max(1, depth)));
  const l = Math.ceil(k / per);
  if (per === 1) return `block ${l}`;
  return `block ${l} ${k % per === 1 ? 'attention' : 'MLP'}`;
}

const median = (v) => {
  const s = Array.from(v)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The caption of one run's gates, from their numbers: how the median magnitude moved from the init value. */
export function gatesCaption(label, gates, depth) {
  const what = gates.width === 1 ? '|\u03b1|' : 'mean |\u03bb|';
  const init = median(gates.init);
  const now = median(gates.magnitude);
  if (!Number.isFinite(now)) return `${label}: the gates are not finite.`;
  const verb = now > Math.abs(init) * 1.01 ? 'grew' : now < Math.abs(init) * 0.99 ? 'shrank' : 'stayed';
  let lo = 0;
  let hi = 0;
  gates.magnitude.forEach((v, k) => {
    if (v < gates.magnitude[lo]) lo = k;
    if (v > gates.magnitude[hi]) hi = k;
  });
  const name = (k) => unitName(k + 1, gates.units, depth);
  // enough digits that two different numbers of the sentence do not read the same
  let digits = 2;
  while (digits < 5 && now !== Math.abs(init) && significant(now, digits) === significant(init, digits)) digits++;
  const range =
    gates.units > 1
      ? ` (from ${significant(gates.magnitude[lo], 2)} in ${name(lo)} to ${significant(gates.magnitude[hi], 2)} in ${name(hi)})`
      : '';
  const at = verb === 'stayed' ? 'at' : 'to';
  return `${label}: the gates' ${what} ${verb} from ${significant(init, digits)} at initialization ${at} a median ${significant(now, digits)} over ${gates.units} unit${gates.units > 1 ? 's' : ''}${range}.`;
}

/** One run's averaging weights as a matrix on a canvas: rows block 1 (top) .. L, columns h_0 .. block L. */
function createMatrix(box, { name, colours }) {
  const canvas = el('canvas', { class: 'heatmap-canvas', 'aria-hidden': 'true' });
  const tip = el('div', { class: 'chart-tip', hidden: true, 'aria-hidden': 'true' });
  const map = el(
    'div',
    {
      class: 'learned-matrix',
      tabindex: 0,
      role: 'img',
      'aria-keyshortcuts': KEYS,
      'aria-label': `${name}: the averaging weight each block's stream takes of the embedding and of each block output, per block. Arrow keys move between cells; the value is read below the matrix.`,
    },
    canvas,
    tip,
  );
  const readout = el('p', { class: 'heatmap-readout', 'aria-live': 'polite' });
  box.append(el('p', { class: 'heatmap-name' }, el('span', { class: 'heatmap-arch' }, name)), map, readout);
  const ctx = canvas.getContext('2d');
  let rows = [];
  let max = 1;
  let cell = null; // {r, j}
  let pointer = false;
  let width = 0;

  const L = () => rows.length;
  const side = () => Math.max(2, Math.min(CELL_MAX, (width - MARGIN.left - MARGIN.right) / Math.max(1, L() + 1)));
  const x0 = (j) => MARGIN.left + j * side();
  const y0 = (r) => MARGIN.top + r * side();

  function draw() {
    const c = colours();
    const dpr = devicePixelRatio || 1;
    const s = side();
    const h = MARGIN.top + L() * s + MARGIN.bottom;
    canvas.width = Math.max(1, Math.round(width * dpr));
    canvas.height = Math.max(1, Math.round(h * dpr));
    canvas.style.width = `${width}px`;
    canvas.style.height = `${h}px`;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, h);
    // the weights that exist (j <= l) on the grid colour, 1 px apart, so a weight near 0 (the
    // scale's light middle) still reads apart from the empty upper corner
    let hatch = null;
    const gap = s >= 6 ? 1 : 0;
    rows.forEach((row, r) => {
      ctx.fillStyle = c.grid;
      ctx.fillRect(x0(0), y0(r), row.length * s, s);
      row.forEach((w, j) => {
        if (Number.isFinite(w)) ctx.fillStyle = `rgb(${diverging(signedAt(max, w)).join(',')})`;
        else ctx.fillStyle = hatch ??= hatchPattern(ctx, c.hatch, c.surface);
        ctx.fillRect(x0(j) + gap, y0(r) + gap, s - 2 * gap, s - 2 * gap);
      });
    });
    if (cell) {
      ctx.strokeStyle = c.cursor;
      ctx.lineWidth = 2;
      ctx.strokeRect(x0(cell.j), y0(cell.r), s, s);
    }
    ctx.font = FONT;
    ctx.fillStyle = c.muted;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    const ticks = (n) => [...new Set([0, Math.floor((n - 1) / 2), n - 1])];
    for (const r of ticks(L())) ctx.fillText(String(r + 1), MARGIN.left - 5, y0(r) + s / 2);
    ctx.textBaseline = 'top';
    ctx.textAlign = 'center';
    for (const j of ticks(L() + 1)) ctx.fillText(j === 0 ? 'h\u2080' : String(j), x0(j) + s / 2, y0(L()) + 4);
  }

  function describe() {
    if (!cell) {
      readout.textContent =
        'Point at the matrix, or focus it and use the arrow keys, to read how much a block takes of an earlier layer.';
      tip.hidden = true;
      return;
    }
    const l = cell.r + 1;
    const text = `block ${l} takes ${cellText(rows[cell.r][cell.j])} of ${cell.j === 0 ? 'the embedding h\u2080' : cell.j === l ? 'its own output' : `block ${cell.j}'s output`}`;
    readout.textContent = `${name}, ${text}`;
    tip.hidden = !pointer;
    if (!pointer) return;
    tip.textContent = text;
    tip.style.left = `${Math.max(2, Math.min(x0(cell.j) + side() + 6, width - tip.offsetWidth - 2))}px`;
    tip.style.top = `${Math.max(0, y0(cell.r) - tip.offsetHeight - 4)}px`;
  }
  const pick = (next) => {
    cell = next;
    describe();
    draw();
  };
  canvas.addEventListener('mousemove', (e) => {
    const b = canvas.getBoundingClientRect();
    const j = Math.floor((e.clientX - b.left - MARGIN.left) / side());
    const r = Math.floor((e.clientY - b.top - MARGIN.top) / side());
    if (r < 0 || r >= L() || j < 0 || j > r + 1) {
      if (pointer) {
        pointer = false;
        pick(null);
      }
      return;
    }
    pointer = true;
    if (!cell || cell.r !== r || cell.j !== j) pick({ r, j });
  });
  canvas.addEventListener('mouseleave', () => {
    if (!pointer) return;
    pointer = false;
    pick(null);
  });
  map.addEventListener('keydown', (e) => {
    if (!KEYS.split(' ').includes(e.key) || !L()) return;
    e.preventDefault();
    pointer = false;
    if (e.key === 'Escape') return pick(null);
    const next = cell ? { ...cell } : { r: L() - 1, j: L() };
    if (cell) {
      if (e.key === 'ArrowLeft') next.j--;
      if (e.key === 'ArrowRight') next.j++;
      if (e.key === 'ArrowUp') next.r--;
      if (e.key === 'ArrowDown') next.r++;
    }
    if (e.key === 'Home') next.j = 0;
    if (e.key === 'End') next.j = next.r + 1;
    next.r = Math.max(0, Math.min(L() - 1, next.r));
    next.j = Math.max(0, Math.min(next.r + 1, next.j));
    pick(next);
  });
  const ro = new ResizeObserver(([entry]) => {
    const w = Math.floor(entry.contentRect.width);
    if (w === width) return;
    width = w;
    draw();
  });
  ro.observe(map);

  return {
    update(next, scaleMax) {
      rows = next;
      max = scaleMax;
      cell = null;
      describe();
      if (width) draw();
    },
    redraw: () => width && draw(),
    destroy: () => ro.disconnect(),
  };
}

/** The diverging colour bar from -max to +max with ticks at -max, 0 and +max. */
function createSignedLegend(box) {
  const bar = el('canvas', { class: 'heat-bar-canvas', width: 256, height: 1, 'aria-hidden': 'true' });
  const ticks = el('div', { class: 'heat-ticks' });
  const range = el('span', { class: 'visually-hidden' });
  box.append(
    el('p', { class: 'heat-legend-title' }, 'Averaging weight w (linear, shared by every matrix)', range),
    el('div', { class: 'heat-bar' }, bar, ticks),
  );
  const ctx = bar.getContext('2d');
  const img = ctx.createImageData(256, 1);
  for (let i = 0; i < 256; i++) img.data.set([...diverging(i / 255), 255], 4 * i);
  ctx.putImageData(img, 0, 0);
  return {
    update(max) {
      const at = [-max, 0, max];
      range.textContent = `: from ${fmtPlain(-max)} (purple) through 0 (light) to ${fmtPlain(max)} (orange)`;
      ticks.replaceChildren(
        ...at.map((v, i) => {
          const t = el('span', { class: 'heat-tick', 'aria-hidden': 'true' }, significant(v, 2));
          t.style.left = `${50 * i}%`;
          return t;
        }),
      );
    },
    ticks: () => [...ticks.children].map((t) => t.textContent),
  };
}

/** The gates of the gated runs per unit: at init, at the end, for each run. */
function gatesTable(gated, depthOf) {
  const th = (text, attrs = {}) => el('th', { scope: 'col', ...attrs }, text);
  const units = Math.max(...gated.map((r) => r.gates.units));
  const head = el(
    'thead',
    {},
    el('tr', {}, th('unit', { rowspan: 2 }), ...gated.map((r) => th(r.look.label, { scope: 'colgroup', colspan: 2 }))),
    el(
      'tr',
      {},
      gated.flatMap(() => [th('at init'), th('trained')]),
    ),
  );
  const body = Array.from({ length: units }, (_, k) => {
    const cells = gated.flatMap(({ gates: g }) =>
      k < g.units
        ? [el('td', {}, fmtPlain(Math.abs(g.init[k]))), el('td', {}, fmtPlain(g.magnitude[k]))]
        : [el('td', {}, '\u2014'), el('td', {}, '\u2014')],
    );
    return el('tr', {}, el('th', { scope: 'row' }, unitName(k + 1, units, depthOf(gated[0]))), cells);
  });
  return el(
    'table',
    { class: 'readout-table learned-gates-table', id: 'train-learned-gates' },
    head,
    el('tbody', {}, body),
  );
}

/** One run's averaging weights as numbers: a row per block, a column per earlier layer. */
function weightsTable(r) {
  const L = r.dwaWeights.length;
  const th = (text) => el('th', { scope: 'col' }, text);
  const head = el(
    'thead',
    {},
    el('tr', {}, th('block'), th('h\u2080'), ...Array.from({ length: L }, (_, j) => th(String(j + 1)))),
  );
  const body = r.dwaWeights.map((row, i) =>
    el(
      'tr',
      {},
      el('th', { scope: 'row' }, String(i + 1)),
      Array.from({ length: L + 1 }, (_, j) => el('td', {}, j < row.length ? fmtPlain(row[j]) : '')),
    ),
  );
  return el('table', { class: 'readout-table learned-dwa-table', 'data-run': r.key }, head, el('tbody', {}, body));
}

export function createLearned(section, { colours }) {
  const dwaTitle = el('h4', { class: 'learned-title' }, 'Which earlier layers each block reads (DenseFormer)');
  const dwaSub = el(
    'p',
    { class: 'hint' },
    'Row l: the weights of the average that is the stream after block l, over the embedding h\u2080 (left) and the outputs of blocks 1..l (the diagonal is the block itself). At initialization the diagonal is 1 and the rest 0.',
  );
  const legendBox = el('div', { class: 'heat-legend' });
  const maps = el('div', { class: 'heat-grid learned-maps' });
  const dwaCaptions = el('ul', { class: 'after-sentences', id: 'train-learned-dwa-caption' });
  const dwaNumbers = el('div', { class: 'readout-scroll' });
  const dwaBox = el(
    'div',
    { class: 'learned-dwa', id: 'train-learned-dwa' },
    dwaTitle,
    dwaSub,
    legendBox,
    maps,
    dwaCaptions,
    el('details', { class: 'after-numbers' }, el('summary', {}, 'Show the weights'), dwaNumbers),
  );
  const gatesCaptions = el('ul', { class: 'after-sentences', id: 'train-learned-gates-caption' });
  const gatesNumbers = el('div', { class: 'readout-scroll' });
  const gatesBox = el(
    'div',
    { class: 'learned-gates', id: 'train-learned-gates-box' },
    el('h4', { class: 'learned-title' }, 'The learned gates (ReZero\u2019s \u03b1, LayerScale\u2019s \u03bb)'),
    el(
      'p',
      { class: 'hint' },
      'Per unit, the gate\u2019s magnitude at initialization and after training: |\u03b1| for ReZero\u2019s one scalar, the mean |\u03bb| over the channels for LayerScale.',
    ),
    gatesCaptions,
    gatesNumbers,
  );
  const box = el('div', { class: 'learned', id: 'train-learned' }, dwaBox, gatesBox);
  section.append(box);
  box.hidden = true;
  const legend = createSignedLegend(legendBox);
  let matrices = [];
  let drawnFrom = null;
  let drawn = null;

  function draw(runs) {
    for (const m of matrices) m.destroy();
    matrices = [];
    const depthOf = (r) => r.config?.depth ?? r.dwaWeights?.length ?? r.gates.units;
    const dense = runs.filter((r) => r.dwaWeights);
    const gated = runs.filter((r) => r.gates);
    dwaBox.hidden = !dense.length;
    gatesBox.hidden = !gated.length;
    const max = Math.max(1e-12, ...dense.map((r) => maxAbs(r.dwaWeights)));
    legend.update(max);
    maps.replaceChildren();
    for (const r of dense) {
      const cellBox = el('div', { class: 'heatmap-cell', 'data-run': r.key });
      maps.append(cellBox);
      const m = createMatrix(cellBox, { name: r.look.label, colours });
      m.update(r.dwaWeights, max);
      matrices.push(m);
    }
    dwaCaptions.replaceChildren(...dense.map((r) => el('li', {}, dwaCaption(r.look.label, r.dwaWeights))));
    dwaNumbers.replaceChildren(
      ...dense.flatMap((r) => [el('p', { class: 'heatmap-name' }, r.look.label), weightsTable(r)]),
    );
    gatesCaptions.replaceChildren(...gated.map((r) => el('li', {}, gatesCaption(r.look.label, r.gates, depthOf(r)))));
    gatesNumbers.replaceChildren(...(gated.length ? [gatesTable(gated, depthOf)] : []));
  }

  return {
    update({ runs, looks, state }) {
      const learned = runs
        .filter((r) => r.dwaWeights || r.gates)
        .map((r) => ({
          key: r.key ?? r.arch,
          look: looks[r.key ?? r.arch],
          config: r.config,
          dwaWeights: r.dwaWeights,
          gates: r.gates,
        }));
      const ready = state === 'done' && learned.length > 0;
      box.hidden = !ready;
      if (!ready) {
        drawnFrom = null;
        drawn = null;
        return null;
      }
      if (drawnFrom !== runs) {
        drawnFrom = runs;
        draw(learned);
        drawn = Object.fromEntries(learned.map((r) => [r.key, { dwaWeights: r.dwaWeights, gates: r.gates }]));
      }
      return drawn;
    },
    /** The theme changed: the matrices' background and marks are its colours. */
    redraw() {
      for (const m of matrices) m.redraw();
    },
    legendTicks: () => legend.ticks(),
    destroy() {
      for (const m of matrices) m.destroy();
    },
  };
}
