// One bank item, asked the commit-before-reveal way:
//   ask       true/false: the learner picks True or False (and may change it) and reveals;
//             open and find-error: the learner writes a short answer (or leaves it empty) and
//             presses "Commit and reveal". Nothing of the answer is on the page before that.
//   revealed  the solution, the explanation and the live experiment; a true/false item is graded
//             at once, an open one waits for "I got it" / "I missed it".
//   graded    the box it went to; "Next question".
// The live experiment's check starts when the item is shown, so its verdict is usually ready by
// the time the answer is revealed.
//
// The quiz page and the quiz embed (../../embed/quiz.js) both show items with this view. The embed
// asks in fewer steps: a true/false choice commits at once, "Next" appears once the item is graded,
// and its session keeps no boxes (record(id) gives null); its answer box may be limited in length
// (what an LMS keeps) and its text kept as a draft while it is written (`onDraft`).

import { toHtml } from '../text.js';
import { LEADS } from '../export.js';
import { BOXES } from '../store.js';
import { intervalMs, DAY_MS } from '../schedule.js';
import { el, replace, add } from '../../shared/dom.js';

export const SECTION_NAMES = Object.freeze({
  'true-false': 'True or false',
  'spot-the-error': 'Spot the error',
  why: 'Why',
  'edge-cases': 'Edge cases',
  recall: 'Recall',
  'rapid-fire': 'Rapid fire',
});

export const TAG_NAMES = Object.freeze({
  residuals: 'residual connections',
  layernorm: 'LayerNorm',
  placement: 'norm placement',
  warmup: 'warmup',
  rmsnorm: 'RMSNorm',
  init: 'initialization',
});

const LEAD_FOR_OPEN = 'Answer in a sentence or two:';

const seenText = (rec) => (rec.seen > 0 ? `answered ${rec.seen}×, right ${rec.correct}×` : 'new');

function waitText(ms) {
  if (ms <= 0) return "it stays in this session's reviews";
  const days = Math.round(ms / DAY_MS);
  return `next review in ${days} day${days === 1 ? '' : 's'}`;
}

/**
 * @param {{host: HTMLElement, session: {record: (id) => object|null, answer: Function},
 *   onNext: () => void, experiment?: (item) => Node|null, commitOnChoice?: boolean,
 *   writeAnswer?: boolean, answerLimit?: number|null, answerHint?: string|null,
 *   onDraft?: ((id: string, text: string) => void)|null, skip?: boolean, permalink?: boolean,
 *   nextLabel?: (item) => string}} deps
 *   experiment: the live experiment block shown with the answer (experiment.js experimentBlock);
 *   commitOnChoice: a true/false choice reveals at once; writeAnswer: open items get an answer box;
 *   answerLimit: the box's most characters; answerHint: the box's hint in place of the default;
 *   onDraft: the box's text as it is written, before it is committed;
 *   skip: "Skip" before grading (else "Next" shows once graded); permalink: the #quiz/<id> link.
 */
