// The numbers behind the lab's line charts as a real <table>, for screen
// readers always and on screen behind "Show numbers" (the explorer's toggle,
// shared/numbers-toggle.js): one row per logged step, its learning rate and,
// per architecture, the held-out and training loss, held-out accuracy and
// gradient norm. Updated as training goes: the rows every run has finished
// stay as they are, only the new ones (and those a run behind the others
// has yet to fill) are written; a new run or other architectures build the
// table again.
//
//   const n = createLabNumbers(box);   // fills box with the toggle and the table
//   n.update(runs, config, data);      // session.js's runs; data: their lineSeries(runs), made when absent
import { archLabel } from '../shared/archs.js';
import { el, setText } from '../shared/dom.js';
import { fmtPlain } from '../shared/format.js';
import { numbersToggle } from '../shared/numbers-toggle.js';
import { lineSeries } from './series.js';

const COLUMNS = [
  ['heldout_loss', 'held-out loss'],
  ['train_loss', 'training loss'],
  ['heldout_accuracy', 'accuracy'],
  ['grad_norm_global', 'grad norm'],
];

/** The rows the table holds at most (the CSV export has every step). */
export const MAX_ROWS = 5000;

const cell = (v) => (v === null || v === undefined ? '\u2014' : fmtPlain(v));

export function createLabNumbers(box) {
  const button = el(
    'button',
    {
      type: 'button',
      id: 'train-show-numbers',
      class: 'secondary',
      'aria-pressed': 'false',
      'aria-controls': 'train-numbers',
    },
    'Show numbers',
  );
  const table = el('table', { id: 'train-data-table', class: 'data-table' });
  const wrap = el('div', { id: 'train-numbers', class: 'numbers-wrap visually-hidden' }, table);
  box.append(button, wrap);
  numbersToggle({ wrap, button, label: 'Numbers behind the lab\u2019s charts' });

  let builtFor = null; // {runs, sig}: what the table was built for
  let tbody = null;
  let final = 0; // rows every run has finished: never written again
  let caption = null;

  function build(runs, keys, names) {
    builtFor = { runs, sig: `${keys.join()}|${names.join()}` };
    caption = el('caption', {});
    const head1 = el(
      'tr',
      {},
      el('th', { scope: 'col', rowspan: 2 }, 'step'),
      el('th', { scope: 'col', rowspan: 2 }, 'learning rate'),
    );
    const head2 = el('tr');
    for (const name of names) {
      head1.append(el('th', { scope: 'colgroup', colspan: COLUMNS.length, class: 'group-start' }, name));
      COLUMNS.forEach(([, label], i) =>
        head2.append(el('th', { scope: 'col', class: i ? null : 'group-start' }, label)),
      );
    }
    tbody = el('tbody');
    table.replaceChildren(caption, el('thead', {}, head1, head2), tbody);
    final = 0;
  }

  /** Row i's texts: the step, the learning rate, then each run's COLUMNS. */
  const texts = (data, keys, i) => [
    String(data.x[i]),
    cell(data.lr[i]),
    ...keys.flatMap((k) => COLUMNS.map(([c]) => cell(data.series[k][c][i]))),
  ];

  function row(data, keys, i) {
    const [step, lr, ...rest] = texts(data, keys, i);
    return el(
      'tr',
      {},
      el('th', { scope: 'row' }, step),
      el('td', {}, lr),
      rest.map((t, j) => el('td', { class: j % COLUMNS.length ? null : 'group-start' }, t)),
    );
  }

  return {
    update(runs, config, data = lineSeries(runs)) {
      const keys = runs.map((r) => r.key ?? r.arch);
      const names = runs.map((r) => r.label ?? archLabel(r.arch));
      if (!builtFor || builtFor.runs !== runs || builtFor.sig !== `${keys.join()}|${names.join()}`)
        build(runs, keys, names);
      const n = Math.min(MAX_ROWS, data.x.length);
      const done = (r) => r.stopped || r.error || r.trainedAt != null || r.stepsDone >= (r.steps ?? config.steps);
      const complete = Math.min(n, ...runs.map((r) => (done(r) ? Infinity : r.logs.length)));
      // rows past `final` may still change (a run behind the others): their cells are
      // rewritten where they differ, so a frame lays out only what changed
      while (tbody.rows.length > n) tbody.lastChild.remove();
      for (let i = final; i < tbody.rows.length; i++) {
        const cells = tbody.rows[i].cells;
        texts(data, keys, i).forEach((t, j) => setText(cells[j], t));
      }
      const rows = [];
      for (let i = tbody.rows.length; i < n; i++) rows.push(row(data, keys, i));
      tbody.append(...rows);
      final = complete;
      const more = data.x.length > n ? ` (the first ${MAX_ROWS}; the CSV export has all ${data.x.length})` : '';
      setText(
        caption,
        data.x.length
          ? `The logged steps of every run${more}: the learning rate of the step, and each one\u2019s held-out and training loss, held-out accuracy and gradient norm.`
          : 'Nothing trained yet: the logged steps appear here as the run goes.',
      );
    },
    /** The rows written so far, for tests. */
    rows: () => tbody?.rows.length ?? 0,
  };
}
