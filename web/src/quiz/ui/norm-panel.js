// The norm panel: every number comes from the engine's own norm code through the worker
// (rn.normToken and rn.batchVsLayerNorm), never from a JS re-implementation. Only summaries of the
// engine's outputs (their mean and variance, how far they moved) are computed here.
//
// Left: one token through LayerNorm and RMSNorm. The learner edits its features, gamma and beta and
// sees the statistics and the outputs (a constant token gives beta; gamma = 1, beta = 0 still
// standardizes).
// Right: BatchNorm against LayerNorm on a padded batch. The learner changes the batch size (down to
// one), the sequences' lengths, the padding and whether BatchNorm counts the padding, and watches
// the first token of sequence 1: its BatchNorm output moves, its LayerNorm output stays put.

import { el, replace } from '../../shared/dom.js';
import { scrollRegion } from '../../shared/scroll-region.js';
import { fixed } from '../../shared/format.js';
import {
  TOKEN_WIDTH,
  DEFAULT_TOKEN,
  TOKEN_RANGE,
  GAMMA_RANGE,
  BETA_RANGE,
  BATCH,
  DEFAULT_BATCH,
  batchValues,
  batchInput,
  countedPositions,
  tokenAt,
  moments,
  maxAbsDiff,
  isConstant,
  clampNumber,
} from './norm-data.js';

const SUB = '₀₁₂₃₄₅₆₇₈₉';
const sub = (n) => String(n).replace(/\d/g, (d) => SUB[d]);

/** A slider with a number box beside it, kept in step. onChange(value) on every edit by the learner. */
function sliderField({ id, label, range, value, onChange, numberLabel }) {
  let current = value;
  const slider = el('input', {
    type: 'range',
    id,
    min: range.min,
    max: range.max,
    step: range.step,
    value: String(value),
  });
  const number = el('input', {
    type: 'number',
    id: `${id}-num`,
    class: 'number',
    min: range.min,
    max: range.max,
    step: 'any',
    value: String(value),
    inputmode: 'decimal',
    'aria-label': numberLabel,
  });
  const apply = (v, fromNumber) => {
    current = v;
    slider.value = String(v);
    if (!fromNumber) number.value = String(v);
    onChange(v);
  };
  slider.addEventListener('input', () => apply(Number(slider.value), false));
  number.addEventListener('input', () => {
    const v = clampNumber(number.value, range);
    if (v !== null && v === Number(number.value)) apply(v, true);
  });
  number.addEventListener('change', () => {
    const v = clampNumber(number.value, range);
    if (v === null) {
      number.value = String(current);
      return;
    }
    number.value = String(v);
    if (v !== current) apply(v, true);
  });
  const node = el(
    'div',
    { class: 'slider-field' },
    el('label', { for: id, class: 'slider-label' }, label),
    slider,
    number,
  );
  return {
    node,
    get: () => current,
    set(v) {
      current = v;
      slider.value = String(v);
      number.value = String(v);
    },
  };
}

function statsList(rows) {
  return el(
    'dl',
    { class: 'norm-stats' },
    rows.map(([term, value, cell]) => [el('dt', {}, term), el('dd', { 'data-cell': cell }, value)]),
  );
}

/** A per-feature table (feature, x, then `columns`) in its scrolling wrapper. */
function featureTable(id, caption, columns, body) {
  return scrollRegion(
    el(
      'div',
      { class: 'table-wrap' },
      el(
        'table',
        { class: 'norm-table', id },
        el('caption', {}, caption),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['feature', 'x', ...columns].map((c) => el('th', { scope: 'col' }, c)),
          ),
        ),
        body,
      ),
    ),
    caption,
  );
}

/** A slider field for `state[key]`: a change stores the value (through `round`) and calls `changed`. */
function boundField(state, key, changed, spec, round = (v) => v) {
  return sliderField({
    ...spec,
    value: state[key],
    onChange: (v) => {
      state[key] = round(v);
      changed();
    },
  });
}

// ================= one token =================

