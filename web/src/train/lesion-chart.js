// After training: the lesion study of every run (its trainer's lesion(), kept
// by session.js as run.lesion) and each block's contribution at the end
// beside its value at initialization. Three uPlot charts on one block axis:
// the held-out loss with each block skipped (log scale, each run's trained
// loss dashed: the gap is the increase), the same relative to the trained
// loss (lesioned / trained, log scale: 1 is no change), and the contribution
// ||u_l|| / ||h_{l-1}|| (log scale, thick at the end, thin at init); then one
// sentence per run from claims/lab/common.js's depthSentence(), the values that are not
// finite in words, and the numbers as a table.
//
//   const a = createAfterTraining(section, { palette });
//   a.update({ runs, looks, state, theme })   // returns {key: lesion} drawn (the engine's arrays)
//   a.plotted()                               // what each chart plots, per run
import { FONT, axisStyle, createChartHost, layerAxis, syncedCursor, tickRoom } from '../shared/chart-host.js';
import { el, setText } from '../shared/dom.js';
import { scrollRegion } from '../shared/scroll-region.js';
import { fmtPlain } from '../shared/format.js';
import { log10OrNull, logLabel, logTicks } from '../shared/log-axis.js';
import { lineSwatch } from '../shared/swatch.js';
import { fade } from './charts.js';
import { depthSentence } from '../claims/lab/common.js';

let instances = 0;

const CHARTS = [
  {
    key: 'loss',
    title: 'Held-out loss with one block skipped',
    sub: 'per block, log scale; dashed: each run\u2019s trained loss, so the gap is the increase',
  },
  {
    key: 'relative',
    title: 'Relative to the trained loss',
    sub: 'lesioned / trained held-out loss, log scale: 1 is no change, 2 is twice the loss',
  },
  {
    key: 'contribution',
    title: 'Contribution of each block',
    sub: '\u2016u\u2097\u2016 / \u2016h\u2097\u208b\u2081\u2016, log scale: thick at the end of training, thin at initialization',
  },
];

/** The plotted columns of one chart: per run one or two series of log10 values on blocks 1..maxL. */
function columns(key, lesions, blocks) {
  const pad = (arr) => blocks.map((b) => (b <= arr.length ? log10OrNull(arr[b - 1]) : null));
  return lesions.flatMap(({ lesion: l }) => {
    if (key === 'loss') return [pad(l.loss)];
    if (key === 'relative') return [pad(Array.from(l.loss, (v) => v / l.base))];
    return [pad(l.contribution), pad(l.contribution_init)];
  });
}

/** The y range of log10 columns (and reference levels), at least 0.3 decades, a little padded. */
function yRange(cols, refs = []) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of [...cols.flat(), ...refs])
    if (v !== null && Number.isFinite(v)) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  if (lo > hi) return [-1, 1];
  const span = Math.max(hi - lo, 0.3);
  const mid = (hi + lo) / 2;
  return [mid - span * 0.55, mid + span * 0.55];
}

/** What is not finite in a lesion, as words (null when everything is). */
function nonfiniteText(label, l) {
  if (!Number.isFinite(l.base)) return `${label}: the trained loss is not finite, so no lesion is drawn.`;
  const bad = (arr) => Array.from(arr, (v, i) => (Number.isFinite(v) ? null : i + 1)).filter((b) => b !== null);
  const parts = [];
  const loss = bad(l.loss);
  const con = bad(l.contribution);
  if (loss.length) parts.push(`the loss without block${loss.length > 1 ? 's' : ''} ${loss.join(', ')}`);
  if (con.length) parts.push(`the contribution of block${con.length > 1 ? 's' : ''} ${con.join(', ')}`);
  return parts.length ? `${label}: not finite: ${parts.join('; ')} (not drawn).` : null;
}

/**
 * The uPlot options of chart `c` (its view set: {range, refs}) for `lesions` on blocks 1..maxL:
 * per run its line (and the contribution at init, faded), the reference levels dashed.
 */
