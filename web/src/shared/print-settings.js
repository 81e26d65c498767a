// The settings of a printout: every field of a field table (state.js's shape:
// the explorer's CONTROLS, the lab's TRAIN_TABLE) that a config reads, as a
// definition list of its label and its value as the page's controls show it.
// The explorer's and the lab's printouts list their settings with it.
//
//   settingsList(config, table, keys)   // <dl class="print-settings-list">
import { archLabel } from './archs.js';
import { fieldApplies, realText } from './fields.js';
import { el } from './dom.js';

/** One value of field `c` (a table's entry) as the controls show it. */
export function valueText(c, v) {
  if (c.kind === 'choice_list') return v.map(archLabel).join(', ');
  if (c.names) return c.names[v] ?? String(v);
  if (c.kind === 'real') return realText(c, v);
  return String(v);
}

/** One printed setting: its label and its text. */
export const settingItem = (key, label, text) =>
  el('div', { class: 'print-setting', 'data-field': key }, el('dt', {}, label), el('dd', {}, text));

/**
 * The fields `keys` of `table` that `config` reads (a field of architectures not chosen left out), in
 * that order, as a definition list; `extra` items ([key, label, text]) first.
 */
export function settingsList(config, table, keys, extra = []) {
  return el(
    'dl',
    { class: 'print-settings-list' },
    extra.map(([key, label, text]) => settingItem(key, label, text)),
    keys
      .filter((k) => fieldApplies(table[k], config))
      .map((k) => settingItem(k, table[k].label, valueText(table[k], config[k]))),
  );
}
