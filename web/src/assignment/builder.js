// The form that makes an assignment: assignment.html opened with no fragment. The teacher writes
// a title and instructions, picks the experiment (the explorer or the lab, a claim of the
// lab, or the settings of a link pasted from either), ticks the questions and says how they are
// graded (self-graded answers counted or not, the pass mark), and gets the link, an iframe snippet
// and a SCORM package (1.2 or 2004) of the same assignment.
// Every output is written again on each change; a value the link could not carry disables them
// and says why.
import { el, replace } from '../shared/dom.js';
import { showNotices } from '../shared/notice.js';
import { download } from '../shared/download.js';
import { CLAIMS } from '../claims/lab/index.js';
import { copy, themeSelect } from '../embed/dialog.js';
import { loadBank } from '../embed/quiz.js';
import { toHtml } from '../quiz/text.js';
import { SECTION_NAMES } from '../quiz/ui/item-view.js';
import { VERSIONS } from '../scorm/launch-config.js';
import { FIELDS_TABLE, readField } from '../shared/state.js';
import { isSelfGradedKind } from '../quiz/grading.js';
import { gradingNote } from '../embed/quiz-builder.js';
import { scormFileName } from '../scorm/package.js';
import {
  TEXT_MAX,
  TITLE_MAX,
  UNTITLED,
  assignmentHash,
  experimentFromLink,
  explorerState,
  labState,
  linkTooLong,
  noticeTableOf,
} from './link.js';
import { assignmentIframeSnippet } from './snippet.js';
import { assignmentPackage } from './package.js';

const EXPERIMENT_CHOICES = [
  ['none', 'no experiment'],
  ['explorer', 'the explorer (layer charts)'],
  ['lab', 'the training lab'],
];

/** A label and its control, one row of the form's grid. */
const row = (text, control, hint = null) => [
  el('label', { for: control.id }, text),
  el('div', { class: 'assign-control' }, control, hint),
];

/** The title, the instructions and the instructions' character count. */
function textControls() {
  return {
    title: el('input', { type: 'text', id: 'assign-title', maxlength: TITLE_MAX, spellcheck: 'true' }),
    text: el('textarea', { id: 'assign-text', maxlength: TEXT_MAX, rows: 8, spellcheck: 'true' }),
    textCount: el('span', { class: 'hint', id: 'assign-text-count' }),
  };
}

/** The experiment's controls: which one, the lab's claim, a pasted link, whether learners see the settings. */
function experimentControls() {
  const experiment = el(
    'select',
    { id: 'assign-experiment' },
    EXPERIMENT_CHOICES.map(([v, t]) => new Option(t, v)),
  );
  const claim = el(
    'select',
    { id: 'assign-preset' },
    new Option('none: the settings below', 'none'),
    CLAIMS.map((p) => new Option(`${p.title} (${p.cite})`, p.id)),
  );
  const claimRow = el('div', { class: 'assign-grid' }, row('Paper claim', claim));
  const settings = el('input', {
    type: 'url',
    id: 'assign-settings',
    placeholder: 'https://\u2026/train.html#\u2026',
    spellcheck: 'false',
    autocomplete: 'off',
  });
  const settingsNote = el('div', { class: 'notice', id: 'assign-settings-note', role: 'status', hidden: true });
  const showSettings = el('input', { type: 'checkbox', id: 'assign-show-settings', checked: true });
  return { experiment, claim, claimRow, settings, settingsNote, showSettings };
}

/** The outputs: the problem, the link and the iframe snippet with their copy buttons (listeners through `on`), the status. */
function outputControls(on) {
  const problem = el('p', { class: 'notice', id: 'assign-problem', role: 'alert', hidden: true });
  const link = el('textarea', { id: 'assign-link', readonly: true, rows: 3, spellcheck: 'false' });
  const open = el('a', { id: 'assign-open', target: '_blank', rel: 'noopener' }, 'Open the assignment \u2197');
  const iframe = el('textarea', { id: 'assign-iframe', readonly: true, rows: 4, spellcheck: 'false' });
  const status = el('p', { class: 'embed-status', id: 'assign-status', role: 'status' });
  const copyButton = (area, what) => {
    const b = el('button', { type: 'button', class: 'secondary', id: `${area.id}-copy` }, `Copy the ${what}`);
    on(b, 'click', async () => {
      status.textContent = (await copy(area.value, area))
        ? `Copied the ${what}.`
        : 'Select the text and copy it with your keyboard.';
    });
    return b;
  };
  const copyLink = copyButton(link, 'link');
  const copyIframe = copyButton(iframe, 'iframe snippet');
  return { problem, link, open, iframe, status, copyLink, copyIframe };
}

