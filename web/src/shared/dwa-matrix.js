// DenseFormer's averaging weights after training, as the training lab and the
// papers page show them: per run, the block x earlier-layer matrix (row l the
// weights w_{l,0..l} the stream after block l takes of the embedding h_0 and of
// each block output up to its own) on a diverging colour scale shared by every
// matrix, with a pointer and keyboard readout; a caption written from the
// numbers; and the weights as a table of numbers. Imports no view: its
// colours come from the caller.
//
//   const v = createDwaView(box, { colours, captionsId, legendTitle });
//   v.update([{ key, label, rows }])   // rows: L arrays, row l - 1 holding w_{l,0..l}
//   v.redraw();                        // the theme changed
//   v.legendTicks(); v.destroy();
import { el } from './dom.js';
import { scrollRegion } from './scroll-region.js';
import { FONT } from './chart-host.js';
import { fmtPlain, significant } from './format.js';
import { dwaCaption, maxAbs } from './dwa-weights.js';
import { diverging, signedAt } from './colormap.js';
import { cellText, hatchPattern } from './heat-cells.js';

const KEYS = 'ArrowLeft ArrowRight ArrowUp ArrowDown Home End Escape';
const MARGIN = { left: 30, right: 6, top: 4, bottom: 18 };
const CELL_MAX = 28; // CSS px

/** DenseFormer's words for the view: row r (0-based) is block r + 1's stream, column j h_0 or block j's output. */
const DWA_WORDS = {
  rowHead: 'block',
  hint: 'Point at the matrix, or focus it and use the arrow keys, to read how much a block takes of an earlier layer.',
  aria: (name) =>
    `${name}: the averaging weight each block's stream takes of the embedding and of each block output, per block. Arrow keys move between cells; the value is read below the matrix.`,
  cell: (r, j, value) =>
    `block ${r + 1} takes ${value} of ${j === 0 ? 'the embedding h\u2080' : j === r + 1 ? 'its own output' : `block ${j}'s output`}`,
  caption: dwaCaption,
};

