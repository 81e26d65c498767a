// The quiz without the surrounding page, for embed.html#mode=quiz and
// <resnorm-quiz>: the chosen bank items (items=tf-01,why-03, or every item of
// section=/tag=), one at a time, asked the commit-before-reveal way, with a
// score for this visit. Built on the quiz's pure modules (../quiz/): the bank
// with its math rendered at build time, text.js's toHtml (escaped text and
// allow-listed MathML only), score.js. Nothing is saved: an embed on someone
// else's page keeps no progress in that page's storage. The bank is loaded on
// first use (a chunk with no imports of its own, so loading it adds nothing to
// the host page's <head>).
import { toHtml } from '../quiz/text.js';
import { matches } from '../quiz/schedule.js';
import { newSession, record, summary } from '../quiz/score.js';
import { showNotices } from '../shared/notice.js';

export const SECTION_NAMES = {
  'true-false': 'True or false',
  'spot-the-error': 'Spot the error',
  why: 'Why',
  'edge-cases': 'Edge cases',
  recall: 'Recall',
  'rapid-fire': 'Rapid fire',
};
const LEADS = {
  'true-false': 'True or false?',
  'find-error': 'Find the error in this statement:',
  open: 'Answer in a sentence or two, then reveal:',
};

const el = (tag, props = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k === 'html')
      e.innerHTML = v; // toHtml() output only
    else if (k.startsWith('aria-') || k === 'role' || k === 'for') e.setAttribute(k, v);
    else e[k] = v;
  }
  e.append(...kids);
  return e;
};

let bankPromise = null;
export const loadBank = () => (bankPromise ??= import('../quiz/bank.json?math').then((m) => m.default));

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
  root.textContent = 'loading the questions\u2026';
  loadBank().then(
    (bank) => {
      if (!gone) mountWithBank(root, bank, options);
    },
    (e) => {
      if (!gone) root.textContent = `The questions could not be loaded: ${e.message}`;
    },
  );
  return {
    destroy: () => {
      gone = true;
    },
  };
}

function mountWithBank(root, bank, { state, siteUrl, onPaint = () => {}, noticeSource = 'link' }) {
  const { items, notices } = selectQuizItems(bank, state.quiz);
  let session = newSession(Date.now());
  let index = 0;
  const answers = new Map(); // id -> {correct}

  const notice = el('div', { class: 'notice', role: 'status' });
  showNotices(notice, [...state.notices, ...notices], { source: noticeSource });
  const head = el('div', { class: 'quiz-head' });
  const progress = el('span');
  const score = el('span', { class: 'quiz-score', role: 'status' });
  head.append(progress, score);
  const card = el('div', { class: 'quiz-card' });
  const more = el('a', {
    class: 'open-full',
    href: new URL('quiz.html', siteUrl).href,
    target: '_blank',
    rel: 'noopener',
    text: 'All the questions \u2197',
  });
  root.replaceChildren(notice, head, card, el('div', { class: 'foot' }, more));

  const publish = () =>
    onPaint({
      quiz: { items: items.map((it) => it.id), index, current: items[index]?.id ?? null, session: { ...session } },
    });

  function show() {
    progress.textContent = items.length ? `Question ${Math.min(index + 1, items.length)} of ${items.length}` : '';
    score.textContent = summary(session);
    if (!items.length) {
      card.replaceChildren(el('p', { text: 'No questions match these settings.' }));
      publish();
      return;
    }
    if (index >= items.length) {
      card.replaceChildren(
        el(
          'div',
          { class: 'quiz-item' },
          el('h3', { text: 'Done' }),
          el('p', { text: `${summary(session)}.` }),
          el(
            'div',
            { class: 'quiz-actions' },
            button('Start again', () => {
              session = newSession(Date.now());
              answers.clear();
              index = 0;
              show();
            }),
          ),
        ),
      );
      publish();
      return;
    }
    const item = items[index];
    const titleId = `q-${item.id}`;
    const article = el('article', { class: 'quiz-item', 'aria-labelledby': titleId });
    article.dataset.id = item.id;
    article.dataset.phase = 'ask';
    const title = el('h3', { id: titleId, text: `${SECTION_NAMES[item.section] ?? item.section} \u00b7 ${item.id}` });
    const lead = el('p', { class: 'quiz-lead', text: LEADS[item.type] ?? '' });
    const prompt = el('div', { class: 'quiz-prompt', html: toHtml(item.prompt) });
    const feedback = el('div', { class: 'quiz-feedback', role: 'status', hidden: true });
    const actions = el('div', { class: 'quiz-actions' });
    const next = button(index + 1 < items.length ? 'Next question' : 'Finish', () => {
      index++;
      show();
      card.querySelector('h3')?.focus();
    });
    next.hidden = true;
    title.tabIndex = -1;

    const reveal = (correct, extra) => {
      article.dataset.phase = 'revealed';
      feedback.replaceChildren(
        ...extra,
        el('div', { html: toHtml(item.solution) }),
        ...(item.explanation ? [el('div', { class: 'quiz-explanation', html: toHtml(item.explanation) })] : []),
      );
      feedback.hidden = false;
      if (correct !== null) grade(correct);
    };
    const grade = (correct) => {
      session = record(session, { correct, selfGraded: item.type !== 'true-false' });
      answers.set(item.id, { correct });
      feedback.dataset.correct = String(correct);
      score.textContent = summary(session);
      next.hidden = false;
      next.focus();
      publish();
    };

    if (item.type === 'true-false') {
      const choices = [true, false].map((v) => {
        const b = button(v ? 'True' : 'False', () => {
          for (const c of choices) {
            c.disabled = true;
            c.setAttribute('aria-pressed', String(c === b));
          }
          const correct = v === item.answer;
          reveal(correct, [
            el('p', {
              class: 'quiz-verdict',
              text: `${correct ? 'Right' : 'Not quite'}: the statement is ${item.answer ? 'true' : 'false'}.`,
            }),
          ]);
        });
        b.setAttribute('aria-pressed', 'false');
        return b;
      });
      actions.append(...choices);
    } else {
      const revealButton = button('Reveal the answer', () => {
        revealButton.hidden = true;
        reveal(null, []);
        const got = button('I got it', () => done(true));
        const missed = button('I missed it', () => done(false));
        const done = (ok) => {
          got.disabled = missed.disabled = true;
          (ok ? got : missed).setAttribute('aria-pressed', 'true');
          grade(ok);
        };
        actions.append(got, missed);
        got.focus();
      });
      actions.append(revealButton);
    }
    article.append(title, lead, prompt, actions, feedback, el('div', { class: 'quiz-actions' }, next));
    card.replaceChildren(article);
    publish();
  }

  function button(text, onClick) {
    const b = el('button', { type: 'button', text });
    b.addEventListener('click', onClick);
    return b;
  }

  show();
}
