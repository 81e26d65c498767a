// The quiz page's "Embed questions…" dialog, for course authors: pick questions by section and
// topic, then one by one in a checklist; a live preview of the quiz embed with them; the iframe
// and custom-element snippets to copy; and the same choice as a SCORM or cmi5 package for an LMS.
//
// What the snippets name: a choice that is exactly every question of the chosen section and/or
// topic is written as section=/tag= (questions the bank gains there later join the embed); the
// whole bank as no field at all; any other choice as the list of its ids (items=), in bank order.
// The grading (whether self-graded answers count, the pass mark) goes into the snippets, the
// preview and the SCORM or cmi5 package alike; a pass mark out of range is named and nothing is written.
import { embedDialogShell, themeRow, themeSelect } from './dialog.js';
import { gradedQuizIframeSnippet, gradedQuizSnippet, gradedQuizUrl } from './quiz-grading-snippets.js';
import { MESSAGE } from './height.js';
import { FIELDS_TABLE, readField } from '../shared/state.js';
import { isSelfGradedKind } from '../quiz/grading.js';
import { download } from '../shared/download.js';
import { el, replace } from '../shared/dom.js';
import { matches } from '../quiz/schedule.js';
import { toHtml } from '../quiz/text.js';
import { SECTION_NAMES, TAG_NAMES } from '../quiz/ui/item-view.js';
import './quiz-builder.css';

const PREVIEW_MAX = 560; // px: taller previews scroll inside the dialog's frame

/**
 * What a choice of questions writes: {choice, describe} where `choice` is the embed's quiz
 * fields ({section, tag} or {items}, state.js's quiz group) and `describe` says so in words.
 * `filter` is the {section, tag} the checklist shows, `shown` its items, `chosen` the checked ones.
 */
export function choiceOf(filter, shown, chosen) {
  const whole = chosen.length === shown.length && shown.length > 0;
  if (whole && !filter.section && !filter.tag)
    return { choice: {}, describe: 'The snippets name no question: the embed asks the whole bank.' };
  if (whole) {
    const choice = {
      ...(filter.section ? { section: [filter.section] } : {}),
      ...(filter.tag ? { tag: [filter.tag] } : {}),
    };
    return {
      choice,
      describe: `The snippets name the ${filter.section && filter.tag ? 'section and the topic' : filter.section ? 'section' : 'topic'}: questions added to it later join the embed.`,
    };
  }
  return {
    choice: { items: chosen.map((it) => it.id) },
    describe: `The snippets list the ${chosen.length === 1 ? 'question\u2019s id' : `${chosen.length} ids`}.`,
  };
}

/** The package builder for a choice of the version list: SCORM 1.2 or 2004, or cmi5. */
async function lmsPackage(version) {
  if (version === 'cmi5') {
    const { cmi5Package, cmi5FileName } = await import('../cmi5/package.js');
    return { buildPackage: cmi5Package, packageFileName: cmi5FileName, kind: 'cmi5' };
  }
  const { scormPackage, scormFileName } = await import('../scorm/package.js');
  return { buildPackage: scormPackage, packageFileName: scormFileName, kind: `SCORM ${version}` };
}

/** The default title of the SCORM package for a filter and a number of questions. */
function packageTitle(filter, n, whole) {
  const names = [filter.section && SECTION_NAMES[filter.section], filter.tag && TAG_NAMES[filter.tag]].filter(Boolean);
  if (whole && names.length) return `resnorm quiz: ${names.join(', ')}`;
  return `resnorm quiz: ${n} question${n === 1 ? '' : 's'}`;
}

const countOf = (items, pred) => items.filter(pred).length;
const questions = (n) => `${n} question${n === 1 ? '' : 's'}`;

/**
 * What the grading does with the chosen questions, in a sentence: what the score counts and how
 * many right answers pass. `fields`: {self_graded, pass_mark}.
 */
