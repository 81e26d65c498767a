// The one uPlot host: a chart in a container element (which may live in a
// shadow root) that follows the container's size, is rebuilt with its last
// options after a theme change, and is destroyed with its observer. uPlot's
// stylesheet is the page's to import (an embed adopts it in its shadow root).
//
//   const host = createChartHost(el, { minHeight: 160 });
//   host.draw(() => ({ opts, data }));   // builds; `opts` without width and height
//   host.setData(data);                  // new data, same instance, drawn at once
//   host.retheme();                      // rebuilds from the last draw()
//   host.destroy();
import uPlot from 'uplot';

export const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/** Tick steps of a layer (or block, or depth) axis. */
export const LAYER_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];

/** The look of an axis in the theme's colours (pal: shared/theme.js's palette()). */
export const axisStyle = (pal) => ({
  stroke: pal.muted,
  font: FONT,
  labelFont: FONT,
  grid: { stroke: pal.grid, width: 1 },
  ticks: { stroke: pal.grid, width: 1, size: 4 },
});

/** The layer (or block, or depth) axis under a chart: linear, whole-number ticks. */
export const layerAxis = (pal, label) => ({
  ...axisStyle(pal),
  label,
  labelSize: 18,
  labelGap: 0,
  size: 34,
  space: 44,
  incrs: LAYER_INCRS,
  values: (u, splits) => splits.map(String),
});

/**
 * The cursor of charts that share one x axis (layers, steps) and move
 * together: synced by `key`, a vertical line only, no zoom by dragging, a
 * point of `size` px on each curve.
 */
export const syncedCursor = (pal, key, size = 7) => ({
  y: false,
  sync: { key, scales: ['x', null], setSeries: false },
  drag: { x: false, y: false, setScale: false },
  focus: { prox: -1 },
  points: { size, width: 1.5, fill: pal.surface },
});

/** Room for about one tick per `px` CSS pixels of the plot's height (at least 2). */
export const tickRoom = (u, px) => Math.max(2, Math.floor(u.bbox.height / devicePixelRatio / px));

/**
 * el: the container. minWidth, minHeight: the smallest size drawn; height: a
 * fixed height instead of the container's.
 */
export function createChartHost(el, { minWidth = 200, minHeight = 150, height = null } = {}) {
  let u = null;
  let make = null;
  const size = () => ({
    width: Math.max(minWidth, Math.floor(el.clientWidth)),
    height: height ?? Math.max(minHeight, Math.floor(el.clientHeight)),
  });
  const ro = new ResizeObserver(() => {
    if (!u) return;
    const s = size();
    if (s.width !== u.width || s.height !== u.height) u.setSize(s);
  });
  ro.observe(el);

  return {
    /** The uPlot instance (null before the first draw). */
    get u() {
      return u;
    },
    /** Builds the chart from make() -> {opts, data}, replacing any earlier one. */
    draw(next) {
      make = next;
      u?.destroy();
      const { opts, data } = make();
      u = new uPlot({ ...opts, ...size() }, data, el);
      return u;
    },
    /**
     * New data, drawn now rather than in uPlot's microtask: text written after
     * it then finds the canvases drawn, and the canvases' font lookup finds the
     * layout clean (inside a size container it would otherwise lay out the page).
     */
    setData(data) {
      u.batch(() => u.setData(data));
    },
    /** Rebuilds with the last draw()'s options (they read the theme's colours again). */
    retheme() {
      if (make) this.draw(make);
    },
    /** Removes the chart; the host can draw again. */
    clear() {
      u?.destroy();
      u = null;
      make = null;
    },
    destroy() {
      ro.disconnect();
      this.clear();
    },
  };
}
