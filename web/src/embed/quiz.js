// The quiz without the surrounding page, for embed.html#mode=quiz and
// <resnorm-quiz>: the chosen bank items (items=tf-01,why-03, or every item of
// section=/tag=), one at a time, in the quiz page's item view
// (../quiz/ui/item-view.js, asked in its shorter embed form), with a score for
// this visit. Nothing is saved: an embed on someone else's page keeps no
// progress in that page's storage. The bank is loaded on first use (a chunk
// with no imports of its own, so loading it adds nothing to the host page's
// <head>); the item view's styles are adopted by the embed's shadow root.
// `resume: {index, answers: [{correct, selfGraded}]}` continues an earlier visit
// (the SCORM launch page's suspended attempt): the score of those answers, at
// question `index`, with nothing emitted for them.
import { createItemView } from '../quiz/ui/item-view.js';
import itemCss from '../quiz/ui/item-view.css?inline';
import { matches } from '../quiz/schedule.js';
import { newSession, record, summary } from '../quiz/score.js';
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

// The item view's session for one visit: a score, no boxes, nothing stored;
// `answers` are earlier answers to count in.
function visitSession(answers = []) {
  let score = answers.reduce(
    (s, a) => record(s, { correct: a.correct === true, selfGraded: a.selfGraded === true }),
    newSession(Date.now()),
  );
  return {
    record: () => null,
    answer(id, correct, { selfGraded = false } = {}) {
      score = record(score, { correct: correct === true, selfGraded });
    },
    score: () => score,
    restart() {
      score = newSession(Date.now());
    },
  };
}

/** The score fields of the `score` and `complete` events (events.js) for `total` questions. */
export function scoreFields(session, total) {
  return {
    raw: session.correct,
    max: total,
    scaled: total > 0 ? session.correct / total : 0,
    answered: session.answered,
    selfGraded: session.selfGraded,
  };
}

function mountWithBank(
  root,
  bank,
  { state, siteUrl, onPaint = () => {}, onEvent = () => {}, noticeSource = 'link', resume = null },
  signal,
) {
  const { items, notices } = selectQuizItems(bank, state.quiz);
  const session = visitSession(resume?.answers);
  let index = resume ? Math.min(Math.max(0, Math.trunc(resume.index) || 0), items.length) : 0;

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
        session: { ...session.score() },
      },
    });

  const view = createItemView({
    host: card,
    session: {
      record: session.record,
      answer(id, correct, options = {}) {
        session.answer(id, correct, options);
        score.textContent = summary(session.score());
        publish();
        const item = items[index];
        onEvent('answer', {
          item: id,
          index,
          kind: item?.type ?? '',
          response: options.response ?? '',
          correct: correct === true,
          selfGraded: options.selfGraded === true,
          time: new Date().toISOString(),
        });
        const fields = scoreFields(session.score(), items.length);
        onEvent('score', fields);
        if (index === items.length - 1) onEvent('complete', fields);
      },
    },
    onNext: () => {
      index++;
      show();
      view.focus();
    },
    commitOnChoice: true,
    writeAnswer: false,
    skip: false,
    permalink: false,
    nextLabel: () => (index + 1 < items.length ? 'Next question' : 'Finish'),
  });

  function show() {
    progress.textContent = items.length ? `Question ${Math.min(index + 1, items.length)} of ${items.length}` : '';
    score.textContent = summary(session.score());
    if (index < items.length) view.show(items[index]);
    else {
      view.clear();
      card.replaceChildren(
        items.length
          ? el(
              'div',
              { class: 'quiz-item' },
              el('h3', {}, 'Done'),
              el('p', {}, `${summary(session.score())}.`),
              el(
                'div',
                { class: 'quiz-actions' },
                el(
                  'button',
                  {
                    type: 'button',
                    onclick: () => {
                      session.restart();
                      index = 0;
                      show();
                    },
                  },
                  'Start again',
                ),
              ),
            )
          : el('p', {}, 'No questions match these settings.'),
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
