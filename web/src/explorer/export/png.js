// The charts as one PNG: the canvases the page shows, stacked under their
// titles on the theme's surface colour, with a legend drawn underneath.
import { ARCH_BY_KEY } from '../../shared/archs.js';
import { CHART_INFO } from '../chart-info.js';

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/**
 * charts: [{metric, canvas}] (uPlot's canvases); archs; pal: palette();
 * caption: one line under the title. Resolves to a PNG Blob.
 */
export function chartsToPng({ charts, archs, pal, caption = '' }) {
  const first = charts[0].canvas;
  const s = first.width / Math.max(1, first.clientWidth || first.width); // device pixels per CSS pixel
  const pad = 16 * s;
  const width = Math.max(...charts.map((c) => c.canvas.width)) + 2 * pad;
  const titleH = 64 * s,
    chartHead = 44 * s,
    legendRow = 22 * s;
  const legendRows = Math.ceil(archs.length / 3);
  const height =
    titleH + charts.reduce((h, c) => h + chartHead + c.canvas.height, 0) + legendRows * legendRow + 2 * pad;

  const out = document.createElement('canvas');
  out.width = Math.ceil(width);
  out.height = Math.ceil(height);
  const ctx = out.getContext('2d');
  ctx.fillStyle = pal.surface;
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.textBaseline = 'alphabetic';
  const text = (t, x, y, size, color, weight = 400) => {
    ctx.font = `${weight} ${size * s}px ${FONT}`;
    ctx.fillStyle = color;
    ctx.fillText(t, x, y);
  };
  text('resnorm: per layer, at initialization', pad, pad + 18 * s, 17, pal.text, 700);
  text(caption, pad, pad + 38 * s, 12, pal.muted);
  let y = titleH;
  for (const c of charts) {
    const info = CHART_INFO[c.metric];
    text(info.title, pad, y + 18 * s, 15, pal.text, 600);
    text(info.sub, pad, y + 34 * s, 12, pal.muted);
    y += chartHead;
    ctx.drawImage(c.canvas, pad, y);
    y += c.canvas.height;
  }
  y += pad / 2;
  archs.forEach((arch, i) => {
    const x = pad + (i % 3) * 230 * s,
      ly = y + Math.floor(i / 3) * legendRow;
    ctx.strokeStyle = pal.arch[arch];
    ctx.lineWidth = 2.5 * s;
    ctx.setLineDash(ARCH_BY_KEY[arch].dash.map((d) => d * s));
    ctx.beginPath();
    ctx.moveTo(x, ly + 8 * s);
    ctx.lineTo(x + 34 * s, ly + 8 * s);
    ctx.stroke();
    ctx.setLineDash([]);
    text(ARCH_BY_KEY[arch].label, x + 42 * s, ly + 12 * s, 13, pal.text);
  });
  return new Promise((resolve, reject) =>
    out.toBlob((b) => (b ? resolve(b) : reject(new Error('the PNG could not be made'))), 'image/png'),
  );
}