/** The grading controls: whether self-graded answers count, the pass mark and its error, the note. */
function gradingControls() {
  const selfGraded = el(
    'select',
    { id: 'assign-self-graded', 'aria-describedby': 'assign-grading-note' },
    new Option('left out: recorded, not counted', 'exclude'),
    new Option('counted as the learner grades them', 'count'),
  );
  selfGraded.value = FIELDS_TABLE.self_graded.default;
  const pass = el('input', {
    type: 'text',
    id: 'assign-pass-mark',
    inputmode: 'numeric',
    size: '4',
    value: String(FIELDS_TABLE.pass_mark.default),
    'aria-describedby': 'assign-pass-mark-error assign-grading-note',
  });
  const passError = el('p', { class: 'field-error', id: 'assign-pass-mark-error', role: 'alert', hidden: true });
  const gradingNoteEl = el('p', { class: 'hint', id: 'assign-grading-note', 'aria-live': 'polite' });
  const grading = el(
    'div',
    { class: 'assign-grid', id: 'assign-grading' },
    row('Self-graded answers', selfGraded),
    row(FIELDS_TABLE.pass_mark.label, pass, passError),
  );
  return { selfGraded, pass, passError, gradingNoteEl, grading };
}

/** The SCORM package's controls: the version, the title in the LMS, the note and the download button. */
function packageControls() {
  return {
    version: el(
      'select',
      { id: 'assign-scorm-version' },
      VERSIONS.map((v) => new Option(`SCORM ${v}`, v)),
    ),
    lmsTitle: el('input', { type: 'text', id: 'assign-scorm-title', maxlength: '120', spellcheck: 'true' }),
    scormNote: el('p', { class: 'hint', id: 'assign-scorm-note' }),
    scormButton: el('button', { type: 'button', class: 'secondary', id: 'assign-scorm' }, 'Download the SCORM package'),
  };
}

/** The form's first two fieldsets: title and instructions, then the experiment. */
function inputFieldsets({ title, text, textCount }, exp) {
  return [
    el(
      'fieldset',
      {},
      el('legend', {}, 'Title and instructions'),
      el(
        'div',
        { class: 'assign-grid' },
        row('Title', title),
        row(
          'Instructions',
          text,
          el(
            'p',
            { class: 'hint', id: 'assign-text-hint' },
            'Plain text, shown as written: a blank line starts a new paragraph; lines that start with \u201c- \u201d make a list, \u201c1. \u201d a numbered list. ',
            textCount,
          ),
        ),
      ),
    ),
    el(
      'fieldset',
      {},
      el('legend', {}, 'Experiment'),
      el('div', { class: 'assign-grid' }, row('Show', exp.experiment)),
      exp.claimRow,
      el(
        'div',
        { class: 'assign-grid', id: 'assign-settings-row' },
        row(
          'Settings from a link',
          exp.settings,
          el(
            'p',
            { class: 'hint' },
            'Optional: set the experiment up in the explorer or the lab, then paste its address (or an Embed link of it) here. Its settings become the assignment\u2019s.',
          ),
        ),
      ),
      exp.settingsNote,
      el(
        'label',
        { class: 'embed-check', id: 'assign-show-settings-label' },
        exp.showSettings,
        ' show the settings to learners (fixed: they can run the experiment, not change it)',
      ),
    ),
  ];
}

/** The form's outputs: the link, the iframe snippet and the SCORM package, with the status. */
function outputSection(out, pkg) {
  return el(
    'section',
    { class: 'assign-out', 'aria-labelledby': 'assign-out-title' },
    el('h2', { id: 'assign-out-title' }, 'The assignment'),
    out.problem,
    el('label', { class: 'embed-label', for: out.link.id }, 'Link: send it, or paste it into a course page'),
    out.link,
    el('div', { class: 'embed-row' }, out.copyLink, out.open),
    el(
      'label',
      { class: 'embed-label', for: out.iframe.id },
      'iframe: the assignment inside a course page (the script sizes it; without it the iframe keeps its height)',
    ),
    out.iframe,
    el('div', { class: 'embed-row' }, out.copyIframe),
    el(
      'fieldset',
      { class: 'assign-scorm' },
      el('legend', {}, 'SCORM package, for an LMS gradebook'),
      el(
        'p',
        { class: 'hint' },
        'The same assignment as a zip to upload as a SCORM activity: it runs inside the LMS with nothing from this site, and the LMS records each learner\u2019s answers and score.',
      ),
      el('div', { class: 'assign-grid' }, row('Version', pkg.version), row('Title in the LMS', pkg.lmsTitle)),
      pkg.scormNote,
      el('div', { class: 'embed-row' }, pkg.scormButton),
    ),
    out.status,
  );
}

