// The form: inputs <-> the store, the arch chips, and per-field error messages.
// Ranges, steps and choices come from the CONTROLS table in state.js; the
// labels and hints are in index.html.
import { ARCHS, archLabel } from '../shared/archs.js';
import { CONTROLS } from '../shared/state.js';
import { swatch } from '../shared/swatch.js';

const $ = (id) => document.getElementById(id);

// input id -> config field
const FIELD_OF = {
  depth: 'depth',
  'depth-number': 'depth',
  gain: 'gain',
  'gain-number': 'gain',
  width: 'width',
  tokens: 'tokens',
  expansion: 'expansion',
  activation: 'activation',
  init: 'init',
  'final-norm': 'final_norm',
  seed: 'seed',
};
const ERROR_ID = (field) => `${field.replace('_', '-')}-error`;

export function createControls({ store }) {
  const form = $('controls');
  buildArchChips();
  setUpInputs();

  let source = null; // the input being edited: never rewritten under the cursor
  form.addEventListener('input', (e) => {
    const el = e.target;
    if (el.name === 'arch') {
      store.set({ arch: [...form.querySelectorAll('input[name=arch]:checked')].map((c) => c.value) });
      return;
    }
    const field = FIELD_OF[el.id];
    if (!field) return;
    source = el;
    store.set({ [field]: readValue(el, field) });
    source = null;
    if (el.id === 'depth' || el.id === 'gain') describeSlider(el, store.get()[field]);
  });
  form.addEventListener('submit', (e) => e.preventDefault());
  $('reroll').addEventListener('click', () => {
    const [seed] = crypto.getRandomValues(new Uint32Array(1));
    store.set({ seed });
  });

  function render(config) {
    for (const input of form.querySelectorAll('input[name=arch]')) input.checked = config.arch.includes(input.value);
    const more = config.arch.some((a) => ARCHS.find((x) => x.key === a)?.group === 'more');
    if (more) $('arch-more').open = true;
    for (const [id, field] of Object.entries(FIELD_OF)) {
      const el = $(id);
      if (el === source) continue;
      const v = config[field];
      if (el.type === 'range') {
        if (Number.isFinite(v)) el.value = String(v);
        describeSlider(el, v);
      } else if (el.tagName === 'SELECT') el.value = String(v);
      else el.value = Number.isFinite(v) ? (field === 'gain' ? v.toFixed(2) : String(v)) : el.value;
    }
  }

  render(store.get());
  store.subscribe(render);

  return {
    /** Shows the engine's message next to `field` (or above the form if it has no place). */
    showError(field, message) {
      this.clearErrors();
      const box = (field && $(ERROR_ID(field))) || $('form-error');
      box.textContent = field === 'arch' ? `Pick at least one architecture. (${message})` : message;
      box.hidden = false;
      box.closest('.field')?.classList.add('has-error');
      for (const [id, f] of Object.entries(FIELD_OF)) if (f === field) $(id).setAttribute('aria-invalid', 'true');
    },
    clearErrors() {
      for (const box of form.querySelectorAll('.field-error')) {
        box.hidden = true;
        box.textContent = '';
        box.closest('.field')?.classList.remove('has-error');
      }
      for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
    },
  };
}

function readValue(el, field) {
  const c = CONTROLS[field];
  if (c.kind === 'choice') return c.choices.find((ch) => String(ch) === el.value) ?? el.value;
  // '' (empty or unparseable number input) becomes NaN: the engine names it.
  return el.value.trim() === '' ? NaN : Number(el.value);
}

function describeSlider(el, v) {
  const field = FIELD_OF[el.id];
  const out = $(`${el.id}-value`);
  let text;
  if (!Number.isFinite(v)) text = field === 'depth' ? 'depth not set' : 'gain not set';
  else if (field === 'depth')
    text = v > Number(el.max) ? `${v} layers (beyond the slider's ${el.max})` : `${v} ${v === 1 ? 'layer' : 'layers'}`;
  else text = `gain ${v.toFixed(2)}${v < Number(el.min) || v > Number(el.max) ? ' (outside the slider)' : ''}`;
  el.setAttribute('aria-valuetext', text);
  el.classList.toggle('is-beyond', Number.isFinite(v) && (v > Number(el.max) || v < Number(el.min)));
  if (out)
    out.value = field === 'depth' ? (Number.isFinite(v) ? String(v) : '—') : Number.isFinite(v) ? v.toFixed(2) : '—';
}

function buildArchChips() {
  const chip = (a) => {
    const label = document.createElement('label');
    label.className = `chip chip-${a.key}`;
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.name = 'arch';
    input.value = a.key;
    input.id = `arch-${a.key}`;
    const text = document.createElement('span');
    text.className = 'chip-name';
    text.append(archLabel(a.key), swatch(a.key));
    // the block's formula describes the checkbox rather than naming it
    const block = document.createElement('span');
    block.className = 'chip-block';
    block.id = `arch-${a.key}-block`;
    block.textContent = a.block;
    block.setAttribute('aria-hidden', 'true'); // out of the name; still the description
    input.setAttribute('aria-describedby', `${block.id} arch-error`);
    label.append(input, text, block);
    return label;
  };
  $('arch-main').replaceChildren(...ARCHS.filter((a) => a.group === 'article').map(chip));
  $('arch-more-list').replaceChildren(...ARCHS.filter((a) => a.group === 'more').map(chip));
}

function setUpInputs() {
  const d = CONTROLS.depth,
    g = CONTROLS.gain;
  Object.assign($('depth'), { min: d.min, max: d.sliderMax, step: d.step });
  Object.assign($('depth-number'), { min: d.min, max: d.max, step: d.step });
  Object.assign($('gain'), { min: g.sliderMin, max: g.sliderMax, step: g.step });
  Object.assign($('gain-number'), { min: g.min, max: g.max, step: g.step });
  $('gain-marks').replaceChildren(...g.marks.map((m) => new Option(m.toFixed(1), m.toFixed(1))));
  for (const f of ['width', 'tokens', 'seed'])
    Object.assign($(f), { min: CONTROLS[f].min, max: CONTROLS[f].max, step: CONTROLS[f].step });
  for (const [id, f] of [
    ['expansion', 'expansion'],
    ['activation', 'activation'],
    ['init', 'init'],
    ['final-norm', 'final_norm'],
  ]) {
    const c = CONTROLS[f];
    $(id).replaceChildren(...c.choices.map((ch) => new Option(c.names?.[ch] ?? String(ch), String(ch))));
  }
  for (const [id, field] of Object.entries(FIELD_OF)) {
    const el = $(id);
    const ids = [el.getAttribute('aria-describedby'), ERROR_ID(field)].filter(Boolean);
    el.setAttribute('aria-describedby', [...new Set(ids.join(' ').split(' '))].join(' '));
  }
}
