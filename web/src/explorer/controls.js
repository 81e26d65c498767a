// The form of the explorer view, built from the field table (state.js, from
// the engine's own table): the fields to show, in table order, each live or
// locked (shown, disabled, marked "fixed"), with error messages beside them.
// A field of some architectures only (Mix-LN's share) is hidden while none of them
// is chosen, unless its value is one the engine refuses (its message must be seen).
// Works inside a shadow root: nothing is looked up in the document.
//
//   createControls({ form, store, show, lock, ids, text, sections })
// ids: {prefix, number, value}, the suffixes of a field's ids (the number box
// beside a slider, the slider's value); text: {label(field), hint(field)}
// giving nodes that replace the table's plain label and add a hint (the
// page's, with math); sections: {main, model: element} where the fields of
// that section of the table go (fields of a named section as small fields);
// without one, fields go into the form.
import { ARCHS, archLabel } from '../shared/archs.js';
import { CONTROLS, FIELDS, readField } from '../shared/state.js';
import { fieldApplies, realText } from '../shared/fields.js';
import { el, setAttr, setText } from '../shared/dom.js';
import { swatch } from '../shared/swatch.js';

export const PAGE_IDS = { prefix: '', number: '-number', value: '-value' };

const none = () => null;
/** The text a value is shown with, next to a slider and in the number box. */
const shownNumber = (c, v) => (c.kind === 'real' ? realText(c, v) : String(v));

/**
 * The parts every field is made of, by the field's name: its ids (base, the
 * error box's), its title (the page's label, marked "fixed" when locked), its
 * hint and error boxes and the ids that describe its inputs. ids and text as
 * createControls's.
 */
function fieldKit(ids, text) {
  const labelOf = text.label ?? none;
  const hintOf = text.hint ?? none;
  const base = (field) => `${ids.prefix}${field.replaceAll('_', '-')}`;
  const errorId = (field) => `${base(field)}-error`;
  const fixedMark = () => el('span', { class: 'fixed' }, 'fixed');
  return {
    ids,
    base,
    errorId,
    title: (field, locked) => [labelOf(field) ?? CONTROLS[field].label, locked ? [' ', fixedMark()] : null],
    errorBox: (field) => el('p', { id: errorId(field), class: 'field-error', hidden: true }),
    hintBox: (field) => {
      const hint = hintOf(field);
      return hint ? el('p', { id: `${base(field)}-hint`, class: 'hint' }, hint) : null;
    },
    describedBy: (field) => [hintOf(field) ? `${base(field)}-hint` : null, errorId(field)].filter(Boolean).join(' '),
  };
}

/** The architectures as checkbox chips, the article's first and the others under "more". */
function archField(kit, inputs, field, locked) {
  const id = kit.base(field);
  const chip = (a) => {
    const input = el('input', {
      type: 'checkbox',
      name: `${kit.ids.prefix}arch`,
      value: a.key,
      id: `${id}-${a.key}`,
      disabled: locked,
      'aria-describedby': `${id}-${a.key}-block ${kit.errorId(field)}`,
    });
    inputs.push({ field, input, kind: 'arch' });
    // the block's formula describes the checkbox rather than naming it
    return el(
      'label',
      { class: `chip chip-${a.key}` },
      input,
      el('span', { class: 'chip-name' }, archLabel(a.key), swatch(a.key)),
      el('span', { class: 'chip-block', id: `${id}-${a.key}-block`, 'aria-hidden': 'true' }, a.block),
    );
  };
  const more = ARCHS.filter((a) => a.group === 'more');
  return el(
    'fieldset',
    { id: `${id}-fieldset`, class: 'field arch-field', 'data-field': field },
    el('legend', { class: 'field-title' }, kit.title(field, locked)),
    el('div', { id: `${id}-main`, class: 'chips' }, ARCHS.filter((a) => a.group === 'article').map(chip)),
    el(
      'details',
      { id: `${id}-more`, class: 'more' },
      el('summary', {}, `more: ${[...new Set(more.map((a) => a.short ?? a.label))].join(', ')}`),
      el('div', { id: `${id}-more-list`, class: 'chips' }, more.map(chip)),
    ),
    kit.errorBox(field),
  );
}

/** A number box for the exact value of `field` (c: its control), by id `id`. */
function numberBox(kit, field, c, id, locked) {
  return el('input', {
    type: 'number',
    id,
    class: 'number',
    min: c.min,
    max: c.max,
    step: c.step,
    inputmode: c.kind === 'real' ? 'decimal' : 'numeric',
    disabled: locked,
    'aria-describedby': kit.describedBy(field),
  });
}

