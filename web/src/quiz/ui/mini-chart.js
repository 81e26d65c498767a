// A small log-scale line chart for the generated questions (uPlot, like the explorer's charts):
// values are drawn as log10 on a linear axis with ticks at whole decades; values that are not
// finite and positive are left out (gaps). Colours come from quiz.css custom properties
// (--curve-0 ... --curve-3, --curve-guess, --curve-answer), read again when the theme changes.

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { decadeRange } from '../../explorer/series.js';
import { fmtValue, powerOfTen } from '../../shared/format.js';

const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const X_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];

const logOrNull = (v) => (typeof v === 'number' && v > 0 && Number.isFinite(v) ? Math.log10(v) : null);

function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/**
 * @param {HTMLElement} host an empty element (sized by CSS; the chart follows its width)
 * @param {{xLabel: string, height?: number}} options
 */
export function createLineChart(host, { xLabel, height = 210 }) {
  let u = null;
  let last = null;

  const size = () => ({ width: Math.max(220, Math.floor(host.clientWidth)), height });

  const ro = new ResizeObserver(() => {
    if (!u) return;
    const s = size();
    if (s.width !== u.width) u.setSize(s);
  });
  ro.observe(host);

  /**
   * @param {{x: number[], lines: {label: string, values: ArrayLike<number>, color: string, dash?: number[],
   *   width?: number, points?: boolean}[]}} data color: a CSS custom property name (e.g. '--curve-0')
   */
  function draw(data) {
    last = data;
    u?.destroy();
    u = null;
    const ys = data.lines.map((l) => Array.from(l.values, logOrNull));
    let lo = Infinity;
    let hi = -Infinity;
    for (const y of ys)
      for (const v of y)
        if (v !== null) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
    const [bottom, top] = Number.isFinite(lo) ? decadeRange(10 ** lo, 10 ** hi) : [-1, 1];
    const muted = cssVar('--muted');
    const grid = cssVar('--grid');
    const surface = cssVar('--surface');
    const axis = {
      stroke: muted,
      font: FONT,
      labelFont: FONT,
      grid: { stroke: grid, width: 1 },
      ticks: { stroke: grid, width: 1, size: 4 },
    };
    const series = [{ label: xLabel, value: (_, v) => (v == null ? '—' : String(v)) }];
    for (const l of data.lines) {
      const color = cssVar(l.color) || muted;
      series.push({
        label: l.label,
        stroke: color,
        width: l.width ?? 2,
        dash: l.dash ?? [],
        spanGaps: false,
        points: l.points ? { show: true, size: 9, width: 2, stroke: color, fill: surface } : { show: false },
        value: (_, v) => (v == null ? '—' : fmtValue(10 ** v)),
      });
    }
    const opts = {
      ...size(),
      pxAlign: 0,
      legend: { show: true, live: true },
      cursor: {
        y: false,
        drag: { x: false, y: false, setScale: false },
        points: { size: 7, width: 1.5, fill: surface },
      },
      scales: {
        x: { time: false, range: () => [data.x[0], Math.max(data.x[0] + 1, data.x[data.x.length - 1])] },
        y: { range: () => [bottom, top] },
      },
      axes: [
        {
          ...axis,
          label: xLabel,
          labelSize: 18,
          labelGap: 0,
          size: 34,
          space: 44,
          incrs: X_INCRS,
          values: (_, splits) => splits.map(String),
        },
        {
          ...axis,
          size: 50,
          gap: 4,
          splits: (self) => {
            const room = Math.max(2, Math.floor(self.bbox.height / devicePixelRatio / 24));
            const need = (top - bottom + 1) / room;
            const step = [1, 2, 3, 5, 10, 20, 50].find((s) => s >= need) ?? Math.ceil(need);
            const out = [];
            for (let e = Math.ceil(bottom / step) * step; e <= top; e += step) out.push(e);
            return out;
          },
          values: (_, splits) => splits.map((e) => powerOfTen(e)),
        },
      ],
      series,
    };
    u = new uPlot(opts, [Array.from(data.x), ...ys], host);
  }

  return {
    draw,
    /** Draws the last data again (after a theme change). */
    redraw: () => {
      if (last) draw(last);
    },
    clear: () => {
      u?.destroy();
      u = null;
      last = null;
    },
  };
}
