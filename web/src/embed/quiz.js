// The quiz without the surrounding page, for embed.html#mode=quiz and
// <resnorm-quiz>: the chosen bank items (items=tf-01,why-03, or every item of
// section=/tag=), one at a time, in the quiz page's item view
// (../quiz/ui/item-view.js, asked in its shorter embed form), with a score for
// this visit. Nothing is saved: an embed on someone else's page keeps no
// progress in that page's storage. The bank is loaded on first use (a chunk
// with no imports of its own, so loading it adds nothing to the host page's
// <head>); the item view's styles are adopted by the embed's shadow root.
// An open or find-error item has an answer box; what is written there is the
// answer event's `response`. The score follows the quiz fields' grading
// (../quiz/grading.js: self-graded answers counted or not, the pass mark), shown
// in the head and, after the last question, as passed or not.
// `resume: {index, answers: [{index, correct, selfGraded}], draft?}` continues an
// earlier visit (the SCORM launch page's suspended attempt): the score of those
// answers, at question `index`, with nothing emitted for them, and the text the
// learner had written there (`draft`) back in its box.
import { createItemView } from '../quiz/ui/item-view.js';
import itemCss from '../quiz/ui/item-view.css?inline';
import { matches } from '../quiz/schedule.js';
import { newSession, record } from '../quiz/score.js';
import { ANSWER_LIMIT, attemptScore, gradingOf, itemReport, scoreLine, verdictText } from '../quiz/grading.js';
import { el, typingTarget } from '../shared/dom.js';
import { showNotices } from '../shared/notice.js';

let bankPromise = null;
export const loadBank = () => (bankPromise ??= import('../quiz/bank.json?math').then((m) => m.default));

let itemSheet = null;

/** Adds the item view's styles to the shadow root (or document) `root` is in. */
function adoptItemStyles(root) {
  const scope = root.getRootNode();
  if (!scope.adoptedStyleSheets) return;
  if (!itemSheet) {
    itemSheet = new CSSStyleSheet();
    itemSheet.replaceSync(itemCss);
  }
  if (!scope.adoptedStyleSheets.includes(itemSheet))
    scope.adoptedStyleSheets = [...scope.adoptedStyleSheets, itemSheet];
}

/** The items of `bank` a quiz state asks for, in order, and notices for ids the bank does not have. */
export function selectQuizItems(bank, quiz) {
  const byId = new Map(bank.items.map((it) => [it.id, it]));
  const notices = [];
  let items;
  if (quiz.items.length) {
    items = quiz.items.map((id) => byId.get(id)).filter(Boolean);
    const missing = quiz.items.filter((id) => !byId.has(id));
    if (missing.length)
      notices.push({ field: 'items', value: missing.join(','), reason: 'no such question in the bank; left out' });
  } else items = bank.items;
  const filter = {
    section: quiz.section.length ? quiz.section : undefined,
    tag: quiz.tag.length ? quiz.tag : undefined,
  };
  items = items.filter((it) => matches(it, filter));
  return { items, notices };
}

/** Mounts the quiz once the bank is there; returns {destroy()} at once. */
export function mountQuizEmbed(root, options) {
  let gone = false;
  const ac = new AbortController();
  root.textContent = 'loading the questions\u2026';
  loadBank().then(
    (bank) => {
      if (gone) return;
      adoptItemStyles(root);
      mountWithBank(root, bank, options, ac.signal);
    },
    (e) => {
      if (!gone) root.textContent = `The questions could not be loaded: ${e.message}`;
    },
  );
  return {
    destroy: () => {
      gone = true;
      ac.abort();
    },
  };
}

// The item view's session for one visit: the answers (for the grading's score)
// and score.js's counts, no boxes, nothing stored; `answers` are earlier answers
// ({index, correct, selfGraded}) to count in, `kinds` each question's kind.
function visitSession(kinds, grading, answers = []) {
  const start = () => ({ list: [], counts: newSession(Date.now()) });
  let visit = start();
  const add = (index, correct, selfGraded) => {
    visit.list.push({ index, kind: kinds[index] ?? '', correct: correct === true, selfGraded: selfGraded === true });
    visit.counts = record(visit.counts, { correct: correct === true, selfGraded: selfGraded === true });
  };
  for (const a of answers) add(a.index, a.correct, a.selfGraded);
  return {
    record: () => null,
    add,
    counts: () => visit.counts,
    score: () => attemptScore(visit.list, kinds, grading),
    restart() {
      visit = start();
    },
  };
}

/** The score fields of the `score` event (events.js), from grading.js's attemptScore. */
const scoreFields = ({ raw, max, scaled, answered, selfGraded, passMark }) => ({
  raw,
  max,
  scaled,
  answered,
  selfGraded,
  passMark,
});

