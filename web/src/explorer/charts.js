// The three uPlot charts, sharing the layer axis and one synced cursor.
// Instances are reused (setData) while the set of archs and the theme stay the
// same, and rebuilt when either changes. Each follows its container's size.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { chartData, chartOptions } from './chart-options.js';
import { palette } from '../shared/theme.js';

const CHARTS = [
  { metric: 'grad', id: 'chart-grad', xLabel: 'layer l' },
  { metric: 'stream', id: 'chart-stream', xLabel: 'layer l' },
  { metric: 'update', id: 'chart-update', xLabel: 'block l', reference: '1/√l' },
];

export function createCharts({ onCursor }) {
  const charts = CHARTS.map((c) => ({ ...c, el: document.getElementById(c.id), u: null, view: null }));
  let shape = null; // archs + theme the instances were built for
  let last = null; // {prepared, archs, depth, references}
  let drawn = null; // resolves when every chart has drawn the latest data

  const sizeOf = (el) => ({
    width: Math.max(200, Math.floor(el.clientWidth)),
    height: Math.max(160, Math.floor(el.clientHeight)),
  });

  function build() {
    const pal = palette();
    for (const c of charts) {
      c.u?.destroy();
      const hooks = {
        draw: [() => drawn?.tick()],
        // The gradient chart's cursor reports the layer for the shared readout;
        // the other two reach it through uPlot's sync.
        setCursor:
          c.metric === 'grad'
            ? [(u) => onCursor(u.cursor.idx == null || u.cursor.left < 0 ? null : u.data[0][u.cursor.idx])]
            : [],
      };
      const opts = chartOptions({
        size: sizeOf(c.el),
        archs: last.archs,
        reference: c.reference,
        xLabel: c.xLabel,
        pal,
        view: () => c.view,
        hooks,
      });
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
    // uPlot draws in a microtask after setData; never wait forever if a chart skips a draw.
    setTimeout(() => done(), 1000);
    return p;
  }

  return {
    /**
     * Draws `prepared` ({grad, stream, update} from series.js). Resolves once
     * all three charts have painted.
     */
    update({ prepared, archs, depth, references, theme }) {
      last = { prepared, archs, depth, references };
      for (const c of charts) c.view = { prepared: prepared[c.metric], depth, reference: references[c.metric] };
      const key = `${archs.join()}|${theme}`;
      const painted = paintPromise();
      if (key !== shape) {
        shape = key;
        build();
      } else {
        for (const c of charts) c.u.setData(chartData(c.view.prepared, archs, c.view.reference));
      }
      return painted;
    },

    /** Recolours after a theme change (rebuilds with the last data). */
    retheme(theme) {
      if (!last) return null;
      return this.update({ ...last, theme });
    },

    /** Moves the synced cursor to `layer` (keyboard readout); null hides it. */
    showLayer(layer) {
      const u = charts[0].u;
      if (!u) return;
      if (layer == null) u.setCursor({ left: -10, top: -10 }, true, true);
      else u.setCursor({ left: u.valToPos(layer, 'x'), top: u.bbox.height / devicePixelRatio / 2 }, true, true);
    },
  };
}
