// The training lab's charts as one standalone SVG document, drawn from the
// numbers the page draws: the loss (held-out thick, training thin, log scale,
// with the task's chance and optimal levels), the global gradient norm (log
// scale), the learning rate (one line while every run has the same
// schedule, else each run's own, as charts.js draws it) and, while some run
// logs them, the largest attention logit (log scale) and the composite gain
// of the stream mixing (forward thick, backward thin, with a line at 1), each
// of the runs that log it (series.js's logsKey), on one step axis;
// then per metric the heatmaps' legend (the colour bar of their shared log
// scale with its ticks, and the marks for not finite, exactly 0, after the run
// stopped and not run) and one layer x step map per run, every cell a rect in
// its colour carrying its value (data-v, as the CSV writes it), the steps
// after a run stopped early dotted and its name saying how it stopped. A
// metric only some runs have (BatchNorm's distances, rows named by
// bn-layers.js) maps those runs, with a line for each other run, and is left
// out when no run has it. A pure function: text in, text out.
//
//   labToSvg({ config, runs, pal, caption })   // runs: session.js's runs
import { numberText } from '../shared/export-text.js';
import { fmtValue } from '../shared/format.js';
import { logLabel, logTicks } from '../shared/log-axis.js';
import { LEGEND_ROW, archLegend, esc, f, line, segments, svgDocument } from '../shared/svg.js';
import { VIRIDIS, cellKind, scaleAt } from '../shared/colormap.js';
import { ZERO_RGB, labelledRows, stepTicks } from './heatmap.js';
import { runLook } from './looks.js';
import { noBnMapText } from './bn-layers.js';
import { runEnd } from '../claims/lab/common.js';
import {
  HEAT_METRICS,
  finiteValues,
  heatColumns,
  heatRuns,
  heatScale,
  lineSeries,
  logValues,
  yRange,
} from './series.js';

const W = 760;
const M = { left: 62, right: 18 };
const CHART_H = 220; // one line chart: heading, plot, step axis
const MAP_H = 150; // one heatmap: name, plot, step axis
const LEGEND_H = 110; // a metric's legend: heading, colour bar and ticks, four marks
const NOTE_H = 18; // a line for a run without a map of a metric only some runs have

const LINES = [
  { key: 'loss', title: 'Loss', sub: 'held-out (thick) and training (thin), log scale', log: true },
  { key: 'grad', title: 'Gradient norm', sub: 'of every parameter together, before clipping, log scale', log: true },
  { key: 'lr', title: 'Learning rate', sub: 'of each update, after warmup and the schedule', log: false },
  {
    key: 'logit',
    title: 'Largest attention logit',
    sub: 'of the step\u2019s batch: the largest |q\u00b7k|/\u221ad\u2095 over blocks and heads, log scale',
    log: true,
    logs: 'max_logit',
  },
  {
    key: 'gain',
    title: 'Composite gain of the stream mixing',
    sub: 'the mixing matrices multiplied over depth: largest absolute row sum (forward, thick), column sum (backward, thin); grey: 1',
    log: false,
    logs: 'hc_gain_fwd',
  },
];

/** The line charts drawn for `data` (lineSeries's): those every run has, and those some run logs. */
const linesOf = (data) => LINES.filter((spec) => !spec.logs || Object.values(data.has).some((h) => h[spec.logs]));

const rgb = (c) => `rgb(${c.join(',')})`;

