// The hover readout, which is also the legend: one row per shown arch with its
// line sample and the three numbers at one layer. The charts' synced cursor
// sets the layer while the pointer is over them, and the "Values at" slider
// follows it; when the pointer leaves, the readout stays at the pinned layer,
// or at the last one. The slider also sets the layer itself (and moves the
// charts' cursor, for keyboard users). The charts' tooltips (tipNodes) print
// the same numbers the same way.
import { REFERENCE_LINE, archLabel } from '../shared/archs.js';
import { el, setAttr, setText } from '../shared/dom.js';
import { scrollRegion } from '../shared/scroll-region.js';
import { fmtValue } from '../shared/format.js';
import { OK, OVERFLOW } from './series.js';
import { lineSwatch, swatch } from '../shared/swatch.js';

const COLUMNS = ['gradient', 'stream RMS', 'update'];
const METRIC_COLUMNS = { grad: COLUMNS[0], stream: COLUMNS[1], update: COLUMNS[2] };

/**
 * For each arch, the metrics whose curve lies on an earlier arch's, so that
 * one hides the other: {arch: {metric: {arch: earlier, how}}}. `how` is
 * 'same' when every point has the same class and is within 1/150 of the
 * chart's height (about a pixel), 'close' when they are on average within
 * 1/100 of it (the two lines run tangled together).
 */
export function coinciding(prepared, archs) {
  const out = Object.fromEntries(archs.map((a) => [a, {}]));
  for (const [metric, p] of Object.entries(prepared)) {
    const span = p.scale[1] - p.scale[0];
    const relation = (a, b) => {
      if (!p.cls[a].every((c, i) => c === p.cls[b][i])) return null;
      let worst = 0,
        sum = 0,
        n = 0;
      p.main[a].forEach((v, i) => {
        if (v === null) return;
        const d = Math.abs(v - p.main[b][i]);
        worst = Math.max(worst, d);
        sum += d;
        n++;
      });
      if (worst <= span / 150) return 'same';
      return n && sum / n <= span / 100 ? 'close' : null;
    };
    archs.forEach((arch, j) => {
      for (const earlier of archs.slice(0, j)) {
        if (out[earlier][metric]) continue;
        const how = relation(arch, earlier);
        if (how) {
          out[arch][metric] = { arch: earlier, how };
          break;
        }
      }
    });
  }
  return out;
}

/** "gradient, update: same as Post-LN; stream RMS: close to plain" for one arch's entry of coinciding(). */
export function sameAsText(same) {
  const groups = {};
  for (const [metric, { arch, how }] of Object.entries(same))
    (groups[`${how === 'same' ? 'same as' : 'close to'} ${archLabel(arch)}`] ??= []).push(METRIC_COLUMNS[metric]);
  return Object.entries(groups)
    .map(([words, columns]) => `${columns.join(', ')}: ${words}`)
    .join('; ');
}

/** Point i of one arch in one chart's prepared data, as the readout and the tooltips print it. */
export function cellText(prepared, arch, i) {
  if (i < 0 || i >= prepared.raw[arch].length) return '—';
  const cls = prepared.cls[arch][i];
  if (cls === OVERFLOW) return 'overflow';
  const v = prepared.raw[arch][i];
  return cls === OK ? fmtValue(v) : '0';
}

/** A chart's tooltip at point i: its layer (or block) and every curve's value there. */
export function tipNodes(prepared, archs, i, reference = null) {
  if (i == null || i < 0 || i >= prepared.x.length) return [];
  const what = prepared.metric === 'update' ? 'block' : 'layer';
  const row = (attrs, sample, label, value) =>
    el('tr', attrs, el('th', { scope: 'row' }, sample, ' ', label), el('td', {}, value));
  return [
    el('p', { class: 'chart-tip-title' }, `${what} ${prepared.x[i]}`),
    el(
      'table',
      {},
      el(
        'tbody',
        {},
        archs.map((arch) => row({ 'data-arch': arch }, swatch(arch), archLabel(arch), cellText(prepared, arch, i))),
        reference
          ? row({ 'data-reference': '' }, lineSwatch('reference', REFERENCE_LINE.dash), '1/√l', fmtValue(reference[i]))
          : null,
      ),
    ),
  ];
}