/** The page in `root`: its heading and lead, then the form of all the parts; returns the form. */
function builderLayout(root, { texts, exp, count, list, gr, theme, out, pkg }) {
  const form = el(
    'form',
    { class: 'assign-form embed-form', id: 'assign-form', novalidate: true },
    ...inputFieldsets(texts, exp),
    el('fieldset', {}, el('legend', {}, 'Questions'), count, list, gr.grading, gr.gradingNoteEl),
    el('div', { class: 'embed-row' }, el('label', { for: theme.id }, 'Theme'), theme),
    outputSection(out, pkg),
  );
  replace(
    root,
    el(
      'header',
      { class: 'assignment-head' },
      el('h1', {}, 'Make an assignment'),
      el(
        'p',
        { class: 'assign-lead' },
        'One link for a week\u2019s task: your instructions, an experiment of the explorer or the training lab with its settings fixed, and the questions you choose. Learners open the link; an LMS takes the SCORM package.',
      ),
    ),
    form,
  );
  return form;
}

/**
 * The experiment's state in `states` follows the claim and a pasted link (read against siteUrl);
 * the settings note says what a link carried or why it could not be read.
 */
function wireExperiment(on, { experiment, claim, settings, settingsNote }, states, siteUrl) {
  const setExperimentNotices = (notices, source) =>
    showNotices(settingsNote, notices, { source, table: noticeTableOf(experiment.value) });
  on(claim, 'change', () => {
    states.lab = labState(claim.value);
    settings.value = '';
    setExperimentNotices([]);
  });
  on(settings, 'change', () => {
    if (!settings.value.trim()) return setExperimentNotices([]);
    const r = experimentFromLink(settings.value, siteUrl);
    if (r.error) {
      setExperimentNotices([{ field: null, value: '', reason: r.error }], null);
      return;
    }
    states[r.experiment] = r.state;
    experiment.value = r.experiment;
    if (r.experiment === 'lab') claim.value = r.state.lab?.preset ?? 'none';
    setExperimentNotices(r.notices, 'pasted link');
  });
}

/** The pass mark as the link reads it: {value} or {error}, a sentence naming the field. */
function readPassMark(pass) {
  const r = readField('pass_mark', pass.value.trim());
  if (r.ok) return { value: r.value };
  const allowed = r.reason.includes('allowed') ? '' : '; allowed: a whole number 0..100';
  return { error: `${FIELDS_TABLE.pass_mark.label}: ${r.reason}${allowed}.` };
}

/** The assignment's link fragment, or why there is none (`markError`: the pass mark's, with questions chosen). */
function linkOrProblem(a, markError) {
  let hash = '';
  let why = markError;
  if (!why)
    try {
      hash = assignmentHash(a);
      why = linkTooLong(hash);
    } catch (e) {
      why = e.message;
    }
  if (!why && !hash)
    why = 'Write a title or instructions, or choose an experiment or a question: an empty assignment has no link.';
  return { hash, why };
}

/** The questions' checklist: a fieldset per section of the bank, a box per question. */
function questionSections(bankItems) {
  const sections = Object.keys(SECTION_NAMES).filter((s) => bankItems.some((it) => it.section === s));
  return sections.map((s) => {
    const items = bankItems.filter((it) => it.section === s);
    return el(
      'fieldset',
      { class: 'assign-section' },
      el('legend', {}, `${SECTION_NAMES[s]} (${items.length})`),
      el(
        'ul',
        { class: 'quiz-embed-list' },
        items.map((it) =>
          el(
            'li',
            {},
            el(
              'label',
              { class: 'quiz-embed-item' },
              el('input', { type: 'checkbox', value: it.id, id: `assign-q-${it.id}` }),
              el('span', { class: 'item-id' }, it.id),
              el('span', { class: 'quiz-embed-prompt', html: toHtml(it.prompt, { paragraphs: false }) }),
            ),
          ),
        ),
      ),
    );
  });
}

/** What the package builder gets besides the assignment: version, title and grading. */
function packageOptions(a, bankItems, { version, lmsTitle }) {
  // with nothing scored (every question self-graded and left out) there is nothing to pass
  const kinds = bankItems.filter((it) => a.items.includes(it.id)).map((it) => it.type);
  const scored = a.self_graded === 'count' || kinds.some((k) => !isSelfGradedKind(k));
  return {
    version: version.value,
    title: lmsTitle.value.trim() || a.title || UNTITLED,
    selfGraded: a.self_graded,
    passMark: scored ? a.pass_mark : null,
  };
}

/**
 * Fills `root` with the form; siteUrl: the site's folder (the links and the package are made from
 * it). Returns {destroy()}.
 */
