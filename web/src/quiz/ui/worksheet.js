// The printed worksheet of the quiz page: the questions of the chosen scope (the whole bank, or the
// current section and topic, as for the exports), numbered, each with its text (math as on screen),
// True / False boxes for true/false items and ruled lines to write on for the others; then, from a
// new page, the answer key: each number with the model answer and the explanation.
//
// The worksheet lives in `host`, which only print media shows (print.css); it is rebuilt from the
// current scope before every print, so Ctrl+P prints the same sheet as the "Print worksheet"
// button.

import { selectItems, LEADS } from '../export.js';
import { toHtml } from '../text.js';
import { el, replace } from '../../shared/dom.js';

/**
 * Ruled lines to answer on: about one per 70 characters of the model answer (its text, without the
 * MathML markup of its math), 2 to 6.
 */
export function answerLines(item) {
  const text = String(item.solution).replace(/<[^>]*>/g, '');
  return Math.max(2, Math.min(6, Math.round(text.length / 70)));
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A numbered entry of the worksheet or of its key. */
const numbered = (cls, item, n, body) =>
  el(
    'li',
    { class: cls, 'data-id': item.id },
    el('span', { class: 'ws-num' }, `${n}.`),
    el('div', { class: 'ws-body' }, body),
  );

function question(item, n) {
  const answer =
    item.type === 'true-false'
      ? el(
          'p',
          { class: 'ws-choices' },
          el('span', { class: 'ws-box', 'aria-hidden': 'true' }),
          ' True',
          el('span', { class: 'ws-box', 'aria-hidden': 'true' }),
          ' False',
        )
      : el(
          'div',
          { class: 'ws-lines', 'aria-hidden': 'true' },
          Array.from({ length: answerLines(item) }, () => el('span', { class: 'ws-line' })),
        );
  return numbered('ws-question', item, n, [
    LEADS[item.type] ? el('p', { class: 'ws-lead' }, LEADS[item.type]) : null,
    el('div', { class: 'ws-prompt', html: toHtml(item.prompt) }),
    answer,
  ]);
}

function keyEntry(item, n) {
  return numbered('ws-answer', item, n, [
    el('div', { class: 'ws-solution', html: toHtml(item.solution) }),
    item.explanation ? el('div', { class: 'ws-explanation', html: toHtml(item.explanation) }) : null,
    el('p', { class: 'ws-id' }, item.id),
  ]);
}

/**
 * The worksheet's nodes for `items` (bank items, math already MathML). `scope`: words for what was
 * chosen ("Why · LayerNorm"), or null for the whole bank.
 */
export function worksheetNodes(items, scope = null) {
  const what = scope ? `${plural(items.length, 'question')}: ${scope}` : `the whole bank, ${items.length} questions`;
  const head = el(
    'header',
    { class: 'ws-head' },
    el('h1', {}, 'Residual connections and norm placement: worksheet'),
    el('p', { class: 'ws-scope' }, `resnorm question bank, ${what}.`),
    el('p', { class: 'ws-name' }, el('span', {}, 'Name'), el('span', {}, 'Date')),
  );
  if (items.length === 0) return [head, el('p', {}, 'No question has this section and topic.')];
  return [
    head,
    el(
      'ol',
      { class: 'ws-questions' },
      items.map((it, i) => question(it, i + 1)),
    ),
    el(
      'section',
      { class: 'ws-key', 'aria-label': 'Answer key' },
      el('h2', {}, 'Answer key'),
      el('p', { class: 'ws-scope' }, `Model answers to the ${plural(items.length, 'question')} of this worksheet.`),
      el(
        'ol',
        { class: 'ws-answers' },
        items.map((it, i) => keyEntry(it, i + 1)),
      ),
    ),
  ];
}

/**
 * @param {{host: HTMLElement, bank: object, scope: HTMLSelectElement, filter: () => object,
 *   describe: () => string|null, button: HTMLButtonElement, status: HTMLElement}} deps
 *   bank: the bank with math rendered; scope: the exports' select ('all' or 'filter'); filter(): the
 *   current {section, tag}; describe(): its words; status: where the button reports.
 */
export function createWorksheet({ host, bank, scope, filter, describe, button, status }) {
  /** Rebuilds the worksheet for the current scope; returns its number of questions. */
  function render() {
    const current = scope.value === 'filter';
    const items = selectItems(bank, current ? filter() : {});
    replace(host, worksheetNodes(items, current ? describe() : null));
    return items.length;
  }

  button.addEventListener('click', () => {
    const n = render();
    if (n === 0) {
      status.textContent = 'No questions in the current section and topic: nothing to print.';
      return;
    }
    status.textContent = `Worksheet: ${plural(n, 'question')} and the answer key.`;
    window.print();
  });

  return { render };
}