export function gradingNote(chosen, fields) {
  const self = countOf(chosen, (it) => isSelfGradedKind(it.type));
  const counted = fields.self_graded === 'count' ? chosen.length : chosen.length - self;
  if (counted === 0)
    return 'None of these questions is marked automatically: with self-graded answers left out there is no score, so nobody passes or fails (the SCORM or cmi5 package carries no pass mark). What learners write still reaches the LMS.';
  const need = Math.ceil((fields.pass_mark * counted) / 100 - 1e-9);
  const what =
    fields.self_graded === 'count'
      ? `The score counts all ${questions(counted)}${self ? `, ${self} of them as the learner grades them` : ''}`
      : `The score counts the ${questions(counted)} marked automatically${self ? `; the ${self} self-graded ones are recorded (what was written, "I got it" or "I missed it") but not counted` : ''}`;
  return `${what}. To pass: ${need} of ${counted} right.`;
}
/** Each control after its label: [[text, control], ...] to [label, control, ...]. */
const labelled = (pairs) => pairs.flatMap(([text, control]) => [el('label', { for: control.id }, text), control]);

/** The section and topic selects, offering only those the bank has, each with its count. */
function filterSelects(items) {
  const sectionKeys = Object.keys(SECTION_NAMES).filter((s) => items.some((it) => it.section === s));
  const tagKeys = Object.keys(TAG_NAMES).filter((t) => items.some((it) => it.tags.includes(t)));
  const section = el(
    'select',
    { id: 'quiz-embed-section' },
    new Option(`all sections (${items.length})`, ''),
    ...sectionKeys.map((s) => new Option(`${SECTION_NAMES[s]} (${countOf(items, (it) => it.section === s)})`, s)),
  );
  const tag = el(
    'select',
    { id: 'quiz-embed-tag' },
    new Option('all topics', ''),
    ...tagKeys.map((t) => new Option(`${TAG_NAMES[t]} (${countOf(items, (it) => it.tags.includes(t))})`, t)),
  );
  return { section, tag, sectionKeys, tagKeys };
}

/** The checklist and what goes with it; "Select all" and "Select none" set every box, then call onPick. */
function pickControls(onPick) {
  const list = el('ul', { class: 'quiz-embed-list', id: 'quiz-embed-items', 'aria-labelledby': 'quiz-embed-legend' });
  const count = el('p', { class: 'quiz-embed-count', id: 'quiz-embed-count', 'aria-live': 'polite' });
  const describe = el('p', { class: 'hint quiz-embed-describe' });
  const refusal = el(
    'p',
    { class: 'notice embed-refusal', role: 'alert', hidden: true },
    'Choose at least one question: an embed with no question cannot be written.',
  );
  const pick = (on) => {
    for (const box of list.querySelectorAll('input[type=checkbox]')) box.checked = on;
    onPick();
  };
  const selectAll = el('button', { type: 'button', class: 'secondary', onclick: () => pick(true) }, 'Select all');
  const selectNone = el('button', { type: 'button', class: 'secondary', onclick: () => pick(false) }, 'Select none');
  return { list, count, describe, refusal, selectAll, selectNone };
}

/**
 * The live preview: the iframe, its box and show(src), which loads `src` once the edits pause.
 * The preview reports its height as any embed does; it grows up to PREVIEW_MAX, then scrolls.
 */
function previewFrame() {
  const preview = el('iframe', {
    class: 'quiz-embed-preview',
    id: 'quiz-embed-preview',
    title: 'Preview of the embedded quiz',
    height: '360',
  });
  const previewBox = el('div', { class: 'quiz-embed-preview-box' }, preview);
  let previewTimer = 0;
  const show = (src) => {
    clearTimeout(previewTimer);
    previewTimer = setTimeout(() => {
      if (preview.src !== src) preview.src = src;
    }, 120);
  };
  window.addEventListener('message', (e) => {
    if (e.source !== preview.contentWindow || e.data?.type !== MESSAGE || !Number.isFinite(e.data.height)) return;
    preview.height = String(Math.min(PREVIEW_MAX, Math.max(120, Math.ceil(e.data.height))));
  });
  return { previewBox, show };
}