/** The fields of the `answer` event (events.js) for question `index`, `item`. */
function answerFields(id, index, item, correct, options, grading) {
  const selfGraded = options.selfGraded === true;
  return {
    item: id,
    index,
    kind: item?.type ?? '',
    response: options.response ?? '',
    correct: correct === true,
    selfGraded,
    counts: itemReport({ kind: item?.type ?? '', correct, selfGraded }, grading).counts,
    time: new Date().toISOString(),
  };
}

/** The card after the last question: the verdict and "Start again", or why there are no questions. */
function finishedCard(count, verdict, onRestart) {
  if (!count) return el('p', {}, 'No questions match these settings.');
  return el(
    'div',
    { class: 'quiz-item' },
    el('h3', {}, 'Done'),
    el('p', { class: 'quiz-verdict', dataset: { passed: String(verdict.passed) } }, verdictText(verdict)),
    el('div', { class: 'quiz-actions' }, el('button', { type: 'button', onclick: onRestart }, 'Start again')),
  );
}

function mountWithBank(
  root,
  bank,
  {
    state,
    siteUrl,
    onPaint = () => {},
    onEvent = () => {},
    noticeSource = 'link',
    resume = null,
    answerLimit = ANSWER_LIMIT,
    answerHint = null,
    onDraft = null,
  },
  signal,
) {
  const { items, notices } = selectQuizItems(bank, state.quiz);
  const grading = gradingOf(state.quiz);
  const kinds = items.map((it) => it.type);
  const session = visitSession(kinds, grading, resume?.answers);
  let index = resume ? Math.min(Math.max(0, Math.trunc(resume.index) || 0), items.length) : 0;
  let draft = resume && typeof resume.draft === 'string' ? resume.draft : '';

  const notice = el('div', { class: 'notice', role: 'status' });
  showNotices(notice, [...state.notices, ...notices], { source: noticeSource });
  const progress = el('span');
  const score = el('span', { class: 'quiz-score', role: 'status' });
  const card = el('div', { class: 'quiz-card' });
  const more = el(
    'a',
    { class: 'open-full', href: new URL('quiz.html', siteUrl).href, target: '_blank', rel: 'noopener' },
    'All the questions \u2197',
  );
  root.replaceChildren(
    notice,
    el('div', { class: 'quiz-head' }, progress, score),
    card,
    el('div', { class: 'foot' }, more),
  );

  const publish = () =>
    onPaint({
      quiz: {
        items: items.map((it) => it.id),
        index,
        current: items[index]?.id ?? null,
        session: { ...session.counts() },
        score: session.score(),
      },
    });

  const view = createItemView({
    host: card,
    session: {
      record: session.record,
      answer(id, correct, options = {}) {
        session.add(index, correct, options.selfGraded);
        draft = '';
        const now = session.score();
        score.textContent = scoreLine(now);
        publish();
        onEvent('answer', answerFields(id, index, items[index], correct, options, grading));
        onEvent('score', scoreFields(now));
        if (index === items.length - 1) onEvent('complete', { ...scoreFields(now), passed: now.passed });
      },
    },
    onNext: () => {
      index++;
      show();
      view.focus();
    },
    commitOnChoice: true,
    writeAnswer: true,
    answerLimit,
    answerHint,
    onDraft: onDraft && ((id, text) => onDraft(index, text)),
    skip: false,
    permalink: false,
    nextLabel: () => (index + 1 < items.length ? 'Next question' : 'Finish'),
  });

  // "Question 2 of 6 · pass mark 80 %" (no pass mark where nothing is scored)
  function progressText() {
    if (!items.length) return '';
    const now = session.score();
    const mark = now.max > 0 && now.passMark !== null ? ` \u00b7 pass mark ${now.passMark} %` : '';
    return `Question ${Math.min(index + 1, items.length)} of ${items.length}${mark}`;
  }

  function show() {
    progress.textContent = progressText();
    score.textContent = scoreLine(session.score());
    if (index < items.length) {
      view.show(items[index], { draft });
      draft = '';
    } else {
      view.clear();
      card.replaceChildren(
        finishedCard(items.length, session.score(), () => {
          session.restart();
          index = 0;
          show();
        }),
      );
    }
    publish();
  }

  // The item view's keys (T/F, R, G/M, N), inside this embed only.
  root.addEventListener(
    'keydown',
    (e) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.repeat || typingTarget(e.target)) return;
      const k = e.key.length === 1 ? e.key.toLowerCase() : '';
      if (k && view.key(k)) e.preventDefault();
    },
    { signal },
  );

  show();
  onEvent('ready', { items: items.map((it) => it.id) });
}