/** The token's controls: a slider per feature, γ and β, and the buttons that change the token at once. */
function tokenControls(t, changed) {
  const featureFields = t.x.map((_, i) =>
    boundField(t.x, i, changed, {
      id: `tok-x-${i}`,
      label: `x${sub(i + 1)}`,
      range: TOKEN_RANGE,
      numberLabel: `feature ${i + 1}, exact value`,
    }),
  );
  const gammaField = boundField(t, 'gamma', changed, {
    id: 'tok-gamma',
    label: 'γ',
    range: GAMMA_RANGE,
    numberLabel: 'gamma, exact value',
  });
  const betaField = boundField(t, 'beta', changed, {
    id: 'tok-beta',
    label: 'β',
    range: BETA_RANGE,
    numberLabel: 'beta, exact value',
  });

  const setX = (values) => {
    values.forEach((v, i) => {
      t.x[i] = v;
      featureFields[i].set(v);
    });
    changed();
  };
  const round1 = (v) => Math.round(v * 10) / 10;
  const clampX = (v) => Math.min(TOKEN_RANGE.max, Math.max(TOKEN_RANGE.min, v));
  const buttons = [
    ['tok-constant', 'Make it constant (all = x₁)', () => setX(t.x.map(() => t.x[0]))],
    ['tok-shift', 'Shift all by +1', () => setX(t.x.map((v) => clampX(round1(v + 1))))],
    ['tok-scale', 'Scale all ×2', () => setX(t.x.map((v) => clampX(round1(v * 2))))],
    ['tok-random', 'Random token', () => setX(t.x.map(() => round1((Math.random() - 0.5) * 6)))],
    ['tok-reset', 'Start over', () => setX([...DEFAULT_TOKEN])],
  ].map(([id, text, fn]) => el('button', { type: 'button', class: 'secondary', id, onclick: fn }, text));
  const freeze = el(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'tok-freeze',
      onclick: () => {
        t.gamma = 1;
        t.beta = 0;
        gammaField.set(1);
        betaField.set(0);
        changed();
      },
    },
    'γ = 1, β = 0',
  );
  return { featureFields, gammaField, betaField, buttons, freeze };
}

/** The token side's layout in `token`; returns the parts the rendering fills. */
function tokenLayout(token, { featureFields, gammaField, betaField, buttons, freeze }) {
  const tokBody = el('tbody');
  const tokStats = el('div', { class: 'norm-stats-wrap' });
  const tokNote = el('p', { class: 'norm-note', role: 'status', 'aria-live': 'polite' });
  replace(
    token,
    el('h3', { id: 'token-title' }, 'One token through LayerNorm and RMSNorm'),
    el(
      'p',
      { class: 'hint' },
      `A token of ${TOKEN_WIDTH} features. LayerNorm subtracts the token's mean, divides by √(σ² + ε) and applies γ and β; RMSNorm only divides by the root mean square and applies γ. Here γ and β are the same for every feature.`,
    ),
    el(
      'div',
      { class: 'token-layout' },
      el(
        'fieldset',
        { class: 'token-inputs' },
        el('legend', {}, 'The token'),
        featureFields.map((f) => f.node),
        el('div', { class: 'button-row' }, buttons),
      ),
      el(
        'fieldset',
        { class: 'token-inputs' },
        el('legend', {}, 'γ and β'),
        gammaField.node,
        betaField.node,
        el('div', { class: 'button-row' }, freeze),
      ),
    ),
    featureTable('token-table', 'The token and its outputs', ['LayerNorm', 'RMSNorm'], tokBody),
    tokStats,
    tokNote,
  );
  return { tokBody, tokStats, tokNote };
}

/** The token table's rows: each feature, its LayerNorm and its RMSNorm output. */
function tokenRows(x, ln, rms) {
  return x.map((v, i) =>
    el(
      'tr',
      {},
      el('th', { scope: 'row' }, `x${sub(i + 1)}`),
      el('td', { 'data-cell': `x-${i}` }, fixed(v)),
      el('td', { 'data-cell': `ln-${i}` }, fixed(ln.y[i])),
      el('td', { 'data-cell': `rms-${i}` }, fixed(rms.y[i])),
    ),
  );
}

/** The statistics of both norms for the token, and of their outputs. */
function tokenStatsBlocks(ln, rms) {
  const lnOut = moments(ln.y);
  const rmsOut = Math.sqrt(Array.from(rms.y).reduce((s, v) => s + v * v, 0) / rms.y.length);
  return [
    el(
      'div',
      { class: 'stats-block' },
      el('h4', {}, 'LayerNorm'),
      statsList([
        ['mean μ of x', fixed(ln.mean, 4), 'ln-mean'],
        ['variance σ² of x', fixed(ln.var, 4), 'ln-var'],
        ['1 / √(σ² + ε)', fixed(ln.rstd, 4), 'ln-rstd'],
        ['mean of the output', fixed(lnOut.mean, 4), 'ln-out-mean'],
        ['variance of the output', fixed(lnOut.var, 4), 'ln-out-var'],
      ]),
    ),
    el(
      'div',
      { class: 'stats-block' },
      el('h4', {}, 'RMSNorm'),
      statsList([
        ['mean square of x', fixed(rms.var, 4), 'rms-ms'],
        ['1 / √(mean square + ε)', fixed(rms.rstd, 4), 'rms-rstd'],
        ['RMS of the output', fixed(rmsOut, 4), 'rms-out'],
      ]),
    ),
  ];
}

