// The layer charts: any subset of the three (gradient, stream, update), each
// in a container handed in (the page's or a shadow root's), sharing the layer
// axis and one synced cursor with a key of their own, so two views on one page
// never move each other's cursors. Instances are reused (setData) while the
// set of archs and the theme stay the same, and rebuilt when either changes.
import { createChartHost } from '../shared/chart-host.js';
import { chartData, chartOptions } from './chart-options.js';
import { CHART_INFO } from './chart-info.js';

let instances = 0;

const KEYS = 'ArrowLeft ArrowRight Home End Escape';

/** The layer `u`'s cursor is at (null: none, or off the chart). */
const layerAt = (u) => (u.cursor.idx == null || u.cursor.left < 0 ? null : u.data[0][u.cursor.idx]);

/** The tooltip of chart c at its cursor, inside the chart's box and the viewport; tip(metric, index) its nodes. */
function showTip(c, u, tip) {
  c.tipEl.replaceChildren(...tip(c.metric, u.cursor.idx));
  c.tipEl.hidden = false;
  const box = c.el.getBoundingClientRect();
  const over = u.over.getBoundingClientRect();
  const h = over.height;
  const cy = u.cursor.top >= 0 && u.cursor.top <= h ? u.cursor.top : h / 2;
  const px = over.left + u.cursor.left;
  const py = over.top + cy;
  const w = c.tipEl.offsetWidth;
  const th = c.tipEl.offsetHeight;
  const left = Math.max(box.left, 0) + 4;
  const right = Math.min(box.right, innerWidth) - 4;
  const top = Math.max(box.top, 0) + 4;
  const bottom = Math.min(box.bottom, innerHeight) - 4;
  let x = px + 14 + w > right ? px - 14 - w : px + 14;
  let y = py - th / 2;
  x = Math.max(left, Math.min(x, right - w));
  y = Math.max(top, Math.min(y, bottom - th));
  c.tipEl.style.left = `${x - box.left}px`;
  c.tipEl.style.top = `${y - box.top}px`;
}

/** One chart's record: its container made focusable, with an empty tooltip and a chart host. */
function chartBox(metric, el) {
  const tipEl = document.createElement('div');
  tipEl.className = 'chart-tip';
  tipEl.hidden = true;
  tipEl.setAttribute('aria-hidden', 'true'); // the readout says the same to a screen reader
  el.append(tipEl);
  el.tabIndex = 0;
  el.setAttribute('aria-keyshortcuts', KEYS);
  return { metric, el, tipEl, host: createChartHost(el, { minHeight: 128 }), view: null };
}

/**
 * The synced cursor of `charts` as the reader moves it: the hover reported to
 * onCursor, the tooltips, the pinned layer (onPin) and the keys of a focused
 * chart; tip and layer as createCharts's.
 */
function createPointer(charts, { onCursor, onPin, layer, tip }) {
  let active = null; // the chart under the pointer
  let pinned = null; // {layer, chart} or null
  let moving = false; // the cursor is being moved by code: not a hover

  function cursorMoved(c, u) {
    const at = layerAt(u);
    // a hover only while the pointer is over a chart (or leaving one): a
    // cursor that a pin or new data put somewhere is not one
    if (c === charts[0] && !moving && (active || at === null)) onCursor(at);
    const here = active ? active === c : pinned?.chart === c;
    if (here && at !== null) showTip(c, u, tip);
    else c.tipEl.hidden = true;
  }

  /** Moves every chart's cursor to `layer` (null hides them), without reporting a hover. */
  function moveTo(layer) {
    const u = charts[0]?.host.u;
    if (!u) return;
    moving = true;
    if (layer == null) u.setCursor({ left: -10, top: -10 }, true, true);
    else u.setCursor({ left: u.valToPos(layer, 'x'), top: u.bbox.height / devicePixelRatio / 2 }, true, true);
    moving = false;
  }

  function pin(next, c) {
    pinned = next == null ? null : { layer: next, chart: c };
    onPin(next);
    if (next == null) for (const x of charts) x.tipEl.hidden = true;
  }

  for (const c of charts) {
    c.el.addEventListener('keydown', (e) => {
      const u = c.host.u;
      if (!u || !KEYS.split(' ').includes(e.key)) return;
      e.preventDefault();
      if (e.key === 'Escape') {
        pin(null, c);
        moveTo(null);
        return;
      }
      const xs = u.data[0];
      const [lo, hi] = [xs[0], xs[xs.length - 1]];
      const from = pinned?.layer ?? layer();
      const step = { ArrowLeft: from - 1, ArrowRight: from + 1, Home: lo, End: hi }[e.key];
      const next = Math.max(lo, Math.min(hi, step));
      pin(next, c);
      moveTo(next);
    });
  }

  return {
    cursorMoved,
    pinned: () => pinned,

    /** The pointer on chart c's new instance u: entering, leaving, a click that pins or unpins. */
    watch(c, u) {
      u.over.addEventListener('mouseenter', () => (active = c));
      u.over.addEventListener('mouseleave', () => {
        active = null;
        c.tipEl.hidden = true;
        // back to the pinned layer, once uPlot has hidden its cursor
        if (pinned) requestAnimationFrame(() => pinned && moveTo(pinned.layer));
      });
      u.over.addEventListener('click', () => {
        const at = layerAt(u);
        if (at === null) return;
        pin(pinned?.layer === at ? null : at, c);
        if (pinned) showTip(c, u, tip);
      });
    },

    /** After new data: the pinned layer, within the new depth, gets its cursor and tooltip back. */
    restorePin() {
      const xs = charts[0]?.host.u?.data[0];
      if (!pinned || !xs?.length) return;
      const layer = Math.max(xs[0], Math.min(xs[xs.length - 1], pinned.layer));
      if (layer !== pinned.layer) pin(layer, pinned.chart);
      moveTo(layer);
    },

    /** Moves the synced cursor to `layer`, and a pinned layer with it; null hides it. */
    showLayer(layer) {
      if (pinned && layer != null) pinned = { ...pinned, layer };
      moveTo(layer);
    },
  };
}

