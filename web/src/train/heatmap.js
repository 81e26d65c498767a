// A layer x step heatmap on a canvas: one column per logged step (from the
// step before it to its own), one row per layer (layer 0 at the bottom), each
// cell coloured by its value on a shared log scale (colormap.js); exact zeros
// grey, non-finite values hatched, steps not run yet the plot's background,
// and the steps after a run stopped (once trained, or at a divergence) dotted,
// with the note over the map saying how it stopped.
// Rows are numbered, or named when the caller names them (BatchNorm's layers).
// Pointing at a cell, or focusing the map and moving with the arrow keys,
// reads its layer, step and value in a tooltip and in a line of text under
// the map (announced politely to screen readers).
//
//   const h = createHeatmap(figureBox, { name, metric, rowLabel, firstRow, colours });
//   h.update({ steps, columns, rows, xMax, logEvery, scale, divergedAt, end });
//   h.showStep(step);   // the shared step of the line charts' cursor (null: none)
//   h.destroy();
import { el } from '../shared/dom.js';
import { FONT } from '../shared/chart-host.js';
import { VIRIDIS, cellKind, scaleAt } from '../shared/colormap.js';
import { cellText, hatchPattern, stoppedPattern } from '../shared/heat-cells.js';

/** The grey of an exact zero: no colour of viridis. */
export const ZERO_RGB = [138, 138, 138];

/** Nice step ticks over [0, max] about `px` CSS pixels apart on a `width` px axis; on a narrow one, still one besides 0. */
export function stepTicks(max, width, px = 70) {
  if (!(max > 0)) return [0];
  const want = Math.max(2, Math.floor(width / px));
  const raw = max / want;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(
    1,
    [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw),
  );
  const out = [];
  for (let v = 0; v <= max + 1e-9; v += step) out.push(Math.round(v));
  return out;
}

const MARGIN = { left: 34, right: 8, top: 4, bottom: 20 };
const KEYS = 'ArrowLeft ArrowRight ArrowUp ArrowDown Home End Escape';

/** A map's name for a screen reader: what it shows and how to read it. */
const mapLabel = (name, metric, rowLabel) =>
  `${name}: ${metric} per ${rowLabel} and step, log colour scale. Arrow keys move between cells; the value is read below the map.`;

/** The elements of a map in `box`: the name line (its name and note), the map (canvas and tooltip) and the readout line. */
function heatmapLayout(box, { name, metric, rowLabel }) {
  const arch = el('span', { class: 'heatmap-arch' }, name);
  const note = el('span', { class: 'heatmap-note' });
  const canvas = el('canvas', { class: 'heatmap-canvas', 'aria-hidden': 'true' });
  const tip = el('div', { class: 'chart-tip', hidden: true, 'aria-hidden': 'true' });
  const map = el(
    'div',
    {
      class: 'heatmap',
      tabindex: 0,
      role: 'img',
      'aria-keyshortcuts': KEYS,
      'aria-label': mapLabel(name, metric, rowLabel),
    },
    canvas,
    tip,
  );
  const readout = el('p', { class: 'heatmap-readout', 'aria-live': 'polite' });
  box.append(el('p', { class: 'heatmap-name' }, arch, ' ', note), map, readout);
  return { arch, note, canvas, tip, map, readout };
}

/**
 * Where things are on a map of `size` CSS pixels showing `data`: the plot's box
 * p {x, y, w, h}, a step's x, a row's top and a column's left edge.
 */
function geometry(data, size) {
  const left = data.left ?? MARGIN.left;
  const p = {
    x: left,
    y: MARGIN.top,
    w: Math.max(1, size.width - left - MARGIN.right),
    h: Math.max(1, size.height - MARGIN.top - MARGIN.bottom),
  };
  const xOf = (step) => p.x + (p.w * step) / Math.max(1, data.xMax);
  const rowTop = (r) => p.y + p.h - ((r + 1) * p.h) / Math.max(1, data.rows);
  const cellLeft = (i) => xOf(i > 0 ? data.steps[i - 1] : 0);
  return { p, xOf, rowTop, cellLeft };
}

/** A cell's colour on the scale, grey for an exact zero; null for a non-finite value (hatched). */
function rgbOf(v, scale) {
  const kind = cellKind(v);
  if (kind === 'nonfinite') return null;
  return kind === 'zero' || !scale ? ZERO_RGB : VIRIDIS[Math.round(255 * scaleAt(scale, v))];
}

