// An assignment's link: assignment.html#title=...&text=...&experiment=lab&items=tf-01,why-03&task=copy&...
// One fragment holds the teacher's title and instructions, which experiment to show, the quiz's
// questions and their grading, and the theme (ASSIGNMENT_TABLE), then the experiment's own fields, read and written
// exactly as embed.html reads and writes them: the explorer's config and view fields (state.js's
// FIELDS_TABLE), or the embedded lab's (embed/train-view.js's TRAIN_EMBED_TABLE). The experiment
// of an assignment is always locked: every setting it shows is fixed. Pure: the page, the builder
// and the Node tests use it.
import { FIELDS_TABLE, LIMITS, parseEntries, parseHash, shownValue, stateToHash } from '../shared/state.js';
import { TRAIN_EMBED_TABLE, trainEmbedFromHash, trainEmbedHash } from '../embed/train-view.js';
import { trainFromHash } from '../train/link.js';

/** How long a title and the instructions may be, in characters (UTF-16 units, as the browser counts). */
export const TITLE_MAX = 120;
export const TEXT_MAX = 2000;
/** The longest fragment any page of the site reads (state.js); an assignment's link stays within it. */
export const HASH_MAX = LIMITS.hash;
/** The longest bank id (state.js's items pattern) and its comma. */
const ID_CHARS = 12;

export const EXPERIMENTS = ['none', 'explorer', 'lab'];
/** What an assignment with no title is called. */
export const UNTITLED = 'Assignment';

/** The assignment's own fields (group 'assignment'), in the order a link writes them. */
export const ASSIGNMENT_TABLE = {
  title: { group: 'assignment', kind: 'text', lines: 1, maxLength: TITLE_MAX, default: '', label: 'Title' },
  text: { group: 'assignment', kind: 'text', maxLength: TEXT_MAX, default: '', label: 'Instructions' },
  experiment: {
    group: 'assignment',
    kind: 'choice',
    choices: EXPERIMENTS,
    default: 'none',
    label: 'Experiment',
  },
  items: { ...FIELDS_TABLE.items, group: 'assignment', maxLength: ID_CHARS * LIMITS.listItems },
  // how the questions are graded, as the quiz embed's fields (quiz/grading.js)
  self_graded: { ...FIELDS_TABLE.self_graded, group: 'assignment' },
  pass_mark: { ...FIELDS_TABLE.pass_mark, group: 'assignment' },
  theme: { ...FIELDS_TABLE.theme, group: 'assignment' },
};

// Fields of the embeds that an assignment does not take, and why (a notice says so).
const NOT_HERE = {
  mode: 'not a setting of an assignment (experiment= says which experiment it shows)',
  lock: 'not a setting of an assignment (every setting its experiment shows is fixed)',
  section: 'not a setting of an assignment (items= lists its questions)',
  tag: 'not a setting of an assignment (items= lists its questions)',
};

/** Each experiment's reader and table: what embed.html uses for it. */
const EXPERIMENT_READERS = {
  explorer: { table: FIELDS_TABLE, read: (hash) => parseHash(hash, { groups: ['config', 'view'] }) },
  lab: { table: TRAIN_EMBED_TABLE, read: trainEmbedFromHash },
};

/** The table a notice's field belongs to, for its label (shared/notice.js): the assignment's, then the experiment's. */
export const noticeTableOf = (experiment) => ({
  ...(EXPERIMENT_READERS[experiment]?.table ?? {}),
  ...ASSIGNMENT_TABLE,
});

/** The experiment's state with every setting it shows fixed and the assignment's theme. */
function locked(state, theme) {
  return { ...state, view: { ...state.view, lock: [...state.view.controls], theme } };
}

/**
 * An assignment's fragment (or the package's copy of it): {title, text, experiment, items,
 * self_graded, pass_mark, theme, state, notices, empty}. `state` is the experiment's embed state as embed.html reads it
 * ({config, view, notices} for the explorer, {train, view, notices} for the lab), locked, or null
 * without an experiment; `notices` are every value that could not be used, the experiment's among
 * them (fields of noticeTableOf(experiment)); `empty` is a fragment with no setting at all.
 */