/** The grading controls: whether self-graded answers count, the pass mark, its error and the note. */
function gradingControls() {
  const selfGraded = el(
    'select',
    { id: 'quiz-embed-self-graded', 'aria-describedby': 'quiz-embed-grading-note' },
    new Option('left out: recorded, not counted', 'exclude'),
    new Option('counted as the learner grades them', 'count'),
  );
  const passMark = el('input', {
    type: 'text',
    id: 'quiz-embed-pass-mark',
    inputmode: 'numeric',
    value: String(FIELDS_TABLE.pass_mark.default),
    size: '4',
    'aria-describedby': 'quiz-embed-pass-mark-error quiz-embed-grading-note',
  });
  const passError = el('p', { class: 'field-error', id: 'quiz-embed-pass-mark-error', role: 'alert', hidden: true });
  const gradingHint = el('p', { class: 'hint', id: 'quiz-embed-grading-note', 'aria-live': 'polite' });
  return { selfGraded, passMark, passError, gradingHint };
}

/** The package controls: the version, the title in the LMS and the download button (onDownload). */
function packageControls(onDownload) {
  const version = el(
    'select',
    { id: 'quiz-embed-scorm-version' },
    new Option('SCORM 1.2', '1.2'),
    new Option('SCORM 2004', '2004'),
    new Option('cmi5 (xAPI)', 'cmi5'),
  );
  const packageName = el('input', { type: 'text', id: 'quiz-embed-scorm-title', maxlength: '120', spellcheck: 'true' });
  const scormButton = el(
    'button',
    { type: 'button', class: 'secondary', id: 'quiz-embed-scorm', onclick: onDownload },
    'Download SCORM package',
  );
  version.addEventListener('change', () => {
    scormButton.textContent = `Download ${version.value === 'cmi5' ? 'cmi5' : 'SCORM'} package`;
  });
  return { version, packageName, scormButton };
}

/** The dialog's form: filters, checklist, grading, theme, preview, snippets, package, status. */
function builderLayout(form, { filters, picks, grading, pkg, theme, previewBox, snippetNodes, status }) {
  form.append(
    el(
      'div',
      { class: 'embed-row quiz-embed-filters' },
      ...labelled([
        ['Section', filters.section],
        ['Topic', filters.tag],
      ]),
    ),
    el(
      'fieldset',
      { class: 'quiz-embed-pick' },
      el('legend', { id: 'quiz-embed-legend' }, 'Questions'),
      el('div', { class: 'embed-row' }, picks.selectAll, picks.selectNone, picks.count),
      picks.list,
    ),
    picks.refusal,
    picks.describe,
    el(
      'fieldset',
      { class: 'quiz-embed-grading' },
      el('legend', {}, 'Grading'),
      el(
        'p',
        { class: 'hint' },
        'Open and find-the-error questions are graded by the learner ("I got it"). For the embed and the SCORM or cmi5 package.',
      ),
      el(
        'div',
        { class: 'embed-grid' },
        ...labelled([
          ['Self-graded answers', grading.selfGraded],
          [FIELDS_TABLE.pass_mark.label, grading.passMark],
        ]),
      ),
      grading.passError,
      grading.gradingHint,
    ),
    themeRow(theme),
    el('p', { class: 'embed-label', id: 'quiz-embed-preview-label' }, 'Preview: the embed as readers will see it'),
    previewBox,
    ...snippetNodes,
    el(
      'fieldset',
      { class: 'quiz-embed-scorm' },
      el('legend', {}, 'SCORM or cmi5 package, for an LMS gradebook'),
      el(
        'p',
        { class: 'hint' },
        'The same questions as a zip to upload as a SCORM activity (Moodle, Canvas, Blackboard, ...), or as a cmi5 course for an LMS that takes cmi5 (xAPI): the LMS records each learner\u2019s score.',
      ),
      el(
        'div',
        { class: 'embed-grid' },
        ...labelled([
          ['Version', pkg.version],
          ['Title in the LMS', pkg.packageName],
        ]),
      ),
      el('div', { class: 'embed-row' }, pkg.scormButton),
    ),
    status,
  );
}