/** root: the element to fill; prefix: of its ids; hint: a node under the table, or null. */
export function createReadout({ root, prefix = '', hint = null, onPick }) {
  const id = `${prefix}readout-layer`;
  const slider = el('input', { type: 'range', id, min: 0, max: 96, step: 1, value: 0 });
  const value = el('output', { id: `${id}-value`, for: id, class: 'value' });
  const body = el('tbody');
  root.replaceChildren(
    el('div', { class: 'readout-head' }, el('label', { for: id }, 'Values at'), slider, value),
    scrollRegion(
      el(
        'div',
        { class: 'readout-scroll' },
        el(
          'table',
          { class: 'readout-table' },
          el(
            'caption',
            { class: 'visually-hidden' },
            'Values at the chosen layer, one row per architecture; also the legend of the charts',
          ),
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              ['architecture', ...COLUMNS].map((t) => el('th', { scope: 'col' }, t)),
            ),
          ),
          body,
        ),
      ),
      'Values at the chosen layer',
    ),
    ...(hint ? [hint] : []),
  );
  let rows = {}; // arch -> {grad, stream, update} cells
  let notes = {}; // arch -> the "same as" note under its name
  let data = null; // {prepared, archs, depth}
  let hover = null;
  let pinned = null;

  slider.addEventListener('input', () => {
    if (pinned !== null) pinned = Number(slider.value);
    show(Number(slider.value));
    onPick(Number(slider.value));
  });

  function show(layer) {
    if (!data) return;
    const L = data.depth;
    const l = Math.max(0, Math.min(L, layer));
    setText(value, `layer ${l} of ${L}`);
    if (hover == null) setAttr(slider, 'aria-valuetext', `layer ${l} of ${L}`);
    const { grad, stream, update } = data.prepared;
    for (const arch of data.archs) {
      const r = rows[arch];
      setText(r.grad, cellText(grad, arch, l));
      setText(r.stream, cellText(stream, arch, l));
      setText(r.update, l === 0 ? '—' : cellText(update, arch, l - 1));
      for (const cell of Object.values(r)) cell.classList.toggle('is-overflow', cell.textContent === 'overflow');
    }
  }

  return {
    /** The layer shown. */
    layer: () => Number(slider.value),
    /** New results: rebuild the rows if the archs changed, then refill. */
    set(next) {
      const archsChanged = !data || data.archs.join() !== next.archs.join();
      data = next;
      setAttr(slider, 'max', String(next.depth));
      if (archsChanged) {
        rows = {};
        notes = {};
        body.replaceChildren(
          ...next.archs.map((arch) => {
            const cells = { grad: el('td'), stream: el('td'), update: el('td') };
            const note = el('span', { class: 'same-as' });
            rows[arch] = cells;
            notes[arch] = note;
            return el(
              'tr',
              { 'data-arch': arch },
              el('th', { scope: 'row' }, swatch(arch), ' ', archLabel(arch), note),
              cells.grad,
              cells.stream,
              cells.update,
            );
          }),
        );
      }
      const same = coinciding(next.prepared, next.archs);
      for (const arch of next.archs) {
        setText(notes[arch], sameAsText(same[arch]));
        if (notes[arch].hidden !== !notes[arch].textContent) notes[arch].hidden = !notes[arch].textContent;
      }
      show(hover ?? Number(slider.value));
    },
    /** The pointer is at `layer` (null when it left the charts): the slider follows it. */
    hover(layer) {
      if (layer === hover) return;
      hover = layer;
      if (layer !== null) slider.value = String(layer);
      else if (pinned !== null) slider.value = String(pinned);
      show(Number(slider.value));
    },
    /** A layer pinned on a chart (null: none); the readout comes back to it. */
    pin(layer) {
      pinned = layer;
      if (layer !== null) slider.value = String(layer);
      show(hover ?? Number(slider.value));
    },
  };
}