/** The columns of width log_every the whole run has, and how many of the present ones are that wide. */
function shapeOf(data) {
  const E = data.logEvery;
  const cap = E > 0 ? Math.floor(data.xMax / E) : 0;
  const count = data.steps.length;
  const lastWide = count > 0 && data.steps[count - 1] - (count > 1 ? data.steps[count - 2] : 0) === E;
  const body = Math.min(cap, count > 0 && !lastWide ? count - 1 : count);
  return { cap, body };
}

// The image: one pixel per column of width log_every (bins of several columns when the run has more
// than the plot has pixels: the largest value, a non-finite one first), painted as columns arrive and
// all again when the scale or the shape changes. A shorter last column (the run's last step, or the
// step it diverged at) is drawn on its own at its width. `bad` lists the non-finite cells, hatched.
// img: {key, cap, cols, rows, pixels: ImageData, painted, bad, first: the run's first column} or null.

/** Paints the columns of `data` not in `img` yet into the `image` canvas (plotW: the plot's width); returns the img now. */
function paintImage(img, { image, imageCtx }, data, plotW) {
  const n = data.rows;
  const { cap, body } = shapeOf(data);
  const cols = Math.max(1, Math.min(cap, Math.round(plotW * (devicePixelRatio || 1))));
  const key = `${cap}|${cols}|${n}|${data.scale?.lo}|${data.scale?.hi}`;
  if (!img || img.key !== key || body < img.painted || img.first !== data.columns[0]) {
    image.width = cols;
    image.height = Math.max(1, n);
    const pixels = imageCtx.createImageData(cols, image.height);
    img = { key, cap, cols, rows: n, pixels, painted: 0, bad: [], first: data.columns[0] };
  }
  if (body === img.painted) return img;
  const start = (j) => Math.floor((j * cap) / cols);
  let j = Math.min(cols - 1, Math.floor((img.painted * cols) / cap));
  while (j > 0 && start(j) > img.painted) j--;
  const px = img.pixels.data;
  for (; j < cols && start(j) < body; j++) {
    const a = start(j);
    const b = Math.min(body, Math.max(a + 1, start(j + 1)));
    for (let r = 0; r < n; r++) {
      let v = data.columns[a][r];
      for (let i = a + 1; i < b && Number.isFinite(v); i++) {
        const w = data.columns[i][r];
        if (!Number.isFinite(w) || w > v) v = w;
      }
      const rgb = rgbOf(v, data.scale);
      const o = 4 * ((n - 1 - r) * cols + j);
      if (!rgb) {
        px[o + 3] = 0; // transparent: hatched on top
        continue;
      }
      px[o] = rgb[0];
      px[o + 1] = rgb[1];
      px[o + 2] = rgb[2];
      px[o + 3] = 255;
    }
  }
  for (let i = img.painted; i < body; i++)
    for (let r = 0; r < n; r++) if (!Number.isFinite(data.columns[i][r])) img.bad.push([i, r]);
  img.painted = body;
  imageCtx.putImageData(img.pixels, 0, 0);
  return img;
}

/** The cells: the image scaled to the plot, the shorter last column at its own width, the non-finite cells hatched. */
function drawCells(ctx, image, im, c, data, g) {
  const { p, xOf, rowTop, cellLeft } = g;
  const rows = data.rows;
  const count = data.steps.length;
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(image, 0, 0, im.cols, rows, xOf(0), p.y, xOf(im.cap * data.logEvery) - xOf(0), p.h);
  const cellH = p.h / rows;
  const bad = [...im.bad];
  // the shorter last column, at its own width
  for (let i = im.painted; i < count; i++) {
    const x0 = cellLeft(i);
    const w = xOf(data.steps[i]) - x0;
    for (let r = 0; r < rows; r++) {
      const rgb = rgbOf(data.columns[i][r], data.scale);
      if (!rgb) {
        bad.push([i, r]);
        continue;
      }
      ctx.fillStyle = `rgb(${rgb.join(',')})`;
      ctx.fillRect(x0, rowTop(r), w, cellH);
    }
  }
  // non-finite cells: hatched, whatever their neighbours
  if (bad.length) ctx.fillStyle = hatchPattern(ctx, c.hatch, c.surface);
  for (const [i, r] of bad) {
    const x0 = cellLeft(i);
    ctx.fillRect(x0, rowTop(r), Math.max(2, xOf(data.steps[i]) - x0), cellH);
  }
}