/** The series of a line chart: [{values, stroke, width, dash, run}], as charts.js draws them (looks: the runs'). */
function seriesOf(key, data, looks, pal) {
  if (key === 'logit')
    return looks
      .filter((l) => data.has[l.key].max_logit)
      .map((l) => ({
        values: data.series[l.key].max_logit,
        stroke: pal.arch[l.arch],
        width: 2,
        dash: l.dash,
        run: l.key,
      }));
  if (key === 'gain')
    return looks
      .filter((l) => data.has[l.key].hc_gain_fwd)
      .flatMap((l) => [
        { values: data.series[l.key].hc_gain_fwd, stroke: pal.arch[l.arch], width: 2, dash: l.dash, run: l.key },
        {
          values: data.series[l.key].hc_gain_bwd,
          stroke: pal.arch[l.arch],
          width: 1,
          dash: [],
          opacity: 0.55,
          run: l.key,
        },
      ]);
  if (key === 'lr')
    return data.lrShared !== false
      ? [{ values: data.lr, stroke: pal.text, width: 1.5, dash: [], run: null }]
      : looks.map((l) => ({
          values: data.series[l.key].lr,
          stroke: pal.arch[l.arch],
          width: 1.5,
          dash: l.dash,
          run: l.key,
        }));
  if (key === 'grad')
    return looks.map((l) => ({
      values: data.series[l.key].grad_norm_global,
      stroke: pal.arch[l.arch],
      width: 2,
      dash: l.dash,
      run: l.key,
    }));
  return looks.flatMap((l) => [
    { values: data.series[l.key].heldout_loss, stroke: pal.arch[l.arch], width: 2, dash: l.dash, run: l.key },
    { values: data.series[l.key].train_loss, stroke: pal.arch[l.arch], width: 1, dash: [], opacity: 0.55, run: l.key },
  ]);
}

function lineChart(spec, { data, looks, pal, xMax, task, diverged }, top) {
  const x0 = M.left;
  const x1 = W - M.right;
  const y0 = top + 44;
  const y1 = top + CHART_H - 40;
  const series = seriesOf(spec.key, data, looks, pal).map((s) => ({
    ...s,
    plotted: (spec.log ? logValues : finiteValues)(s.values),
  }));
  const refs = spec.key === 'gain' ? [{ at: 1, label: 'gain 1', dash: [6, 5] }] : [];
  if (spec.key === 'loss' && task) {
    if (task.chance > 0)
      refs.push({ at: Math.log10(task.chance), label: `chance ${fmtValue(task.chance)}`, dash: [6, 5] });
    if (task.optimal > 0)
      refs.push({ at: Math.log10(task.optimal), label: `optimal ${fmtValue(task.optimal)}`, dash: [2, 3] });
  }
  const [lo, hi] = yRange(
    series.map((s) => s.plotted),
    refs.map((r) => r.at),
    spec.log,
  );
  const sx = (x) => x0 + ((x1 - x0) * x) / Math.max(1, xMax);
  const sy = (v) => y1 - ((y1 - y0) * (v - lo)) / (hi - lo || 1);
  const parts = [`<g class="chart chart-${spec.key}">`];
  parts.push(
    `<text x="${x0}" y="${top + 20}" font-weight="600" font-size="15" fill="${esc(pal.text)}">${esc(spec.title)}</text>`,
    `<text x="${x0}" y="${top + 37}" font-size="12" fill="${esc(pal.muted)}">${esc(spec.sub)}</text>`,
  );
  const yticks = spec.log
    ? logTicks(lo, hi, 6).map((t) => [t, logLabel(t)])
    : niceLinear(lo, hi).map((t) => [t, fmtValue(t)]);
  for (const [t, label] of yticks) {
    const y = f(sy(t));
    parts.push(
      `<line x1="${x0}" x2="${x1}" y1="${y}" y2="${y}" stroke="${esc(pal.grid)}"/>`,
      `<text x="${x0 - 6}" y="${y}" dy="4" text-anchor="end" font-size="12" fill="${esc(pal.muted)}">${esc(label)}</text>`,
    );
  }
  for (const t of stepTicks(xMax, x1 - x0)) {
    const x = f(sx(t));
    parts.push(
      `<line x1="${x}" x2="${x}" y1="${f(y0)}" y2="${f(y1)}" stroke="${esc(pal.grid)}"/>`,
      `<text x="${x}" y="${f(y1 + 16)}" text-anchor="middle" font-size="12" fill="${esc(pal.muted)}">${t}</text>`,
    );
  }
  parts.push(
    `<text x="${f((x0 + x1) / 2)}" y="${f(y1 + 32)}" text-anchor="middle" font-size="12" fill="${esc(pal.muted)}">step</text>`,
    `<rect x="${x0}" y="${f(y0)}" width="${x1 - x0}" height="${f(y1 - y0)}" fill="none" stroke="${esc(pal.grid)}"/>`,
  );
  for (const r of refs) {
    const y = f(sy(r.at));
    parts.push(
      `<line x1="${x0}" x2="${x1}" y1="${y}" y2="${y}" stroke="${esc(pal.reference)}" stroke-width="1.25" stroke-dasharray="${r.dash.join(' ')}"/>`,
      `<text x="${x1 - 4}" y="${y}" dy="-3" text-anchor="end" font-size="11" fill="${esc(pal.laneText ?? pal.muted)}">${esc(r.label)}</text>`,
    );
  }
  for (const s of series) {
    const run = s.run === null ? '' : ` data-run="${esc(s.run)}"`;
    const g = s.opacity ? `<g opacity="${s.opacity}" data-series="1"${run}>` : `<g data-series="1"${run}>`;
    parts.push(g, ...segments(data.x, s.plotted).map((pts) => line(pts, sx, sy, s.stroke, s.width, s.dash)), '</g>');
  }
  const drawn = new Set(series.map((s) => s.run));
  for (const d of diverged) {
    if (spec.key !== 'lr' && !drawn.has(d.key)) continue;
    const x = f(sx(d.step));
    parts.push(
      `<line x1="${x}" x2="${x}" y1="${f(y0)}" y2="${f(y1)}" stroke="${esc(pal.arch[d.arch])}" stroke-width="1.25" stroke-dasharray="4 3"/>`,
    );
  }
  parts.push('</g>');
  return parts.join('\n');
}

