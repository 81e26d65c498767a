// One uPlot chart of the papers page, in the explorer's look (the shared host
// and log axis): its fonts, grid and axis colours from the theme, log axes
// drawn as log10 of the values on a linear scale with labelled ticks, no
// built-in legend (the page writes its own), following its container's size.
//
//   const c = createChart(el);
//   c.draw({ x, xLog, xTicks, xLabel, yLog, yLabel, series: [{label, values, color, dash, width, points}] });
//   c.retheme();   // after a theme change: rebuilds with the last spec
import '../shared/uplot.css';
import { palette, themeColor } from '../shared/theme.js';
import { axisStyle, createChartHost, layerAxis, tickRoom } from '../shared/chart-host.js';
import { log10OrNull, logLabel, logTicks } from '../shared/log-axis.js';

/** The colours of the current theme: the explorer's palette plus the page's claim colour. */
export function colors() {
  const pal = palette();
  return { ...pal, claim: themeColor('--papers-claim') || pal.reference };
}

function range(values, log, pad) {
  let lo = Infinity,
    hi = -Infinity;
  for (const s of values)
    for (const v of s)
      if (v !== null && Number.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
  if (!Number.isFinite(lo)) return log ? [-1, 1] : [0, 1];
  if (log) {
    const span = Math.max(hi - lo, 0.3);
    return [lo - span * pad, hi + span * pad];
  }
  const span = hi - lo || Math.abs(hi) || 1;
  return [Math.min(0, lo - span * pad), hi + span * pad];
}

function options(spec, col) {
  const series = [{ label: spec.xLabel }];
  for (const s of spec.series)
    series.push({
      label: s.label,
      stroke: s.color,
      width: s.width ?? 2,
      dash: s.dash ?? [],
      points: s.points
        ? { show: true, size: s.pointSize ?? 6, width: 1.5, fill: s.color, stroke: s.color }
        : { show: false },
      paths: s.pointsOnly ? () => null : undefined,
      spanGaps: false,
    });
  const ys = spec.series.map((s) => (spec.yLog ? s.values.map(log10OrNull) : s.values));
  const yRange = spec.yRange ?? range(ys, spec.yLog, 0.08);
  const xs = spec.xLog ? spec.x.map(Math.log10) : spec.x;
  const xPad = spec.xLog ? 0.04 * (xs[xs.length - 1] - xs[0] || 1) : 0;
  const axis = axisStyle(col);
  const xAxis = { ...layerAxis(col, spec.xLabel), space: 40 };
  if (spec.xLog) {
    const ticks = (spec.xTicks ?? spec.x).map(Math.log10);
    xAxis.splits = () => ticks;
    xAxis.values = (u, splits) => splits.map((v) => String(Math.round(10 ** v)));
  }
  const yAxis = { ...axis, size: 54, gap: 4, label: spec.yLabel, labelSize: spec.yLabel ? 16 : 0, labelGap: 0 };
  if (spec.yLog) {
    yAxis.splits = (u, i, min, max) => logTicks(min, max, tickRoom(u, 22));
    yAxis.values = (u, splits) => splits.map(logLabel);
  }
  return {
    legend: { show: false },
    pxAlign: 0,
    cursor: {
      y: false,
      drag: { x: false, y: false, setScale: false },
      points: { size: 7, width: 1.5, fill: col.surface },
    },
    scales: {
      x: { time: false, range: () => [xs[0] - xPad, xs[xs.length - 1] + xPad] },
      y: { range: () => yRange },
    },
    axes: [xAxis, yAxis],
    series,
    data: [xs, ...ys],
  };
}

export function createChart(el) {
  const host = createChartHost(el);
  return {
    draw(spec) {
      host.draw(() => {
        const opts = options(spec, colors());
        const { data } = opts;
        delete opts.data;
        return { opts, data };
      });
    },
    retheme: () => host.retheme(),
  };
}