/** What the token's outputs show, for token `x` with gamma and beta from `t`. */
function tokenNote(x, ln, t) {
  if (isConstant(x)) {
    return (
      `Every feature is ${fixed(x[0], 1)}: the variance is 0, so x − μ is exactly 0 and ε keeps the division finite. ` +
      `LayerNorm outputs β = ${fixed(t.beta, 2)} for every feature, not NaN. RMSNorm has no mean to subtract: it gives about γ·sign(x).`
    );
  }
  if (t.gamma === 1 && t.beta === 0) {
    return (
      'γ = 1 and β = 0: LayerNorm still standardizes. Its output has mean 0 and variance 1 (up to ε); it is not the input. ' +
      'Shift or scale the token: the LayerNorm output does not change.'
    );
  }
  return (
    `LayerNorm's output has mean β = ${fixed(t.beta, 2)} and variance γ² = ${fixed(t.gamma ** 2, 2)} (up to ε), whatever the token's offset and scale. ` +
    `Mean of x: ${fixed(ln.mean, 2)}.`
  );
}

/** The token side in `token`: its state, controls and layout; compute() asks the engine once started(). */
function createTokenPanel(token, engine, started) {
  const t = { x: [...DEFAULT_TOKEN], gamma: 1, beta: 0, seq: 0, renders: 0 };
  const { tokBody, tokStats, tokNote } = tokenLayout(
    token,
    tokenControls(t, () => computeToken()),
  );

  async function computeToken() {
    if (!started()) return;
    const id = ++t.seq;
    const x = [...t.x];
    const gamma = x.map(() => t.gamma);
    const beta = x.map(() => t.beta);
    token.dataset.state = 'computing';
    let ln;
    let rms;
    try {
      [ln, rms] = await Promise.all([
        engine.call('normToken', ['layernorm', x, gamma, beta]),
        engine.call('normToken', ['rmsnorm', x, gamma, beta]),
      ]);
    } catch (e) {
      if (id !== t.seq) return;
      token.dataset.state = 'error';
      tokNote.textContent = `The engine refused: ${e.message}`;
      return;
    }
    if (id !== t.seq) return; // a newer edit is on its way
    renderToken(x, ln, rms);
  }

  function renderToken(x, ln, rms) {
    replace(tokBody, tokenRows(x, ln, rms));
    replace(tokStats, ...tokenStatsBlocks(ln, rms));
    tokNote.textContent = tokenNote(x, ln, t);
    t.renders += 1;
    token.dataset.renders = String(t.renders);
    token.dataset.state = 'ready';
  }

  return { compute: computeToken };
}

// ================= the padded batch =================

/** The batch's controls: batch size, padding, each sequence's length, and whether BatchNorm counts the padding. */
function batchControls(b, changed) {
  const batchField = boundField(
    b,
    'batch',
    () => {
      showLengthFields();
      changed();
    },
    {
      id: 'bn-batch',
      label: 'Sequences in the batch',
      range: { min: 1, max: BATCH.maxBatch, step: 1 },
      numberLabel: 'sequences in the batch, exact number',
    },
    Math.round,
  );
  const paddingField = boundField(
    b,
    'padding',
    changed,
    {
      id: 'bn-padding',
      label: 'Padding after the longest',
      range: { min: 0, max: BATCH.maxPadding, step: 1 },
      numberLabel: 'padding positions after the longest sequence, exact number',
    },
    Math.round,
  );
  const lengthFields = b.lengths.map((_, i) =>
    boundField(
      b.lengths,
      i,
      changed,
      {
        id: `bn-len-${i}`,
        label: i === 0 ? 'Length of sequence 1 (watched)' : `Length of sequence ${i + 1}`,
        range: { min: 1, max: BATCH.maxLength, step: 1 },
        numberLabel: `length of sequence ${i + 1}, exact number`,
      },
      Math.round,
    ),
  );
  const showLengthFields = () =>
    lengthFields.forEach((f, i) => {
      f.node.hidden = i >= b.batch;
    });
  showLengthFields();
  const countBox = el('input', { type: 'checkbox', id: 'bn-count-padding', checked: b.countPadding ? true : null });
  countBox.addEventListener('change', () => {
    b.countPadding = countBox.checked;
    changed();
  });
  return { batchField, paddingField, lengthFields, countBox };
}