/** About five ticks over [lo, hi] at 1, 2 or 5 times a power of ten. */
function niceLinear(lo, hi) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

/** The legend of a metric's maps: its colour bar with ticks, and the four marks that are no colour of it. */
function heatLegend(info, scale, pal, top) {
  const x0 = M.left;
  const x1 = W - M.right - 260;
  const parts = [
    `<text x="${x0}" y="${top + 20}" font-weight="600" font-size="15" fill="${esc(pal.text)}">${esc(`${info.title} per ${info.rowLabel} and step`)}</text>`,
    `<text x="${x0}" y="${top + 38}" font-size="12" fill="${esc(pal.muted)}">${esc(`${info.metric}, log scale shared by every ${info.only ? 'map' : 'architecture'}; ${info.only ? `the first ${info.rowLabel}` : `${info.rowLabel} ${info.firstRow}`} at the bottom`)}</text>`,
  ];
  const by = top + 48;
  parts.push(`<rect x="${x0}" y="${by}" width="${x1 - x0}" height="14" fill="url(#viridis)"/>`);
  if (scale)
    for (const t of logTicks(scale.lo, scale.hi, 6)) {
      const x = f(x0 + ((x1 - x0) * (t - scale.lo)) / (scale.hi - scale.lo));
      parts.push(
        `<line x1="${x}" x2="${x}" y1="${by + 14}" y2="${by + 19}" stroke="${esc(pal.muted)}"/>`,
        `<text x="${x}" y="${by + 32}" text-anchor="middle" font-size="11" fill="${esc(pal.muted)}" class="heat-tick">${esc(logLabel(t))}</text>`,
      );
    }
  else parts.push(`<text x="${x0}" y="${by + 32}" font-size="11" fill="${esc(pal.muted)}">no values yet</text>`);
  const keys = [
    ['url(#hatch)', 'not finite (diverged)'],
    [rgb(ZERO_RGB), 'exactly 0'],
    ['url(#stopped)', 'after the run stopped'],
    [pal.pending ?? pal.grid, 'not run (yet)'],
  ];
  keys.forEach(([fill, label], i) => {
    const y = by + i * 16 - 2;
    parts.push(
      `<rect x="${x1 + 24}" y="${y}" width="12" height="12" fill="${esc(fill)}" stroke="${esc(pal.grid)}"/>`,
      `<text x="${x1 + 42}" y="${y + 10}" font-size="12" fill="${esc(pal.text)}">${esc(label)}</text>`,
    );
  });
  return parts.join('\n');
}