function lesionOptions(c, lesions, pal, maxL, syncKey) {
  const series = lesions.flatMap((r) => {
    const stroke = pal.arch[r.look.arch];
    const main = { label: r.look.label, stroke, width: 2, dash: r.look.dash, points: { show: true, size: 4 } };
    if (c.key !== 'contribution') return [main];
    return [main, { label: `${r.look.label} at init`, stroke: fade(stroke), width: 1, points: { show: false } }];
  });
  const axis = axisStyle(pal);
  return {
    legend: { show: false },
    pxAlign: 0,
    cursor: syncedCursor(pal, syncKey, 5),
    scales: { x: { time: false, range: () => [0.5, maxL + 0.5] }, y: { range: () => c.view.range } },
    axes: [
      layerAxis(pal, 'block'),
      {
        ...axis,
        size: 54,
        gap: 4,
        splits: (u, i, min, max) => logTicks(min, max, tickRoom(u, 26)),
        values: (u, splits) => splits.map(logLabel),
      },
    ],
    series: [{ label: 'block' }, ...series],
    hooks: {
      draw: [
        (u) => {
          const { ctx, bbox } = u;
          const dpr = devicePixelRatio || 1;
          ctx.save();
          ctx.font = FONT.replace('12px', `${11 * dpr}px`);
          ctx.lineWidth = 1.25 * dpr;
          ctx.setLineDash([6 * dpr, 5 * dpr]);
          c.view.refs.forEach((at, i) => {
            if (at === null) return;
            const y = u.valToPos(at, 'y', true);
            ctx.strokeStyle = c.key === 'loss' ? pal.arch[lesions[i].look.arch] : pal.reference;
            ctx.beginPath();
            ctx.moveTo(bbox.left, y);
            ctx.lineTo(bbox.left + bbox.width, y);
            ctx.stroke();
          });
          ctx.restore();
        },
      ],
    },
  };
}

/** Per block and run: the increase, the relative increase and both contributions, as the engine gave them. */
function numbersTable(lesions, blocks) {
  const KEYS = [
    ['increase', 'increase'],
    ['relative', 'relative'],
    ['contribution', 'contribution'],
    ['contribution_init', 'at init'],
  ];
  const th = (text, attrs = {}) => el('th', { scope: 'col', ...attrs }, text);
  const value = (arr, b) => (b <= arr.length ? fmtPlain(arr[b - 1]) : '\u2014');
  const runsRow = [
    th('block', { rowspan: 2 }),
    ...lesions.map((r) => th(r.look.label, { scope: 'colgroup', colspan: 4 })),
  ];
  const keysRow = lesions.flatMap(() => KEYS.map(([, h]) => th(h)));
  const body = blocks.map((b) => {
    const cells = lesions.flatMap(({ lesion: l }) => KEYS.map(([k]) => el('td', {}, value(l[k], b))));
    return el('tr', {}, el('th', { scope: 'row' }, String(b)), cells);
  });
  const thead = el('thead', {}, el('tr', {}, runsRow), el('tr', {}, keysRow));
  return el('table', { class: 'readout-table after-table' }, thead, el('tbody', {}, body));
}

