// assignment.html: a teacher's assignment (assignment/view.js) from its link's fragment
// (assignment/link.js), e.g. assignment.html#title=Week+3&text=...&experiment=lab&preset=warmup&items=tf-01,why-03;
// opened with no fragment, the form that makes one (assignment/builder.js). As a SCORM
// package's launch page (assignment/package.js) the assignment comes from the page's
// <meta name="resnorm-assignment"> tag, and the questions' answers, score and completion go to
// the LMS through scorm/runtime.js, as the quiz's package does. In an iframe it reports its
// height (embed/height.js). No site header and no service worker: the page is the same in an
// LMS's frame, where only the package's files exist.
import { createTheme } from '../shared/theme.js';
import { reportHeight } from '../embed/height.js';
import { readLaunchConfig } from '../scorm/launch-config.js';
import { startScormRuntime } from '../scorm/runtime.js';
import { answerHint, promptText } from '../scorm/launch-text.js';
import { gradingOf } from '../quiz/grading.js';
import { UNTITLED, readAssignment } from '../assignment/link.js';
import { readAssignmentTag } from '../assignment/package.js';
import { mountAssignment } from '../assignment/view.js';
import '../assignment/assignment.css';

const main = document.getElementById('assignment');
const tagged = readAssignmentTag(document);
const packaged = tagged !== '';
const launch = packaged ? readLaunchConfig(document) : null;
const siteUrl = launch?.site ?? new URL('./', location.href);
let mounted = null;
let ac = null;
let runtime = null;

/** The LMS's runtime for the questions shown (bank items), graded as the package says, with the quiz embed's options. */
function connectLms(items, onStatus) {
  runtime = startScormRuntime({
    version: launch.version,
    total: items.length,
    grading: gradingOf({ self_graded: launch.selfGraded, pass_mark: launch.passMark }),
    ids: items.map((it) => it.id),
    describe: (i) => (items[i] ? promptText(items[i]) : ''),
    onStatus,
  });
  const quizOptions = {
    ...(runtime.recording ? { answerLimit: runtime.answerLimit } : {}),
    answerHint: answerHint(runtime),
    onDraft: runtime.saveDraft,
  };
  return { ...runtime, quizOptions };
}

function show(hash) {
  mounted?.destroy();
  ac?.abort();
  ac = new AbortController();
  delete document.body.dataset.ready;
  const assignment = readAssignment(hash);
  // in a package the quiz is graded as the package tells the LMS (its launch settings)
  if (launch) Object.assign(assignment, { self_graded: launch.selfGraded, pass_mark: launch.passMark });
  createTheme(null, { choice: assignment.theme, signal: ac.signal });
  if (assignment.empty && !packaged) {
    document.title = 'Make an assignment: resnorm';
    import('../assignment/builder.js').then(({ mountBuilder }) => {
      mounted = mountBuilder(main, { siteUrl });
      document.body.dataset.ready = '1';
    });
  } else {
    if (!packaged) document.title = `${assignment.title || UNTITLED}: resnorm`;
    mounted = mountAssignment(main, {
      assignment,
      siteUrl,
      lms: packaged ? connectLms : null,
      onState(hook) {
        window.__resnormAssignment = hook;
        if (hook.ready) document.body.dataset.ready = '1';
      },
    });
  }
  reportHeight(main, ac.signal);
}

show(packaged ? tagged : location.hash);
// A new fragment (the teacher opens another link in this tab) is a new assignment.
if (!packaged) window.addEventListener('hashchange', (e) => show(new URL(e.newURL).hash));
// The LMS's session ends with the page.
window.addEventListener('pagehide', () => runtime?.finish());
