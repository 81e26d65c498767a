// The state of a view as one declared table of fields, the config store, and
// the URL fragment (#depth=50&gain=0.8&arch=plain,pre_ln) that carries it.
//
// FIELDS_TABLE declares every field a link can set, once: its group, kind,
// range or choices and default. Three groups:
//   config  the engine's fields: every control of the explorer, built from
//           the engine's own field table (`rn.fields` of wasm/resnorm.js, as
//           fields.js reads it); the engine still checks every value.
//   view    what an embed shows: mode (explorer, quiz or the training lab,
//           whose own fields embed/train.js reads), charts, controls shown or
//           locked, theme.
//   quiz    the quiz: which items (items, section, tag) and how they are graded
//           (self_graded: whether self-graded answers count; pass_mark in percent).
// Every reader (the explorer's and embed's hash, the custom elements'
// attributes) goes through parseEntries(); a value that does not fit is
// replaced by the default and reported as a notice {field, value, reason},
// whose text a page shows with textContent only.
import { sortArchs } from './archs.js';
import { CONFIG_FIELDS, CONFIG_KEYS } from './fields.js';

export const CHART_KEYS = ['grad', 'stream', 'update'];
export const QUIZ_SECTIONS = ['true-false', 'spot-the-error', 'why', 'edge-cases', 'recall', 'rapid-fire'];

/** Limits on what a link may hold; longer values are refused, never cut (a field's `maxLength` may allow more). */
export const LIMITS = { value: 200, key: 40, entries: 64, hash: 16384, listItems: 50 };

export const FIELDS_TABLE = {
  // ---- config: the engine's fields (fields.js)
  ...CONFIG_FIELDS,

  // ---- view: what an embed shows
  mode: {
    group: 'view',
    kind: 'choice',
    choices: ['explorer', 'quiz', 'train'],
    default: 'explorer',
    label: 'What to show',
  },
  charts: { group: 'view', kind: 'set', choices: CHART_KEYS, default: CHART_KEYS, label: 'Charts', nonEmpty: true },
  controls: {
    group: 'view',
    kind: 'set',
    choices: CONFIG_KEYS,
    default: ['arch', 'depth', 'gain'],
    label: 'Controls shown',
    words: { all: CONFIG_KEYS, none: [] },
  },
  lock: {
    group: 'view',
    kind: 'set',
    choices: CONFIG_KEYS,
    default: [],
    label: 'Controls locked',
    words: { all: CONFIG_KEYS, none: [] },
  },
  theme: { group: 'view', kind: 'choice', choices: ['auto', 'light', 'dark'], default: 'auto', label: 'Theme' },
  caption: { group: 'view', kind: 'boolean', default: true, label: 'Caption' },

  // ---- quiz: which items
  items: { group: 'quiz', kind: 'id_list', pattern: /^[a-z]{2,8}-[0-9]{2}$/, default: [], label: 'Quiz items' },
  section: { group: 'quiz', kind: 'set', choices: QUIZ_SECTIONS, default: [], label: 'Quiz sections' },
  tag: { group: 'quiz', kind: 'id_list', pattern: /^[a-z][a-z0-9-]{0,23}$/, default: [], label: 'Quiz tags' },
  // ---- quiz: how it is graded (web/src/quiz/grading.js)
  self_graded: {
    group: 'quiz',
    kind: 'choice',
    choices: ['exclude', 'count'],
    default: 'exclude',
    label: 'Self-graded answers in the score',
  },
  pass_mark: { group: 'quiz', kind: 'integer', min: 0, max: 100, default: 80, label: 'Pass mark (%)' },
};

/** The engine's fields: what the explorer's controls set. */
export const CONTROLS = Object.fromEntries(CONFIG_KEYS.map((k) => [k, FIELDS_TABLE[k]]));
export const FIELDS = CONFIG_KEYS;
export const GROUPS = ['config', 'view', 'quiz'];
export const keysOf = (group, table = FIELDS_TABLE) => Object.keys(table).filter((k) => table[k].group === group);