/** The divergence line, the line charts' shared step (dashed, while no cell is read) and the cell read out. */
function drawCursors(ctx, c, data, g, { sharedStep, cell }) {
  const { p, xOf, rowTop, cellLeft } = g;
  if (data.divergedAt !== null) {
    ctx.strokeStyle = c.hatch;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(xOf(data.divergedAt), p.y);
    ctx.lineTo(xOf(data.divergedAt), p.y + p.h);
    ctx.stroke();
  }
  if (sharedStep !== null && !cell) {
    ctx.strokeStyle = c.cursor;
    ctx.lineWidth = 1;
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    ctx.moveTo(xOf(sharedStep) - 0.5, p.y);
    ctx.lineTo(xOf(sharedStep) - 0.5, p.y + p.h);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  if (cell && cell.i < data.steps.length) {
    const x0 = cellLeft(cell.i);
    ctx.strokeStyle = c.cursor;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0, rowTop(cell.r), Math.max(3, xOf(data.steps[cell.i]) - x0), p.h / data.rows);
  }
}

/**
 * The rows an axis labels: every row when each has `minH` px, else about one in every
 * ceil(minH / cellH), the bottom and the top always among them; with no names, the bottom,
 * middle and top rows.
 */
export function labelledRows(n, cellH, named, minH = 13) {
  if (n <= 1) return [0];
  if (!named) return [...new Set([0, Math.floor((n - 1) / 2), n - 1])];
  const every = Math.max(1, Math.ceil(minH / Math.max(cellH, 1e-9)));
  const out = [];
  for (let r = 0; r < n; r += every) out.push(r);
  if (out.at(-1) !== n - 1) {
    if (n - 1 - out.at(-1) < every && out.length > 1) out.pop();
    out.push(n - 1);
  }
  return out;
}

/** The row labels (named rows: their short names, as many as fit; else numbers from `firstRow`) and the step ticks. */
function drawAxes(ctx, c, data, g, firstRow) {
  const { p, xOf, rowTop } = g;
  ctx.font = FONT;
  ctx.fillStyle = c.muted;
  ctx.strokeStyle = c.grid;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  const n = data.rows;
  const cellH = p.h / Math.max(1, n);
  const names = data.rowNames;
  for (const r of labelledRows(n, cellH, Boolean(names)))
    ctx.fillText(names ? (names[r]?.short ?? '') : String(r + firstRow), p.x - 5, rowTop(r) + cellH / 2);
  ctx.textBaseline = 'top';
  ctx.textAlign = 'center';
  // each label centred on its tick, the first from its tick on, none past the plot's right edge; a
  // label that would touch the one before it is left out (its tick stays)
  ctx.textAlign = 'left';
  let taken = -Infinity;
  for (const [k, t] of stepTicks(data.xMax, p.w).entries()) {
    const x = xOf(t);
    ctx.beginPath();
    ctx.moveTo(x, p.y + p.h);
    ctx.lineTo(x, p.y + p.h + 4);
    ctx.stroke();
    const text = String(t);
    const w = ctx.measureText(text).width;
    const left = k === 0 ? x : Math.min(x - w / 2, p.x + p.w - w);
    if (left < taken + 4) continue;
    ctx.fillText(text, left, p.y + p.h + 6);
    taken = left + w;
  }
}

/**
 * The drawing of a map on `canvas`, keeping what one drawing leaves for the
 * next (the image of the columns so far, the dotted pattern):
 * draw({data, size, colours, sharedStep, cell, firstRow}) draws it all.
 */
function createPainter(canvas) {
  const image = document.createElement('canvas'); // one pixel per cell, scaled up when drawn
  // each canvas's one context, taken once (resizing a canvas keeps its context)
  const ctx = canvas.getContext('2d');
  const imageCtx = image.getContext('2d');
  let img = null; // the image's state (paintImage)
  let dots = null; // {key: its colours, fill}: the pattern of the steps after the run stopped

  return {
    draw({ data, size, colours: c, sharedStep, cell, firstRow }) {
      const dpr = devicePixelRatio || 1;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, size.width, size.height);
      const g = geometry(data, size);
      const { p, xOf } = g;
      ctx.fillStyle = c.pending;
      ctx.fillRect(p.x, p.y, p.w, p.h);
      const count = data.steps.length;
      if (count && data.rows) {
        img = paintImage(img, { image, imageCtx }, data, p.w);
        drawCells(ctx, image, img, c, data, g);
      }
      // the steps after the run stopped: dotted, not the background of steps still to run
      const stoppedFrom = data.end ? (count ? data.steps[count - 1] : 0) : null;
      if (stoppedFrom !== null && stoppedFrom < data.xMax) {
        if (dots?.key !== `${c.muted}|${c.pending}`)
          dots = { key: `${c.muted}|${c.pending}`, fill: stoppedPattern(ctx, c.muted, c.pending) };
        ctx.fillStyle = dots.fill;
        ctx.fillRect(xOf(stoppedFrom), p.y, xOf(data.xMax) - xOf(stoppedFrom), p.h);
      }
      drawCursors(ctx, c, data, g, { sharedStep, cell });
      drawAxes(ctx, c, data, g, firstRow);
    },
  };
}

