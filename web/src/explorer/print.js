// The explorer on paper (print.css): the charts, the caption and a printed
// list of the settings, on one page.
//
// settingsList(config): a definition list of every config field of the one
// field table (state.js's CONTROLS, from the engine's own fields) that the
// config's architectures read, its label and its value as the controls show it.
//
// printCharts(root, archs): sizes the charts of `root` for paper and back.
// uPlot draws on canvases sized for the screen, and the browser lays a page
// out for print only after `beforeprint`, too late for the charts to follow
// their containers, so before a print each chart's container gets the
// printed size (PRINT_CHART) and the charts are redrawn at it (shared/print.js
// tells the view to redraw); after the print the containers follow the
// screen's CSS again.
import { CONTROLS, FIELDS } from '../shared/state.js';
import { settingsList as listOf } from '../shared/print-settings.js';
import { PRINT_WIDTH_MM, PX_PER_MM } from '../shared/print.js';

/**
 * The printed size of each chart, in mm: the width fits A4 and Letter inside
 * print.css's 12 mm margins; the height leaves room on the shorter Letter
 * page for the caption, which grows by about two lines per architecture,
 * down to 34 mm (the 128 px below which charts.js draws no smaller) with
 * every architecture.
 */
export const PRINT_CHART = { width: PRINT_WIDTH_MM, height: 52, perExtraArch: 2, minHeight: 34 };

/** The printed chart size in CSS pixels for `archs` curves per chart. */
export function printChartSize(archs) {
  const mm = Math.max(PRINT_CHART.minHeight, PRINT_CHART.height - PRINT_CHART.perExtraArch * Math.max(0, archs - 4));
  return { width: Math.floor(PRINT_CHART.width * PX_PER_MM), height: Math.floor(mm * PX_PER_MM) };
}

/** The settings of `config` as a definition list, in the table's order (a field of architectures not chosen left out). */
export const settingsList = (config) => listOf(config, CONTROLS, FIELDS);

/** archs(): how many architectures the charts show. */
export function printCharts(root, archs) {
  const boxes = () => [...root.querySelectorAll('.chart')];
  return {
    /** Gives every chart container the printed size. */
    before() {
      const { width, height } = printChartSize(archs());
      for (const box of boxes()) {
        box.style.width = `${width}px`;
        box.style.height = `${height}px`;
      }
    },
    /** Back to the screen's sizes. */
    after() {
      for (const box of boxes()) {
        box.style.width = '';
        box.style.height = '';
      }
    },
  };
}
