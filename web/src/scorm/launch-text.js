// The words both packages' launch pages (the quiz's and an assignment's) share:
// a question's text for the LMS's report (SCORM 2004's interaction
// description: the bank's prompt as one line of plain text, its math written
// out: a fraction as a/b, powers and indices as ^ and _, roots as sqrt(...)),
// and the answer box's hint.
import { toHtml } from '../quiz/text.js';
import { ANSWER_LIMIT } from '../quiz/grading.js';

function mathText(node) {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE) return '';
  const parts = [...node.childNodes].map(mathText);
  const group = (t) => (t.length > 1 ? `(${t})` : t);
  switch (node.localName) {
    case 'mfrac':
      return `${group(parts[0])}/${group(parts[1])}`;
    case 'msup':
      return `${parts[0]}^${group(parts[1])}`;
    case 'msub':
      return `${parts[0]}_${group(parts[1])}`;
    case 'msubsup':
      return `${parts[0]}_${group(parts[1])}^${group(parts[2])}`;
    case 'msqrt':
      return `sqrt(${parts.join('')})`;
    case 'annotation':
      return '';
    default:
      return parts.join('');
  }
}

/** The prompt of a bank item as plain text. */
export function promptText(item) {
  const box = document.createElement('div');
  box.innerHTML = toHtml(item.prompt);
  for (const m of box.querySelectorAll('math')) m.replaceWith(mathText(m));
  return box.textContent;
}

/** The answer box's hint for a runtime (scorm/runtime.js): where the text goes and how much of it is kept. */
export const answerHint = ({ recording, answerLimit }) =>
  recording
    ? `Write your answer, then reveal the model answer and grade yourself: your answer (at most ${answerLimit ?? ANSWER_LIMIT} characters) and your self-assessment go to the LMS.`
    : 'Write your answer, then reveal the model answer and grade yourself. Nothing here is recorded.';
