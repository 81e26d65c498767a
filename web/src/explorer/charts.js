// The layer charts: any subset of the three (gradient, stream, update), each
// in a container handed in (the page's or a shadow root's), sharing the layer
// axis and one synced cursor with a key of their own, so two views on one page
// never move each other's cursors. Instances are reused (setData) while the
// set of archs and the theme stay the same, and rebuilt when either changes.
import { createChartHost } from '../shared/chart-host.js';
import { chartData, chartOptions } from './chart-options.js';
import { CHART_INFO } from './chart-info.js';

let instances = 0;

/**
 * els: {metric: container element}, in drawing order; palette(): the colours;
 * onCursor(layer): the layer under the pointer (null when it leaves).
 */
export function createCharts({ els, palette, onCursor }) {
  const syncKey = `resnorm-layers-${++instances}`;
  const charts = Object.entries(els).map(([metric, el]) => ({
    metric,
    host: createChartHost(el, { minHeight: 150 }),
    view: null,
  }));
  let shape = null; // archs + theme the instances were built for
  let last = null; // {prepared, archs, depth, references}
  let drawn = null; // resolves when every chart has drawn the latest data

  function build() {
    const pal = palette();
    for (const [i, c] of charts.entries()) {
      const info = CHART_INFO[c.metric];
      const hooks = {
        draw: [() => drawn?.tick()],
        // The first chart's cursor reports the layer for the shared readout;
        // the others reach it through uPlot's sync.
        setCursor:
          i === 0 ? [(u) => onCursor(u.cursor.idx == null || u.cursor.left < 0 ? null : u.data[0][u.cursor.idx])] : [],
      };
      c.host.draw(() => ({
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
      return painted;
    },

    /** Recolours after a theme change (rebuilds with the last data). */
    retheme(theme) {
      if (!last) return null;
      shape = null;
      return this.update({ ...last, theme });
    },

    /** Moves the synced cursor to `layer` (keyboard readout); null hides it. */
    showLayer(layer) {
      const u = charts[0]?.host.u;
      if (!u) return;
      if (layer == null) u.setCursor({ left: -10, top: -10 }, true, true);
      else u.setCursor({ left: u.valToPos(layer, 'x'), top: u.bbox.height / devicePixelRatio / 2 }, true, true);
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
