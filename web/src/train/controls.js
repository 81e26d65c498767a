// The lab's settings, built from the lab's field table (shared/train-fields.js,
// the engine's own table and the lab's seeds): one fieldset per section (task, architectures,
// model, training), the fields marked `more` behind a "More settings" of
// their section, each a menu, a number box or the architectures' checkboxes.
// A value outside its field's range is named beside the field and not taken;
// the engine's own refusals (a head count that does not divide the width, a
// config over the budget) are shown the same way. While a run exists the
// settings are locked: Reset frees them. An embed shows only the fields of
// `show` and fixes those of `lock` (shown, disabled, marked "fixed"): the
// link's value holds for them whatever the reader does. A field of some
// presets only (Mix-LN's share) is hidden while none of them is chosen; what
// was typed into it and not taken is dropped then, so nothing unseen holds Start back.
//
//   const c = createTrainControls({ form, store, prefix, show, lock });
//   c.invalid()            // the fields whose box holds a value not taken
//   c.reasons()            // what is wrong with each of them, as the line beside it says
//   c.showError(field, message); c.clearErrors(); c.lock(true | false)
import { ARCHS, archLabel } from '../shared/archs.js';
import { el, setAttr, setText } from '../shared/dom.js';
import { readField } from '../shared/state.js';
import { swatch } from '../shared/swatch.js';
import { LAB_KEYS, LAB_TABLE, TRAIN_SECTIONS } from '../shared/train-fields.js';
import { fieldApplies } from '../shared/fields.js';

const SECTION_TITLES = { task: 'Data', arch: 'Architectures', model: 'Model', training: 'Training', more: 'More' };

/** The "fixed" mark beside a field an embed locks, or nothing. */
const fixedMarkOf = (lock, field) => (lock.includes(field) ? [' ', el('span', { class: 'fixed' }, 'fixed')] : null);

function errorLine(id) {
  return el('p', { id: `${id}-error`, class: 'field-error', hidden: true });
}

// ---- the fields: each makes its node and keeps its box in `boxes` (field -> {kind, inputs, error, node})

/** The architectures' checkboxes: the article's shown, the others behind a "more". */
function archPicker(field, { idOf, lock, boxes }) {
  const c = LAB_TABLE[field];
  const checks = [];
  const option = (a) => {
    const input = el('input', {
      type: 'checkbox',
      id: `${idOf(field)}-${a.key}`,
      value: a.key,
      disabled: lock.includes(field),
      'aria-describedby': `${idOf(field)}-error`,
    });
    checks.push(input);
    return el(
      'label',
      { class: `chip chip-${a.key}` },
      input,
      el('span', { class: 'chip-name' }, archLabel(a.key), swatch(a.key)),
    );
  };
  const article = ARCHS.filter((a) => a.group === 'article' && c.choices.includes(a.key));
  const others = ARCHS.filter((a) => a.group !== 'article' && c.choices.includes(a.key));
  const error = errorLine(idOf(field));
  boxes.set(field, { kind: 'arch', inputs: checks, error });
  return el(
    'div',
    { class: 'field', 'data-field': field },
    el('div', { class: 'chips' }, article.map(option)),
    el(
      'details',
      { class: 'more', id: `${idOf(field)}-more` },
      el('summary', {}, `more: ${[...new Set(others.map((a) => a.short ?? a.label))].join(', ')}`),
      el('div', { class: 'chips' }, others.map(option)),
    ),
    error,
  );
}

