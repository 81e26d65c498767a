// Exports for course authors: the whole bank or the current section/topic as a Moodle GIFT file and
// as an Anki TSV file, straight from quiz/export.js on the raw bank (math kept as TeX). The raw bank
// is loaded only when an export is asked for.

import { toGift, toAnkiTsv, selectItems } from '../export.js';

const FORMATS = {
  gift: { make: toGift, ext: 'gift.txt', name: 'Moodle GIFT' },
  tsv: { make: toAnkiTsv, ext: 'tsv', name: 'Anki TSV' },
};

const slug = (s) =>
  String(s)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** The file name for an export: resnorm-quiz[-section][-tag].<ext>. */
export function exportFileName(format, filter = {}) {
  const parts = ['resnorm-quiz', filter.section, filter.tag].filter(Boolean).map(slug);
  return `${parts.join('-')}.${FORMATS[format].ext}`;
}

/** The file's text (what the download holds). */
export function exportText(format, rawBank, filter = {}) {
  const title =
    filter.section || filter.tag
      ? `resnorm question bank (${[filter.section && `section ${filter.section}`, filter.tag && `topic ${filter.tag}`].filter(Boolean).join(', ')})`
      : 'resnorm question bank';
  return format === 'gift' ? toGift(rawBank, { ...filter, title }) : toAnkiTsv(rawBank, filter);
}

function download(text, name) {
  const blob = new Blob([text], { type: 'text/plain;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/**
 * @param {{scope: HTMLSelectElement, gift: HTMLButtonElement, tsv: HTMLButtonElement,
 *   status: HTMLElement, filter: () => object}} deps filter(): the current {section, tag}
 */
export function createExportMenu({ scope, gift, tsv, status, filter }) {
  let raw = null;
  const rawBank = () => (raw ??= import('../bank.json').then((m) => m.default));

  async function run(format) {
    const f = scope.value === 'filter' ? filter() : {};
    try {
      const bank = await rawBank();
      const n = selectItems(bank, f).length;
      if (n === 0) {
        status.textContent = 'No questions in the current section and topic: nothing to export.';
        return;
      }
      const name = exportFileName(format, f);
      download(exportText(format, bank, f), name);
      status.textContent = `${FORMATS[format].name}: ${n} question${n === 1 ? '' : 's'} in ${name}.`;
    } catch (e) {
      raw = null;
      status.textContent = `The export failed: ${e && e.message ? e.message : e}`;
    }
  }

  gift.addEventListener('click', () => run('gift'));
  tsv.addEventListener('click', () => run('tsv'));
}