/** The canvas sized to the map's box, in device pixels: its size in CSS pixels, or null when it is `size` already. */
function fitCanvas(canvas, map, size) {
  const width = Math.floor(map.clientWidth);
  const height = Math.floor(map.clientHeight);
  if (width === size.width && height === size.height) return null;
  const dpr = devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(width * dpr));
  canvas.height = Math.max(1, Math.round(height * dpr));
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  return { width, height };
}

/** Row r's number (from `firstRow`) and name (null: the rows are not named). */
const rowOf = (data, r, firstRow) => ({ row: r + firstRow, name: data.rowNames?.[r]?.long ?? null });

/** The plot's left edge: room for the widest row name (none: the numbers' margin). */
function leftMargin(canvas, names) {
  if (!names?.length) return MARGIN.left;
  const ctx = canvas.getContext('2d');
  ctx.font = FONT;
  const widest = Math.max(...names.map((n) => ctx.measureText(n.short).width));
  return Math.max(MARGIN.left, Math.ceil(widest) + 9);
}

/**
 * leftMargin, measured again only when the row names' text changes: a map is updated at every
 * drawing of a run, with the same names, and setting a font and measuring text each time is a
 * main-thread cost the workers' core pays for while they train.
 */
function leftMarginOnce() {
  let text = null;
  let left = MARGIN.left;
  return (canvas, names) => {
    const now = names?.length ? names.map((n) => n.short).join('\n') : '';
    if (now !== text) {
      text = now;
      left = leftMargin(canvas, names);
    }
    return left;
  };
}

/** The column whose span holds `step`: the first logged step of `s` at or after it. */
function columnAt(s, step) {
  let lo = 0;
  let hi = s.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid] < step) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The cell a key moves to from `cell` (null: none yet, so the top right) among `count` columns and `rows` rows. */
function keyCell(key, cell, count, rows) {
  const last = count - 1;
  const from = cell ?? { i: last, r: rows - 1 };
  const next = { ...from };
  if (cell) {
    if (key === 'ArrowLeft') next.i--;
    if (key === 'ArrowRight') next.i++;
    if (key === 'ArrowUp') next.r++;
    if (key === 'ArrowDown') next.r--;
  }
  if (key === 'Home') next.i = 0;
  if (key === 'End') next.i = last;
  next.i = Math.max(0, Math.min(last, next.i));
  next.r = Math.max(0, Math.min(rows - 1, next.r));
  return next;
}

/**
 * box: the element to fill. name: the architecture's label; metric: what the
 * cells are ('gradient norm'); rowLabel: 'layer' or 'block'; firstRow: the
 * number of the bottom row (0 for layers, 1 for blocks); colours(): {text,
 * muted, grid, surface, pending, hatch, cursor} of the theme.
 */
