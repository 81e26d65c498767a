// The lab's heatmaps: one section per metric of series.js's HEAT_METRICS (the
// gradient norm and the update ratio per layer and step, BatchNorm's
// batch-vs-running distances of the mean and of the variance per BatchNorm
// layer and step), each with its legend (heat-legend.js) and one map per run
// (heatmap.js), all of a metric on one colour scale over every value logged
// so far. A metric only some runs have (BatchNorm's) maps those runs, says in
// a line why the others have no map, and hides its section when no run has
// it; its explanation stands beside it. The lab view (view.js) places the
// sections and draws them a frame after its line charts.
//
//   const h = createHeatPanels({ colours });   // colours(): the theme's heatmap colours
//   root.append(...h.sections);
//   const { shown, scales } = h.update({ runs, archs, looks, config, ends, step });
//   h.legends(); h.redraw(); h.destroy();
import { el } from '../shared/dom.js';
import { createLogExtent } from '../shared/colormap.js';
import { createHeatmap } from './heatmap.js';
import { createHeatLegend } from './heat-legend.js';
import { significant } from '../shared/format.js';
import { HEAT_METRICS, heatColumns, heatRuns, heatSectionId } from './series.js';
import { noBnMapText } from './bn-layers.js';

/** The momentum text of the BatchNorm runs among `runs` ("0.1", or "0.1 and 0.5" when they differ). */
function momentumText(runs) {
  const ms = [...new Set(runs.map((r) => r.config?.bn_momentum).filter((m) => typeof m === 'number'))];
  return ms.length ? ms.map((m) => significant(m, 3)).join(' and ') : null;
}

/**
 * The explanations beside a BatchNorm section, from the BatchNorm runs `bn` of the comparison
 * (their momentum): paragraphs, each "lead: text".
 */
const EXPLAIN = {
  bn_mean_distance: (bn) => {
    const m = momentumText(bn);
    const mText = m ? `m = ${m} here (the bn_momentum field)` : 'm the bn_momentum field';
    return [
      'Running statistics: in training each BatchNorm layer normalizes with the mean and variance of the ' +
        'batch in front of it, and keeps an exponential average of them: running \u2190 (1 \u2212 m) running + m ' +
        `batch, ${mText}. Eval mode normalizes with these running averages instead of the batch\u2019s.`,
      'Why one sequence alone matters: a language model serves text one sequence at a time, token by token ' +
        '(autoregressive decoding). With the running statistics, eval mode is one fixed scale and shift per ' +
        'feature, so a sequence gets the same output served with others or alone; normalized with its own ' +
        'statistics, a lone sequence gets different numbers than it did inside a training batch.',
      'What the map shows: each cell is how far a layer\u2019s batch statistics were from its running ones at a ' +
        'logged step, (1/d)\u2016\u03bc_B \u2212 \u03bc\u2016 here and (1/d)\u2016\u03c3\u00b2_B \u2212 ' +
        '\u03c3\u00b2\u2016 below: bright cells are steps where a batch was normalized far from what eval mode ' +
        'would have used at that step. PowerNorm (Shen et al. 2020, Fig. 2) found these distances large, with outliers, for a ' +
        'transformer trained on text, and much smaller for a CNN on images.',
    ];
  },
  bn_var_distance: () => [
    'What the map shows: how far each layer\u2019s batch variance was from its running ' +
      'variance. Eval mode divides by the square root of the running one, so a large distance means ' +
      'inference scales the features differently than training did.',
  ],
};

/** The section of one metric: its title, its legend's box and the grid of its maps. */
function heatSection(metric, info) {
  const legendBox = el('div', { class: 'heat-legend' });
  const grid = el('div', { class: 'heat-grid' });
  const section = el(
    'section',
    {
      class: 'heat-section',
      id: heatSectionId(metric),
      'aria-label': `${info.title} per ${info.rowLabel} and step`,
    },
    el(
      'h3',
      { class: 'heat-title' },
      `${info.title} per ${info.rowLabel} and step`,
      ' ',
      el(
        'span',
        { class: 'chart-sub' },
        info.only
          ? `one map per run that has one; the first ${info.rowLabel} at the bottom`
          : `one map per architecture; ${info.rowLabel} ${info.firstRow} at the bottom`,
      ),
    ),
  );
  const explain = EXPLAIN[metric] ? el('div', { class: 'caption heat-explain' }) : null;
  const none = info.only ? el('ul', { class: 'heat-none' }) : null;
  section.append(...[explain, legendBox, none, grid].filter(Boolean));
  if (info.only) section.hidden = true;
  return { section, legendBox, grid, explain, none };
}

/**
 * The colour scale shared by every architecture's map of one metric (`runs`,
 * those of the runs `all` shown that have one), over every value logged so
 * far; each frame adds only the columns that are new (other runs, or another
 * seed of a run, start it again).
 */
function sharedScale(extent, all, runs, cols) {
  if (!sameRuns(extent.runs, all)) {
    extent.runs = [...all];
    extent.seen = new Map();
    extent.of = createLogExtent();
  }
  for (const r of runs) {
    const key = r.key ?? r.arch;
    const { columns } = cols[key];
    for (let i = extent.seen.get(key) ?? 0; i < columns.length; i++) extent.of.add(columns[i]);
    extent.seen.set(key, columns.length);
  }
  return extent.of.scale();
}

