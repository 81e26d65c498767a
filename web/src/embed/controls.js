// The embeds' controls, built from the declared table (state.js): only the
// fields an author chose to show, each either live or locked (shown, disabled,
// marked "fixed"). Works inside a shadow root: nothing is looked up by id in
// the document.
import { ARCHS, archLabel } from '../shared/archs.js';
import { CONTROLS } from '../shared/state.js';
import { swatch } from '../shared/swatch.js';

let instances = 0;

const el = (tag, props = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('aria-') || k === 'for' || k === 'role') e.setAttribute(k, v);
    else e[k] = v;
  }
  e.append(...kids);
  return e;
};

/**
 * root: the <form> to fill; show: field keys, in the order to show them;
 * lock: keys shown disabled; store: state.js's store.
 */
export function createEmbedControls({ root, show, lock, store }) {
  const prefix = `rn${++instances}`;
  const inputs = []; // {field, input, kind}
  let source = null;

  const fixedMark = () => el('span', { class: 'fixed', text: 'fixed' });

  function numberInput(field, c, extra = {}) {
    return el('input', {
      type: 'number',
      id: `${prefix}-${field}-n`,
      className: 'number',
      min: c.min,
      max: c.max,
      step: c.step,
      inputMode: c.kind === 'real' ? 'decimal' : 'numeric',
      ...extra,
    });
  }

  for (const field of show) {
    const c = CONTROLS[field];
    const locked = lock.includes(field);
    const id = `${prefix}-${field}`;
    if (c.kind === 'choice_list') {
      const fs = el(
        'fieldset',
        { class: 'field arch-field' },
        el('legend', { class: 'field-title', text: c.label }, ...(locked ? [' ', fixedMark()] : [])),
      );
      const chip = (a) => {
        const input = el('input', {
          type: 'checkbox',
          name: `${prefix}-arch`,
          value: a.key,
          id: `${id}-${a.key}`,
          disabled: locked,
        });
        inputs.push({ field, input, kind: 'arch' });
        return el(
          'label',
          { class: `chip chip-${a.key}`, for: input.id },
          input,
          el('span', { class: 'chip-name' }, swatch(a.key), archLabel(a.key)),
        );
      };
      const main = el('div', { class: 'chips' }, ...ARCHS.filter((a) => a.group === 'article').map(chip));
      const more = el(
        'details',
        { class: 'more' },
        el('summary', { text: 'more architectures' }),
        el('div', { class: 'chips' }, ...ARCHS.filter((a) => a.group === 'more').map(chip)),
      );
      fs.append(main, more);
      root.append(fs);
      continue;
    }
    const wrap = el('div', { class: `field field-${field}` });
    const label = el('label', { class: 'field-title', for: c.sliderMax ? id : `${id}-n`, text: c.label });
    if (locked) label.append(' ', fixedMark());
    if (c.kind === 'choice') {
      const select = el(
        'select',
        { id: `${id}-n`, disabled: locked },
        ...c.choices.map((ch) => new Option(c.names?.[ch] ?? String(ch), String(ch))),
      );
      label.htmlFor = select.id;
      inputs.push({ field, input: select, kind: 'choice' });
      wrap.append(label, select);
    } else if (c.sliderMax) {
      const out = el('output', { class: 'value', id: `${id}-v`, for: id });
      const range = el('input', {
        type: 'range',
        id,
        min: c.sliderMin ?? c.min,
        max: c.sliderMax,
        step: c.step,
        disabled: locked,
      });
      const num = numberInput(field, c, { disabled: locked });
      num.setAttribute('aria-label', `${c.label}, exact value (${c.min} to ${c.max})`);
      inputs.push({ field, input: range, kind: 'range', out }, { field, input: num, kind: 'number' });
      wrap.append(el('div', { class: 'field-head' }, label, out), el('div', { class: 'slider-row' }, range, num));
    } else {
      const num = numberInput(field, c, { disabled: locked });
      inputs.push({ field, input: num, kind: 'number' });
      wrap.append(label, num);
    }
    root.append(wrap);
  }

  root.addEventListener('input', (e) => {
    const hit = inputs.find((x) => x.input === e.target);
    if (!hit || hit.input.disabled) return;
    if (hit.kind === 'arch') {
      store.set({ arch: inputs.filter((x) => x.kind === 'arch' && x.input.checked).map((x) => x.input.value) });
      return;
    }
    const c = CONTROLS[hit.field];
    let v;
    if (hit.kind === 'choice') v = c.choices.find((ch) => String(ch) === hit.input.value) ?? hit.input.value;
    else v = hit.input.value.trim() === '' ? NaN : Number(hit.input.value);
    source = hit.input;
    store.set({ [hit.field]: v });
    source = null;
  });
  root.addEventListener('submit', (e) => e.preventDefault());

  function render(config) {
    for (const x of inputs) {
      const v = config[x.field];
      if (x.kind === 'arch') x.input.checked = v.includes(x.input.value);
      else if (x.input === source) {
        /* never rewritten under the cursor */
      } else if (x.kind === 'choice') x.input.value = String(v);
      else if (Number.isFinite(v)) x.input.value = x.field === 'gain' && x.kind === 'number' ? v.toFixed(2) : String(v);
      if (x.kind === 'range') {
        const text =
          x.field === 'gain'
            ? Number.isFinite(v)
              ? v.toFixed(2)
              : '\u2014'
            : Number.isFinite(v)
              ? String(v)
              : '\u2014';
        x.out.value = text;
        x.input.setAttribute('aria-valuetext', x.field === 'depth' ? `${text} layers` : `gain ${text}`);
        x.input.classList.toggle(
          'is-beyond',
          Number.isFinite(v) && (v > Number(x.input.max) || v < Number(x.input.min)),
        );
      }
    }
    if (config.arch.some((a) => ARCHS.find((x) => x.key === a)?.group === 'more')) {
      const more = root.querySelector('details.more');
      if (more) more.open = true;
    }
  }
  render(store.get());
  const unsubscribe = store.subscribe(render);

  return {
    /** The first control of `field` (the tests and the error message point at it). */
    inputOf: (field) => inputs.find((x) => x.field === field)?.input ?? null,
    destroy: unsubscribe,
  };
}
