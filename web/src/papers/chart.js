// One uPlot chart of the papers page, in the explorer's look (charts.js,
// chart-options.js): its fonts, grid and axis colours from the theme, log axes
// drawn as log10 of the values on a linear scale with labelled ticks, no
// built-in legend (the page writes its own), following its container's size.
//
//   const c = createChart(el);
//   c.draw({ x, xLog, xTicks, xLabel, yLog, yLabel, series: [{label, values, color, dash, width, points}] });
//   c.retheme();   // after a theme change: rebuilds with the last spec
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { palette } from '../shared/theme.js';
import { fmtValue, powerOfTen } from '../shared/format.js';

const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const X_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];

/** The colours of the current theme: the explorer's palette plus the page's claim colour. */
export function colors() {
  const pal = palette();
  const css = getComputedStyle(document.documentElement);
  return { ...pal, claim: css.getPropertyValue('--papers-claim').trim() || pal.reference };
}

const log10 = (v) => (v > 0 && Number.isFinite(v) ? Math.log10(v) : null);

// Ticks of a log axis over [lo, hi] (in log10 units): whole decades when the
// range spans more than about one, else 1-2-5 steps within the decades.
function logSplits(lo, hi, room) {
  if (hi - lo > 1.3) {
    const need = (Math.floor(hi) - Math.ceil(lo) + 1) / room;
    const step = [1, 2, 3, 5, 10, 20, 25, 50, 100].find((s) => s >= need) ?? Math.ceil(need);
    const out = [];
    for (let e = Math.ceil(lo / step) * step; e <= hi + 1e-9; e += step) out.push(e);
    return out;
  }
  // Within about a decade: the first mantissa set that gives at least 3 ticks and fits.
  const sets = [
    [1, 2, 5],
    [1, 1.5, 2, 3, 5, 7],
    [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8],
  ];
  let best = [];
  for (const set of sets) {
    const out = [];
    for (let e = Math.floor(lo); e <= Math.ceil(hi); e++)
      for (const m of set) {
        const v = e + Math.log10(m);
        if (v >= lo - 1e-9 && v <= hi + 1e-9) out.push(v);
      }
    if (out.length > room) break;
    best = out;
    if (out.length >= 3) break;
  }
  return best;
}

const logLabel = (e) => (Math.abs(e - Math.round(e)) < 1e-9 ? powerOfTen(Math.round(e)) : fmtValue(10 ** e));

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

function options(spec, size, col) {
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
  const ys = spec.series.map((s) => (spec.yLog ? s.values.map(log10) : s.values));
  const yRange = spec.yRange ?? range(ys, spec.yLog, 0.08);
  const xs = spec.xLog ? spec.x.map(Math.log10) : spec.x;
  const xPad = spec.xLog ? 0.04 * (xs[xs.length - 1] - xs[0] || 1) : 0;
  const axis = {
    stroke: col.muted,
    font: FONT,
    labelFont: FONT,
    grid: { stroke: col.grid, width: 1 },
    ticks: { stroke: col.grid, width: 1, size: 4 },
  };
  const xAxis = { ...axis, label: spec.xLabel, labelSize: 18, labelGap: 0, size: 34, space: 40 };
  if (spec.xLog) {
    const ticks = (spec.xTicks ?? spec.x).map(Math.log10);
    xAxis.splits = () => ticks;
    xAxis.values = (u, splits) => splits.map((v) => String(Math.round(10 ** v)));
  } else {
    xAxis.incrs = X_INCRS;
    xAxis.values = (u, splits) => splits.map((v) => String(v));
  }
  const yAxis = { ...axis, size: 54, gap: 4, label: spec.yLabel, labelSize: spec.yLabel ? 16 : 0, labelGap: 0 };
  if (spec.yLog) {
    yAxis.splits = (u, i, min, max) =>
      logSplits(min, max, Math.max(2, Math.floor(u.bbox.height / devicePixelRatio / 22)));
    yAxis.values = (u, splits) => splits.map(logLabel);
  }
  return {
    ...size,
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
  let u = null;
  let spec = null;
  const sizeOf = () => ({
    width: Math.max(200, Math.floor(el.clientWidth)),
    height: Math.max(150, Math.floor(el.clientHeight)),
  });

  function build() {
    u?.destroy();
    const opts = options(spec, sizeOf(), colors());
    const { data } = opts;
    delete opts.data;
    u = new uPlot(opts, data, el);
  }

  const ro = new ResizeObserver(() => {
    if (!u) return;
    const s = sizeOf();
    if (s.width !== u.width || s.height !== u.height) u.setSize(s);
  });
  ro.observe(el);

  return {
    draw(next) {
      spec = next;
      build();
    },
    retheme() {
      if (spec) build();
    },
  };
}