/** Whether the lists `a` and `b` hold the same runs in the same order. */
const sameRuns = (a, b) => a !== null && a.length === b.length && a.every((r, i) => r === b[i]);

export function createHeatPanels({ colours }) {
  const heat = {};
  const sections = [];
  for (const [metric, info] of Object.entries(HEAT_METRICS)) {
    const { section, legendBox, grid, explain, none } = heatSection(metric, info);
    sections.push(section);
    heat[metric] = {
      info,
      section,
      grid,
      explain,
      none,
      explainOf: EXPLAIN[metric],
      explained: '',
      noneText: null,
      shape: null,
      legend: createHeatLegend(legendBox, { title: `${info.metric}, log scale`, colours }),
      maps: {},
      extent: { runs: null, seen: new Map(), of: createLogExtent() },
    };
  }

  /**
   * The heatmaps of metric `h` for the runs `keys` (made again when the keys change), named by
   * `looks`: a new name alone (the median seed of a run is another one) renames its map.
   */
  function heatmapsFor(h, keys, looks) {
    const shape = keys.join();
    if (shape !== h.shape) {
      h.shape = shape;
      for (const m of Object.values(h.maps)) m.destroy();
      h.maps = {};
      h.grid.replaceChildren();
      for (const key of keys) {
        const box = el('figure', { class: 'heatmap-figure', 'data-arch': key });
        h.grid.append(box);
        h.maps[key] = createHeatmap(box, { name: looks[key].label, ...h.info, colours });
      }
    }
    for (const key of keys) h.maps[key].rename(looks[key].label);
  }

  /** A metric only some runs have: its section shown when one of `runs` has it, the others' lines, its explanation. */
  function partOf(h, runs, mapped, looks) {
    h.section.hidden = mapped.length === 0;
    if (!h.none) return;
    const without = runs.filter((r) => !mapped.includes(r));
    const lines = without.map((r) => noBnMapText(r, looks[r.key ?? r.arch].label));
    if (lines.join('\n') !== h.noneText) {
      h.noneText = lines.join('\n');
      h.none.replaceChildren(...without.map((r, i) => el('li', { 'data-arch': r.key ?? r.arch }, lines[i])));
      h.none.hidden = lines.length === 0;
    }
    if (h.explain) {
      const paras = h.explainOf(mapped);
      if (paras.join('\n') !== h.explained) {
        h.explained = paras.join('\n');
        h.explain.replaceChildren(
          ...paras.map((t) => {
            const [lead, rest] = t.split(/:(.*)/s);
            return el('p', {}, el('strong', {}, `${lead}:`), rest);
          }),
        );
      }
    }
  }

  /**
   * Every map of the session's runs (`runs`, named by `looks`) and its legend to the runs' logs, the
   * line charts' step `step` (null: none) marked: {shown: {key: {metric: columns}}, scales: {metric:
   * scale}, rows: {metric: {key: its rows' names}}} (rows only for metrics that name them).
   */
  function update({ runs: all, looks, config, ends, step }) {
    const shown = {};
    const scales = {};
    const rows = {};
    for (const [metric, h] of Object.entries(heat)) {
      const runs = heatRuns(h.info, all);
      heatmapsFor(
        h,
        runs.map((r) => r.key ?? r.arch),
        looks,
      );
      if (h.info.only) partOf(h, all, runs, looks);
      const cols = Object.fromEntries(runs.map((r) => [r.key ?? r.arch, heatColumns(r, metric)]));
      const scale = sharedScale(h.extent, all, runs, cols);
      h.legend.update(scale);
      for (const r of runs) {
        const key = r.key ?? r.arch;
        const rowNames = h.info.labels?.(r) ?? null;
        if (rowNames) (rows[metric] ??= {})[key] = rowNames.map((n) => n.long);
        h.maps[key].update({
          ...cols[key],
          rows: h.info.rows(r.config?.depth ?? config.depth, r),
          rowNames,
          xMax: config.steps,
          logEvery: config.log_every,
          scale,
          divergedAt: r.firstNonfinite,
          end: ends[key],
        });
        h.maps[key].showStep(step);
        (shown[key] ??= {})[metric] = cols[key];
      }
      scales[metric] = scale;
    }
    return { shown, scales, rows };
  }

  return {
    sections,
    update,
    /** Each metric's legend's ticks (the page's test hook). */
    legends: () => Object.fromEntries(Object.entries(heat).map(([m, h]) => [m, h.legend.ticks()])),
    /** The legends and the maps drawn again (a new theme). */
    redraw() {
      for (const h of Object.values(heat)) {
        h.legend.redraw();
        for (const m of Object.values(h.maps)) m.redraw();
      }
    },
    destroy() {
      for (const h of Object.values(heat)) {
        h.legend.destroy();
        for (const m of Object.values(h.maps)) m.destroy();
      }
    },
  };
}
