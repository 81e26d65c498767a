// scorm.html: the launch page of a SCORM package (../scorm/package.js). The
// quiz embed for the package's questions, and the SCORM runtime
// (../scorm/runtime.js) listening to its events: it finds the LMS, resumes a
// suspended attempt and reports every answer, the score and the completion. The
// package's grading (self-graded answers counted or not, the pass mark) goes to
// both; the answer box takes what the LMS keeps, and its text is kept as a draft.
// Opened without an LMS, the quiz works and a status line says nothing is
// recorded. A bare page: no site header, no service worker, no engine.
import { parseHash } from '../shared/state.js';
import { createTheme } from '../shared/theme.js';
import { el } from '../shared/dom.js';
import { loadBank, mountQuizEmbed, selectQuizItems } from '../embed/quiz.js';
import { shadowWrapper } from '../embed/styles.js';
import { eventSink } from '../embed/events.js';
import { readLaunchConfig } from '../scorm/launch-config.js';
import { startScormRuntime } from '../scorm/runtime.js';
import { answerHint, promptText } from '../scorm/launch-text.js';
import { gradingOf } from '../quiz/grading.js';
import '../embed/page.css';

const launch = readLaunchConfig(document);
const host = document.getElementById('embed');
const wrapper = shadowWrapper(host);
wrapper.classList.add('in-page');
const theme = createTheme(null, { root: wrapper, choice: 'auto' });
const setPageTheme = (t) => (document.documentElement.dataset.theme = t);
setPageTheme(theme.current());
theme.onChange(setPageTheme);

const status = el('p', {
  class: 'status scorm-status',
  role: 'status',
  'aria-live': 'polite',
  dataset: { state: 'loading' },
});
const quizRoot = el('div');
wrapper.replaceChildren(status, quizRoot);
const showStatus = (state, text) => {
  status.dataset.state = state;
  status.textContent = text;
};

let runtime = null;
const state = { ...parseHash(''), notices: [] };
state.quiz = { ...state.quiz, items: launch.items, self_graded: launch.selfGraded, pass_mark: launch.passMark };

loadBank().then(
  (bank) => {
    const { items } = selectQuizItems(bank, state.quiz);
    runtime = startScormRuntime({
      version: launch.version,
      total: items.length,
      grading: gradingOf(state.quiz),
      ids: items.map((it) => it.id),
      describe: (i) => (items[i] ? promptText(items[i]) : ''),
      onStatus: showStatus,
    });
    let renders = 0;
    mountQuizEmbed(quizRoot, {
      state,
      siteUrl: launch.site ?? new URL('./', location.href),
      theme,
      resume: runtime.resume,
      ...(runtime.recording ? { answerLimit: runtime.answerLimit } : {}),
      answerHint: answerHint(runtime),
      onDraft: runtime.saveDraft,
      onPaint: (snap) => {
        window.__resnorm = { ...snap, renders: ++renders, scorm: { version: runtime.version, errors: runtime.errors } };
        document.body.dataset.ready = '1';
      },
      onEvent: eventSink('quiz', { also: runtime.onEvent }),
    });
  },
  (e) => showStatus('error', `The questions could not be loaded: ${e.message}`),
);

window.addEventListener('pagehide', () => runtime?.finish());