const clone = (v) => (Array.isArray(v) ? [...v] : v);
const defaultsOf = (group, table = FIELDS_TABLE) =>
  Object.fromEntries(keysOf(group, table).map((k) => [k, clone(table[k].default)]));
/** The groups of a field table, in table order. */
const groupsOf = (table) => [...new Set(Object.values(table).map((c) => c.group))];

export function defaultConfig() {
  return defaultsOf('config');
}
export const defaultView = () => defaultsOf('view');
export const defaultQuiz = () => defaultsOf('quiz');

/**
 * A tiny store: one config object, replaced (never mutated) on every change.
 * `keys`: the fields that tell two configs apart (the explorer's, unless another view's).
 */
export function createStore(initial = defaultConfig(), { keys = FIELDS } = {}) {
  let config = Object.freeze({ ...initial, arch: sortArchs(initial.arch) });
  const listeners = new Set();
  return {
    get: () => config,
    /** Merges `patch` into the config; listeners run only if something changed. */
    set(patch) {
      const next = { ...config, ...patch };
      if (patch.arch) next.arch = sortArchs(patch.arch);
      if (sameConfig(next, config, keys)) return;
      config = Object.freeze(next);
      listeners.forEach((fn) => fn(config));
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

export function sameConfig(a, b, keys = FIELDS) {
  return keys.every((k) => (k === 'arch' ? a.arch.join() === b.arch.join() : Object.is(a[k], b[k])));
}

// ---- Reading values

// A number as the core spells it (config.cpp's parse_decimal, so a link and the command line take
// the same texts): an optional '-', digits with a point, an optional exponent; no '+', hex or names.
const DECIMAL = /^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
/** The least normal double: a non-zero number written smaller than this is not the number that was written. */
const LEAST_NORMAL = 2 ** -1022;
/** Whether a decimal text names a number other than zero (a digit other than 0 before its exponent). */
const namesNonzero = (raw) => /[1-9]/.test(raw.split(/[eE]/)[0]);
/** A list's entry given more than once, in a notice: as the engine words its refusal of one, and what the page does instead. */
export const REPEATED = 'listed twice (each once); used once';
const BOOLEAN = { 1: true, true: true, yes: true, on: true, 0: false, false: false, no: false, off: false };

const describeRange = (c) => `allowed ${c.min}..${c.max}`;
/** The allowed choices, in a notice: all of a short list, the first of a long one (the settings show every one). */
const LISTED_CHOICES = 6;
const describeChoices = (choices) =>
  choices.length <= LISTED_CHOICES + 4
    ? `allowed ${choices.join(', ')}`
    : `allowed ${choices.slice(0, LISTED_CHOICES).join(', ')} and ${choices.length - LISTED_CHOICES} more, all in the settings`;

/**
 * One raw string against one field of `table` (FIELDS_TABLE unless another
 * view's table, such as the training lab's, is given): {ok: true, value} or
 * {ok: false, reason} (a list may also come back ok with `dropped` entries it
 * left out, and `repeated` entries it was given more than once and keeps once:
 * the engine refuses a list naming one twice, REPEATED says so).
 */
export function readField(key, raw, table = FIELDS_TABLE) {
  const c = table[key];
  if (typeof raw !== 'string') return { ok: false, reason: 'not text' };
  // a list of field names (the lab's controls) may be as long as all its names together
  const longest = c.maxLength ?? LIMITS.value;
  if (raw.length > longest) return { ok: false, reason: `too long (${raw.length} characters; at most ${longest})` };
  if (raw === '') return { ok: false, reason: 'empty' };
  switch (c.kind) {
    case 'integer':
    case 'uint32':
    case 'real': {
      if (!DECIMAL.test(raw)) return { ok: false, reason: 'not a number' };
      let v = Number(raw);
      if (!Number.isFinite(v)) return { ok: false, reason: `out of range (${describeRange(c)})` };
      // as the core refuses it: 1e-400 rounds to 0 (and 4e-320 to a subnormal), not the value written
      if (namesNonzero(raw) && Math.abs(v) < LEAST_NORMAL)
        return { ok: false, reason: `too small to represent (${describeRange(c)})` };
      if (c.kind !== 'real' && !Number.isInteger(v)) return { ok: false, reason: 'not a whole number' };
      if (v < c.min || v > c.max) return { ok: false, reason: `out of range (${describeRange(c)})` };
      if (v === 0) v = 0; // no -0
      return { ok: true, value: v };
    }
    case 'choice': {
      const v = c.choices.find((ch) => String(ch) === raw);
      return v === undefined
        ? { ok: false, reason: `not one of the choices (${describeChoices(c.choices)})` }
        : { ok: true, value: v };
    }
    case 'boolean': {
      const v = BOOLEAN[raw.toLowerCase()];
      return v === undefined ? { ok: false, reason: 'not true or false' } : { ok: true, value: v };
    }
    case 'text': {
      // words a person wrote (an assignment's title and instructions), shown as text only:
      // line breaks where `lines` allows them (CR LF and CR read as LF), tabs, no other control
      const v = raw.replace(/\r\n?/g, '\n');
      const lines = c.lines === 1 ? 'one line of text' : 'text and line breaks';
      if (c.lines === 1 && v.includes('\n')) return { ok: false, reason: `holds a line break (allowed: ${lines})` };
      if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(v))
        return { ok: false, reason: `holds control characters (allowed: ${lines})` };
      return { ok: true, value: v };
    }
    case 'choice_list':
    case 'set':
    case 'id_list': {
      if (c.words && Object.hasOwn(c.words, raw)) return { ok: true, value: [...c.words[raw]] };
      const parts = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (parts.length > LIMITS.listItems)
        return { ok: false, reason: `too many entries (at most ${LIMITS.listItems})` };
      const fits = (p) => (c.kind === 'id_list' ? c.pattern.test(p) : c.choices.includes(p));
      const fitting = parts.filter(fits);
      const good = [...new Set(fitting)];
      const repeated = good.filter((p) => fitting.indexOf(p) !== fitting.lastIndexOf(p));
      const dropped = parts.filter((p) => !fits(p));
      const where = c.kind === 'id_list' ? 'not a valid name' : describeChoices(c.choices);
      if (!good.length && (dropped.length || c.nonEmpty || c.kind === 'choice_list'))
        return { ok: false, reason: dropped.length ? `no usable entry (${where})` : 'empty' };
      const value =
        c.kind === 'choice_list'
          ? sortArchs(good)
          : c.kind === 'set'
            ? c.choices.filter((ch) => good.includes(ch))
            : good;
      return {
        ok: true,
        value,
        ...(dropped.length && { dropped, reason: `entries left out (${where})` }),
        ...(repeated.length && { repeated }),
      };
    }
    default:
      return { ok: false, reason: 'unknown kind' };
  }
}

/** A value as it goes into a link or an attribute. */
export function writeField(key, value, table = FIELDS_TABLE) {
  const c = table[key];
  if (Array.isArray(value)) {
    if (c.words)
      for (const [word, list] of Object.entries(c.words))
        if (list.length === value.length && list.every((v, i) => v === value[i]) && list.length) return word;
    if (c.words && !value.length) return 'none';
    return value.join(',');
  }
  return String(value);
}

/** A notice's value, safe to show as text: short and printable. */
export function shownValue(raw) {
  const s = String(raw).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '\uFFFD');
  return s.length > 32 ? `${s.slice(0, 32)}… (${s.length} characters)` : s;
}

/**
 * Reads [key, raw] pairs (a URLSearchParams, an element's attributes) through
 * the table (FIELDS_TABLE, or another view's `table`). `groups` are the groups
 * the reader uses; a known field of another group is skipped without a notice
 * (a link made for the embed still opens the explorer). Returns one object of
 * values per group of the table ({config, view, quiz} for FIELDS_TABLE) with
 * `notices` and `given`, the fields that were set by the entries.
 */
export function parseEntries(entries, { groups = GROUPS, alias = null, table = FIELDS_TABLE } = {}) {
  const state = Object.fromEntries(groupsOf(table).map((g) => [g, defaultsOf(g, table)]));
  const notices = [];
  const given = [];
  let count = 0;
  for (let [key, raw] of entries) {
    if (++count > LIMITS.entries) {
      notices.push({ field: null, value: '', reason: `more than ${LIMITS.entries} settings; the rest were ignored` });
      break;
    }
    key = String(key);
    if (alias) key = alias(key);
    const c = key.length <= LIMITS.key && Object.hasOwn(table, key) ? table[key] : null;
    if (!c) {
      notices.push({ field: null, value: shownValue(key), reason: 'unknown setting' });
      continue;
    }
    if (!groups.includes(c.group)) continue;
    if (given.includes(key)) {
      notices.push({ field: key, value: shownValue(raw), reason: 'given more than once; the first one is used' });
      continue;
    }
    const r = readField(key, raw, table);
    if (r.ok) {
      state[c.group][key] = r.value;
      given.push(key);
      if (r.dropped) notices.push({ field: key, value: shownValue(r.dropped.join(',')), reason: r.reason });
      if (r.repeated) notices.push({ field: key, value: shownValue(r.repeated.join(',')), reason: REPEATED });
    } else {
      notices.push({ field: key, value: shownValue(raw), reason: `${r.reason}; the default is used` });
    }
  }
  return { ...state, notices, given };
}

/**
 * The fragment of a URL: {config, view, quiz, notices, anchor}. A fragment
 * without "=" is an anchor (#charts, the skip link), not state: `anchor` is
 * true and the caller keeps what it has.
 */
export function parseHash(hash, options = {}) {
  const text = String(hash ?? '').replace(/^#/, '');
  if (text.length > LIMITS.hash) {
    const state = parseEntries([], options);
    state.notices.push({
      field: null,
      value: shownValue(text),
      reason: 'the link\u2019s settings are too long; every default is used',
    });
    return { ...state, anchor: false };
  }
  if (!text.includes('=')) return { ...parseEntries([], options), anchor: text !== '' };
  let params;
  try {
    params = new URLSearchParams(text);
  } catch {
    params = [];
  }
  return { ...parseEntries(params, options), anchor: false };
}

/** The notices as sentences (plain text: shown with textContent only); `table` holds their fields. */
export function noticeText({ field, value, reason }, table = FIELDS_TABLE) {
  const label = field ? table[field].label : null;
  if (!field) return value ? `\u201c${value}\u201d: ${reason}` : reason;
  return `${label} (${field}) \u201c${value}\u201d: ${reason}`;
}

/**
 * Writes a state back as a fragment: only the fields of `groups` that differ
 * from their defaults, in table order. '' when everything is default.
 */
export function stateToHash(state, { groups = GROUPS, table = FIELDS_TABLE } = {}) {
  const params = new URLSearchParams();
  for (const [key, c] of Object.entries(table)) {
    if (!groups.includes(c.group)) continue;
    const value = state[c.group]?.[key];
    if (value === undefined) continue;
    const v = writeField(key, value, table);
    if (v !== writeField(key, c.default, table)) params.set(key, v);
  }
  const s = params.toString().replaceAll('%2C', ',');
  return s ? `#${s}` : '';
}

// ---- The explorer's config in the fragment

export function configToHash(config) {
  return stateToHash({ config }, { groups: ['config'] });
}

export function configFromHash(hash) {
  return parseHash(hash, { groups: ['config'] }).config;
}
