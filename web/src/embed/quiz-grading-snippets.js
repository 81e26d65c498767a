// The quiz snippets with the teacher's grading: snippets.js's quiz link, iframe and element, plus
// the grading fields of state.js's quiz group (self_graded, pass_mark) where they differ from
// their defaults, and an iframe height that holds a self-graded question's answer box.
import { escapeAttr, frameSnippet, questionHeight, quizSnippet, quizUrl } from './snippets.js';
import { FIELDS_TABLE, stateToHash, writeField } from '../shared/state.js';
import { isSelfGradedKind } from '../quiz/grading.js';

/** The grading fields, in table order. */
const GRADING_KEYS = ['self_graded', 'pass_mark'];

/**
 * What an open or find-error question's answer box adds in px at a 420 px column once revealed:
 * its label, the three-line box and the line under the answer heading that quotes it (measured
 * in Chromium by tests/browser/quiz-embed-builder.test.js).
 */
export const ANSWER_BOX_420 = 150;

/** The grading fields ({self_graded, pass_mark}) that differ from their defaults, as [key, text] pairs. */
const changed = (grading) =>
  GRADING_KEYS.filter((k) => grading[k] !== undefined)
    .map((k) => [k, writeField(k, grading[k])])
    .filter(([k, v]) => v !== writeField(k, FIELDS_TABLE[k].default));

/** embed.html for a choice of questions (snippets.js's QuizChoice) with `grading`'s fields. */
export function gradedQuizUrl(siteUrl, choice, view, grading) {
  const url = quizUrl(siteUrl, choice, view); // always has #mode=quiz
  const extra = stateToHash({ quiz: grading }, { groups: ['quiz'] }).slice(1);
  return extra ? `${url}&${extra}` : url;
}

/** The iframe's height: the tallest of `items` revealed, with the answer box of a self-graded one. */
export const gradedQuizHeight = (items) =>
  Math.max(...items.map((it) => questionHeight(it) + (isSelfGradedKind(it.type) ? ANSWER_BOX_420 : 0)));

/** The iframe of the quiz for a choice of `items` (the bank items it comes to), graded by `grading`. */
export function gradedQuizIframeSnippet({ siteUrl, choice, items, view = {}, grading = {}, title }) {
  const n = items.length;
  title ??= `resnorm quiz: ${n} question${n === 1 ? '' : 's'}`;
  const src = gradedQuizUrl(siteUrl, choice, view, grading);
  return frameSnippet({ siteUrl, src, title, height: gradedQuizHeight(items) });
}

/** <resnorm-quiz> for a choice of questions and `theme`, with `grading`'s attributes. */
export function gradedQuizSnippet({ siteUrl, theme = 'auto', grading = {}, ...choice }) {
  const attrs = changed(grading).map(([k, v]) => ` ${k.replaceAll('_', '-')}="${escapeAttr(v)}"`);
  return quizSnippet({ siteUrl, theme, ...choice }).replace(
    /<resnorm-quiz([^>]*)>/,
    `<resnorm-quiz$1${attrs.join('')}>`,
  );
}