/** A slider with its value shown, its marks (if any) and an exact number box beside it. */
function sliderField(kit, inputs, field, c, locked) {
  const { ids } = kit;
  const id = kit.base(field);
  const numberId = `${id}${ids.number}`;
  const min = c.sliderMin ?? c.min;
  const range = el('input', {
    type: 'range',
    id,
    min,
    max: c.sliderMax,
    step: c.step,
    list: c.marks ? `${id}-marks` : null,
    disabled: locked,
    'aria-describedby': kit.describedBy(field),
  });
  const out = el('output', { id: `${id}${ids.value}`, class: 'value', for: `${id} ${numberId}` });
  const num = numberBox(kit, field, c, numberId, locked);
  inputs.push({ field, input: range, kind: 'range', out }, { field, input: num, kind: 'number' });
  let slider = range;
  if (c.marks) {
    // thumb centre = 8px + (100% - 16px) * the mark's fraction of the slider's range
    const ticks = c.marks.map((m) => {
      const tick = el('span', {}, m.toFixed(1));
      tick.style.left = `calc(8px + (100% - 16px) * ${(m - min) / (c.sliderMax - min)})`;
      return tick;
    });
    slider = el('div', { class: 'slider-wrap' }, range, el('div', { class: 'ticks', 'aria-hidden': 'true' }, ticks));
  }
  const plain = c.label;
  return el(
    'div',
    { class: `field field-${field}`, 'data-field': field },
    el('div', { class: 'field-head' }, el('label', { class: 'field-title', for: id }, kit.title(field, locked)), out),
    el(
      'div',
      { class: 'slider-row' },
      slider,
      el(
        'label',
        { class: 'visually-hidden', for: numberId },
        `${plain}, ${c.exact ?? 'exact value'} (${c.min} to ${c.max})`,
      ),
      num,
    ),
    c.marks
      ? el(
          'datalist',
          { id: `${id}-marks` },
          c.marks.map((m) => new Option(m.toFixed(1), m.toFixed(1))),
        )
      : null,
    kit.hintBox(field),
    kit.errorBox(field),
  );
}

/** A select or a number box (small in a named section), with a re-roll button for a seed. */
function smallField(kit, inputs, store, field, c, locked, small) {
  const id = kit.base(field);
  let input;
  if (c.kind === 'choice') {
    input = el(
      'select',
      { id, disabled: locked, 'aria-describedby': kit.describedBy(field) },
      c.choices.map((ch) => new Option(c.names?.[ch] ?? String(ch), String(ch))),
    );
    inputs.push({ field, input, kind: 'choice' });
  } else {
    input = numberBox(kit, field, c, id, locked);
    inputs.push({ field, input, kind: 'number' });
  }
  let control = input;
  if (c.reroll) {
    const reroll = el(
      'button',
      { type: 'button', class: 'secondary', id: `${id}-reroll`, disabled: locked },
      're-roll',
    );
    reroll.addEventListener('click', () => {
      const [v] = crypto.getRandomValues(new Uint32Array(1));
      store.set({ [field]: Math.min(c.max, v) });
    });
    control = el('div', { class: 'seed-row' }, input, reroll);
  }
  const cls = `field field-${field}${small ? ' small' : ''}${c.reroll ? ' seed-field' : ''}`;
  return el(
    'div',
    { class: cls, 'data-field': field },
    el('label', { class: small ? null : 'field-title', for: id }, kit.title(field, locked)),
    control,
    kit.hintBox(field),
    kit.errorBox(field),
  );
}

/** The value of input record x as the store takes it. */
function readValue(x) {
  const c = CONTROLS[x.field];
  if (c.kind === 'choice') return c.choices.find((ch) => String(ch) === x.input.value) ?? x.input.value;
  // '' (empty or unparseable number input) becomes NaN: the engine names it.
  return x.input.value.trim() === '' ? NaN : Number(x.input.value);
}

/** A slider's value in words (aria-valuetext), its beyond-the-slider mark and the value beside it. */
function describeSlider(x, v) {
  const c = CONTROLS[x.field];
  const { min, max } = x.input;
  const beyond = Number.isFinite(v) && (v > Number(max) || v < Number(min));
  let words;
  if (!Number.isFinite(v)) words = `${c.label.split(' ')[0].toLowerCase()} not set`;
  else if (c.unit) {
    const unit = v === 1 ? c.unit.replace(/s$/, '') : c.unit;
    words = v > Number(max) ? `${v} ${unit} (beyond the slider's ${max})` : `${v} ${unit}`;
  } else words = `${c.label.split(' ')[0].toLowerCase()} ${shownNumber(c, v)}${beyond ? ' (outside the slider)' : ''}`;
  setAttr(x.input, 'aria-valuetext', words);
  x.input.classList.toggle('is-beyond', beyond);
  setText(x.out, Number.isFinite(v) ? shownNumber(c, v) : '\u2014');
}