export function createItemView({
  host,
  session,
  onNext,
  experiment = () => null,
  commitOnChoice = false,
  writeAnswer = true,
  answerLimit = null,
  answerHint = null,
  onDraft = null,
  skip = true,
  permalink = true,
  nextLabel = () => 'Next question',
}) {
  let view = null; // {item, phase, choice, refs}

  /** Shows `item`; `draft`: text already written in its answer box (a resumed attempt's). */
  function show(item, { deepLinked = false, draft = '' } = {}) {
    const rec = session.record(item.id);
    const isTf = item.type === 'true-false';
    const titleId = `item-title-${item.id}`;
    const lead = item.type === 'open' ? LEAD_FOR_OPEN : LEADS[item.type];
    const refs = {};

    const meta = el(
      'p',
      { class: 'item-meta' },
      el('span', { class: 'pill' }, SECTION_NAMES[item.section] || item.section),
      el('span', { class: 'item-id' }, item.id),
      el('span', { class: 'item-tags' }, item.tags.map((t) => TAG_NAMES[t] || t).join(', ')),
      rec ? el('span', { class: 'item-box', 'data-box': rec.box }, `box ${rec.box} of ${BOXES}`) : null,
      rec ? el('span', { class: 'item-seen' }, seenText(rec)) : null,
      deepLinked ? el('span', { class: 'item-linked' }, 'opened from a link') : null,
    );
    const typed = !isTf && writeAnswer;

    // ---- the answer area ----
    let answer;
    if (isTf) {
      refs.choices = [true, false].map((v) =>
        el(
          'button',
          {
            type: 'button',
            class: 'choice',
            'aria-pressed': 'false',
            'data-choice': String(v),
            'aria-keyshortcuts': v ? 'T' : 'F',
            onclick: () => choose(v),
          },
          v ? 'True' : 'False',
        ),
      );
      answer = el(
        'div',
        { class: 'item-answer' },
        el(
          'div',
          {
            class: 'choices quiz-actions',
            role: 'group',
            'aria-label': 'Your answer: is the statement true or false?',
          },
          refs.choices,
        ),
      );
    } else if (typed) {
      const inputId = `answer-${item.id}`;
      refs.text = el('textarea', {
        id: inputId,
        class: 'answer-text',
        rows: '3',
        'aria-describedby': `commit-hint-${item.id}`,
        spellcheck: 'true',
        maxlength: answerLimit ? String(answerLimit) : null,
      });
      refs.text.value = answerLimit ? String(draft).slice(0, answerLimit) : String(draft);
      if (onDraft) refs.text.addEventListener('input', () => onDraft(item.id, refs.text.value));
      refs.text.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          reveal();
        }
      });
      answer = el(
        'div',
        { class: 'item-answer' },
        el('label', { for: inputId, class: 'answer-label' }, 'Your answer'),
        refs.text,
      );
    } else answer = el('div', { class: 'item-answer' });
    refs.reveal = el(
      'button',
      {
        type: 'button',
        class: 'primary',
        'data-action': 'reveal',
        'aria-keyshortcuts': 'R',
        disabled: isTf ? true : null,
        onclick: () => reveal(),
      },
      typed ? 'Commit and reveal' : 'Reveal the answer',
    );
    refs.commit = el(
      'div',
      { class: 'item-commit' },
      el('div', { class: 'item-actions quiz-actions' }, refs.reveal),
      el(
        'p',
        { class: 'hint', id: `commit-hint-${item.id}` },
        isTf
          ? 'Pick one first; the answer shows after you commit.'
          : typed
            ? (answerHint ??
              'Write what you think (a few words are enough), or just commit to an answer in your head; then reveal and grade yourself.')
            : 'Commit to an answer in your head, then reveal and grade yourself.',
      ),
    );
    // A choice that commits at once needs no reveal button.
    if (!(isTf && commitOnChoice)) answer.append(refs.commit);

    // ---- what reveal shows ----
    refs.result = el('p', { class: 'item-result', role: 'status', 'aria-live': 'polite' });
    refs.solution = el('section', { class: 'item-solution', 'aria-label': 'Answer', hidden: true });
    const yours = typed ? el('div', { class: 'your-answer' }) : null;
    refs.yours = yours;
    // the answer written the last time this item was asked (quiz page progress), shown once revealed
    refs.before = typed && rec?.answer ? rec.answer : '';
    refs.grade = isTf
      ? null
      : el(
          'div',
          { class: 'grade quiz-actions', role: 'group', 'aria-label': 'Grade yourself' },
          el('span', { class: 'grade-q' }, 'Did you get it?'),
          el(
            'button',
            {
              type: 'button',
              class: 'secondary good',
              'data-action': 'got-it',
              'aria-keyshortcuts': 'G',
              onclick: () => selfGrade(true),
            },
            'I got it',
          ),
          el(
            'button',
            {
              type: 'button',
              class: 'secondary bad',
              'data-action': 'missed-it',
              'aria-keyshortcuts': 'M',
              onclick: () => selfGrade(false),
            },
            'I missed it',
          ),
        );
    refs.graded = el('p', { class: 'item-graded', role: 'status', 'aria-live': 'polite' });
    add(
      refs.solution,
      el('h4', {}, 'Answer'),
      yours,
      el('div', { class: 'solution-text', html: toHtml(item.solution) }),
      item.explanation ? el('div', { class: 'explanation', html: toHtml(item.explanation) }) : null,
      refs.grade,
    );
    refs.experiment = item.experiment ? experiment(item) : null;
    add(refs.solution, refs.experiment);

    refs.next = el(
      'button',
      {
        type: 'button',
        class: 'secondary',
        'data-action': 'next',
        'aria-keyshortcuts': 'N',
        hidden: !skip,
        onclick: () => onNext(),
      },
      skip ? 'Skip' : nextLabel(item),
    );
    refs.title = el('h3', { id: titleId, class: 'item-lead', tabindex: '-1' }, lead);
    const article = el(
      'article',
      {
        class: 'card quiz-item',
        'aria-labelledby': `${titleId} prompt-${item.id}`,
        dataset: { id: item.id, phase: 'ask', type: item.type },
      },
      el(
        'header',
        { class: 'item-head' },
        meta,
        permalink
          ? el(
              'a',
              { class: 'permalink', href: `#quiz/${item.id}`, 'aria-label': `Link to question ${item.id}` },
              'link',
            )
          : null,
      ),
      refs.title,
      el('div', { class: 'quiz-prompt', id: `prompt-${item.id}`, html: toHtml(item.prompt) }),
      answer,
      refs.result,
      refs.solution,
      refs.graded,
      el('div', { class: 'item-nav quiz-actions' }, refs.next),
    );
    replace(host, article);
    view = { item, phase: 'ask', choice: null, refs, article };
  }

  function setPhase(phase) {
    view.phase = phase;
    view.article.dataset.phase = phase;
  }

  function choose(value) {
    if (!view || view.item.type !== 'true-false' || view.phase !== 'ask') return;
    view.choice = value;
    for (const b of view.refs.choices) b.setAttribute('aria-pressed', String(b.dataset.choice === String(value)));
    view.refs.reveal.disabled = false;
    if (commitOnChoice) reveal();
    else view.refs.reveal.focus();
  }

  function reveal() {
    if (!view || view.phase !== 'ask') return false;
    const { item, refs } = view;
    if (item.type === 'true-false') {
      if (view.choice === null) {
        refs.result.textContent = 'Pick True or False first.';
        refs.choices[0].focus();
        return false;
      }
      for (const b of refs.choices) b.disabled = true;
      const correct = view.choice === item.answer;
      refs.result.textContent = `${correct ? 'Right' : 'Not quite'}: the statement is ${item.answer ? 'true' : 'false'} (you said ${view.choice ? 'true' : 'false'}).`;
      refs.result.dataset.correct = String(correct);
      refs.reveal.disabled = true;
      refs.commit.hidden = true;
      refs.solution.hidden = false;
      setPhase('revealed');
      record(correct, false);
      refs.next.focus();
      return true;
    }
    refs.reveal.disabled = true;
    refs.commit.hidden = true;
    if (refs.text) {
      const text = refs.text.value.trim();
      refs.text.readOnly = true;
      replace(
        refs.yours,
        text
          ? [
              el('p', { class: 'your-answer-label' }, 'You wrote:'),
              el('blockquote', { class: 'your-answer-text' }, text),
            ]
          : el('p', { class: 'your-answer-label' }, 'You committed without writing an answer.'),
        refs.before
          ? [
              el('p', { class: 'your-answer-label' }, 'Last time you wrote:'),
              el('blockquote', { class: 'your-answer-text your-answer-before' }, refs.before),
            ]
          : null,
      );
    }
    refs.solution.hidden = false;
    refs.result.textContent = 'Here is the model answer. Compare, then grade yourself.';
    setPhase('revealed');
    refs.grade.querySelector('button').focus();
    return true;
  }

  function selfGrade(correct) {
    if (!view || view.phase !== 'revealed' || view.item.type === 'true-false') return false;
    for (const b of view.refs.grade.querySelectorAll('button')) {
      b.disabled = true;
      b.setAttribute('aria-pressed', String((b.dataset.action === 'got-it') === correct));
    }
    view.refs.result.dataset.correct = String(correct);
    record(correct, true);
    view.refs.next.focus();
    return true;
  }

  function record(correct, selfGraded) {
    const { item, refs } = view;
    const response = item.type === 'true-false' ? String(view.choice) : (refs.text?.value.trim() ?? '');
    session.answer(item.id, correct, { selfGraded, response });
    const rec = session.record(item.id);
    if (rec) {
      refs.graded.textContent = `Recorded${selfGraded ? ` as ${correct ? 'got it' : 'missed'}` : ''}: box ${rec.box} of ${BOXES}, ${waitText(intervalMs(rec.box))}.`;
      const box = view.article.querySelector('.item-box');
      box.textContent = `box ${rec.box} of ${BOXES}`;
      box.dataset.box = rec.box;
      view.article.querySelector('.item-seen').textContent = seenText(rec);
    }
    refs.next.textContent = nextLabel(item);
    refs.next.hidden = false;
    setPhase('graded');
  }

  /** Handles a shortcut key; returns true if it did something. */
  function key(k) {
    if (!view) return false;
    const tf = view.item.type === 'true-false';
    switch (k) {
      case 't':
        if (tf && view.phase === 'ask') {
          choose(true);
          return true;
        }
        return false;
      case 'f':
        if (tf && view.phase === 'ask') {
          choose(false);
          return true;
        }
        return false;
      case 'r':
        return view.phase === 'ask' ? reveal() : false;
      case 'g':
        return selfGrade(true);
      case 'm':
        return selfGrade(false);
      case 'n':
        if (view.refs.next.hidden) return false;
        onNext();
        return true;
      default:
        return false;
    }
  }

  return {
    show,
    key,
    /** Puts the focus on the question (after Next or a deep link). */
    focus: () => view?.refs.title.focus(),
    currentId: () => view?.item.id ?? null,
    phase: () => view?.phase ?? null,
    clear: () => {
      view = null;
    },
  };
}
