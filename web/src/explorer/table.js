// The numbers behind the charts as a real <table> (one row per layer, three
// columns per arch), for screen readers always, and on screen behind the
// "Show numbers" toggle.
import { archLabel } from '../shared/archs.js';
import { fixed, fmtPlain } from '../shared/format.js';
import { OVERFLOW } from './series.js';
import { setAttr } from '../shared/dom.js';
import { numbersToggle } from '../shared/numbers-toggle.js';

const METRICS = [
  ['grad', 'gradient norm'],
  ['stream', 'stream RMS'],
  ['update', 'update ratio (block l)'],
];

const SETTLE_MS = 250;

export function createTable({ table, wrap, button }) {
  let timer = 0;
  let lastUpdate = -Infinity;
  let shown = null; // the config the table holds the numbers of
  numbersToggle({ wrap, button, label: 'Numbers behind the charts' });

  function build({ out, prepared, archs }) {
    const key = JSON.stringify(out.config);
    if (key === shown) {
      // the same numbers (a slider moved away and back): nothing to rebuild
      table.removeAttribute('aria-busy');
      return;
    }
    shown = key;
    const L = out.config.depth;
    const caption = document.createElement('caption');
    caption.textContent =
      `Per-layer numbers at depth ${L}, gain ${fixed(out.config.gain, 2)}: ` +
      'the gradient norm \u2016\u2202loss/\u2202h_l\u2016, the stream RMS of h_l, and block l\u2019s update size relative to the stream. ' +
      '\u201coverflow\u201d marks a value beyond float32\u2019s range and every value computed from one ' +
      '(Infinity in the CSV export, null in the JSON).';
    const head1 = document.createElement('tr');
    const head2 = document.createElement('tr');
    const layerTh = document.createElement('th');
    layerTh.scope = 'col';
    layerTh.rowSpan = 2;
    layerTh.textContent = 'layer l';
    head1.append(layerTh);
    for (const arch of archs) {
      const th = document.createElement('th');
      th.scope = 'colgroup';
      th.colSpan = METRICS.length;
      th.className = 'group-start';
      th.textContent = archLabel(arch);
      head1.append(th);
      for (const [i, [, name]] of METRICS.entries()) {
        const sub = document.createElement('th');
        sub.scope = 'col';
        if (i === 0) sub.className = 'group-start';
        sub.textContent = name;
        head2.append(sub);
      }
    }
    const thead = document.createElement('thead');
    thead.append(head1, head2);

    const cell = (m, arch, i) => {
      const p = prepared[m];
      if (i < 0 || i >= p.raw[arch].length) return '\u2014';
      return p.cls[arch][i] === OVERFLOW ? 'overflow' : fmtPlain(p.raw[arch][i]);
    };
    const rows = [];
    for (let l = 0; l <= L; l++) {
      let html = `<th scope="row">${l}</th>`;
      for (const arch of archs)
        html += `<td class="group-start">${cell('grad', arch, l)}</td><td>${cell('stream', arch, l)}</td><td>${cell('update', arch, l - 1)}</td>`;
      rows.push(`<tr>${html}</tr>`);
    }
    const tbody = document.createElement('tbody');
    tbody.innerHTML = rows.join(''); // numbers and fixed words only
    const groups = archs.map(() => {
      const g = document.createElement('colgroup');
      g.span = METRICS.length;
      return g;
    });
    const first = document.createElement('colgroup');
    table.replaceChildren(caption, first, ...groups, thead, tbody);
    setAttr(table, 'data-depth', String(L)); // a gain step rebuilds the rows, not the depth
    table.removeAttribute('aria-busy');
  }

  return {
    /**
     * Builds now for a one-off change; while results stream in (a slider being
     * dragged) or for a huge table, once they settle. Rebuilding a thousand
     * cells on every slider step would cost more than drawing the charts.
     */
    update(data) {
      clearTimeout(timer);
      const now = performance.now();
      const streaming = now - lastUpdate < SETTLE_MS;
      lastUpdate = now;
      const cells = (data.out.config.depth + 1) * data.archs.length * METRICS.length;
      if (!streaming && cells <= 20000) {
        build(data);
        return;
      }
      setAttr(table, 'aria-busy', 'true');
      timer = setTimeout(() => build(data), SETTLE_MS);
    },
  };
}
