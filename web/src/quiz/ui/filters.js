// The filter form: section, topic (tag), due-only or all, shuffle. Options come from the bank,
// with their counts; a change rebuilds the session's queue.

import { el, replace } from '../../shared/dom.js';
import { SECTION_NAMES, TAG_NAMES } from './item-view.js';

const count = (items, pred) => items.filter(pred).length;

/**
 * @param {{form: HTMLFormElement, section: HTMLSelectElement, tag: HTMLSelectElement,
 *   mode: HTMLSelectElement, shuffle: HTMLInputElement, session: object, onChange: Function}} deps
 */
export function createFilters({ form, section, tag, mode, shuffle, session, onChange }) {
  const items = session.items();
  const sections = Object.keys(SECTION_NAMES).filter((s) => items.some((it) => it.section === s));
  const tags = Object.keys(TAG_NAMES).filter((t) => items.some((it) => it.tags.includes(t)));

  replace(
    section,
    el('option', { value: '' }, `all sections (${items.length})`),
    sections.map((s) => el('option', { value: s }, `${SECTION_NAMES[s]} (${count(items, (it) => it.section === s)})`)),
  );
  replace(
    tag,
    el('option', { value: '' }, 'all topics'),
    tags.map((t) => el('option', { value: t }, `${TAG_NAMES[t]} (${count(items, (it) => it.tags.includes(t))})`)),
  );

  const read = () => ({
    section: section.value || null,
    tag: tag.value || null,
    mode: mode.value === 'all' ? 'all' : 'due',
    shuffle: shuffle.checked,
  });

  form.addEventListener('submit', (e) => e.preventDefault());
  for (const c of [section, tag, mode, shuffle]) c.addEventListener('change', () => onChange(read()));

  return {
    read,
    /** The filter for exports: {section, tag} as export.js takes it. */
    exportFilter: () => {
      const f = read();
      return { ...(f.section ? { section: f.section } : {}), ...(f.tag ? { tag: f.tag } : {}) };
    },
    /** Words for the current section and topic ("Why · LayerNorm"), or null for everything. */
    describe: () => {
      const f = read();
      const parts = [f.section && SECTION_NAMES[f.section], f.tag && TAG_NAMES[f.tag]].filter(Boolean);
      return parts.length ? parts.join(' · ') : null;
    },
    set(patch) {
      if ('mode' in patch) mode.value = patch.mode;
      if ('section' in patch) section.value = patch.section || '';
      if ('tag' in patch) tag.value = patch.tag || '';
      onChange(read());
    },
  };
}