export function mountBuilder(root, { siteUrl }) {
  const ac = new AbortController();
  const on = (node, type, fn) => node.addEventListener(type, fn, { signal: ac.signal });
  const texts = textControls();
  const exp = experimentControls();
  const count = el('p', { class: 'hint', id: 'assign-count', 'aria-live': 'polite' });
  const list = el('div', { class: 'assign-questions', id: 'assign-questions' }, 'loading the questions\u2026');
  const theme = themeSelect('assign-theme');
  const out = outputControls(on);
  const gr = gradingControls();
  const pkg = packageControls();
  const form = builderLayout(root, { texts, exp, count, list, gr, theme, out, pkg });

  // ---- the experiment's state: the defaults of each kind until a claim or a pasted link sets one
  const states = { explorer: explorerState(), lab: labState('none') };
  let bankItems = [];
  wireExperiment(on, exp, states, siteUrl);

  const passMark = () => readPassMark(gr.pass);

  /** The assignment the form describes (the pass mark's default while the box holds none). */
  function assignment() {
    const kind = exp.experiment.value;
    let state = states[kind] ?? null;
    if (state && !exp.showSettings.checked) state = { ...state, view: { ...state.view, controls: [] } };
    const items = [...list.querySelectorAll('input[type=checkbox]:checked')].map((b) => b.value);
    return {
      title: texts.title.value.trim(),
      text: texts.text.value,
      experiment: kind,
      items,
      self_graded: gr.selfGraded.value,
      pass_mark: passMark().value ?? FIELDS_TABLE.pass_mark.default,
      theme: theme.value,
      state,
    };
  }

  function update() {
    const a = assignment();
    exp.claimRow.hidden = a.experiment !== 'lab';
    exp.settings.closest('#assign-settings-row').hidden = a.experiment === 'none';
    exp.showSettings.parentElement.hidden = a.experiment === 'none';
    texts.textCount.textContent = `${texts.text.value.length} of ${TEXT_MAX} characters.`;
    const n = a.items.length;
    count.textContent = `${n} of ${bankItems.length} question${bankItems.length === 1 ? '' : 's'} chosen${n ? '' : ': the assignment has no quiz'}.`;
    if (!pkg.lmsTitle.dataset.edited) pkg.lmsTitle.value = a.title || UNTITLED;

    const mark = passMark();
    gr.passError.hidden = !mark.error;
    gr.passError.textContent = mark.error ?? '';
    gr.pass.setAttribute('aria-invalid', String(Boolean(mark.error)));
    gr.grading.hidden = gr.gradingNoteEl.hidden = !n;
    const chosen = bankItems.filter((it) => a.items.includes(it.id));
    gr.gradingNoteEl.textContent = n && !mark.error ? gradingNote(chosen, a) : '';

    const { hash, why } = linkOrProblem(a, mark.error && n ? mark.error : null);
    out.problem.hidden = !why;
    out.problem.textContent = why ?? '';
    for (const b of [out.copyLink, out.copyIframe]) b.disabled = Boolean(why);
    out.open.hidden = Boolean(why);
    if (why) {
      out.link.value = out.iframe.value = '';
      out.open.removeAttribute('href');
    } else {
      out.link.value = new URL(`assignment.html${hash}`, siteUrl).href;
      out.open.href = out.link.value;
      out.iframe.value = assignmentIframeSnippet({ siteUrl, assignment: a, bankItems: chosen });
    }
    pkg.scormNote.textContent =
      why || n ? '' : 'Choose at least one question: the package reports the questions\u2019 score to the LMS.';
    pkg.scormButton.disabled = Boolean(why || !n);
  }

  async function downloadPackage() {
    const a = assignment();
    if (passMark().error || !a.items.length) return;
    const options = packageOptions(a, bankItems, pkg);
    pkg.scormButton.disabled = true;
    out.status.textContent = 'Building the SCORM package\u2026';
    try {
      const blob = await assignmentPackage({ siteUrl: new URL(siteUrl).href, assignment: a, ...options });
      const name = scormFileName(options);
      download(blob, name, 'application/zip', form);
      const mark = options.passMark === null ? 'no pass mark' : `pass mark ${options.passMark} %`;
      out.status.textContent = `Downloaded ${name} (${Math.round(blob.size / 1024)} KB, ${mark}): upload it to the LMS as a SCORM ${options.version} activity.`;
    } catch (e) {
      out.status.textContent = `The SCORM package could not be built: ${e.message}`;
    } finally {
      update();
    }
  }

  on(pkg.scormButton, 'click', downloadPackage);
  on(pkg.lmsTitle, 'input', () => {
    pkg.lmsTitle.dataset.edited = pkg.lmsTitle.value.trim() ? '1' : '';
  });
  on(form, 'input', () => {
    out.status.textContent = '';
    update();
  });
  on(form, 'change', update);
  on(form, 'submit', (e) => e.preventDefault());

  loadBank().then(
    (bank) => {
      if (ac.signal.aborted) return;
      bankItems = bank.items;
      replace(list, questionSections(bankItems));
      update();
    },
    (e) => {
      list.textContent = `The questions could not be loaded: ${e.message}`;
    },
  );
  update();
  return { destroy: () => ac.abort() };
}
