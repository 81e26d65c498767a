// The charts as one PNG: the canvases the page shows, stacked under their
// titles on the theme's surface colour, with a legend drawn underneath.
import { CHART_INFO } from '../chart-info.js';
import { stackToPng } from '../../shared/png.js';

/**
 * charts: [{metric, canvas}] (uPlot's canvases); archs; pal: palette();
 * caption: one line under the title. Resolves to a PNG Blob.
 */
export function chartsToPng({ charts, archs, pal, caption = '' }) {
  return stackToPng({
    title: 'resnorm: per layer, at initialization',
    caption,
    blocks: charts.map((c) => ({ title: CHART_INFO[c.metric].title, sub: CHART_INFO[c.metric].sub, canvas: c.canvas })),
    archs,
    pal,
  });
}