/** The grading fields as the form has them, or null with the pass mark's message shown beside it. */
function readGrading({ selfGraded, passMark, passError }) {
  const r = readField('pass_mark', passMark.value.trim());
  passError.hidden = r.ok;
  const allowed = r.ok || r.reason.includes('allowed') ? '' : '; allowed: a whole number 0..100';
  passError.textContent = r.ok ? '' : `${FIELDS_TABLE.pass_mark.label}: ${r.reason}${allowed}.`;
  if (r.ok) passMark.removeAttribute('aria-invalid');
  else passMark.setAttribute('aria-invalid', 'true');
  return r.ok ? { self_graded: selfGraded.value, pass_mark: r.value } : null;
}

/** The checklist's rows: one checked box per question, with its id and prompt. */
function checklistRows(shown) {
  return shown.map((it) =>
    el(
      'li',
      {},
      el(
        'label',
        { class: 'quiz-embed-item' },
        el('input', { type: 'checkbox', value: it.id, checked: true }),
        el('span', { class: 'item-id' }, it.id),
        el('span', { class: 'quiz-embed-prompt', html: toHtml(it.prompt, { paragraphs: false }) }),
      ),
    ),
  );
}

/** What the package builder gets for the chosen questions (`whole`: the whole bank, named by no id). */
function packageOptions({ siteUrl, chosen, whole, grading, version, title }) {
  const countSelf = grading.self_graded === 'count';
  const scored = countSelf || chosen.some((it) => !isSelfGradedKind(it.type));
  return {
    siteUrl: siteUrl.href,
    items: whole ? [] : chosen.map((it) => it.id),
    version,
    title,
    selfGraded: grading.self_graded,
    // with nothing scored there is nothing to pass: no pass mark in the manifest or cmi5.xml
    passMark: scored ? grading.pass_mark : null,
  };
}

/** Builds the package for `options` and downloads it, saying in `status` what came of it. */
async function writePackage(options, form, status) {
  status.textContent = `Building the ${options.version === 'cmi5' ? 'cmi5' : 'SCORM'} package\u2026`;
  try {
    const { buildPackage, packageFileName, kind } = await lmsPackage(options.version);
    const blob = await buildPackage(options);
    const name = packageFileName(options);
    download(blob, name, 'application/zip', form);
    const mark = options.passMark === null ? 'no pass mark' : `pass mark ${options.passMark} %`;
    status.textContent = `Downloaded ${name} (${Math.round(blob.size / 1024)} KB, ${mark}): upload it to the LMS as a ${kind} activity.`;
  } catch (e) {
    status.textContent = `The package could not be built: ${e.message}`;
  }
}

/**
 * @param {{button: HTMLButtonElement, bank: {items: object[]}, siteUrl: URL,
 *   filter?: () => {section?: string, tag?: string}}} deps filter(): the page's own section and
 *   topic, where the dialog starts the first time it opens
 */