/** A menu (a choice) or a number box, with a re-roll button for a field that has one (the seed). */
function menuOrBox(field, { idOf, lock, boxes, store }) {
  const c = LAB_TABLE[field];
  const id = idOf(field);
  const error = errorLine(id);
  const hint = c.help ? el('span', { class: 'visually-hidden', id: `${id}-help` }, `: ${c.help}`) : null;
  const described = [hint && `${id}-help`, `${id}-error`].filter(Boolean).join(' ');
  let input;
  if (c.kind === 'choice') {
    input = el(
      'select',
      { id, disabled: lock.includes(field), 'aria-describedby': described },
      c.choices.map((v) => new Option(c.names?.[v] ?? String(v), String(v))),
    );
  } else {
    input = el('input', {
      id,
      type: 'number',
      class: 'number',
      min: c.min,
      max: c.max,
      step: c.step ?? 1,
      inputmode: c.kind === 'real' ? 'decimal' : 'numeric',
      disabled: lock.includes(field),
      'aria-describedby': described,
    });
  }
  const box = { kind: c.kind === 'choice' ? 'choice' : 'number', inputs: [input], error, node: null };
  boxes.set(field, box);
  let control = input;
  if (c.reroll) {
    const again = el(
      'button',
      { type: 'button', class: 'secondary', id: `${id}-reroll`, disabled: lock.includes(field) },
      're-roll',
    );
    again.addEventListener('click', () => {
      const [v] = crypto.getRandomValues(new Uint32Array(1));
      store.set({ [field]: Math.min(c.max, v) });
    });
    control = el('div', { class: 'seed-row' }, input, again);
  }
  box.node = el(
    'div',
    { class: `field small field-${field}`, 'data-field': field, title: c.help ?? null },
    el('label', { for: id }, c.label, fixedMarkOf(lock, field), hint),
    control,
    error,
  );
  return box.node;
}

/** The settings' layout: one fieldset per section of the fields of `show`, its `more` fields behind "More settings". */
function settingsLayout({ prefix, show, lock, node }) {
  const settings = el('fieldset', { class: 'train-settings' });
  for (const section of TRAIN_SECTIONS) {
    const fields = LAB_KEYS.filter((k) => show.includes(k) && (LAB_TABLE[k].section ?? 'more') === section);
    if (!fields.length) continue;
    const main = fields.filter((k) => !LAB_TABLE[k].more || section === 'more');
    const more = fields.filter((k) => LAB_TABLE[k].more && section !== 'more');
    settings.append(
      el(
        'fieldset',
        { class: `field train-section train-section-${section}`, id: `${prefix}section-${section}` },
        // the architectures' checkboxes have no label of their own: their section's legend says they are fixed
        el(
          'legend',
          { class: 'field-title' },
          SECTION_TITLES[section] ?? section,
          main.filter((k) => LAB_TABLE[k].kind === 'choice_list').map((k) => fixedMarkOf(lock, k)),
        ),
        main.length ? el('div', { class: section === 'arch' ? null : 'grid2' }, main.map(node)) : null,
        more.length
          ? el(
              'details',
              { class: 'more train-more', id: `${prefix}more-${section}` },
              el('summary', {}, 'More settings'),
              el('div', { class: 'grid2' }, more.map(node)),
            )
          : null,
      ),
    );
  }
  return settings;
}

/** The message beside a field of `boxes`: shown (setError; false when there is no such field) and cleared. */
function fieldErrors(boxes) {
  function setError(field, message) {
    const b = boxes.get(field);
    if (!b) return false;
    b.error.textContent = message;
    b.error.hidden = false;
    b.error.closest('.field')?.classList.add('has-error');
    for (const i of b.inputs) i.setAttribute('aria-invalid', 'true');
    // a field behind "More settings" opens it, so its message is seen
    const more = b.error.closest('details');
    if (more) more.open = true;
    return true;
  }
  function clearError(field) {
    const b = boxes.get(field);
    if (!b || b.error.hidden) return; // nothing shown: nothing written, so Start restyles nothing
    b.error.hidden = true;
    b.error.textContent = '';
    b.error.closest('.field')?.classList.remove('has-error');
    for (const i of b.inputs) i.removeAttribute('aria-invalid');
  }
  return { setError, clearError };
}

// The note holds its line in both states: a line that appeared at Start would move every setting below it.
const LOCK_NOTE = {
  free: 'Start locks these settings until Reset.',
  locked: 'Reset the run to change its settings.',
};

