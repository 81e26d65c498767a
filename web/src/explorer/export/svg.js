// The charts as one standalone SVG document, drawn from the same prepared
// series the canvases show (series.js): log10 values on a linear axis, ticks at
// whole decades, the zero and overflow lanes, one line per arch in its colour
// and dash pattern, the 1/sqrt(l) reference, and a legend. A pure function:
// text in, text out (every piece of text is escaped).
import { ARCH_BY_KEY, REFERENCE_LINE } from '../../shared/archs.js';
import { LAYER_INCRS } from '../../shared/chart-host.js';
import { decadeTicks, logLabel } from '../../shared/log-axis.js';
import { CHART_INFO } from '../chart-info.js';
import { LEGEND_ROW, archLegend, esc, f, line, segments as runs, svgDocument } from '../../shared/svg.js';

const W = 760;
const H = 250; // one chart's plot + axes
const M = { left: 62, right: 18, top: 46, bottom: 42 };

function oneChart({ metric, prepared, depth, reference }, archs, pal, top) {
  const info = CHART_INFO[metric];
  const x0 = M.left,
    x1 = W - M.right,
    y0 = top + M.top,
    y1 = top + H - M.bottom;
  const [lo, hi] = prepared.scale;
  const sx = (x) => x0 + ((x1 - x0) * x) / Math.max(1, depth);
  const sy = (v) => y1 - ((y1 - y0) * (v - lo)) / (hi - lo || 1);
  const parts = [`<g class="chart chart-${metric}">`];
  parts.push(
    `<text x="${x0}" y="${top + 20}" font-weight="600" font-size="15" fill="${esc(pal.text)}">${esc(info.title)}</text>`,
  );
  parts.push(`<text x="${x0}" y="${top + 37}" font-size="12" fill="${esc(pal.muted)}">${esc(info.sub)}</text>`);
  const { lanes } = prepared;
  if (lanes.top !== null) {
    parts.push(
      `<rect x="${x0}" y="${f(y0)}" width="${x1 - x0}" height="${f(sy(lanes.top) - y0 + 7)}" fill="${esc(pal.lane)}"/>`,
    );
    parts.push(
      `<text x="${x1 - 4}" y="${f(y0 + 13)}" text-anchor="end" font-size="11" font-weight="600" fill="${esc(pal.laneText)}">overflow (not finite) \u2191</text>`,
    );
  }
  if (lanes.bottom !== null) {
    const y = sy(lanes.bottom);
    parts.push(
      `<rect x="${x0}" y="${f(y - 7)}" width="${x1 - x0}" height="${f(y1 - y + 7)}" fill="${esc(pal.lane)}"/>`,
    );
    parts.push(
      `<text x="${x1 - 4}" y="${f(y1 - 3)}" text-anchor="end" font-size="11" font-weight="600" fill="${esc(pal.laneText)}">exactly 0, drawn at ${esc(logLabel(lanes.bottom))}</text>`,
    );
  }
  // y: whole decades between the lanes, thinned to about 8
  for (const e of decadeTicks(
    lanes.bottom !== null ? lanes.bottom + 1 : lo,
    lanes.top !== null ? lanes.top - 1 : hi,
    8,
  )) {
    const y = f(sy(e));
    parts.push(`<line x1="${x0}" x2="${x1}" y1="${y}" y2="${y}" stroke="${esc(pal.grid)}"/>`);
    parts.push(
      `<text x="${x0 - 6}" y="${y}" dy="4" text-anchor="end" font-size="12" fill="${esc(pal.muted)}">${esc(logLabel(e))}</text>`,
    );
  }
  // x: layer numbers
  const xstep = LAYER_INCRS.find((s) => depth / s <= 10) ?? Math.ceil(depth / 10);
  for (let v = 0; v <= depth; v += xstep) {
    const x = f(sx(v));
    parts.push(`<line x1="${x}" x2="${x}" y1="${f(y0)}" y2="${f(y1)}" stroke="${esc(pal.grid)}"/>`);
    parts.push(
      `<text x="${x}" y="${f(y1 + 16)}" text-anchor="middle" font-size="12" fill="${esc(pal.muted)}">${v}</text>`,
    );
  }
  parts.push(
    `<text x="${f((x0 + x1) / 2)}" y="${f(y1 + 34)}" text-anchor="middle" font-size="12" fill="${esc(pal.muted)}">${esc(info.xLabel)}</text>`,
  );
  parts.push(
    `<rect x="${x0}" y="${f(y0)}" width="${x1 - x0}" height="${f(y1 - y0)}" fill="none" stroke="${esc(pal.grid)}"/>`,
  );
  if (reference)
    for (const r of runs(prepared.x, reference)) parts.push(line(r, sx, sy, pal.reference, 1.25, REFERENCE_LINE.dash));
  for (const arch of archs) {
    for (const r of runs(prepared.x, prepared.main[arch]))
      parts.push(line(r, sx, sy, pal.arch[arch], 2, ARCH_BY_KEY[arch].dash));
    for (const r of runs(prepared.x, prepared.over[arch])) parts.push(line(r, sx, sy, pal.arch[arch], 1.5, [2, 4]));
  }
  parts.push('</g>');
  return parts.join('');
}

/**
 * charts: [{metric, prepared, depth, reference (log10 values) | null}] in
 * drawing order; archs: keys; pal: palette(); caption: a line of text under
 * the title (the config).
 */
export function chartsToSvg({ charts, archs, pal, caption = '' }) {
  const head = 56;
  const legendRows = Math.ceil(archs.length / 3);
  const height = head + charts.length * H + legendRows * LEGEND_ROW + 18;
  const body = [];
  body.push(`<rect width="${W}" height="${height}" fill="${esc(pal.surface)}"/>`);
  body.push(
    `<text x="${M.left}" y="24" font-size="17" font-weight="700" fill="${esc(pal.text)}">resnorm: per layer, at initialization</text>`,
  );
  body.push(`<text x="${M.left}" y="44" font-size="12" fill="${esc(pal.muted)}">${esc(caption)}</text>`);
  charts.forEach((c, i) => body.push(oneChart(c, archs, pal, head + i * H)));
  body.push(archLegend(archs, pal, M.left, head + charts.length * H + 8));
  return svgDocument({ width: W, height, title: 'resnorm charts', body });
}
