// After training, what a run learned beyond its weights (session.js keeps it
// on the run): DenseFormer's averaging weights (run.dwaWeights, row l - 1 the
// weights w_{l,0..l} block l's stream takes of the embedding h_0 and of each
// block output up to its own) as the shared block x earlier-layer matrix
// (../shared/dwa-matrix.js: diverging colour scale, pointer and keyboard
// readout, caption and numbers); beside it Attention Residuals' read weights
// (run.attnResWeights, row k - 1 the softmax weights a_{k,0..k} the input of
// unit k + 1, or the final norm's, takes of h_0 and of units 1..k, averaged
// over the held-out tokens) in the same view; and ReZero's and LayerScale's gates
// (run.gates) per unit, their magnitude at the end beside their value at
// initialization, as a table with a caption written from the numbers.
//
//   const l = createLearned(section, { colours });
//   l.update({ runs, looks, state })  // returns {key: {dwaWeights, attnResWeights, gates}} drawn (the engine's arrays)
//   l.destroy()
import { el } from '../shared/dom.js';
import { scrollRegion } from '../shared/scroll-region.js';
import { fmtPlain, significant } from '../shared/format.js';
import { createDwaView } from '../shared/dwa-matrix.js';
import { attnResWords, unitName } from '../shared/attn-res-weights.js';
import { median } from '../claims/lab/common.js';

export { unitName };

/** The caption of one run's gates, from their numbers: how the median magnitude moved from the init value. */
export function gatesCaption(label, gates, depth) {
  const what = gates.width === 1 ? '|\u03b1|' : 'mean |\u03bb|';
  const init = median(gates.init);
  const now = median(gates.magnitude);
  if (!Number.isFinite(now)) return `${label}: the gates are not finite.`;
  const verb = now > Math.abs(init) * 1.01 ? 'grew' : now < Math.abs(init) * 0.99 ? 'shrank' : 'stayed';
  let lo = 0;
  let hi = 0;
  gates.magnitude.forEach((v, k) => {
    if (v < gates.magnitude[lo]) lo = k;
    if (v > gates.magnitude[hi]) hi = k;
  });
  const name = (k) => unitName(k + 1, gates.units, depth);
  // enough digits that two different numbers of the sentence do not read the same
  let digits = 2;
  while (digits < 5 && now !== Math.abs(init) && significant(now, digits) === significant(init, digits)) digits++;
  const range =
    gates.units > 1
      ? ` (from ${significant(gates.magnitude[lo], 2)} in ${name(lo)} to ${significant(gates.magnitude[hi], 2)} in ${name(hi)})`
      : '';
  const at = verb === 'stayed' ? 'at' : 'to';
  return `${label}: the gates' ${what} ${verb} from ${significant(init, digits)} at initialization ${at} a median ${significant(now, digits)} over ${gates.units} unit${gates.units > 1 ? 's' : ''}${range}.`;
}

/** The gates of the gated runs per unit: at init, at the end, for each run. */
function gatesTable(gated, depthOf) {
  const th = (text, attrs = {}) => el('th', { scope: 'col', ...attrs }, text);
  const units = Math.max(...gated.map((r) => r.gates.units));
  const head = el(
    'thead',
    {},
    el('tr', {}, th('unit', { rowspan: 2 }), ...gated.map((r) => th(r.look.label, { scope: 'colgroup', colspan: 2 }))),
    el(
      'tr',
      {},
      gated.flatMap(() => [th('at init'), th('trained')]),
    ),
  );
  const body = Array.from({ length: units }, (_, k) => {
    const cells = gated.flatMap(({ gates: g }) =>
      k < g.units
        ? [el('td', {}, fmtPlain(Math.abs(g.init[k]))), el('td', {}, fmtPlain(g.magnitude[k]))]
        : [el('td', {}, '\u2014'), el('td', {}, '\u2014')],
    );
    return el('tr', {}, el('th', { scope: 'row' }, unitName(k + 1, units, depthOf(gated[0]))), cells);
  });
  return el(
    'table',
    { class: 'readout-table learned-gates-table', id: 'train-learned-gates' },
    head,
    el('tbody', {}, body),
  );
}