export function createTrainControls({ form, store, prefix = 'train-', show = LAB_KEYS, lock = [] }) {
  const idOf = (field) => `${prefix}${field.replaceAll('_', '-')}`;
  const boxes = new Map(); // field -> {input(s), error, kind}
  const invalid = new Set();
  // the field whose typed value is being taken: its box keeps the text as typed ("1e-3" stays
  // "1e-3"); every other box, focused or not, shows the store's value
  let typing = null;

  const lockNote = el('p', { class: 'hint train-lock-note', 'data-locked': 'false' }, LOCK_NOTE.free);
  const made = { idOf, lock, boxes, store };
  const node = (k) => (LAB_TABLE[k].kind === 'choice_list' ? archPicker(k, made) : menuOrBox(k, made));
  const settings = settingsLayout({ prefix, show, lock, node });
  // an embed that shows no setting, or fixes every one it shows, has nothing for Start to lock
  // or Reset to free, so no note
  lockNote.hidden =
    !settings.childElementCount || show.filter((k) => LAB_KEYS.includes(k)).every((k) => lock.includes(k));
  form.append(lockNote, settings);

  const { setError, clearError } = fieldErrors(boxes);

  // A typed value is read through the field table, as a link's is: out of range or not a number is named, not taken.
  function onInput(e) {
    for (const [field, b] of boxes) {
      if (!b.inputs.includes(e.target)) continue;
      if (b.kind === 'arch') {
        const arch = b.inputs.filter((i) => i.checked).map((i) => i.value);
        if (!arch.length) {
          invalid.add(field);
          setError(field, 'Pick at least one architecture.');
          return;
        }
        invalid.delete(field);
        clearError(field);
        store.set({ arch });
        return;
      }
      const r = readField(field, e.target.value.trim(), LAB_TABLE);
      if (!r.ok) {
        invalid.add(field);
        setError(field, `${LAB_TABLE[field].label}: ${r.reason}.`);
        return;
      }
      invalid.delete(field);
      clearError(field);
      typing = field;
      try {
        store.set({ [field]: r.value });
      } finally {
        typing = null;
      }
      return;
    }
  }
  form.addEventListener('input', onInput);
  form.addEventListener('change', onInput);
  const onSubmit = (e) => e.preventDefault();
  form.addEventListener('submit', onSubmit);

  function render(config) {
    for (const [field, b] of boxes) {
      if (LAB_TABLE[field].archs) {
        const hidden = !fieldApplies(LAB_TABLE[field], config);
        if (b.node.hidden !== hidden) b.node.hidden = hidden;
        if (hidden && invalid.has(field)) {
          invalid.delete(field);
          clearError(field);
        }
      }
      if (invalid.has(field)) continue;
      const v = config[field];
      if (b.kind === 'arch') {
        for (const i of b.inputs) i.checked = v.includes(i.value);
        if (b.inputs.some((i) => i.checked && ARCHS.find((a) => a.key === i.value)?.group !== 'article'))
          form.querySelector(`#${idOf(field)}-more`).open = true;
      } else if (field !== typing || b.kind === 'choice') b.inputs[0].value = String(v);
    }
  }
  render(store.get());
  const unsubscribe = store.subscribe(render);

  return {
    /** The fields whose box holds a value that was not taken. */
    invalid: () => [...invalid],
    /** Each of those fields' message ("Peak learning rate: out of range (allowed 0..10)."). */
    reasons: () => [...invalid].map((field) => boxes.get(field).error.textContent),
    /** The control of `field` (tests and error messages point at it). */
    inputOf: (field) => boxes.get(field)?.inputs[0] ?? null,
    /** The engine's message beside `field`; false when the form has no such field. */
    showError(field, message) {
      return setError(field, message);
    },
    clearErrors() {
      for (const field of boxes.keys()) if (!invalid.has(field)) clearError(field);
    },
    /** Settings locked (a run exists) or free. */
    lock(locked) {
      if (settings.disabled !== locked) settings.disabled = locked;
      setAttr(lockNote, 'data-locked', String(locked));
      setText(lockNote, locked ? LOCK_NOTE.locked : LOCK_NOTE.free);
    },
    /** Every value on screen from the store again, dropping what was typed and not taken. */
    reset() {
      for (const field of [...invalid]) {
        invalid.delete(field);
        clearError(field);
      }
      render(store.get());
    },
    destroy() {
      unsubscribe();
      form.removeEventListener('input', onInput);
      form.removeEventListener('change', onInput);
      form.removeEventListener('submit', onSubmit);
    },
  };
}
