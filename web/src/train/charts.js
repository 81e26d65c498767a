// The lab's line charts on one step axis (0 to the run's steps), with one
// synced cursor: the loss (held-out and training, log scale, with the task's
// chance and optimal losses), the global gradient norm (log scale), the
// learning rate, and two numbers only some runs log: the largest attention
// logit (log scale; runs with transformer blocks) and the composite gain of
// the stream mixing over depth (forward and backward, linear, with a line at
// 1; Hyper-Connections and mHC runs). A chart draws only the runs that log its
// number, and a chart no run logs is hidden (its figure), not drawn empty.
// Instances are reused (setData) while the architectures and the theme stay
// the same. A run that stopped at a non-finite step gets a dashed vertical
// line there in its colour (the view says the step in words). A run on
// several seeds (series.js's seedsRun) is drawn as its median over the seeds
// with a band from the lowest seed to the highest, in every chart but the
// learning rate's.
//
//   const charts = createLineCharts({ els: {loss, grad, lr, logit, gain}, palette, onCursor });
//   charts.update({ data, archs, xMax, task, diverged, theme });   // draws the first chart
//   charts.drawNext();   // the next one, in a frame of its own; charts.drawAll(), charts.drawn()
import { FONT, axisStyle, createChartHost, syncedCursor, tickRoom } from '../shared/chart-host.js';
import { fmtValue } from '../shared/format.js';
import { logLabel, logTicks } from '../shared/log-axis.js';
import { finiteValues, logValues, yRange } from './series.js';
import { lookOf } from './looks.js';

let instances = 0;

/** Step tick increments (uPlot picks the first that leaves room): 1-2-5 up to a million. */
const STEP_INCRS = [1, 2, 5].flatMap((m) => [1, 10, 100, 1000, 1e4, 1e5].map((p) => m * p)).sort((a, b) => a - b);

/**
 * The charts, each {log, series(archs, pal, look, shared), values(data, archs), logs: the line key a
 * run must log to be drawn (series.js's logsKey; absent: every run), refs: reference levels}.
 */
const CHARTS = {
  loss: {
    log: true,
    series: (archs, pal, look) =>
      archs.map(look).flatMap((a) => [
        { label: `${a.label} held-out`, stroke: pal.arch[a.arch], width: 2, dash: a.dash },
        { label: `${a.label} training`, stroke: fade(pal.arch[a.arch]), width: 1 },
      ]),
    values: (d, archs) => archs.flatMap((a) => [d.series[a].heldout_loss, d.series[a].train_loss]),
  },
  grad: {
    log: true,
    series: (archs, pal, look) =>
      archs.map(look).map((a) => ({ label: a.label, stroke: pal.arch[a.arch], width: 2, dash: a.dash })),
    values: (d, archs) => archs.map((a) => d.series[a].grad_norm_global),
  },
  lr: {
    log: false,
    // one line while every run has the same schedule, else each run's own (a claim's runs differ in warmup)
    series: (archs, pal, look, shared) =>
      shared
        ? [{ label: 'learning rate', stroke: pal.text, width: 1.5 }]
        : archs
            .map(look)
            .map((a) => ({ label: `${a.label} learning rate`, stroke: pal.arch[a.arch], width: 1.5, dash: a.dash })),
    values: (d, archs) => (d.lrShared ? [d.lr] : archs.map((a) => d.series[a].lr)),
  },
  logit: {
    log: true,
    logs: 'max_logit',
    series: (archs, pal, look) =>
      archs
        .map(look)
        .map((a) => ({ label: `${a.label} largest logit`, stroke: pal.arch[a.arch], width: 2, dash: a.dash })),
    values: (d, archs) => archs.map((a) => d.series[a].max_logit),
  },
  gain: {
    log: false,
    logs: 'hc_gain_fwd',
    series: (archs, pal, look) =>
      archs.map(look).flatMap((a) => [
        { label: `${a.label} forward gain`, stroke: pal.arch[a.arch], width: 2, dash: a.dash },
        { label: `${a.label} backward gain`, stroke: fade(pal.arch[a.arch]), width: 1 },
      ]),
    values: (d, archs) => archs.flatMap((a) => [d.series[a].hc_gain_fwd, d.series[a].hc_gain_bwd]),
    // a gain of 1: the mixing neither amplifies nor shrinks the streams
    refs: [{ at: 1, label: 'gain 1', dash: [6, 5] }],
  },
};

