// scorm.html: the launch page of a SCORM package (../scorm/package.js) and of a
// cmi5 package (../cmi5/package.js). The quiz embed for the package's questions,
// and the package's runtime listening to its events: SCORM's (../scorm/runtime.js)
// finds the LMS's API, cmi5's (../cmi5/runtime.js, loaded only for cmi5) reads the
// launch parameters and speaks xAPI to the LMS, with an Exit button that ends the
// session. Either resumes an attempt and reports every answer, the score and the
// completion. The package's grading (self-graded answers counted or not, the pass
// mark) goes to the quiz and the runtime; the answer box takes what the LMS keeps.
// Opened without an LMS, the quiz works and a status line says nothing is
// recorded. A bare page: no site header, no service worker, no engine.
import { parseHash } from '../shared/state.js';
import { createTheme } from '../shared/theme.js';
import { el } from '../shared/dom.js';
import { loadBank, mountQuizEmbed, selectQuizItems } from '../embed/quiz.js';
import { answerHint, promptText } from '../scorm/launch-text.js';
import { shadowWrapper } from '../embed/styles.js';
import { eventSink } from '../embed/events.js';
import { readLaunchConfig } from '../scorm/launch-config.js';
import { startScormRuntime } from '../scorm/runtime.js';
import { ANSWER_LIMIT, gradingOf } from '../quiz/grading.js';
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
const bar = el('div', { class: 'lms-bar' }, status);
wrapper.replaceChildren(bar, quizRoot);
const showStatus = (state, text) => {
  status.dataset.state = state;
  status.textContent = text;
};

/** The package's runtime: SCORM's at once, cmi5's once its library has loaded and the LMS answered. */
async function startRuntime(options) {
  if (launch.version !== 'cmi5') return startScormRuntime({ version: launch.version, ...options });
  const { startCmi5 } = await import('../cmi5/launch.js');
  const cmi5 = await startCmi5(options);
  if (cmi5.exit) {
    const exit = el('button', { type: 'button', class: 'secondary lms-exit' }, 'Exit');
    exit.addEventListener('click', () => {
      exit.disabled = true;
      cmi5.exit();
    });
    bar.append(exit);
  }
  return cmi5;
}

let runtime = null;
const state = { ...parseHash(''), notices: [] };
state.quiz = { ...state.quiz, items: launch.items, self_graded: launch.selfGraded, pass_mark: launch.passMark };

loadBank()
  .then(
    async (bank) => {
      const { items } = selectQuizItems(bank, state.quiz);
      runtime = await startRuntime({
        total: items.length,
        grading: gradingOf(state.quiz),
        ids: items.map((it) => it.id),
        kinds: items.map((it) => it.type),
        site: launch.site,
        describe: (i) => (items[i] ? promptText(items[i]) : ''),
        onStatus: showStatus,
      });
      let renders = 0;
      mountQuizEmbed(quizRoot, {
        state,
        siteUrl: launch.site ?? new URL('./', location.href),
        theme,
        resume: runtime.resume,
        ...(runtime.recording ? { answerLimit: runtime.answerLimit ?? ANSWER_LIMIT } : {}),
        answerHint: answerHint(runtime),
        onDraft: runtime.saveDraft,
        onPaint: (snap) => {
          window.__resnorm = {
            ...snap,
            renders: ++renders,
            scorm: { version: runtime.version, errors: runtime.errors },
          };
          document.body.dataset.ready = '1';
        },
        onEvent: eventSink('quiz', { also: runtime.onEvent }),
      });
    },
    (e) => showStatus('error', `The questions could not be loaded: ${e.message}`),
  )
  .catch((e) => showStatus('error', `The quiz could not start: ${e.message}`));

window.addEventListener('pagehide', () => runtime?.finish());
