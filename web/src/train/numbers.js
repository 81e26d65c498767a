// The numbers behind the lab's line charts as a real <table>, for screen
// readers always and on screen behind "Show numbers" (the explorer's toggle,
// shared/numbers-toggle.js): per architecture, the held-out and training
// loss, held-out accuracy and gradient norm, with transformer blocks the largest
// attention logit of the step's batch (the engine's max_logit), with
// Hyper-Connections or mHC runs the composite gain of the stream mixing
// (hc_gain_fwd and hc_gain_bwd; '—' in the other runs' columns), and the learning
// rate (one column while every run has the same, else one per run), at most
// MAX_ROWS + 1 logged steps: every one while they fit, else every k-th
// (k = 1, 2, 5, 10, 20, 50, ...: the least that fits) and always the latest.
// A table lays out every row again whenever one changes, so a row per step
// of a long run would cost more each frame than the whole frame has (the CSV
// export has every step). Updated as training goes: the rows every run has
// finished stay as they are, only the new ones (and those a run behind the
// others has yet to fill, or a step that moved: a run that diverged between
// two logged steps adds its own) are written; a new run, other architectures,
// runs' rates that part or a larger k build the table again.
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

/** The rows the table holds at most, besides the latest step's (the CSV export has every step). */
export const MAX_ROWS = 100;

/** The least k of 1, 2, 5, 10, 20, 50, ... for which every k-th of n logged steps fits in MAX_ROWS rows. */
export function rowStride(n) {
  for (let p = 1; ; p *= 10) for (const k of [1, 2, 5]) if (Math.ceil(n / (k * p)) <= MAX_ROWS) return k * p;
}

/** The indices of n logged steps the table shows: 0, k, 2k, ... and the last. */
export function rowIndices(n) {
  const k = rowStride(n);
  const out = [];
  for (let i = 0; i < n; i += k) out.push(i);
  if (n && out.at(-1) !== n - 1) out.push(n - 1);
  return out;
}

const cell = (v) => (v === null || v === undefined ? '\u2014' : fmtPlain(v));

/** The column of the largest attention logit, for runs of transformer blocks (MLP blocks have none). */
const LOGIT_COLUMN = ['max_logit', 'largest logit'];

/** The columns of the composite gain of the stream mixing, when a run has streams to mix (Hyper-Connections, mHC). */
const GAIN_COLUMNS = [
  ['hc_gain_fwd', 'forward gain'],
  ['hc_gain_bwd', 'backward gain'],
];

/**
 * Each run's columns: with the largest attention logit when `logits`, the composite gain when
 * `gains`, and the learning rate when the runs' rates differ (`shared` false).
 */
const columnsOf = (shared, logits, gains = false) => [
  ...COLUMNS,
  ...(logits ? [LOGIT_COLUMN] : []),
  ...(gains ? GAIN_COLUMNS : []),
  ...(shared ? [] : [['lr', 'learning rate']]),
];

