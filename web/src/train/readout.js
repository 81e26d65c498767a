// The lab's one readout, also the charts' legend: at one logged step (the one
// under the cursor of any line chart, else the latest), each run's held-out
// and training loss, held-out accuracy and gradient norm, and the learning
// rate (one for every run while they share a schedule, else each run's own
// beside its name). A run that ended before the step shows its last numbers,
// and its name says how it ended ("diverged at step 2", "stopped at step 70
// (trained)"); a run whose loss rose far above chance says that too.
//
//   const r = createTrainReadout(box);
//   r.set({ data, archs, looks, ends, far, index });   // index null: the latest step; archs: the runs' keys
//   // ends: {key: claims/lab/common.js runEnd()}, far: {key: farAboveChance()} (absent: nothing to say)
import { el, replace, setAttr, setText } from '../shared/dom.js';
import { scrollRegion } from '../shared/scroll-region.js';
import { fmtValue, percent } from '../shared/format.js';
import { lineSwatch } from '../shared/swatch.js';
import { lookOf } from './looks.js';
import { readoutIndex } from './series.js';
import { FAR_ABOVE_TEXT } from '../claims/lab/common.js';

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
  let cells = {}; // by run key: {values: td per COLUMNS, rate: its learning rate's span (one per run), row}

  return {
    set({ data, archs, looks = null, ends = {}, far = {}, index }) {
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
        setText(
          rate,
          data.lrShared === false
            ? ' \u00b7 learning rate (lr) per run'
            : ` \u00b7 learning rate ${stepValue('lr', data.lr[i])}`,
        );
      }
      const perRun = data.lrShared === false;
      const notes = archs.map((arch) => [ends[arch]?.text ?? null, far[arch] ? FAR_ABOVE_TEXT : null]);
      const shape = archs
        .map((arch, j) => `${arch}:${lookOf(looks, arch).label}:${ends[arch]?.kind}:${notes[j].join('|')}:${perRun}`)
        .join();
      if (shape !== rowsShape) {
        rowsShape = shape;
        cells = {};
        const rows = archs.map((arch, j) => {
          const look = lookOf(looks, arch);
          const [endText, farText] = notes[j];
          cells[arch] = {
            values: COLUMNS.map(([key]) => el('td', { 'data-key': key, role: 'cell' })),
            rate: perRun ? el('span', { class: 'train-readout-rate' }) : null,
            row: null,
          };
          cells[arch].row = el(
            'tr',
            { 'data-arch': arch, role: 'row' },
            el(
              'th',
              { scope: 'row', role: 'rowheader' },
              lineSwatch(look.arch, look.dash),
              look.label,
              cells[arch].rate,
              endText !== null
                ? el('span', { class: ends[arch].kind === 'diverged' ? 'diverged-note' : 'stopped-note' }, endText)
                : null,
              farText !== null ? el('span', { class: 'far-note' }, farText) : null,
            ),
            cells[arch].values,
          );
          return cells[arch].row;
        });
        body.replaceChildren(...rows);
      }
      for (const arch of archs) {
        const s = data.series[arch];
        const at = i < 0 ? null : readoutIndex(data, arch, i, ends[arch] ?? null);
        const c = cells[arch];
        COLUMNS.forEach(([key], j) => setText(c.values[j], at === null ? '\u2014' : stepValue(key, s[key][at])));
        if (c.rate) setText(c.rate, at === null ? '' : ` \u00b7 lr ${stepValue('lr', s.lr[at])}`);
        // the step whose numbers the row shows: another than the head's when the run ended before it
        setAttr(c.row, 'data-step', at === null ? '' : String(data.x[at]));
      }
    },
  };
}