/** The batch side's layout in `batch`; returns the parts the rendering fills. */
function batchLayout(batch, { batchField, paddingField, lengthFields, countBox }) {
  const parts = {
    picture: el('div', { class: 'batch-picture', 'aria-hidden': 'true' }),
    pictureText: el('p', { class: 'batch-summary', id: 'bn-summary' }),
    watchBody: el('tbody'),
    moved: el('p', { class: 'norm-note moved', role: 'status', 'aria-live': 'polite' }),
    bnStats: scrollRegion(el('div', { class: 'table-wrap' }), 'BatchNorm\u2019s statistics'),
    batchNote: el('p', { class: 'hint batch-note' }),
  };
  replace(
    batch,
    el('h3', { id: 'batch-title' }, 'LayerNorm against BatchNorm on a padded batch'),
    el(
      'p',
      { class: 'hint' },
      `Sequences of different lengths, padded with zeros to one length, ${BATCH.width} features per token. ` +
        'BatchNorm normalizes each feature over the positions of the whole batch; LayerNorm normalizes each token over its own features. ' +
        'Watch the first token of sequence 1 (outlined).',
    ),
    el(
      'fieldset',
      { class: 'batch-inputs' },
      el('legend', {}, 'The batch'),
      batchField.node,
      paddingField.node,
      lengthFields.map((f) => f.node),
      el(
        'label',
        { class: 'check-row', for: 'bn-count-padding' },
        countBox,
        ' BatchNorm counts the padding positions (a naive BatchNorm over the padded tensor)',
      ),
    ),
    el('figure', { class: 'batch-figure' }, parts.picture, el('figcaption', {}, parts.pictureText)),
    featureTable(
      'watch-table',
      'The watched token: sequence 1, position 1',
      ['BatchNorm', 'LayerNorm'],
      parts.watchBody,
    ),
    parts.moved,
    parts.bnStats,
    parts.batchNote,
  );
  return parts;
}

/** The batch picture: one row per sequence, one cell per position. */
function batchPictureRows(input) {
  return Array.from({ length: input.batch }, (_, s) =>
    el(
      'div',
      { class: 'batch-row' },
      el('span', { class: 'batch-label' }, `seq ${s + 1}`),
      el(
        'span',
        { class: 'batch-cells' },
        Array.from({ length: input.length }, (_, p) => {
          const real = p < input.lengths[s];
          const cls = [
            'cell',
            real ? 'real' : 'pad',
            !real && input.countPadding ? 'counted' : '',
            s === 0 && p === 0 ? 'watched' : '',
          ];
          return el('span', { class: cls.filter(Boolean).join(' ') });
        }),
      ),
    ),
  );
}

/** The picture's caption: how many real and padding positions, and where each norm's statistics come from. */
function batchSummary(input, counted) {
  return (
    `${input.batch} sequence${input.batch === 1 ? '' : 's'} padded to length ${input.length}: ` +
    `${counted.real} real tokens and ${input.batch * input.length - counted.real} padding positions. ` +
    `BatchNorm's statistics for each feature come from ${counted.total} positions${input.countPadding ? ' (padding included)' : ' (real tokens only)'}; ` +
    `LayerNorm's come from the token's own ${input.width} features.`
  );
}

/** The watched token's table rows: each feature, its BatchNorm and its LayerNorm output. */
function watchRows(x, bn, lnY) {
  return x.map((v, i) =>
    el(
      'tr',
      {},
      el('th', { scope: 'row' }, `x${sub(i + 1)}`),
      el('td', { 'data-cell': `watch-x-${i}` }, fixed(v)),
      el('td', { 'data-cell': `watch-bn-${i}` }, fixed(bn[i])),
      el('td', { 'data-cell': `watch-ln-${i}` }, fixed(lnY[i])),
    ),
  );
}