/** Run `k`'s text of column `c` at index i: '—' where the run logs no such number (series.js's logsKey). */
const cellOf = (data, k, c, i) => (data.has?.[k]?.[c] === false ? '\u2014' : cell(data.series[k][c][i]));

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

  let builtFor = null; // {runs, sig, stride}: what the table was built for
  let tbody = null;
  let shown = []; // the logged step each row shows
  let final = 0; // logged steps every run has finished: their rows are never written again
  let caption = null;
  let logits = false; // whether the runs have attention (transformer blocks): the largest-logit column
  let gains = false; // whether a run mixes streams (Hyper-Connections, mHC): the composite gain's columns

  function build(runs, sig, names, stride, shared) {
    builtFor = { runs, sig, stride };
    shown = [];
    caption = el('caption', {});
    const columns = columnsOf(shared, logits, gains);
    const head1 = el(
      'tr',
      {},
      el('th', { scope: 'col', rowspan: 2 }, 'step'),
      shared ? el('th', { scope: 'col', rowspan: 2 }, 'learning rate') : null,
    );
    const head2 = el('tr');
    for (const name of names) {
      head1.append(el('th', { scope: 'colgroup', colspan: columns.length, class: 'group-start' }, name));
      columns.forEach(([, label], i) =>
        head2.append(el('th', { scope: 'col', class: i ? null : 'group-start' }, label)),
      );
    }
    tbody = el('tbody');
    table.replaceChildren(caption, el('thead', {}, head1, head2), tbody);
    final = 0;
  }

  /** Row i's texts: the step, the learning rate (when the runs share it), then each run's columns. */
  const texts = (data, keys, i) => {
    const shared = data.lrShared !== false;
    return [
      String(data.x[i]),
      ...(shared ? [cell(data.lr[i])] : []),
      ...keys.flatMap((k) => columnsOf(shared, logits, gains).map(([c]) => cellOf(data, k, c, i))),
    ];
  };

  function row(data, keys, i) {
    const shared = data.lrShared !== false;
    const [step, ...rest] = texts(data, keys, i);
    const lr = shared ? rest.shift() : null;
    const per = columnsOf(shared, logits, gains).length;
    return el(
      'tr',
      {},
      el('th', { scope: 'row' }, step),
      shared ? el('td', {}, lr) : null,
      rest.map((t, j) => el('td', { class: j % per ? null : 'group-start' }, t)),
    );
  }

  return {
    /** `about`: which claim and setting the runs are of, in words ('' for none). */
    update(runs, config, data = lineSeries(runs), about = '') {
      const keys = runs.map((r) => r.key ?? r.arch);
      const names = runs.map((r) => r.label ?? archLabel(r.arch));
      const total = data.x.length;
      const stride = rowStride(total);
      const shared = data.lrShared !== false;
      logits = config.block === 'transformer';
      gains = keys.some((k) => data.has?.[k]?.hc_gain_fwd);
      const sig = `${keys.join()}|${names.join()}|${shared}|${logits}|${gains}`;
      if (!builtFor || builtFor.runs !== runs || builtFor.sig !== sig || builtFor.stride !== stride)
        build(runs, sig, names, stride, shared);
      const want = rowIndices(total);
      // the steps every run has logged in `data` and will not change: a run that has ended and
      // whose every log `data` holds has all its steps (the logs may have grown since `data`)
      const done = (r) => r.stopped || r.error || r.trainedAt != null || r.stepsDone >= (r.steps ?? config.steps);
      const complete = Math.min(
        total,
        ...runs.map((r) => {
          const held = data.logged?.[r.key ?? r.arch] ?? r.logs.length;
          return done(r) && held === r.logs.length ? Infinity : held;
        }),
      );
      // a row is written again where it shows another step (the latest moved on) or a step
      // some run may still change (a run behind the others); only texts that differ are set
      while (tbody.rows.length > want.length) tbody.lastChild.remove();
      for (let p = 0; p < tbody.rows.length; p++) {
        if (shown[p] === data.x[want[p]] && want[p] < final) continue;
        const cells = tbody.rows[p].cells;
        texts(data, keys, want[p]).forEach((t, j) => setText(cells[j], t));
      }
      const rows = [];
      for (let p = tbody.rows.length; p < want.length; p++) rows.push(row(data, keys, want[p]));
      tbody.append(...rows);
      shown = want.map((i) => data.x[i]);
      final = complete;
      const of = about ? ` (${about})` : '';
      const which =
        stride === 1
          ? `The logged steps of every run${of}`
          : `One logged step in ${stride} of every run${of}, and the latest (the CSV export has all ${total})`;
      const logitText = logits
        ? ', gradient norm and largest attention logit of the step\u2019s batch'
        : ' and gradient norm';
      const gainText = gains
        ? ' With Hyper-Connections and mHC, the composite gain of the stream mixing over depth: the largest absolute row sum (forward) and column sum (backward) of the product of every unit\u2019s mixing matrix.'
        : '';
      setText(
        caption,
        total
          ? shared
            ? `${which}: the learning rate of the step, and each one\u2019s held-out and training loss, held-out accuracy${logitText}.${gainText}`
            : `${which}: each one\u2019s held-out and training loss, held-out accuracy, gradient norm${logits ? ', largest attention logit of the step\u2019s batch' : ''} and learning rate (the runs\u2019 rates differ).${gainText}`
          : 'Nothing trained yet: the logged steps appear here as the run goes.',
      );
    },
    /** The rows written so far, for tests. */
    rows: () => tbody?.rows.length ?? 0,
  };
}