export function createControls({ form, store, show = FIELDS, lock = [], ids = PAGE_IDS, text = {}, sections = {} }) {
  const kit = fieldKit(ids, text);
  const { errorId } = kit;
  const inputs = []; // {field, input, kind: 'arch' | 'choice' | 'range' | 'number', out?}
  let source = null; // the input being edited: never rewritten under the cursor

  const ofArchs = []; // {field, node}: the fields of some architectures only
  for (const field of show) {
    const c = CONTROLS[field];
    const locked = lock.includes(field);
    const into = sections[c.section ?? 'main'];
    let node;
    if (c.kind === 'choice_list') node = archField(kit, inputs, field, locked);
    else if (c.sliderMax !== undefined) node = sliderField(kit, inputs, field, c, locked);
    else node = smallField(kit, inputs, store, field, c, locked, c.section !== undefined && !!into);
    if (c.archs) ofArchs.push({ field, node });
    (into ?? form).append(node);
  }

  const onInput = (e) => {
    const x = inputs.find((i) => i.input === e.target);
    if (!x || x.input.disabled) return;
    if (x.kind === 'arch') {
      store.set({ arch: inputs.filter((i) => i.kind === 'arch' && i.input.checked).map((i) => i.input.value) });
      return;
    }
    source = x.input;
    store.set({ [x.field]: readValue(x) });
    source = null;
    if (x.kind === 'range') describeSlider(x, store.get()[x.field]);
  };
  form.addEventListener('input', onInput);
  const onSubmit = (e) => e.preventDefault();
  form.addEventListener('submit', onSubmit);

  // Writes only what differs from what the controls show, so a slider step
  // restyles nothing but its own field.
  function render(config) {
    for (const x of inputs) {
      const v = config[x.field];
      if (x.kind === 'arch') {
        const on = v.includes(x.input.value);
        if (x.input.checked !== on) x.input.checked = on;
        continue;
      }
      if (x.input !== source) {
        let text = null;
        if (x.kind === 'choice') text = String(v);
        else if (Number.isFinite(v)) text = x.kind === 'number' ? shownNumber(CONTROLS[x.field], v) : String(v);
        if (text !== null && x.input.value !== text) x.input.value = text;
      }
      if (x.kind === 'range') describeSlider(x, v);
    }
    for (const { field, node } of ofArchs) {
      const hidden = !fieldApplies(CONTROLS[field], config) && readField(field, String(config[field])).ok;
      if (node.hidden !== hidden) node.hidden = hidden;
    }
    if (config.arch.some((a) => ARCHS.find((x) => x.key === a)?.group === 'more')) {
      const more = form.querySelector('details.more');
      if (more) more.open = true;
    }
  }
  render(store.get());
  const unsubscribe = store.subscribe(render);

  const byId = (id) => form.querySelector(`[id="${id}"]`);
  return {
    /** The first control of `field` (the tests and the error message point at it). */
    inputOf: (field) => inputs.find((x) => x.field === field)?.input ?? null,
    /**
     * Shows the engine's message next to `field`, or in the form's general
     * error box; returns false when the form has no place for it.
     */
    showError(field, message) {
      this.clearErrors();
      const box = (field && show.includes(field) && byId(errorId(field))) || form.querySelector('.form-error');
      if (!box) return false;
      box.textContent = field === 'arch' ? `Pick at least one architecture. (${message})` : message;
      box.hidden = false;
      box.closest('.field')?.classList.add('has-error');
      for (const x of inputs) if (x.field === field) x.input.setAttribute('aria-invalid', 'true');
      return true;
    },
    clearErrors() {
      for (const box of form.querySelectorAll('.field-error')) {
        if (box.hidden && !box.textContent) continue; // nothing to clear: no write, so no restyle
        box.hidden = true;
        box.textContent = '';
        box.closest('.field')?.classList.remove('has-error');
      }
      for (const x of form.querySelectorAll('[aria-invalid]')) x.removeAttribute('aria-invalid');
    },
    destroy() {
      unsubscribe();
      form.removeEventListener('input', onInput);
      form.removeEventListener('submit', onSubmit);
    },
  };
}
