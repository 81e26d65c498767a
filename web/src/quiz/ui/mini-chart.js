// A small log-scale line chart for the generated questions (the shared uPlot host and log axis):
// values are drawn as log10 on a linear axis with ticks at whole decades; values that are not
// finite and positive are left out (gaps). Colours come from quiz.css custom properties
// (--curve-0 ... --curve-3, --curve-guess, --curve-answer), read again when the theme changes.

import '../../shared/uplot.css';
import { axisStyle, createChartHost, layerAxis, tickRoom } from '../../shared/chart-host.js';
import { decadeRange, decadeTicks, log10OrNull, logLabel } from '../../shared/log-axis.js';
import { fmtValue } from '../../shared/format.js';
import { palette, themeColor } from '../../shared/theme.js';

/**
 * @param {HTMLElement} host an empty element (sized by CSS; the chart follows its width)
 * @param {{xLabel: string, height?: number}} options
 */
export function createLineChart(host, { xLabel, height = 210 }) {
  const chart = createChartHost(host, { minWidth: 220, height });

  /**
   * @param {{x: number[], lines: {label: string, values: ArrayLike<number>, color: string, dash?: number[],
   *   width?: number, points?: boolean}[]}} data color: a CSS custom property name (e.g. '--curve-0')
   */
  function options(data) {
    const ys = data.lines.map((l) => Array.from(l.values, log10OrNull));
    let lo = Infinity;
    let hi = -Infinity;
    for (const y of ys)
      for (const v of y)
        if (v !== null) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
    const [bottom, top] = Number.isFinite(lo) ? decadeRange(10 ** lo, 10 ** hi) : [-1, 1];
    const pal = palette();
    const { muted, surface } = pal;
    const axis = axisStyle(pal);
    const series = [{ label: xLabel, value: (_, v) => (v == null ? '—' : String(v)) }];
    for (const l of data.lines) {
      const color = themeColor(l.color) || muted;
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
        layerAxis(pal, xLabel),
        {
          ...axis,
          size: 50,
          gap: 4,
          splits: (self) => decadeTicks(bottom, top, tickRoom(self, 24)),
          values: (_, splits) => splits.map(logLabel),
        },
      ],
      series,
    };
    return { opts, data: [Array.from(data.x), ...ys] };
  }

  return {
    draw: (data) => chart.draw(() => options(data)),
    /** Draws the last data again (after a theme change). */
    redraw: () => chart.retheme(),
    clear: () => chart.clear(),
  };
}
