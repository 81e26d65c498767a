// The lab's heatmaps: one section per metric of series.js's HEAT_METRICS (the
// gradient norm and the update ratio per layer and step), each with its legend
// (heat-legend.js) and one map per run (heatmap.js), all of a metric on one
// colour scale over every value logged so far. The lab view (view.js) places
// the sections and draws them a frame after its line charts.
//
//   const h = createHeatPanels({ colours });   // colours(): the theme's heatmap colours
//   root.append(...h.sections);
//   const { shown, scales } = h.update({ runs, archs, looks, config, ends, step });
//   h.legends(); h.redraw(); h.destroy();
import { el } from '../shared/dom.js';
import { createLogExtent } from '../shared/colormap.js';
import { createHeatmap } from './heatmap.js';
import { createHeatLegend } from './heat-legend.js';
import { HEAT_METRICS, heatColumns } from './series.js';

/** The section of one metric: its title, its legend's box and the grid of its maps. */
function heatSection(metric, info) {
  const legendBox = el('div', { class: 'heat-legend' });
  const grid = el('div', { class: 'heat-grid' });
  const section = el(
    'section',
    {
      class: 'heat-section',
      id: `train-heat-${metric.replace('_', '-')}`,
      'aria-label': `${info.title} per ${info.rowLabel} and step`,
    },
    el(
      'h3',
      { class: 'heat-title' },
      `${info.title} per ${info.rowLabel} and step`,
      ' ',
      el('span', { class: 'chart-sub' }, `one map per architecture; ${info.rowLabel} ${info.firstRow} at the bottom`),
    ),
    legendBox,
    grid,
  );
  return { section, legendBox, grid };
}

/**
 * The colour scale shared by every architecture's map of one metric, over
 * every value logged so far; each frame adds only the columns that are new
 * (a new run starts it again).
 */
function sharedScale(extent, runs, cols) {
  if (extent.runs !== runs) {
    extent.runs = runs;
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

export function createHeatPanels({ colours }) {
  const heat = {};
  const sections = [];
  for (const [metric, info] of Object.entries(HEAT_METRICS)) {
    const { section, legendBox, grid } = heatSection(metric, info);
    sections.push(section);
    heat[metric] = {
      info,
      grid,
      legend: createHeatLegend(legendBox, { title: `${info.metric}, log scale`, colours }),
      maps: {},
      extent: { runs: null, seen: new Map(), of: createLogExtent() },
    };
  }

  /** The heatmaps for the runs `archs` (their keys; made again when the runs change), named by `looks`. */
  let heatArchs = '';
  function heatmapsFor(archs, looks) {
    const shape = archs.map((a) => `${a}:${looks[a].label}`).join();
    if (shape === heatArchs) return;
    heatArchs = shape;
    for (const h of Object.values(heat)) {
      for (const m of Object.values(h.maps)) m.destroy();
      h.maps = {};
      h.grid.replaceChildren();
      for (const arch of archs) {
        const box = el('figure', { class: 'heatmap-figure', 'data-arch': arch });
        h.grid.append(box);
        h.maps[arch] = createHeatmap(box, { name: looks[arch].label, ...h.info, colours });
      }
    }
  }

  /**
   * Every map of `runs` (their keys `archs`, named by `looks`) and its legend to the runs' logs, the
   * line charts' step `step` (null: none) marked: {shown: {key: {metric: columns}}, scales: {metric: scale}}.
   */
  function update({ runs, archs, looks, config, ends, step }) {
    heatmapsFor(archs, looks);
    const shown = {};
    const scales = {};
    for (const [metric, h] of Object.entries(heat)) {
      const cols = Object.fromEntries(runs.map((r) => [r.key ?? r.arch, heatColumns(r, metric)]));
      const scale = sharedScale(h.extent, runs, cols);
      h.legend.update(scale);
      for (const r of runs) {
        const key = r.key ?? r.arch;
        h.maps[key].update({
          ...cols[key],
          rows: h.info.rows(r.config?.depth ?? config.depth),
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
    return { shown, scales };
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