/**
 * One run's map of a metric: every cell a rect; a value not finite (or missing) hatched; the
 * steps after the run stopped early dotted, as heatmap.js draws them.
 */
function heatMap(run, metric, info, { scale, rows, xMax, pal }, top) {
  const look = runLook(run);
  const end = runEnd(run);
  const { steps, columns } = heatColumns(run, metric);
  const x0 = M.left;
  const x1 = W - M.right;
  const y0 = top + 22;
  const y1 = top + MAP_H - 24;
  const sx = (s) => x0 + ((x1 - x0) * s) / Math.max(1, xMax);
  const h = (y1 - y0) / Math.max(1, rows);
  const names = info.labels?.(run) ?? null;
  const rowName = (r) => (names ? ` data-name="${esc(names[r]?.long ?? '')}"` : '');
  const parts = [
    `<g class="heatmap heatmap-${metric}" data-arch="${esc(look.key)}">`,
    `<text x="${x0}" y="${top + 14}" font-weight="600" font-size="13" fill="${esc(pal.text)}">${esc(look.label)}${end ? esc(` \u00b7 ${end.text}`) : ''}</text>`,
    `<rect x="${x0}" y="${f(y0)}" width="${x1 - x0}" height="${f(y1 - y0)}" fill="${esc(pal.pending ?? pal.grid)}"/>`,
  ];
  // the steps after the run stopped: dotted, not the background of steps still to run
  const stoppedFrom = end ? (steps.at(-1) ?? 0) : null;
  if (stoppedFrom !== null && stoppedFrom < xMax)
    parts.push(
      `<rect class="heat-stopped" x="${f(sx(stoppedFrom))}" y="${f(y0)}" width="${f(sx(xMax) - sx(stoppedFrom))}" height="${f(y1 - y0)}" fill="url(#stopped)"/>`,
    );
  steps.forEach((step, i) => {
    const a = sx(i > 0 ? steps[i - 1] : 0);
    const w = Math.max(0.5, sx(step) - a);
    for (let r = 0; r < rows; r++) {
      const v = columns[i][r];
      const kind = v === undefined ? 'nonfinite' : cellKind(v);
      const fill =
        kind === 'nonfinite'
          ? 'url(#hatch)'
          : kind === 'zero' || !scale
            ? rgb(ZERO_RGB)
            : rgb(VIRIDIS[Math.round(255 * scaleAt(scale, v))]);
      const value = v === undefined ? 'none' : numberText(v);
      parts.push(
        `<rect x="${f(a)}" y="${f(y1 - (r + 1) * h)}" width="${f(w)}" height="${f(h)}" fill="${fill}" data-step="${step}" data-row="${r + info.firstRow}" data-v="${value}"${rowName(r)}/>`,
      );
    }
  });
  for (const r of labelledRows(rows, h, Boolean(names)))
    parts.push(
      `<text x="${x0 - 6}" y="${f(y1 - (r + 0.5) * h)}" dy="4" text-anchor="end" font-size="11" fill="${esc(pal.muted)}">${esc(names ? (names[r]?.short ?? '') : String(r + info.firstRow))}</text>`,
    );
  for (const t of stepTicks(xMax, x1 - x0))
    parts.push(
      `<text x="${f(sx(t))}" y="${f(y1 + 15)}" text-anchor="middle" font-size="11" fill="${esc(pal.muted)}">${t}</text>`,
    );
  if (run.firstNonfinite !== null && run.firstNonfinite !== undefined) {
    const x = f(sx(run.firstNonfinite));
    parts.push(`<line x1="${x}" x2="${x}" y1="${f(y0)}" y2="${f(y1)}" stroke="${esc(pal.danger)}" stroke-width="2"/>`);
  }
  parts.push('</g>');
  return parts.join('\n');
}