export function createLearned(section, { colours }) {
  const dwaTitle = el('h4', { class: 'learned-title' }, 'Which earlier layers each block reads (DenseFormer)');
  const dwaSub = el(
    'p',
    { class: 'hint' },
    'Row l: the weights of the average that is the stream after block l, over the embedding h\u2080 (left) and the outputs of blocks 1..l (the diagonal is the block itself). At initialization the diagonal is 1 and the rest 0.',
  );
  const dwaBox = el('div', { class: 'learned-dwa', id: 'train-learned-dwa' }, dwaTitle, dwaSub);
  const dwa = createDwaView(dwaBox, { colours, captionsId: 'train-learned-dwa-caption' });
  const attnTitle = el('h4', { class: 'learned-title' }, 'Which earlier layers each unit reads (Attention Residuals)');
  const attnSub = el(
    'p',
    { class: 'hint' },
    'Row k: the softmax weights with which the input of unit k + 1 (the last row: the final norm\u2019s) takes of the embedding h\u2080 (left) and of the outputs of units 1..k, averaged over the held-out tokens; each row sums to 1. A transformer block has two units, attention then MLP. At initialization row k is 1/(k + 1) throughout. Under Block AttnRes (AttnRes blocks N from 1 to one less than the number of units) the units form N groups g1..gN of consecutive units, each read as its summed outputs: row k takes of h\u2080, the whole groups before unit k\u2019s and the sum of unit k\u2019s group up to unit k, each 1/(number of sources) at initialization.',
  );
  const attnBox = el('div', { class: 'learned-dwa', id: 'train-learned-attn-res' }, attnTitle, attnSub);
  const attn = createDwaView(attnBox, {
    colours,
    captionsId: 'train-learned-attn-res-caption',
    legendTitle: 'Read weight a (linear, shared by every matrix)',
    numbersLabel: 'The read weights in numbers',
  });
  const gatesCaptions = el('ul', { class: 'after-sentences', id: 'train-learned-gates-caption' });
  const gatesNumbers = scrollRegion(el('div', { class: 'readout-scroll' }), 'The gates in numbers');
  const gatesBox = el(
    'div',
    { class: 'learned-gates', id: 'train-learned-gates-box' },
    el('h4', { class: 'learned-title' }, 'The learned gates (ReZero\u2019s \u03b1, LayerScale\u2019s \u03bb)'),
    el(
      'p',
      { class: 'hint' },
      'Per unit, the gate\u2019s magnitude at initialization and after training: |\u03b1| for ReZero\u2019s one scalar, the mean |\u03bb| over the channels for LayerScale.',
    ),
    gatesCaptions,
    gatesNumbers,
  );
  const box = el('div', { class: 'learned', id: 'train-learned' }, dwaBox, attnBox, gatesBox);
  section.append(box);
  box.hidden = true;
  let drawnFrom = null;
  let drawn = null;

  function draw(runs) {
    const depthOf = (r) => r.config?.depth ?? r.dwaWeights?.length ?? r.gates.units;
    const dense = runs.filter((r) => r.dwaWeights);
    const attending = runs.filter((r) => r.attnResWeights);
    const gated = runs.filter((r) => r.gates);
    dwaBox.hidden = !dense.length;
    attnBox.hidden = !attending.length;
    gatesBox.hidden = !gated.length;
    dwa.update(dense.map((r) => ({ key: r.key, label: r.look.label, rows: r.dwaWeights })));
    attn.update(
      attending.map((r) => ({
        key: r.key,
        label: r.look.label,
        rows: r.attnResWeights,
        words: attnResWords(r.attnResWeights.length, r.config?.depth ?? r.attnResWeights.length, r.attnResWeights),
      })),
    );
    gatesCaptions.replaceChildren(...gated.map((r) => el('li', {}, gatesCaption(r.look.label, r.gates, depthOf(r)))));
    gatesNumbers.replaceChildren(...(gated.length ? [gatesTable(gated, depthOf)] : []));
  }

  return {
    update({ runs, looks, state }) {
      const learned = runs
        .filter((r) => r.dwaWeights || r.attnResWeights || r.gates)
        .map((r) => ({
          key: r.key ?? r.arch,
          look: looks[r.key ?? r.arch],
          config: r.config,
          dwaWeights: r.dwaWeights,
          attnResWeights: r.attnResWeights,
          gates: r.gates,
        }));
      const ready = state === 'done' && learned.length > 0;
      box.hidden = !ready;
      if (!ready) {
        drawnFrom = null;
        drawn = null;
        return null;
      }
      if (drawnFrom !== runs) {
        drawnFrom = runs;
        draw(learned);
        drawn = Object.fromEntries(
          learned.map((r) => [r.key, { dwaWeights: r.dwaWeights, attnResWeights: r.attnResWeights, gates: r.gates }]),
        );
      }
      return drawn;
    },
    /** The theme changed: the matrices' background and marks are its colours. */
    redraw: () => {
      dwa.redraw();
      attn.redraw();
    },
    legendTicks: () => dwa.legendTicks(),
    destroy: () => {
      dwa.destroy();
      attn.destroy();
    },
  };
}
