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

// ---- the item's card: what show() puts on the page ----

/** The line above the question: section, id, tags, and the box it is in. */
function itemMeta(item, rec, deepLinked) {
  return el(
    'p',
    { class: 'item-meta' },
    el('span', { class: 'pill' }, SECTION_NAMES[item.section] || item.section),
    el('span', { class: 'item-id' }, item.id),
    el('span', { class: 'item-tags' }, item.tags.map((t) => TAG_NAMES[t] || t).join(', ')),
    rec ? el('span', { class: 'item-box', 'data-box': rec.box }, `box ${rec.box} of ${BOXES}`) : null,
    rec ? el('span', { class: 'item-seen' }, seenText(rec)) : null,
    deepLinked ? el('span', { class: 'item-linked' }, 'opened from a link') : null,
  );
}

/** The True and False buttons (refs.choices) in their group. */
function choiceArea(refs, choose) {
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
  return el(
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
}

/** The answer box (refs.text) with `draft` in it; Ctrl/Cmd+Enter reveals. */
function textArea(item, refs, { answerLimit, draft, onDraft, reveal }) {
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
  return el(
    'div',
    { class: 'item-answer' },
    el('label', { for: inputId, class: 'answer-label' }, 'Your answer'),
    refs.text,
  );
}

/** The reveal button (refs.reveal) and its hint, in refs.commit. */
function commitArea(item, refs, { isTf, typed, answerHint, reveal }) {
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
  return refs.commit;
}

/** "I got it" / "I missed it" for an item the learner grades. */
function gradeButtons(selfGrade) {
  const button = (good) =>
    el(
      'button',
      {
        type: 'button',
        class: good ? 'secondary good' : 'secondary bad',
        'data-action': good ? 'got-it' : 'missed-it',
        'aria-keyshortcuts': good ? 'G' : 'M',
        onclick: () => selfGrade(good),
      },
      good ? 'I got it' : 'I missed it',
    );
  return el(
    'div',
    { class: 'grade quiz-actions', role: 'group', 'aria-label': 'Grade yourself' },
    el('span', { class: 'grade-q' }, 'Did you get it?'),
    button(true),
    button(false),
  );
}

/** What reveal shows (refs.solution): the learner's answer, the solution, the explanation, grading, experiment. */
function solutionArea(item, refs, { isTf, typed, rec, experiment, selfGrade }) {
  refs.result = el('p', { class: 'item-result', role: 'status', 'aria-live': 'polite' });
  refs.solution = el('section', { class: 'item-solution', 'aria-label': 'Answer', hidden: true });
  refs.yours = typed ? el('div', { class: 'your-answer' }) : null;
  // the answer written the last time this item was asked (quiz page progress), shown once revealed
  refs.before = typed && rec?.answer ? rec.answer : '';
  refs.grade = isTf ? null : gradeButtons(selfGrade);
  refs.graded = el('p', { class: 'item-graded', role: 'status', 'aria-live': 'polite' });
  add(
    refs.solution,
    el('h4', {}, 'Answer'),
    refs.yours,
    el('div', { class: 'solution-text', html: toHtml(item.solution) }),
    item.explanation ? el('div', { class: 'explanation', html: toHtml(item.explanation) }) : null,
    refs.grade,
  );
  refs.experiment = item.experiment ? experiment(item) : null;
  add(refs.solution, refs.experiment);
}

/** The whole card: head, question, answer area, result, solution, and Next/Skip (refs.next). */
function itemArticle(item, refs, { meta, answer, skip, permalink, nextLabel, onNext }) {
  const titleId = `item-title-${item.id}`;
  const lead = item.type === 'open' ? LEAD_FOR_OPEN : LEADS[item.type];
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
  return el(
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
        ? el('a', { class: 'permalink', href: `#quiz/${item.id}`, 'aria-label': `Link to question ${item.id}` }, 'link')
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
}

/** The card for `item` and its parts (refs), wired to `actions` (choose, reveal, selfGrade). */
function itemCard(item, rec, { deepLinked, draft }, options, actions) {
  const { writeAnswer, answerLimit, answerHint, onDraft, commitOnChoice, experiment } = options;
  const isTf = item.type === 'true-false';
  const typed = !isTf && writeAnswer;
  const refs = {};
  let answer;
  if (isTf) answer = choiceArea(refs, actions.choose);
  else if (typed) answer = textArea(item, refs, { answerLimit, draft, onDraft, reveal: actions.reveal });
  else answer = el('div', { class: 'item-answer' });
  const commit = commitArea(item, refs, { isTf, typed, answerHint, reveal: actions.reveal });
  // A choice that commits at once needs no reveal button.
  if (!(isTf && commitOnChoice)) answer.append(commit);
  solutionArea(item, refs, { isTf, typed, rec, experiment, selfGrade: actions.selfGrade });
  const meta = itemMeta(item, rec, deepLinked);
  const article = itemArticle(item, refs, { ...options, meta, answer });
  return { refs, article };
}

// ---- answering: choose, reveal, grade, record ----

/** What the learner wrote (and wrote last time), shown with the solution. */
function yourAnswerNodes(text, before) {
  return [
    text
      ? [el('p', { class: 'your-answer-label' }, 'You wrote:'), el('blockquote', { class: 'your-answer-text' }, text)]
      : el('p', { class: 'your-answer-label' }, 'You committed without writing an answer.'),
    before
      ? [
          el('p', { class: 'your-answer-label' }, 'Last time you wrote:'),
          el('blockquote', { class: 'your-answer-text your-answer-before' }, before),
        ]
      : null,
  ];
}

/**
 * The steps of answering the item `current()` shows ({item, phase, choice, refs, article}, or
 * null): choose, reveal, selfGrade and key, each doing nothing where the phase does not allow it.
 */
function answerSteps(current, { session, onNext, commitOnChoice, nextLabel }) {
  function setPhase(view, phase) {
    view.phase = phase;
    view.article.dataset.phase = phase;
  }

  function choose(value) {
    const view = current();
    if (!view || view.item.type !== 'true-false' || view.phase !== 'ask') return;
    view.choice = value;
    for (const b of view.refs.choices) b.setAttribute('aria-pressed', String(b.dataset.choice === String(value)));
    view.refs.reveal.disabled = false;
    if (commitOnChoice) reveal();
    else view.refs.reveal.focus();
  }

  function revealChoice(view) {
    const { item, refs } = view;
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
    setPhase(view, 'revealed');
    record(view, correct, false);
    refs.next.focus();
    return true;
  }

  function reveal() {
    const view = current();
    if (!view || view.phase !== 'ask') return false;
    if (view.item.type === 'true-false') return revealChoice(view);
    const { refs } = view;
    refs.reveal.disabled = true;
    refs.commit.hidden = true;
    if (refs.text) {
      const text = refs.text.value.trim();
      refs.text.readOnly = true;
      replace(refs.yours, ...yourAnswerNodes(text, refs.before));
    }
    refs.solution.hidden = false;
    refs.result.textContent = 'Here is the model answer. Compare, then grade yourself.';
    setPhase(view, 'revealed');
    refs.grade.querySelector('button').focus();
    return true;
  }

  function selfGrade(correct) {
    const view = current();
    if (!view || view.phase !== 'revealed' || view.item.type === 'true-false') return false;
    for (const b of view.refs.grade.querySelectorAll('button')) {
      b.disabled = true;
      b.setAttribute('aria-pressed', String((b.dataset.action === 'got-it') === correct));
    }
    view.refs.result.dataset.correct = String(correct);
    record(view, correct, true);
    view.refs.next.focus();
    return true;
  }

  function record(view, correct, selfGraded) {
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
    setPhase(view, 'graded');
  }

  /** Handles a shortcut key; returns true if it did something. */
  function key(k) {
    const view = current();
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

  return { choose, reveal, selfGrade, key };
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
  let view = null; // {item, phase, choice, refs, article}
  const steps = answerSteps(() => view, { session, onNext, commitOnChoice, nextLabel });
  const cardOptions = {
    experiment,
    commitOnChoice,
    writeAnswer,
    answerLimit,
    answerHint,
    onDraft,
    skip,
    permalink,
    nextLabel,
    onNext,
  };

  /** Shows `item`; `draft`: text already written in its answer box (a resumed attempt's). */
  function show(item, { deepLinked = false, draft = '' } = {}) {
    const rec = session.record(item.id);
    const { refs, article } = itemCard(item, rec, { deepLinked, draft }, cardOptions, steps);
    replace(host, article);
    view = { item, phase: 'ask', choice: null, refs, article };
  }

  return {
    show,
    key: steps.key,
    /** Puts the focus on the question (after Next or a deep link). */
    focus: () => view?.refs.title.focus(),
    currentId: () => view?.item.id ?? null,
    phase: () => view?.phase ?? null,
    clear: () => {
      view = null;
    },
  };
}