export function createAfterTraining(section, { palette }) {
  const syncKey = `resnorm-lesion-${++instances}`;
  const pending = el('p', { class: 'hint after-pending' });
  const key = el('ul', { class: 'after-key' });
  const figures = el('div', { class: 'after-charts' });
  const charts = CHARTS.map((c) => {
    const box = el('div', {
      class: `chart after-chart after-chart-${c.key}`,
      id: `train-after-${c.key}`,
      role: 'img',
      'aria-label': `Chart: ${c.title.toLowerCase()}, ${c.sub}. The table under the charts has the numbers.`,
    });
    figures.append(
      el(
        'figure',
        { class: 'chart-figure' },
        el(
          'figcaption',
          {},
          el('span', { class: 'chart-title' }, c.title),
          ' ',
          el('span', { class: 'chart-sub' }, c.sub),
        ),
        box,
      ),
    );
    return { ...c, box, host: createChartHost(box, { minHeight: 170 }), view: null };
  });
  const sentences = el('ul', { class: 'after-sentences', id: 'train-after-depth' });
  const notes = el('p', { class: 'hint after-nonfinite', id: 'train-after-nonfinite' });
  const tableBox = scrollRegion(el('div', { class: 'readout-scroll' }), 'The lesion numbers');
  const details = el('details', { class: 'after-numbers' }, el('summary', {}, 'Show numbers'), tableBox);
  const body = el('div', { class: 'after-body' }, key, figures, sentences, notes, details);
  section.append(pending, body);

  let drawnFrom = null;
  let drawnTheme = null;
  let drawn = null;

  // the charts still to build, one per animation frame (draw() fills it); data-drawing on the
  // section while any is left (tests wait for none)
  let later = [];
  let laterFrame = 0;
  function drawLater() {
    cancelAnimationFrame(laterFrame);
    laterFrame = 0;
    const next = later.shift();
    if (next) next();
    if (later.length) {
      section.dataset.drawing = '';
      laterFrame = requestAnimationFrame(drawLater);
    } else delete section.dataset.drawing;
  }
  function stopLater() {
    cancelAnimationFrame(laterFrame);
    later = [];
    delete section.dataset.drawing;
  }

  function draw(lesions, theme) {
    stopLater();
    const pal = palette();
    const maxL = Math.max(...lesions.map((r) => r.lesion.loss.length));
    const blocks = Array.from({ length: maxL }, (_, i) => i + 1);
    key.replaceChildren(...lesions.map((r) => el('li', {}, lineSwatch(r.look.arch, r.look.dash), ' ', r.look.label)));
    for (const c of charts) {
      const cols = columns(c.key, lesions, blocks);
      const refs = c.key === 'loss' ? lesions.map((r) => log10OrNull(r.lesion.base)) : c.key === 'relative' ? [0] : [];
      const range = yRange(cols, refs);
      c.view = { range, refs, cols };
      const opts = lesionOptions(c, lesions, pal, maxL, syncKey);
      // one chart a frame: the three built in one task would hold up the page
      later.push(() => c.host.draw(() => ({ opts, data: [blocks, ...c.view.cols] })));
    }
    drawLater();
    sentences.replaceChildren(
      // each sentence from what its run did: its arch, its logs and task (did it train?), its lesion
      ...lesions.map((r) =>
        el('li', {}, depthSentence(r.run, r.look.label)?.text ?? `${r.look.label}: no contribution.`),
      ),
    );
    notes.textContent = lesions
      .map((r) => nonfiniteText(r.look.label, r.lesion))
      .filter(Boolean)
      .join(' ');
    notes.hidden = !notes.textContent;
    tableBox.replaceChildren(numbersTable(lesions, blocks));
    drawnTheme = theme;
  }

  return {
    update({ runs, looks, state, theme }) {
      const lesions = runs
        .filter((r) => r.lesion && r.lesion.loss?.length)
        .map((r) => ({ key: r.key ?? r.arch, look: looks[r.key ?? r.arch], lesion: r.lesion, run: r }));
      const ready = state === 'done' && lesions.length > 0;
      body.hidden = !ready;
      pending.hidden = ready;
      setText(
        pending,
        state === 'done'
          ? 'No run has a lesion study: a run that stopped early has none.'
          : 'When every run has finished, each block is skipped in turn and the held-out loss measured again; the charts appear here.',
      );
      if (!ready) {
        drawnFrom = null;
        drawn = null;
        stopLater();
        for (const c of charts) c.host.clear();
        return null;
      }
      if (drawnFrom !== runs || drawnTheme !== theme) {
        drawnFrom = runs;
        draw(lesions, theme);
        drawn = Object.fromEntries(lesions.map((r) => [r.key, r.lesion]));
      }
      return drawn;
    },
    /**
     * What the charts plot, for the test hook: {blocks, <chart key>: {<run
     * key>: [log10 values, null where not drawn]}}; the contribution chart's
     * run keys take ':init' for the values at initialization.
     */
    plotted() {
      if (!drawn || !charts[0].view) return null;
      const keys = Object.keys(drawn);
      const out = { blocks: charts[0].host.u ? Array.from(charts[0].host.u.data[0]) : null };
      for (const c of charts) {
        const names = c.key === 'contribution' ? keys.flatMap((k) => [k, `${k}:init`]) : keys;
        out[c.key] = Object.fromEntries(names.map((n, i) => [n, c.view.cols[i]]));
      }
      return out;
    },
    destroy() {
      stopLater();
      for (const c of charts) c.host.destroy();
    },
  };
}