/** The runs of `archs` chart `key` draws: those that log its number (lineSeries's `has`). */
export const chartRuns = (key, archs, data) =>
  CHARTS[key].logs ? archs.filter((a) => data.has?.[a]?.[CHARTS[key].logs]) : archs;

/**
 * A colour at `alpha` opacity (55%: the training loss, behind the held-out one): #rrggbb or #rgb (the
 * built CSS writes a colour such as #00ff00 short).
 */
export function fade(color, alpha = 0.55) {
  const m = /^#(?:([0-9a-f]{6})|([0-9a-f]{3}))$/i.exec(color);
  if (!m) return color;
  const n = parseInt(m[1] ?? [...m[2]].map((c) => c + c).join(''), 16);
  return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

/** The number each chart draws as a band over the seeds of a run on several (series.js's BAND_KEYS). */
const BANDED = { loss: 'heldout_loss', grad: 'grad_norm_global', logit: 'max_logit', gain: 'hc_gain_fwd' };

/** The runs of `archs` chart `key` draws with a band: those on several seeds (`bands`, lineSeries's). */
const bandedRuns = (key, archs, bands) => (BANDED[key] ? archs.filter((a) => bands?.[a] > 1) : []);

/** The band values of chart `key` (lineSeries's `data`), each banded run's lowest then highest seed's. */
const bandValues = (key, archs, data) =>
  bandedRuns(key, archs, data.bands).flatMap((a) => [
    data.series[a][`${BANDED[key]}_low`],
    data.series[a][`${BANDED[key]}_high`],
  ]);

/**
 * The band series of chart `key` after its own `count` series: for each run of `archs` drawn on
 * several seeds (`bands`, lineSeries's), its lowest and highest seed's line (thin) and the fill
 * between them. {series, bands: uPlot's bands option}; their values are bandValues's.
 */
function bandSeries(key, archs, bands, pal, look, count) {
  const banded = bandedRuns(key, archs, bands);
  const series = [];
  const fills = [];
  banded.forEach((a, i) => {
    const l = look(a);
    const stroke = fade(pal.arch[l.arch], 0.45);
    series.push(
      { label: `${l.label}: lowest seed`, stroke, width: 0.75 },
      { label: `${l.label}: highest seed`, stroke, width: 0.75 },
    );
    // uPlot numbers the series from 1 (0 is the step axis): the highest, then the lowest
    const low = count + 1 + 2 * i;
    fills.push({ series: [low + 1, low], fill: fade(pal.arch[l.arch], 0.16) });
  });
  return { series, bands: fills };
}

/** Reference levels (chance, optimal) with their labels, and the divergence lines. */
function drawMarks(u, view, pal) {
  const { ctx, bbox } = u;
  const dpr = devicePixelRatio || 1;
  ctx.save();
  ctx.font = FONT.replace('12px', `${11 * dpr}px`);
  ctx.lineWidth = 1.25 * dpr;
  for (const r of view.refs) {
    const y = u.valToPos(r.at, 'y', true);
    ctx.strokeStyle = pal.reference;
    ctx.setLineDash(r.dash.map((d) => d * dpr));
    ctx.beginPath();
    ctx.moveTo(bbox.left, y);
    ctx.lineTo(bbox.left + bbox.width, y);
    ctx.stroke();
    ctx.fillStyle = pal.laneText;
    ctx.textAlign = 'right';
    ctx.textBaseline = r.below ? 'top' : 'bottom';
    ctx.fillText(r.label, bbox.left + bbox.width - 4 * dpr, y + (r.below ? 3 : -3) * dpr);
  }
  for (const m of view.marks) {
    const x = u.valToPos(m.step, 'x', true);
    ctx.strokeStyle = m.stroke;
    ctx.setLineDash([4 * dpr, 3 * dpr]);
    ctx.beginPath();
    ctx.moveTo(x, bbox.top);
    ctx.lineTo(x, bbox.top + bbox.height);
    ctx.stroke();
  }
  ctx.restore();
}

/** Chart `c`'s view of update()'s `next` over the runs `archs` it draws: {data: [x, ...plotted], raw, range, refs, marks}. */
function viewOf(c, { data, task, diverged }, archs, palette) {
  const spec = CHARTS[c.key];
  const raw = [...spec.values(data, archs), ...bandValues(c.key, archs, data)];
  const plotted = raw.map(spec.log ? logValues : finiteValues);
  const refs = [...(spec.refs ?? [])];
  if (c.key === 'loss' && task) {
    if (task.chance > 0)
      refs.push({ at: Math.log10(task.chance), label: `chance ${fmtValue(task.chance)}`, dash: [6, 5] });
    if (task.optimal > 0)
      refs.push({
        at: Math.log10(task.optimal),
        label: `optimal ${fmtValue(task.optimal)}`,
        dash: [2, 3],
        below: true,
      });
  }
  const marks = diverged
    .filter((d) => archs.includes(d.arch))
    .map((d) => ({ step: d.step, stroke: palette().arch[d.colour ?? d.arch] }));
  const range = yRange(
    plotted,
    refs.map((r) => r.at),
    spec.log,
  );
  return { data: [data.x, ...plotted], raw, range, refs, marks };
}

/** Chart `c` as the test hook reads it: the steps its canvas draws, its runs, the raw values, its step range, whether it is the latest. */
function hookView(c) {
  const u = c.host.u;
  return {
    x: u?.data[0] ?? [],
    runs: c.runs,
    raw: c.view.raw,
    xRange: u ? [u.scales.x.min, u.scales.x.max] : null,
    drawn: !c.stale,
  };
}

/**
 * els: {loss, grad, lr, logit, gain} containers (any of them; each inside its figure, hidden while
 * no run logs its number); palette(): the theme's colours (with `danger`); onCursor(index): the
 * logged step under the pointer (null when it leaves), from any chart.
 */
export function createLineCharts({ els, palette, onCursor = () => {} }) {
  const syncKey = `resnorm-steps-${++instances}`;
  const charts = Object.entries(els).map(([key, el]) => ({
    key,
    el,
    // the least heights drawn: the page's CSS gives more on screen, a printout of many runs (print.js) about this
    host: createChartHost(el, { minHeight: key === 'loss' ? 170 : 100 }),
    figure: el.closest('figure') ?? el,
    view: null, // {data: [x, ...series], range, refs, marks}; null while hidden
    runs: [], // the runs' keys it draws
    stale: false, // its view is newer than its drawing
  }));
  let shape = null;
  let last = null;

  /** Draws the first chart whose view is newer than its drawing; whether one still waits after it. */
  function drawOne() {
    const c = charts.find((x) => x.stale);
    if (c) {
      c.stale = false;
      c.host.setData(c.view.data);
    }
    return charts.some((x) => x.stale);
  }

  function options(c, archs, pal, xMax, look, shared, bands) {
    const spec = CHARTS[c.key];
    const axis = axisStyle(pal);
    const own = spec.series(archs, pal, look, shared);
    const band = bandSeries(c.key, archs, bands, pal, look, own.length);
    return {
      legend: { show: false },
      pxAlign: 0,
      cursor: syncedCursor(pal, syncKey, 6),
      scales: {
        x: { time: false, range: () => [0, Math.max(1, xMax())] },
        y: { range: () => c.view.range },
      },
      axes: [
        {
          ...axis,
          label: 'step',
          labelSize: 16,
          labelGap: 0,
          size: 32,
          space: 56,
          incrs: STEP_INCRS,
          values: (u, splits) => splits.map(String),
        },
        {
          ...axis,
          size: 54,
          gap: 4,
          ...(spec.log
            ? {
                splits: (u, i, min, max) => logTicks(min, max, tickRoom(u, 26)),
                values: (u, splits) => splits.map(logLabel),
              }
            : { values: (u, splits) => splits.map(fmtValue) }),
        },
      ],
      series: [{ label: 'step' }, ...[...own, ...band.series].map((s) => ({ points: { show: false }, ...s }))],
      bands: band.bands,
      hooks: {
        draw: [(u) => drawMarks(u, c.view, pal)],
        setCursor: [(u) => onCursor(u.cursor.idx == null || u.cursor.left < 0 ? null : u.cursor.idx)],
      },
    };
  }

  return {
    /**
     * data: series.js lineSeries(); archs: the runs' keys in order; looks:
     * their looks.js looks (by key; an arch's own when absent); xMax(): the
     * axis's end; task: {chance, optimal} or null; diverged: [{arch, step,
     * colour}] (arch: the run's key, colour: its arch). The charts made
     * again (new runs, names or theme) draw at once; new data alone draws the
     * first chart now and each other one at a call of drawNext(), so one frame
     * draws one chart (each chart rasterizes its canvas in the frame's commit).
     */
    update(next) {
      last = next;
      const pal = palette();
      for (const c of charts) {
        c.runs = chartRuns(c.key, next.archs, next.data);
        c.view = c.runs.length || !CHARTS[c.key].logs ? viewOf(c, next, c.runs, palette) : null;
      }
      const look = (a) => lookOf(next.looks, a);
      const shared = next.data.lrShared !== false;
      const bands = next.data.bands ?? {};
      const drawn = charts.map((c) => `${c.key}:${c.runs.join('+')}`).join(';');
      const key = `${next.archs.map((a) => `${a}:${look(a).label}:${bands[a] ?? 1}`).join()}|${drawn}|${next.theme}|${shared}`;
      if (key !== shape) {
        shape = key;
        for (const c of charts) {
          // the figure shown before the chart is drawn: uPlot sizes it from its box
          c.figure.hidden = !c.view;
          c.stale = false;
          if (!c.view) c.host.clear();
          else
            c.host.draw(() => ({
              opts: options(c, c.runs, pal, () => last.xMax, look, shared, bands),
              data: c.view.data,
            }));
        }
      } else {
        for (const c of charts) c.stale = Boolean(c.view);
        drawOne();
      }
    },
    /** Draws the next chart whose data update() gave since it was drawn; whether one still waits. */
    drawNext: drawOne,
    /** Draws every chart whose data update() gave since it was drawn. */
    drawAll() {
      while (drawOne());
    },
    /** Whether every chart shows the data update() gave last (the page's test hook). */
    drawn: () => charts.every((c) => !c.stale),
    /** Moves the synced cursor to logged step `index` (null hides it), as the pointer would. */
    showIndex(index) {
      const u = charts[0]?.host.u;
      if (!u) return;
      if (index === null) u.setCursor({ left: -10, top: -10 });
      else u.setCursor({ left: u.valToPos(u.data[0][index], 'x'), top: u.bbox.height / devicePixelRatio / 2 });
    },
    /**
     * What each chart plots, for the test hook: the steps its canvas draws (x), the runs it draws
     * (their keys, in its series' order), the raw values, its step axis's range and whether it draws
     * the data update() gave last; null for a chart no run logs (hidden).
     */
    plotted() {
      return Object.fromEntries(charts.map((c) => [c.key, c.view && hookView(c)]));
    },
    retheme(theme) {
      if (!last) return;
      shape = null;
      this.update({ ...last, theme });
    },
    destroy() {
      for (const c of charts) c.host.destroy();
    },
  };
}