/** The viridis gradient, the hatching of a non-finite cell and the dots of the steps after a run stopped. */
function defs(pal) {
  const stops = Array.from({ length: 17 }, (_, i) => {
    const k = Math.round((255 * i) / 16);
    return `<stop offset="${f((100 * i) / 16)}%" stop-color="${rgb(VIRIDIS[k])}"/>`;
  }).join('');
  return (
    `<defs><linearGradient id="viridis" x1="0" x2="1" y1="0" y2="0">${stops}</linearGradient>` +
    `<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="${esc(pal.surface)}"/>` +
    `<path d="M0 6L6 0M-3 3L3 -3M3 9L9 3" stroke="${esc(pal.danger)}" stroke-width="1.5"/></pattern>` +
    `<pattern id="stopped" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="${esc(pal.pending ?? pal.grid)}"/>` +
    `<circle cx="3" cy="3" r="1" fill="${esc(pal.muted)}"/></pattern></defs>`
  );
}

/**
 * config: the session's settings; runs: its runs ({arch, config, task, logs,
 * firstNonfinite}); pal: palette() with danger and pending; caption: a line
 * under the title.
 */
export function labToSvg({ config, runs, pal, caption = '' }) {
  const looks = runs.map(runLook);
  const data = lineSeries(runs);
  const diverged = runs
    .filter((r) => r.firstNonfinite !== null && r.firstNonfinite !== undefined)
    .map((r) => ({ arch: r.arch, key: r.key ?? r.arch, step: r.firstNonfinite }));
  const ctx = { data, looks, pal, xMax: config.steps, task: runs[0]?.task ?? null, diverged };
  const head = 56;
  // each metric's runs with a map, and those without one (a metric only some runs have); none: left out
  const metrics = Object.entries(HEAT_METRICS)
    .map(([metric, info]) => {
      const mapped = heatRuns(info, runs);
      return { metric, info, mapped, without: runs.filter((r) => !mapped.includes(r)) };
    })
    .filter((m) => m.mapped.length || !m.info.only);
  const heatH = metrics.reduce(
    (sum, m) => sum + LEGEND_H + m.mapped.length * MAP_H + (m.info.only ? m.without.length * NOTE_H : 0),
    0,
  );
  const legendRows = Math.ceil(looks.length / 3);
  const lines = linesOf(data);
  const height = head + lines.length * CHART_H + heatH + legendRows * LEGEND_ROW + 18;
  const body = [defs(pal), `<rect width="${W}" height="${height}" fill="${esc(pal.surface)}"/>`];
  body.push(
    `<text x="${M.left}" y="24" font-size="17" font-weight="700" fill="${esc(pal.text)}">resnorm: training, step by step</text>`,
    `<text x="${M.left}" y="44" font-size="12" fill="${esc(pal.muted)}">${esc(caption)}</text>`,
  );
  lines.forEach((spec, i) => body.push(lineChart(spec, ctx, head + i * CHART_H)));
  let top = head + lines.length * CHART_H;
  for (const { metric, info, mapped, without } of metrics) {
    const scale = heatScale(mapped, metric);
    body.push(heatLegend(info, scale, pal, top));
    top += LEGEND_H;
    if (info.only)
      for (const r of without) {
        body.push(
          `<text x="${M.left}" y="${top + 13}" font-size="12" fill="${esc(pal.muted)}" class="heat-none" data-arch="${esc(runLook(r).key)}">${esc(noBnMapText(r, runLook(r).label))}</text>`,
        );
        top += NOTE_H;
      }
    for (const r of mapped) {
      const rows = info.rows(r.config?.depth ?? config.depth, r);
      body.push(heatMap(r, metric, info, { scale, rows, xMax: config.steps, pal }, top));
      top += MAP_H;
    }
  }
  body.push(archLegend(looks, pal, M.left, top + 8));
  return svgDocument({ width: W, height, title: 'resnorm training lab charts', body });
}
