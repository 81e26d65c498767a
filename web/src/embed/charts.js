// The embeds' uPlot charts: any subset of the three, in containers handed in
// (they may live in a shadow root), with a cursor sync key of their own so two
// embeds on one page never move each other's cursors. Same options and data as
// the explorer's charts (chart-options.js).
import uPlot from 'uplot';
import { chartData, chartOptions } from '../explorer/chart-options.js';
import { CHART_INFO } from '../explorer/chart-info.js';

let instances = 0;

/**
 * els: {metric: container element}; palette(): the colours; onCursor(layer):
 * the layer under the pointer (null when it leaves).
 */
export function createChartSet({ els, palette, onCursor }) {
  const syncKey = `resnorm-embed-${++instances}`;
  const charts = Object.entries(els).map(([metric, el]) => ({ metric, el, u: null, view: null }));
  let shape = null;
  let last = null;
  let drawn = null;

  const sizeOf = (el) => ({
    width: Math.max(200, Math.floor(el.clientWidth)),
    height: Math.max(150, Math.floor(el.clientHeight)),
  });

  function build() {
    const pal = palette();
    for (const [i, c] of charts.entries()) {
      c.u?.destroy();
      const hooks = {
        draw: [() => drawn?.tick()],
        setCursor:
          i === 0 ? [(u) => onCursor(u.cursor.idx == null || u.cursor.left < 0 ? null : u.data[0][u.cursor.idx])] : [],
      };
      const info = CHART_INFO[c.metric];
      const opts = chartOptions({
        size: sizeOf(c.el),
        archs: last.archs,
        reference: info.reference,
        xLabel: info.xLabel,
        pal,
        view: () => c.view,
        hooks,
      });
      opts.cursor.sync.key = syncKey;
      c.u = new uPlot(opts, chartData(c.view.prepared, last.archs, c.view.reference), c.el);
    }
  }

  const ro = new ResizeObserver(() => {
    for (const c of charts) {
      if (!c.u) continue;
      const s = sizeOf(c.el);
      if (s.width !== c.u.width || s.height !== c.u.height) c.u.setSize(s);
    }
  });
  charts.forEach((c) => ro.observe(c.el));

  function paintPromise() {
    let left = charts.length,
      done;
    const p = new Promise((resolve) => (done = resolve));
    drawn = { tick: () => --left === 0 && done() };
    setTimeout(() => done(), 1000);
    return p;
  }

  return {
    metrics: charts.map((c) => c.metric),
    update({ prepared, archs, depth, references, theme }) {
      last = { prepared, archs, depth, references };
      for (const c of charts) c.view = { prepared: prepared[c.metric], depth, reference: references[c.metric] };
      const painted = paintPromise();
      const key = `${archs.join()}|${theme}`;
      if (!charts.length) return Promise.resolve();
      if (key !== shape) {
        shape = key;
        build();
      } else {
        for (const c of charts) c.u.setData(chartData(c.view.prepared, archs, c.view.reference));
      }
      return painted;
    },
    retheme(theme) {
      if (!last) return null;
      shape = null;
      return this.update({ ...last, theme });
    },
    showLayer(layer) {
      const u = charts[0]?.u;
      if (!u) return;
      if (layer == null) u.setCursor({ left: -10, top: -10 }, true, true);
      else u.setCursor({ left: u.valToPos(layer, 'x'), top: u.bbox.height / devicePixelRatio / 2 }, true, true);
    },
    /** [{metric, canvas, reference}] for the exports. */
    canvases() {
      return charts
        .filter((c) => c.u)
        .map((c) => ({ metric: c.metric, canvas: c.u.ctx.canvas, reference: c.view?.reference ?? null }));
    },
    destroy() {
      ro.disconnect();
      for (const c of charts) c.u?.destroy();
    },
  };
}