export function createHeatmap(box, { name, metric, rowLabel, firstRow, colours }) {
  const { arch, note, canvas, tip, map, readout } = heatmapLayout(box, { name, metric, rowLabel });
  let data = { steps: [], columns: [], rows: 0, xMax: 1, logEvery: 1, scale: null, divergedAt: null, end: null };
  const marginOf = leftMarginOnce();
  let cell = null; // {i, r}: the cell read out (pointer or keys)
  let pointer = false; // the cell follows the pointer (its tooltip shows)
  let sharedStep = null;
  let size = { width: 0, height: 0 };
  const painter = createPainter(canvas);
  let frame = 0;

  function resize() {
    const next = fitCanvas(canvas, map, size);
    if (next) size = next;
    return next !== null;
  }
  const ro = new ResizeObserver(() => resize() && draw());
  ro.observe(map);

  function draw() {
    frame = 0;
    delete canvas.dataset.drawing;
    if (!size.width) resize();
    painter.draw({ data, size, colours: colours(), sharedStep, cell, firstRow });
  }

  // data-drawing marks a map whose next frame is still to be drawn (tests wait for none)
  const schedule = () => {
    canvas.dataset.drawing = '';
    frame ||= requestAnimationFrame(draw);
  };

  function describe() {
    if (!cell || cell.i >= data.steps.length) {
      readout.textContent = data.steps.length
        ? `Point at the map, or focus it and use the arrow keys, to read a ${rowLabel}\u2019s ${metric} at a step.`
        : 'Nothing trained yet.';
      tip.hidden = true;
      return;
    }
    const v = data.columns[cell.i][cell.r];
    const named = rowOf(data, cell.r, firstRow).name;
    const text = `${named ?? `${rowLabel} ${cell.r + firstRow}`}, step ${data.steps[cell.i]}: ${metric} ${cellText(v)}`;
    readout.textContent = `${name}, ${text}`;
    if (!pointer) {
      tip.hidden = true;
      return;
    }
    tip.textContent = text;
    tip.hidden = false;
    const { xOf, rowTop } = geometry(data, size);
    const x = Math.min(xOf(data.steps[cell.i]) + 8, size.width - tip.offsetWidth - 2);
    tip.style.left = `${Math.max(2, x)}px`;
    tip.style.top = `${Math.max(0, rowTop(cell.r) - tip.offsetHeight - 4)}px`;
  }

  function pick(next) {
    cell = next;
    describe();
    schedule();
  }

  const onMove = (e) => {
    if (!data.steps.length) return;
    const box = canvas.getBoundingClientRect();
    const { p } = geometry(data, size);
    const x = e.clientX - box.left;
    const y = e.clientY - box.top;
    const step = ((x - p.x) / p.w) * data.xMax;
    if (x < p.x || y < p.y || y > p.y + p.h || step > data.steps[data.steps.length - 1]) {
      if (pointer) {
        pointer = false;
        pick(null);
      }
      return;
    }
    pointer = true;
    const r = Math.min(data.rows - 1, Math.max(0, Math.floor(((p.y + p.h - y) / p.h) * data.rows)));
    pick({ i: columnAt(data.steps, Math.max(step, 1e-9)), r });
  };
  const onLeave = () => {
    if (!pointer) return;
    pointer = false;
    pick(null);
  };
  const onKey = (e) => {
    if (!KEYS.split(' ').includes(e.key) || !data.steps.length) return;
    e.preventDefault();
    pointer = false;
    if (e.key === 'Escape') return pick(null);
    pick(keyCell(e.key, cell, data.steps.length, data.rows));
  };
  canvas.addEventListener('mousemove', onMove);
  canvas.addEventListener('mouseleave', onLeave);
  map.addEventListener('keydown', onKey);

  return {
    /**
     * New data: steps (logged, ascending: every log_every-th, and the run's
     * last or the step it stopped at), columns (one array per step, `rows`
     * long; a cell past a shorter array is drawn as not finite), the x axis's
     * end (the run's steps), logEvery, the colour scale, the step it
     * diverged at (null: none), `end` (claims/lab/common.js's runEnd: how the
     * run stopped early, or null) and `rowNames` ([{short, long}] per row, bottom
     * first, for the axis and the readout; null: rows numbered from firstRow).
     */
    update(next) {
      data = { ...data, ...next };
      data.left = marginOf(canvas, data.rowNames);
      note.textContent = data.end?.text ?? (data.divergedAt !== null ? `diverged at step ${data.divergedAt}` : '');
      note.dataset.end = data.end?.kind ?? '';
      if (cell && cell.i >= data.steps.length) cell = null;
      describe();
      schedule();
    },
    showStep(step) {
      if (step === sharedStep) return;
      sharedStep = step;
      schedule();
    },
    /** A new name (another seed of the run): the same map, its drawing kept. */
    rename(next) {
      if (next === name) return;
      name = next;
      arch.textContent = name;
      map.setAttribute('aria-label', mapLabel(name, metric, rowLabel));
      describe();
    },
    /**
     * Redraws now, at the map's size now: a new theme's colours, or a print, which lays the
     * page out for paper without a frame in which a scheduled drawing would run.
     */
    redraw() {
      cancelAnimationFrame(frame);
      resize();
      draw();
    },
    /** What the map shows, for the page's test hook. */
    get cell() {
      return (
        cell && { ...rowOf(data, cell.r, firstRow), step: data.steps[cell.i], value: data.columns[cell.i][cell.r] }
      );
    },
    destroy() {
      cancelAnimationFrame(frame);
      ro.disconnect();
      box.replaceChildren();
    },
  };
}
