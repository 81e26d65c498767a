// The pieces of a standalone SVG chart document, shared by the explorer's
// and the training lab's exports: escaped text, coordinates to two decimals,
// a series split at its gaps and drawn as paths (a lone point as a dot), the
// architectures' legend (line swatch in colour and dash, then the name) and
// the document around a body. Pure functions: text in, text out.
import { ARCH_BY_KEY } from './archs.js';

export const SVG_FONT = 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif';
export const LEGEND_ROW = 22;

/** Text escaped for SVG text and attribute values. */
export const esc = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

/** A coordinate, rounded to two decimals. */
export const f = (v) => (Math.round(v * 100) / 100).toString();

/**
 * Splits a series at its nulls (and non-finite values) into runs of [x, y] points; an undefined
 * value is no point and no gap (a step only another series has: the line goes on through it, as
 * uPlot draws it).
 */
export function segments(xs, ys) {
  const out = [];
  let cur = [];
  for (let i = 0; i < xs.length; i++) {
    if (ys[i] === undefined) continue;
    if (ys[i] === null || !Number.isFinite(ys[i])) {
      if (cur.length) out.push(cur);
      cur = [];
    } else cur.push([xs[i], ys[i]]);
  }
  if (cur.length) out.push(cur);
  return out;
}

/** One run of points as a path through sx(x), sy(y), or a dot when it is one point. */
export function line(points, sx, sy, stroke, width, dash) {
  if (points.length === 1) {
    const [x, y] = points[0];
    return `<circle cx="${f(sx(x))}" cy="${f(sy(y))}" r="${width}" fill="${esc(stroke)}"/>`;
  }
  const d = points.map(([x, y], i) => `${i ? 'L' : 'M'}${f(sx(x))} ${f(sy(y))}`).join('');
  const dashAttr = dash && dash.length ? ` stroke-dasharray="${dash.join(' ')}"` : '';
  return `<path d="${d}" fill="none" stroke="${esc(stroke)}" stroke-width="${width}"${dashAttr} stroke-linejoin="round"/>`;
}

/**
 * A legend entry's colour (its arch), label and dash: an arch's key gives the arch's own; a run
 * of the lab ({arch, label, dash}, train/looks.js) its label and dash.
 */
export function legendLook(item) {
  if (typeof item !== 'string') return { arch: item.arch, label: item.label, dash: item.dash ?? [] };
  return { arch: item, label: ARCH_BY_KEY[item]?.label ?? item, dash: ARCH_BY_KEY[item]?.dash ?? [] };
}

/** The legend, three entries to a row of LEGEND_ROW from (x0, y): one string of SVG; archs as legendLook takes them. */
export function archLegend(archs, pal, x0, y0) {
  return archs
    .map((item, i) => {
      const { arch, label, dash } = legendLook(item);
      const x = x0 + (i % 3) * 230;
      const y = y0 + Math.floor(i / 3) * LEGEND_ROW;
      return (
        `<line x1="${x}" x2="${x + 34}" y1="${y + 8}" y2="${y + 8}" stroke="${esc(pal.arch[arch])}" stroke-width="2.5"${dash.length ? ` stroke-dasharray="${dash.join(' ')}"` : ''}/>\n` +
        `<text x="${x + 42}" y="${y + 12}" font-size="13" fill="${esc(pal.text)}">${esc(label)}</text>`
      );
    })
    .join('\n');
}

/** The document: an XML declaration, the root with its size and font, a title, the body's parts. */
export function svgDocument({ width, height, title, body }) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${esc(SVG_FONT)}">\n<title>${esc(title)}</title>\n${body.join('\n')}\n</svg>\n`;
}