export function readAssignment(hash) {
  const text = String(hash ?? '').replace(/^#/, '');
  const own = parseEntries([], { groups: ['assignment'], table: ASSIGNMENT_TABLE });
  const base = { ...own.assignment, state: null, notices: [], empty: !text.includes('=') };
  // too long: state.js's notice, and every default
  if (text.length > HASH_MAX)
    return { ...base, notices: parseHash(text, { groups: ['assignment'], table: ASSIGNMENT_TABLE }).notices };
  if (base.empty) return base;

  let entries;
  try {
    entries = [...new URLSearchParams(text)];
  } catch {
    entries = [];
  }
  const notices = [];
  if (entries.length > LIMITS.entries) {
    notices.push({ field: null, value: '', reason: `more than ${LIMITS.entries} settings; the rest were ignored` });
    entries = entries.slice(0, LIMITS.entries);
  }
  const mine = [];
  const theirs = [];
  for (const [key, raw] of entries) {
    if (Object.hasOwn(ASSIGNMENT_TABLE, key)) mine.push([key, raw]);
    else if (Object.hasOwn(NOT_HERE, key)) notices.push({ field: null, value: shownValue(key), reason: NOT_HERE[key] });
    else theirs.push([key, raw]);
  }
  const a = parseEntries(mine, { groups: ['assignment'], table: ASSIGNMENT_TABLE });
  notices.unshift(...a.notices);
  const { experiment, theme } = a.assignment;
  let state = null;
  const reader = EXPERIMENT_READERS[experiment];
  if (reader) {
    state = reader.read(`#${new URLSearchParams(theirs)}`);
    notices.push(...state.notices);
    state = locked({ ...state, notices: [] }, theme);
  } else
    for (const [key] of theirs)
      notices.push({
        field: null,
        value: shownValue(key),
        reason: 'not used: the assignment shows no experiment (experiment=explorer or lab)',
      });
  return { ...base, ...a.assignment, state, notices };
}

/** The experiment's part of a fragment (no '#'): the embed's fields that differ from their defaults, lock and mode left out. */
function experimentPart(experiment, state) {
  const view = { ...state.view, lock: [], theme: 'auto' };
  const hash =
    experiment === 'lab'
      ? trainEmbedHash(state.train, view, state.lab?.preset ?? 'none')
      : stateToHash({ config: state.config, view: { ...view, mode: 'explorer' } }, { groups: ['config', 'view'] });
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  params.delete('mode');
  params.delete('lock');
  return params.toString();
}

/**
 * The fragment of an assignment ({title, text, experiment, items, self_graded, pass_mark, theme,
 * state}, each field as ASSIGNMENT_TABLE's, missing ones at their defaults; state as
 * readAssignment gives it, or with {config|train, view: {controls, ...}}), '#' first. Throws a
 * RangeError naming the field for a value the link could not carry.
 */
export function assignmentHash({ text = '', state, ...fields }) {
  // line breaks as the page reads them (a form's CR LF is LF)
  const values = { ...fields, text: String(text).replace(/\r\n?/g, '\n') };
  const { experiment = 'none' } = values;
  const own = stateToHash({ assignment: values }, { groups: ['assignment'], table: ASSIGNMENT_TABLE });
  const mine = new URLSearchParams(own.replace(/^#/, ''));
  // every value as the page will read it, so a link never says what the page then refuses
  const check = parseEntries([...mine], { groups: ['assignment'], table: ASSIGNMENT_TABLE });
  if (check.notices.length) {
    const n = check.notices[0];
    const err = new RangeError(
      `${ASSIGNMENT_TABLE[n.field]?.label ?? 'A setting'}: ${n.reason.replace(/; the default is used$/, '')}`,
    );
    err.field = n.field;
    throw err;
  }
  const parts = [mine.toString().replaceAll('%2C', ',')];
  if (EXPERIMENT_READERS[experiment] && state) parts.push(experimentPart(experiment, state).replaceAll('%2C', ','));
  const body = parts.filter(Boolean).join('&');
  return body ? `#${body}` : '';
}

/** The assignment page's URL for an assignment on the site at `siteUrl`. */
export const assignmentUrl = (siteUrl, assignment) =>
  new URL(`assignment.html${assignmentHash(assignment)}`, siteUrl).href;

/** Why a link cannot be used (too long for the page to read), or null. */
export function linkTooLong(hash) {
  const n = String(hash).replace(/^#/, '').length;
  return n > HASH_MAX
    ? `The link would carry ${n.toLocaleString('en')} characters after the #; the page reads at most ${HASH_MAX.toLocaleString('en')}: shorten the instructions or the title.`
    : null;
}

/** The embedded lab's state for a claim ('none': the lab's defaults), as a link naming it reads. */
export const labState = (claim = 'none') =>
  trainEmbedFromHash(claim === 'none' ? '' : `#preset=${encodeURIComponent(claim)}`);

/** The explorer's embed state for its default settings. */
export const explorerState = () => EXPERIMENT_READERS.explorer.read('');

/**
 * The experiment a link of the site sets up (the explorer's or the lab's address, or an embed
 * link of either): {experiment, state, notices} (state as readAssignment's, before locking;
 * notices for the values the link could not use), or {error} for a link of neither.
 */
export function experimentFromLink(text, siteUrl) {
  let url;
  try {
    url = new URL(String(text).trim(), siteUrl);
  } catch {
    return { error: 'not a link: paste the address of the explorer or the lab' };
  }
  const page = url.pathname.split('/').pop() || 'index.html';
  if (page === 'train.html') {
    let { config, preset, setting, notices } = trainFromHash(url.hash);
    if (setting !== 'quick') {
      // the assignment embeds the lab, which trains a claim at its quick setting
      const params = new URLSearchParams(url.hash.replace(/^#/, ''));
      params.delete('setting');
      ({ config, preset, notices } = trainFromHash(`#${params}`));
      notices = [
        ...notices,
        {
          field: null,
          value: `setting=${setting}`,
          reason: 'an embedded lab trains a claim at its quick setting; the quick one is used',
        },
      ];
    }
    const state = { ...labState('none'), train: config, lab: { preset }, notices: [] };
    return { experiment: 'lab', state, notices };
  }
  const mode = page === 'embed.html' ? parseHash(url.hash).view.mode : page === 'index.html' ? 'explorer' : null;
  if (mode === 'quiz') return { error: 'a link of the quiz: choose the questions under Questions instead' };
  if (mode === null)
    return {
      error: `a link of ${page}, neither the explorer (index.html) nor the lab (train.html) nor an embed of either`,
    };
  const experiment = mode === 'train' ? 'lab' : 'explorer';
  const { notices, ...state } = EXPERIMENT_READERS[experiment].read(url.hash);
  return { experiment, state: { ...state, notices: [] }, notices };
}
