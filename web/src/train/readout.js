// The lab's one readout, also the charts' legend: at one logged step (the one
// under the cursor of any line chart, else the latest), each architecture's
// held-out and training loss, held-out accuracy and gradient norm, and the
// learning rate; a run that stopped says at which step it diverged.
//
//   const r = createTrainReadout(box);
//   r.set({ data, archs, looks, diverged, index });   // index null: the latest step; archs: the runs' keys
import { el, replace, setText } from '../shared/dom.js';
import { scrollRegion } from '../shared/scroll-region.js';
import { fmtValue, percent } from '../shared/format.js';
import { lineSwatch } from '../shared/swatch.js';
import { lookOf } from './looks.js';

// Short headers, so four numbers fit a phone's width; the head line says what they are.
// The table's roles are written out: on a phone its rows are laid out as grids
// (train.css), and a table whose display is changed keeps its semantics only so.
const COLUMNS = [
  ['heldout_loss', 'held-out'],
  ['train_loss', 'training'],
  ['heldout_accuracy', 'accuracy'],
  ['grad_norm_global', 'grad norm'],
];

/** One logged number as the readout prints it ('—' where a run has none). */
export function stepValue(key, v) {
  if (v === null || v === undefined) return '\u2014';
  if (Number.isNaN(v)) return key === 'heldout_accuracy' ? '\u2014' : 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '\u221e' : '\u2212\u221e';
  return key === 'heldout_accuracy' ? percent(v) : fmtValue(v);
}

export function createTrainReadout(box) {
  const head = el('p', { class: 'train-readout-head' });
  const body = el('tbody', { role: 'rowgroup' });
  const table = el(
    'table',
    { class: 'readout-table train-readout-table', role: 'table' },
    el(
      'thead',
      { role: 'rowgroup' },
      el(
        'tr',
        { role: 'row' },
        el('th', { scope: 'col', role: 'columnheader' }, el('span', { class: 'visually-hidden' }, 'architecture')),
        COLUMNS.map(([, label]) => el('th', { scope: 'col', role: 'columnheader' }, label)),
      ),
    ),
    body,
  );
  box.append(head, scrollRegion(el('div', { class: 'readout-scroll' }, table), 'The latest step of every run'));

  // the head and each row are built when what they show changes shape (the
  // runs, their names, a divergence); a new step only rewrites texts that
  // differ, so a frame lays out nothing else
  const step = el('strong');
  const latest = document.createTextNode('');
  const rate = document.createTextNode('');
  const headParts = [
    step,
    latest,
    rate,
    el('span', { class: 'train-readout-key' }, 'loss held-out and training, held-out accuracy, gradient norm'),
  ];
  let headShown = null; // 'empty' or 'step'
  let rowsShape = null;
  let cells = {}; // by run key: [td per COLUMNS]

  return {
    set({ data, archs, looks = null, diverged, index }) {
      const last = data.x.length - 1;
      const i = index ?? last;
      if (i < 0) {
        if (headShown !== 'empty') head.textContent = 'No step trained yet: Start trains, Step trains one logged step.';
        headShown = 'empty';
      } else {
        if (headShown !== 'step') replace(head, ...headParts);
        headShown = 'step';
        setText(step, `Step ${data.x[i]}`);
        setText(latest, index === null ? ' (the latest)' : '');
        setText(rate, ` \u00b7 learning rate ${stepValue('lr', data.lr[i])}`);
      }
      const stops = archs.map((arch) => diverged.find((d) => d.arch === arch)?.step ?? null);
      const shape = archs.map((arch, j) => `${arch}:${lookOf(looks, arch).label}:${stops[j]}`).join();
      if (shape !== rowsShape) {
        rowsShape = shape;
        cells = {};
        const rows = archs.map((arch, j) => {
          const look = lookOf(looks, arch);
          cells[arch] = COLUMNS.map(([key]) => el('td', { 'data-key': key, role: 'cell' }));
          return el(
            'tr',
            { 'data-arch': arch, role: 'row' },
            el(
              'th',
              { scope: 'row', role: 'rowheader' },
              lineSwatch(look.arch, look.dash),
              look.label,
              stops[j] !== null ? el('span', { class: 'diverged-note' }, `diverged at step ${stops[j]}`) : null,
            ),
            cells[arch],
          );
        });
        body.replaceChildren(...rows);
      }
      for (const arch of archs) {
        const s = data.series[arch];
        COLUMNS.forEach(([key], j) => setText(cells[arch][j], i < 0 ? '\u2014' : stepValue(key, s[key][i])));
      }
    },
  };
}