/** The statistics table: BatchNorm's mean and variance per feature, LayerNorm's for the watched token. */
function bnStatsTable(input, out, ln) {
  return el(
    'table',
    { class: 'norm-table', id: 'bn-stats' },
    el('caption', {}, 'The statistics each norm uses for the watched token'),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'col' }, 'feature'),
        el('th', { scope: 'col' }, 'BatchNorm mean (over the batch)'),
        el('th', { scope: 'col' }, 'BatchNorm variance'),
      ),
    ),
    el(
      'tbody',
      {},
      Array.from(out.mean, (m, i) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row' }, `x${sub(i + 1)}`),
          el('td', { 'data-cell': `bn-mean-${i}` }, fixed(m)),
          el('td', { 'data-cell': `bn-var-${i}` }, fixed(out.var[i])),
        ),
      ),
    ),
    el(
      'tfoot',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'row' }, 'LayerNorm'),
        el(
          'td',
          { colspan: '2', 'data-cell': 'watch-ln-stats' },
          `mean ${fixed(ln.mean)}, variance ${fixed(ln.var)} over the token's ${input.width} features`,
        ),
      ),
    ),
  );
}

/** The note under the batch: batch size 1 (inference) or what each norm's output depends on. */
function batchNoteText(input) {
  return input.batch === 1
    ? "Batch size 1, as at inference: BatchNorm's statistics now come from this one sequence alone (with one real token and no padding counted, every output would be 0). " +
        'Real models switch BatchNorm to running averages at inference, one more way it behaves differently from training. LayerNorm does not notice the batch at all.'
    : "LayerNorm's output for a token depends on that token alone; BatchNorm's depends on every other sequence, their lengths and, if counted, the padding.";
}

/** The batch side in `batch`: its state, controls and layout; compute() asks the engine once started(). */
function createBatchPanel(batch, engine, started) {
  const values = batchValues();
  const b = { ...DEFAULT_BATCH, lengths: [...DEFAULT_BATCH.lengths], seq: 0, renders: 0, last: null };
  const { picture, pictureText, watchBody, moved, bnStats, batchNote } = batchLayout(
    batch,
    batchControls(b, () => computeBatch()),
  );

  async function computeBatch() {
    if (!started()) return;
    const id = ++b.seq;
    const input = batchInput(values, b);
    batch.dataset.state = 'computing';
    let out;
    let ln;
    try {
      out = await engine.call('batchVsLayerNorm', [input]);
      ln = await engine.call('normToken', ['layernorm', tokenAt(input.x, input, 0, 0)]);
    } catch (e) {
      if (id !== b.seq) return;
      batch.dataset.state = 'error';
      moved.textContent = `The engine refused: ${e.message}`;
      return;
    }
    if (id !== b.seq) return;
    renderBatch(input, out, ln);
  }

  function renderBatch(input, out, ln) {
    const x = tokenAt(input.x, input, 0, 0);
    const bn = tokenAt(out.batchnorm, input, 0, 0);
    const lnY = tokenAt(out.layernorm, input, 0, 0);
    replace(picture, batchPictureRows(input));
    pictureText.textContent = batchSummary(input, countedPositions(input));
    replace(watchBody, watchRows(x, bn, lnY));
    if (b.last) {
      const dBn = maxAbsDiff(b.last.bn, bn);
      const dLn = maxAbsDiff(b.last.ln, lnY);
      moved.textContent = `Since the last change, the watched token's BatchNorm output moved by up to ${fixed(dBn)}; its LayerNorm output by ${fixed(dLn)}.`;
      moved.dataset.bn = String(dBn);
      moved.dataset.ln = String(dLn);
    } else {
      moved.textContent = "Change the batch: this line says how far the watched token's outputs moved.";
    }
    b.last = { bn, ln: lnY };
    replace(bnStats, bnStatsTable(input, out, ln));
    batchNote.textContent = batchNoteText(input);
    b.renders += 1;
    batch.dataset.renders = String(b.renders);
    batch.dataset.state = 'ready';
  }

  return { compute: computeBatch };
}

/**
 * @param {{token: HTMLElement, batch: HTMLElement, engine: {call: Function}}} deps
 */
export function createNormPanel({ token, batch, engine }) {
  let started = false;
  const isStarted = () => started;
  const tokenPanel = createTokenPanel(token, engine, isStarted);
  const batchPanel = createBatchPanel(batch, engine, isStarted);

  return {
    /** Computes the first outputs (when the panel is first shown). */
    start() {
      if (started) return;
      started = true;
      tokenPanel.compute();
      batchPanel.compute();
    },
  };
}
