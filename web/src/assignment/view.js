// The assignment as learners see it: the teacher's title and instructions (text only,
// instructions.js), the notice for anything the link could not use, the experiment (the
// explorer's or the lab's embed, mounted as embed.html mounts it, every setting it shows fixed)
// and the chosen questions (the quiz embed). Each view lives in a shadow root of its own
// (embed/styles.js), so their ids and styles stay apart from the page's and from each other.
//
//   const a = mountAssignment(main, { assignment, siteUrl, lms, onState });
//   a.destroy();
//
// assignment: link.js's readAssignment(). siteUrl: the site's folder (the embeds' "open in"
// links). lms(items, onStatus): for a SCORM package, starts the LMS's runtime for the questions
// shown (bank items) and returns it (scorm/runtime.js: resume, onEvent, ...) with `quizOptions`
// for the quiz embed (the answer box's limit and hint, where its drafts go); null off a package. onState(hook) after
// every paint of any part: {experiment, items, title, lab, explorer, quiz, scorm, ready}, ready once
// each part has drawn (scorm: the LMS's {version, connected, errors} in a package).
import { el } from '../shared/dom.js';
import { createTheme } from '../shared/theme.js';
import { showNotices } from '../shared/notice.js';
import { shadowWrapper } from '../embed/styles.js';
import { eventSink } from '../embed/events.js';
import { mountExplorerEmbed } from '../embed/mount.js';
import { mountTrainEmbed } from '../embed/train.js';
import { loadBank, mountQuizEmbed, selectQuizItems } from '../embed/quiz.js';
import { renderInstructions } from './instructions.js';
import { UNTITLED, noticeTableOf } from './link.js';

const EXPERIMENT_TITLES = { explorer: 'Experiment: the explorer', lab: 'Experiment: the training lab' };
const EXPERIMENT_HINTS = {
  explorer:
    'The settings are fixed for this assignment. Point at a chart to read its numbers at each layer; the caption under the charts says what they show.',
  lab: 'The settings are fixed for this assignment. Press Start to train the runs and watch the charts; Pause, Step and Reset work as in the lab.',
};

/** A section with its heading (id `id`-title) and what follows it. */
const section = (id, title, ...children) =>
  el(
    'section',
    { class: `assignment-part assignment-${id}`, id: `assignment-${id}`, 'aria-labelledby': `assignment-${id}-title` },
    el('h2', { id: `assignment-${id}-title` }, title),
    ...children,
  );

export function mountAssignment(root, { assignment: a, siteUrl, lms = null, onState = () => {} }) {
  const ac = new AbortController();
  const mounted = [];
  const themed = (host, options) => {
    const wrapper = shadowWrapper(host, options);
    const theme = createTheme(null, { root: wrapper, choice: a.theme, signal: ac.signal });
    return { wrapper, theme };
  };
  const hook = {
    title: a.title,
    experiment: a.experiment,
    items: a.items,
    lab: null,
    explorer: null,
    quiz: null,
    scorm: null,
    ready: false,
  };
  // the parts still to draw for the first time, all named before any is mounted (the lab draws
  // its first frame while it mounts)
  const waiting = new Set();
  if (a.state) waiting.add(a.experiment === 'lab' ? 'lab' : 'explorer');
  if (a.items.length) waiting.add('quiz');
  const painted = (part, snap) => {
    hook[part] = snap;
    waiting.delete(part);
    hook.ready = waiting.size === 0;
    onState(hook);
  };

  const notice = el('div', { class: 'notice', role: 'status' });
  showNotices(notice, a.notices, { table: noticeTableOf(a.experiment) });
  root.replaceChildren(
    el('header', { class: 'assignment-head' }, el('h1', {}, a.title || UNTITLED)),
    notice,
    a.text ? el('div', { class: 'assignment-text', id: 'assignment-text' }, renderInstructions(a.text)) : null,
  );

  if (a.state) {
    const lab = a.experiment === 'lab';
    const host = el('div', { class: 'assignment-embed', id: 'assignment-experiment-view' });
    root.append(
      section(
        'experiment',
        EXPERIMENT_TITLES[a.experiment],
        el('p', { class: 'hint' }, EXPERIMENT_HINTS[a.experiment]),
        host,
      ),
    );
    const { wrapper, theme } = themed(host, { lab });
    const part = lab ? 'lab' : 'explorer';
    const options = {
      state: a.state,
      siteUrl,
      theme,
      onPaint: (snap) => painted(part, snap),
      onEvent: eventSink(lab ? 'train' : 'explorer'),
    };
    mounted.push(lab ? mountTrainEmbed(wrapper, options) : mountExplorerEmbed(wrapper, options));
  }

  if (a.items.length) {
    const host = el('div', { class: 'assignment-embed', id: 'assignment-quiz-view' });
    const status = el('p', { class: 'status scorm-status', role: 'status', 'aria-live': 'polite', hidden: true });
    root.append(section('quiz', a.items.length === 1 ? 'Question' : 'Questions', status, host));
    const { wrapper, theme } = themed(host);
    const quizState = {
      view: { theme: a.theme },
      quiz: { items: a.items, section: [], tag: [], self_graded: a.self_graded, pass_mark: a.pass_mark },
      notices: [],
    };
    const start = (runtime) => {
      // what the LMS was told of, and any error it gave (the runtime's own list)
      hook.scorm = runtime && { version: runtime.version, connected: runtime.connected, errors: runtime.errors };
      mounted.push(
        mountQuizEmbed(wrapper, {
          state: quizState,
          siteUrl,
          theme,
          resume: runtime?.resume ?? null,
          ...(runtime?.quizOptions ?? {}),
          onPaint: (snap) => painted('quiz', snap.quiz),
          onEvent: eventSink('quiz', { also: runtime?.onEvent }),
        }),
      );
    };
    if (!lms) start(null);
    else {
      // the LMS hears of the questions the learner sees: the bank's, in the link's order
      const show = (state, text) => {
        status.hidden = false;
        status.dataset.state = state;
        status.textContent = text;
      };
      loadBank().then(
        (bank) => start(lms(selectQuizItems(bank, quizState.quiz).items, show)),
        (e) => show('error', `The questions could not be loaded: ${e.message}`),
      );
    }
  }
  if (!waiting.size) {
    hook.ready = true;
    onState(hook);
  }

  return {
    destroy() {
      ac.abort();
      for (const m of mounted) m.destroy?.();
    },
  };
}