/** One run's weights as a matrix on a canvas: rows 1 (top) .. L, columns h_0 .. L, in `words`. */
function createMatrix(box, { name, colours, words }) {
  const canvas = el('canvas', { class: 'heatmap-canvas', 'aria-hidden': 'true' });
  const tip = el('div', { class: 'chart-tip', hidden: true, 'aria-hidden': 'true' });
  const map = el(
    'div',
    {
      class: 'learned-matrix',
      tabindex: 0,
      role: 'img',
      'aria-keyshortcuts': KEYS,
      'aria-label': words.aria(name),
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
  // columns: h_0 and the longest row's sources (L + 1 when row r holds r + 2 weights)
  const cols = () => Math.max(1, ...rows.map((row) => row.length));
  const side = () => Math.max(2, Math.min(CELL_MAX, (width - MARGIN.left - MARGIN.right) / cols()));
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
    for (const j of ticks(cols())) ctx.fillText(colLabel(words, j), x0(j) + s / 2, y0(L()) + 4);
  }

  function describe() {
    if (!cell) {
      readout.textContent = words.hint;
      tip.hidden = true;
      return;
    }
    const text = words.cell(cell.r, cell.j, cellText(rows[cell.r][cell.j]));
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
    const next = cell ? { ...cell } : { r: L() - 1, j: rows[L() - 1].length - 1 };
    if (cell) {
      if (e.key === 'ArrowLeft') next.j--;
      if (e.key === 'ArrowRight') next.j++;
      if (e.key === 'ArrowUp') next.r--;
      if (e.key === 'ArrowDown') next.r++;
    }
    if (e.key === 'Home') next.j = 0;
    next.r = Math.max(0, Math.min(L() - 1, next.r));
    if (e.key === 'End') next.j = rows[next.r].length - 1;
    next.j = Math.max(0, Math.min(rows[next.r].length - 1, next.j));
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

/** The diverging colour bar from -max to +max with ticks at -max, 0 and +max, under `title`. */
function createSignedLegend(box, title) {
  const bar = el('canvas', { class: 'heat-bar-canvas', width: 256, height: 1, 'aria-hidden': 'true' });
  const ticks = el('div', { class: 'heat-ticks' });
  const range = el('span', { class: 'visually-hidden' });
  box.append(el('p', { class: 'heat-legend-title' }, title, range), el('div', { class: 'heat-bar' }, bar, ticks));
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

/** Column j's label: h_0, the source's number, or the words' own (Block AttnRes's groups). */
function colLabel(words, j) {
  return words.colLabel?.(j) ?? (j === 0 ? 'h\u2080' : String(j));
}

/** One run's weights as numbers: a row per block (or unit), a column per earlier layer (or group). */
function weightsTable(rows, key, words) {
  const cols = Math.max(1, ...rows.map((row) => row.length));
  const th = (text) => el('th', { scope: 'col' }, text);
  const head = el(
    'thead',
    {},
    el('tr', {}, th(words.rowHead), ...Array.from({ length: cols }, (_, j) => th(colLabel(words, j)))),
  );
  const body = rows.map((row, i) =>
    el(
      'tr',
      {},
      el('th', { scope: 'row' }, String(i + 1)),
      Array.from({ length: cols }, (_, j) => el('td', {}, j < row.length ? fmtPlain(row[j]) : '')),
    ),
  );
  return el('table', { class: 'readout-table learned-dwa-table', 'data-run': key }, head, el('tbody', {}, body));
}

/**
 * The matrices of `runs` ([{key, label, rows}]) in `box`: the colour bar, a matrix per run, a
 * caption per run and, behind "Show the weights", a table per run. `colours()` gives the theme's
 * {grid, hatch, surface, cursor, muted}; `captionsId` names the captions' list. A run may bring
 * its own `words` (attn-res-weights.js's attnResWords: Attention Residuals' rows are units); the
 * default are DenseFormer's.
 */
export function createDwaView(
  box,
  {
    colours,
    captionsId = null,
    legendTitle = 'Averaging weight w (linear, shared by every matrix)',
    numbersLabel = 'The averaging weights in numbers',
  },
) {
  const legendBox = el('div', { class: 'heat-legend' });
  const maps = el('div', { class: 'heat-grid learned-maps' });
  const captions = el('ul', { class: 'after-sentences', id: captionsId });
  const numbers = scrollRegion(el('div', { class: 'readout-scroll' }), numbersLabel);
  box.append(
    legendBox,
    maps,
    captions,
    el('details', { class: 'after-numbers' }, el('summary', {}, 'Show the weights'), numbers),
  );
  const legend = createSignedLegend(legendBox, legendTitle);
  let matrices = [];

  return {
    update(runs) {
      for (const m of matrices) m.destroy();
      matrices = [];
      const max = Math.max(1e-12, ...runs.map((r) => maxAbs(r.rows)));
      legend.update(max);
      maps.replaceChildren();
      for (const r of runs) {
        const cellBox = el('div', { class: 'heatmap-cell', 'data-run': r.key });
        maps.append(cellBox);
        const m = createMatrix(cellBox, { name: r.label, colours, words: r.words ?? DWA_WORDS });
        m.update(r.rows, max);
        matrices.push(m);
      }
      captions.replaceChildren(...runs.map((r) => el('li', {}, (r.words ?? DWA_WORDS).caption(r.label, r.rows))));
      numbers.replaceChildren(
        ...runs.flatMap((r) => [
          el('p', { class: 'heatmap-name' }, r.label),
          weightsTable(r.rows, r.key, r.words ?? DWA_WORDS),
        ]),
      );
    },
    redraw() {
      for (const m of matrices) m.redraw();
    },
    legendTicks: () => legend.ticks(),
    destroy() {
      for (const m of matrices) m.destroy();
    },
  };
}
