// Exports of the question bank for course authors: Moodle GIFT and an Anki-importable TSV.
// Pure string functions: the UI offers the result as a download.
//
// Both carry HTML (text.js texToHtml: HTML-escaped text, **bold**, `code`, newlines as <br>) with
// the math left as TeX in \( ... \) and \[ ... \], which Moodle's MathJax filter and Anki's
// built-in MathJax render.
//
// GIFT (Moodle): one question per block, blocks separated by a blank line, each on one line:
//   ::tf-01::[html]Question text{FALSE####general feedback}     true/false
//   ::err-01::[html]Find the error...: text{####general feedback} essay (find-error and open items)
// The general feedback is the solution, then the explanation. In GIFT the characters ~ = # { } :
// are markup; in text they are written \~ \= \# \{ \} \: and a literal backslash is \\ (Moodle's
// importer first turns \\ into a placeholder, then the escapes, then the placeholder back into one
// backslash; it also reads \n as a newline, so an unescaped \nabla would break). So every backslash
// is doubled first and then the special characters are escaped: TeX \frac{a}{b} is written
// \\frac\{a\}\{b\} and \( is written \\(.
//
// TSV (Anki): a header telling Anki the separator, that fields are HTML, that the first column is
// the note's GUID and where the tags are, then one note per line: id<TAB>front<TAB>back<TAB>tags.
// The id is the item's bank id (tf-01), so importing an updated bank again matches each note by its
// GUID and updates it instead of adding a duplicate. No raw tab or newline inside a field (tabs
// become spaces, newlines <br>); double quotes are written &quot; so Anki's importer never mistakes
// a field for a quoted CSV field, and a leading # as &#35; so no line reads as a comment. Tags are
// space-separated: resnorm::<tag> for each topic tag and resnorm::section::<section>.

import { texToHtml } from './text.js';
import { matches } from './schedule.js';

/** Lead-in shown before the prompt, per item type. */
export const LEADS = Object.freeze({
  'true-false': 'True or false?',
  'find-error': 'Find the error in this statement:',
  open: '',
});

const itemsOf = (bank) => (Array.isArray(bank) ? bank : bank && Array.isArray(bank.items) ? bank.items : []);

/**
 * The items of a bank that pass a filter (schedule.js matches: section and tag), in bank order.
 * @param {object|object[]} bank
 * @param {{section?: string|string[], tag?: string|string[], ids?: string[]}} [filter]
 */
export function selectItems(bank, filter = {}) {
  const ids = Array.isArray(filter.ids) ? new Set(filter.ids) : null;
  return itemsOf(bank).filter((it) => matches(it, filter) && (!ids || ids.has(it.id)));
}

// One line of HTML from bank text (tabs to spaces first: a tab is never meaningful in the bank).
const html = (text) => texToHtml(String(text ?? '').replace(/\t/g, ' '), { paragraphs: false });

/** Question side as HTML: the lead-in (if any) and the prompt. */
export function frontHtml(item) {
  const lead = LEADS[item.type] || '';
  return lead ? `${lead}<br>${html(item.prompt)}` : html(item.prompt);
}

/** Answer side as HTML: the solution, then the explanation (if any). */
export function backHtml(item) {
  const parts = [html(item.solution)];
  if (typeof item.explanation === 'string' && item.explanation.trim()) parts.push(html(item.explanation));
  return parts.join('<br><br>');
}

/**
 * Text for a GIFT file: backslashes doubled, then ~ = # { } : escaped with a backslash.
 * @param {string} text
 * @returns {string}
 */
export function giftEscape(text) {
  return String(text)
    .replace(/\\/g, '\\\\')
    .replace(/[~=#{}:]/g, (c) => `\\${c}`);
}

/**
 * One GIFT question (a single line).
 * @param {object} item a bank item
 * @returns {string}
 */
export function giftQuestion(item) {
  const name = giftEscape(item.id);
  const text = giftEscape(frontHtml(item));
  const feedback = giftEscape(backHtml(item));
  const answer = item.type === 'true-false' ? (item.answer ? 'TRUE' : 'FALSE') : '';
  return `::${name}::[html]${text}{${answer}####${feedback}}`;
}

/**
 * A GIFT file: a comment header, then the questions, separated by blank lines.
 * @param {object|object[]} bank the bank or a list of items
 * @param {{section?, tag?, ids?, title?: string}} [options] filter, and a title for the header
 * @returns {string}
 */
export function toGift(bank, options = {}) {
  const items = selectItems(bank, options);
  const title = String(options.title ?? 'resnorm question bank').replace(/[\r\n]+/g, ' ');
  const header = [
    `// ${title}: ${items.length} question${items.length === 1 ? '' : 's'}`,
    '// Moodle GIFT: HTML question text, TeX math for the MathJax filter.',
  ].join('\n');
  return `${[header, ...items.map(giftQuestion)].join('\n\n')}\n`;
}

/**
 * A TSV field: HTML, no tabs or newlines, double quotes as &quot;, and a leading # as &#35; (Anki
 * reads a line that starts with # as a comment or header line).
 */
const tsvField = (s) =>
  s
    .replace(/\t/g, ' ')
    .replace(/\r?\n|\r/g, '<br>')
    .replace(/"/g, '&quot;')
    .replace(/^#/, '&#35;');

/** Anki tags for an item: resnorm::<tag> ... resnorm::section::<section>. */
export function ankiTags(item) {
  const safe = (s) => String(s).replace(/\s+/g, '_');
  const tags = (Array.isArray(item.tags) ? item.tags : []).map((t) => `resnorm::${safe(t)}`);
  tags.push(`resnorm::section::${safe(item.section)}`);
  return tags.join(' ');
}

/**
 * The Anki file header (lines starting with #), read by Anki 2.1.55 and later: column 1 is the
 * note's GUID (the bank id), columns 2 and 3 the Front and Back fields, column 4 the tags.
 */
export const ANKI_HEADER =
  '#separator:tab\n#html:true\n#guid column:1\n#tags column:4\n#columns:id\tFront\tBack\tTags\n';

/**
 * An Anki TSV file: the header (unless header: false), then id<TAB>front<TAB>back<TAB>tags per item.
 * @param {object|object[]} bank the bank or a list of items
 * @param {{section?, tag?, ids?, header?: boolean}} [options]
 * @returns {string}
 */
export function toAnkiTsv(bank, options = {}) {
  const lines = selectItems(bank, options).map((it) =>
    [String(it.id), frontHtml(it), backHtml(it), ankiTags(it)].map(tsvField).join('\t'),
  );
  return `${options.header === false ? '' : ANKI_HEADER}${lines.join('\n')}\n`;
}