export function createEmbedBuilder({ button, bank, siteUrl, filter = () => ({}) }) {
  const items = bank.items;
  const { dialog, form, status, copyButtons, open, snippets } = embedDialogShell({
    id: 'quiz-embed',
    title: 'Embed questions',
    hint: 'Choose questions for a quiz on another page: a lecture page, a blog, an LMS page. Readers answer them there; nothing is saved in that page.',
    className: 'quiz-embed-dialog',
  });

  const filters = filterSelects(items);
  const { section, tag, sectionKeys, tagKeys } = filters;
  const picks = pickControls(() => update());
  const { list, count, describe, refusal } = picks;
  const theme = themeSelect('quiz-embed-theme');
  const { iframeOut, elementOut, nodes: snippetNodes } = snippets('quiz-embed');
  const { previewBox, show: showPreview } = previewFrame();
  const gradingUi = gradingControls();
  const pkg = packageControls(() => downloadScorm());
  const { version, packageName, scormButton } = pkg;
  let nameEdited = false;
  packageName.addEventListener('input', () => (nameEdited = packageName.value.trim() !== ''));
  builderLayout(form, { filters, picks, grading: gradingUi, pkg, theme, previewBox, snippetNodes, status });

  let started = false;
  let chosenNow = [];
  let wholeNow = false;
  let gradingFields = null; // {self_graded, pass_mark} while the pass mark is valid

  const filterNow = () => ({ section: section.value || null, tag: tag.value || null });

  /** The checklist of the questions that match the section and topic, all checked. */
  function fillList() {
    const f = filterNow();
    const shown = items.filter((it) => matches(it, { section: f.section ?? undefined, tag: f.tag ?? undefined }));
    replace(list, checklistRows(shown));
    return shown;
  }

  function update() {
    const f = filterNow();
    const boxes = [...list.querySelectorAll('input[type=checkbox]')];
    const byId = new Map(items.map((it) => [it.id, it]));
    const shown = boxes.map((b) => byId.get(b.value));
    const chosen = boxes.filter((b) => b.checked).map((b) => byId.get(b.value));
    const none = chosen.length === 0;
    chosenNow = chosen;
    wholeNow = !none && chosen.length === shown.length && !f.section && !f.tag;
    count.textContent = `${chosen.length} of ${shown.length} question${shown.length === 1 ? '' : 's'} chosen`;
    refusal.hidden = !none;
    previewBox.hidden = none;
    gradingFields = readGrading(gradingUi);
    const blocked = none || !gradingFields;
    for (const b of [...copyButtons, scormButton]) b.disabled = blocked;
    if (!nameEdited) packageName.value = none ? '' : packageTitle(f, chosen.length, chosen.length === shown.length);
    gradingUi.gradingHint.textContent = gradingFields && !none ? gradingNote(chosen, gradingFields) : '';
    if (none) describe.textContent = '';
    if (blocked) {
      iframeOut.value = elementOut.value = '';
      return;
    }
    const { choice, describe: words } = choiceOf(f, shown, chosen);
    describe.textContent = words;
    const view = { theme: theme.value };
    const grading = gradingFields;
    iframeOut.value = gradedQuizIframeSnippet({ siteUrl, choice, items: chosen, view, grading });
    elementOut.value = gradedQuizSnippet({ siteUrl, ...choice, theme: theme.value, grading });
    // The preview follows the page's theme where the embed would follow the reader's.
    const pageTheme = document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
    showPreview(gradedQuizUrl(siteUrl, choice, { theme: theme.value === 'auto' ? pageTheme : theme.value }, grading));
  }

  async function downloadScorm() {
    if (!chosenNow.length || !gradingFields) return;
    const options = packageOptions({
      siteUrl,
      chosen: chosenNow,
      whole: wholeNow,
      grading: gradingFields,
      version: version.value,
      title: packageName.value.trim() || packageTitle(filterNow(), chosenNow.length, false),
    });
    scormButton.disabled = true;
    try {
      await writePackage(options, form, status);
    } finally {
      scormButton.disabled = chosenNow.length === 0 || !gradingFields;
    }
  }

  for (const s of [section, tag])
    s.addEventListener('change', () => {
      fillList();
      update();
    });
  form.addEventListener('input', (e) => {
    status.textContent = '';
    if (e.target !== section && e.target !== tag && e.target !== packageName) update();
  });
  button.addEventListener('click', () => {
    if (!started) {
      started = true;
      const f = filter();
      section.value = f.section && sectionKeys.includes(f.section) ? f.section : '';
      tag.value = f.tag && tagKeys.includes(f.tag) ? f.tag : '';
      fillList();
    }
    update();
    open();
  });
  return { dialog, update };
}