/**
 * els: {metric: container element}, in drawing order; palette(): the colours;
 * onCursor(layer): the layer under the pointer (null when it leaves);
 * onPin(layer): a click or a key pinned `layer` (null: unpinned);
 * layer(): the layer the readout shows (where the keys start from);
 * tip(metric, index): the tooltip's nodes for point `index` of that chart.
 *
 * Reading values: the tooltip at the cursor gives every curve's value of the
 * chart under the pointer; a click pins the layer (a click on it again
 * unpins), and a pinned layer keeps its tooltip after the pointer leaves. A
 * focused chart moves the pinned layer with the arrow keys, Home and End;
 * Escape unpins.
 */
export function createCharts({ els, palette, onCursor, onPin = () => {}, layer = () => 0, tip = () => [] }) {
  const syncKey = `resnorm-layers-${++instances}`;
  const charts = Object.entries(els).map(([metric, el]) => chartBox(metric, el));
  const pointer = createPointer(charts, { onCursor, onPin, layer, tip });
  let shape = null; // archs + theme the instances were built for
  let last = null; // {prepared, archs, depth, references}
  let drawn = null; // resolves when every chart has drawn the latest data

  function build() {
    const pal = palette();
    for (const c of charts) {
      const info = CHART_INFO[c.metric];
      const hooks = {
        draw: [() => drawn?.tick()],
        // Every chart places its own tooltip; the first one's cursor also
        // reports the layer for the shared readout (the others follow by sync).
        setCursor: [(u) => pointer.cursorMoved(c, u)],
      };
      const u = c.host.draw(() => ({
        opts: chartOptions({
          archs: last.archs,
          reference: info.reference,
          xLabel: info.xLabel,
          pal,
          view: () => c.view,
          hooks,
          syncKey,
        }),
        data: chartData(c.view.prepared, last.archs, c.view.reference),
      }));
      pointer.watch(c, u);
    }
  }

  function paintPromise() {
    let left = charts.length,
      done;
    const p = new Promise((resolve) => (done = resolve));
    drawn = { tick: () => --left === 0 && done() };
    // uPlot draws in a microtask after setData; never wait forever if a chart skips a draw.
    setTimeout(() => done(), 1000);
    return p;
  }

  return {
    metrics: charts.map((c) => c.metric),
    /**
     * Draws `prepared` ({grad, stream, update} from series.js). Resolves once
     * every chart has painted.
     */
    update({ prepared, archs, depth, references, theme }) {
      last = { prepared, archs, depth, references };
      if (!charts.length) return Promise.resolve();
      for (const c of charts) c.view = { prepared: prepared[c.metric], depth, reference: references[c.metric] };
      const painted = paintPromise();
      const key = `${archs.join()}|${theme}`;
      if (key !== shape) {
        shape = key;
        build();
      } else {
        for (const c of charts) c.host.setData(chartData(c.view.prepared, archs, c.view.reference));
      }
      if (pointer.pinned()) painted.then(pointer.restorePin);
      return painted;
    },

    /** Recolours after a theme change (rebuilds with the last data). */
    retheme(theme) {
      if (!last) return null;
      shape = null;
      return this.update({ ...last, theme });
    },

    /** Moves the synced cursor to `layer` (the readout's slider), and a pinned layer with it; null hides it. */
    showLayer(layer) {
      pointer.showLayer(layer);
    },

    /** [{metric, canvas, reference}] for the exports, in drawing order. */
    canvases() {
      return charts
        .filter((c) => c.host.u)
        .map((c) => ({ metric: c.metric, canvas: c.host.u.ctx.canvas, reference: c.view?.reference ?? null }));
    },

    destroy() {
      for (const c of charts) c.host.destroy();
    },
  };
}
