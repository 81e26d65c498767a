// The hover readout, which is also the legend: one row per shown arch with its
// line sample and the three numbers at one layer. The charts' synced cursor
// sets the layer while the pointer is over them; otherwise the "layer" slider
// does (and moves the charts' cursor, for keyboard users).
import { archLabel } from '../shared/archs.js';
import { el } from '../shared/dom.js';
import { fmtValue } from '../shared/format.js';
import { OK, OVERFLOW } from './series.js';
import { swatch } from '../shared/swatch.js';

const COLUMNS = ['gradient', 'stream RMS', 'update'];

/** root: the element to fill; prefix: of its ids; hint: a node under the table, or null. */
export function createReadout({ root, prefix = '', hint = null, onPick }) {
  const id = `${prefix}readout-layer`;
  const slider = el('input', { type: 'range', id, min: 0, max: 96, step: 1, value: 0 });
  const value = el('output', { id: `${id}-value`, for: id, class: 'value' });
  const body = el('tbody');
  root.replaceChildren(
    el('div', { class: 'readout-head' }, el('label', { for: id }, 'Values at'), slider, value),
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
    ...(hint ? [hint] : []),
  );
  let rows = {}; // arch -> {grad, stream, update} cells
  let data = null; // {prepared, archs, depth}
  let hover = null;

  slider.addEventListener('input', () => {
    show(Number(slider.value));
    onPick(Number(slider.value));
  });

  function cellText(prepared, arch, i) {
    if (i < 0 || i >= prepared.raw[arch].length) return '—';
    const cls = prepared.cls[arch][i];
    if (cls === OVERFLOW) return 'overflow';
    const v = prepared.raw[arch][i];
    return cls === OK ? fmtValue(v) : '0';
  }

  function show(layer) {
    if (!data) return;
    const L = data.depth;
    const l = Math.max(0, Math.min(L, layer));
    value.value = `layer ${l} of ${L}`;
    if (hover == null) slider.setAttribute('aria-valuetext', `layer ${l} of ${L}`);
    const { grad, stream, update } = data.prepared;
    for (const arch of data.archs) {
      const r = rows[arch];
      r.grad.textContent = cellText(grad, arch, l);
      r.stream.textContent = cellText(stream, arch, l);
      r.update.textContent = l === 0 ? '—' : cellText(update, arch, l - 1);
      for (const cell of Object.values(r)) cell.classList.toggle('is-overflow', cell.textContent === 'overflow');
    }
  }

  return {
    /** New results: rebuild the rows if the archs changed, then refill. */
    set(next) {
      const archsChanged = !data || data.archs.join() !== next.archs.join();
      data = next;
      slider.max = String(next.depth);
      if (archsChanged) {
        rows = {};
        body.replaceChildren(
          ...next.archs.map((arch) => {
            const cells = { grad: el('td'), stream: el('td'), update: el('td') };
            rows[arch] = cells;
            return el(
              'tr',
              {},
              el('th', { scope: 'row' }, swatch(arch), ' ', archLabel(arch)),
              cells.grad,
              cells.stream,
              cells.update,
            );
          }),
        );
      }
      show(hover ?? Number(slider.value));
    },
    /** The pointer is at `layer` (null when it left the charts). */
    hover(layer) {
      if (layer === hover) return;
      hover = layer;
      show(layer ?? Number(slider.value));
    },
  };
}
