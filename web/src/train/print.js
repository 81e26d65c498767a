// The lab on paper (print.css): a title and the introduction, the settings as
// text with the link that trains them again, the run's progress and readout
// (the line charts' legend), the loss and gradient-norm charts at the page's
// width over every step and under them in one row the learning rate's and, when
// some run logs them, the largest attention logit's and the composite gain's,
// the claim's verdict, and the heatmaps, on at most two A4
// or Letter pages; no control, hint, explanation or after-training chart.
//
//   const print = labPrint({ intro, lab, current, link });
//   const printTheme = watchPrint(theme, print);   // shared/print.js calls print.before() and print.after()
//
// intro: the page's introduction (the title goes before it); lab: the lab's
// section (the settings go after its heading); current(): {config, preset, setting},
// the settings of the form (locked while a run exists: those it trains) and
// the claim's id ('none': no claim; the link's `preset`); link(config, claim, setting): the lab's
// link to them.
//
// The sizes are set here, not in print.css: uPlot and the heatmaps draw on
// canvases sized from their containers, and the browser lays the page out
// for paper only after `beforeprint`, too late for them to follow. So before
// a print every line chart's and heatmap's container gets its printed size
// (labPrintSizes) and the view redraws them at it when shared/print.js tells
// it the theme is the light one; after the print they follow the screen's
// CSS again.
import { el, replace } from '../shared/dom.js';
import { PRINT_WIDTH_MM, PX_PER_MM } from '../shared/print.js';
import { settingsList } from '../shared/print-settings.js';
import { LAB_KEYS, LAB_TABLE } from '../shared/train-fields.js';
import { CLAIM_BY_ID, claimAt, hasDeep } from '../claims/lab/index.js';

/**
 * The printed sizes, in mm. The line charts are smaller from `fewRuns` + 1
 * runs on, whose readout takes more of the first page (and whose claim's
 * claim then fits under them), down to the heights below which charts.js
 * draws no smaller (170 px for the loss, 100 px for the others); the
 * heatmaps' height shrinks as their rows grow (heatColumns), so every run's
 * maps of both metrics fit the second page (seventeen architectures' too: their
 * readout's rows take more of the first page).
 */
export const LAB_PRINT = {
  fewRuns: 5,
  charts: { loss: 62, grad: 42, lr: 36 },
  manyRunsCharts: { loss: 46, grad: 30, lr: 27 },
  heatGap: 4,
  heatHeight: [30, 16, 15],
  // the gap between the charts of the row under the gradient norm (the learning rate's, the logit's, the gain's)
  rowGap: 4,
};

/** The charts of the printed row, in order: the learning rate's, then those shown (the lab's view). */
export const PRINT_ROW = ['lr', 'logit', 'gain'];

const px = (mm) => Math.floor(mm * PX_PER_MM);

/**
 * How many heatmaps a printed row holds for `runs` runs: up to seven in one row (a claim's runs), then
 * two rows, then three (every architecture at once).
 */
export function heatColumns(runs) {
  if (runs <= 7) return Math.max(1, runs);
  if (runs <= 14) return Math.ceil(runs / 2);
  return Math.ceil(runs / 3);
}

/**
 * The printed sizes in CSS pixels for `runs` runs and the charts `row` of the row under the gradient
 * norm (PRINT_ROW's shown): {width, charts: {key: {width, height}}, heat: {columns, width, height}};
 * the row's charts share its width at the learning rate's height.
 */
export function labPrintSizes(runs, row = ['lr']) {
  const width = px(PRINT_WIDTH_MM);
  const columns = heatColumns(runs);
  const rows = Math.ceil(Math.max(1, runs) / columns);
  const gap = LAB_PRINT.heatGap * PX_PER_MM;
  const mm = runs <= LAB_PRINT.fewRuns ? LAB_PRINT.charts : LAB_PRINT.manyRunsCharts;
  const rowWidth = Math.floor((width - (row.length - 1) * LAB_PRINT.rowGap * PX_PER_MM) / row.length);
  return {
    width,
    charts: {
      loss: { width, height: px(mm.loss) },
      grad: { width, height: px(mm.grad) },
      ...Object.fromEntries(row.map((k) => [k, { width: rowWidth, height: px(mm.lr) }])),
    },
    heat: {
      columns,
      width: Math.floor((width - (columns - 1) * gap) / columns),
      height: px(LAB_PRINT.heatHeight[Math.min(rows, LAB_PRINT.heatHeight.length) - 1]),
    },
  };
}

/** The settings of `config` (and its claim's name, setting and runs) as the printout lists them. */
export function labSettings(config, claim, setting = 'quick') {
  const p = CLAIM_BY_ID[claim] ? claimAt(CLAIM_BY_ID[claim], setting) : null;
  const extra = p
    ? [
        ['preset', 'Paper claim', `${p.title} (${p.cite})`],
        ...(hasDeep(p) ? [['setting', 'Claim setting', setting]] : []),
        ['runs', 'Runs', p.runs.map((r) => r.label).join('; ')],
      ]
    : [];
  return settingsList(config, LAB_TABLE, LAB_KEYS, extra);
}

export function labPrint({ intro, lab, current, link }) {
  const title = el('h1', { class: 'print-only print-title' }, 'resnorm: the training lab');
  intro.before(title);
  const settings = el('section', { class: 'print-settings print-only', id: 'train-print-settings' });
  lab.querySelector('.charts-head').after(settings);

  const sized = () => [...lab.querySelectorAll('.train-chart, .heatmap, .heat-grid')];
  return {
    /** The settings written out; every line chart and heatmap at its printed size. */
    before() {
      const { config, preset: claim, setting = 'quick' } = current();
      replace(
        settings,
        el('h3', {}, 'Settings'),
        labSettings(config, claim, setting),
        el('p', { class: 'print-link' }, link(config, claim, setting)),
      );
      const grids = [...lab.querySelectorAll('.heat-grid')];
      const row = PRINT_ROW.filter((k) => {
        const box = lab.querySelector(`.train-chart-${k}`);
        return box && !box.closest('figure')?.hidden;
      });
      const s = labPrintSizes(Math.max(0, ...grids.map((g) => g.childElementCount)), row);
      for (const [key, size] of Object.entries(s.charts)) {
        const box = lab.querySelector(`.train-chart-${key}`);
        if (!box) continue;
        box.style.width = `${size.width}px`;
        box.style.height = `${size.height}px`;
      }
      for (const grid of grids) {
        grid.style.setProperty('--print-heat-columns', String(s.heat.columns));
        grid.style.setProperty('--print-heat-width', `${s.heat.width}px`);
      }
      for (const map of lab.querySelectorAll('.heatmap')) {
        map.style.width = `${s.heat.width}px`;
        map.style.height = `${s.heat.height}px`;
      }
    },
    /** Back to the screen's sizes. */
    after() {
      for (const box of sized()) {
        box.style.width = '';
        box.style.height = '';
        box.style.removeProperty('--print-heat-columns');
        box.style.removeProperty('--print-heat-width');
      }
    },
  };
}
