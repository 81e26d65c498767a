// Quiz progress in localStorage (or any Storage-like object: getItem, setItem, removeItem), under
// one versioned key. Nothing here throws: bad saved data is reset or trimmed, failed writes are
// reported, and every function returns a `notice` (a sentence for the UI, or null when all is well).
//
// Stored document (JSON), format version 1:
//   { version: 1,
//     items: { "<id>": { box: 1..5, lastSeen: ms | null, seen: n, correct: n, answer?: text } },
//     session: { answered, correct, selfGraded, selfCorrect, streak, bestStreak, startedAt } }
// `box` is the Leitner box (schedule.js), lastSeen the time of the last answer (ms since the epoch),
// seen/correct how often the item was answered / answered correctly, answer the last answer the
// learner wrote in an open item's box (at most MAX_ANSWER characters; absent when none was
// written). The session is score.js's.
// A new format gets a new key (resnorm.quiz.v2, ...), so a document under this key whose `version`
// is not 1 is treated as damaged and reset.

import { newSession, sanitizeSession } from './score.js';

export const STORAGE_KEY = 'resnorm.quiz.v1';
export const VERSION = 1;
export const BOXES = 5;
/** Saved text longer than this is not parsed (a full bank's progress is a few kB). */
export const MAX_CHARS = 256 * 1024;
/** The most characters of a written answer kept with an item's record. */
export const MAX_ANSWER = 1000;
/** Item ids as in bank.schema.json. */
export const ID_PATTERN = /^(tf|err|why|edge|recall|rapid)-[0-9]{2}$/;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v) => Number.isSafeInteger(v) && v >= 0;
// The top-level fields of a saved progress record.
const RECORD_FIELDS = new Set(['version', 'items', 'session']);
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
// Ids quoted in a notice: bank-shaped ids only, at most three, so a huge or hostile key never
// reaches the page.
const listIds = (ids) => {
  const shown = ids.filter((id) => ID_PATTERN.test(id)).slice(0, 3);
  const rest = ids.length - shown.length;
  return shown.length === 0 ? '' : ` (${shown.join(', ')}${rest > 0 ? `, and ${rest} more` : ''})`;
};

/**
 * Fresh progress: no items seen, a new session.
 * @param {number} [now=0]
 */
export function emptyProgress(now = 0) {
  return { version: VERSION, items: {}, session: newSession(now) };
}

/**
 * One item's record, checked; null if it is unusable.
 * lastSeen in the future (a changed clock) is clamped to `now` when `now` is given; an `answer`
 * that is not text, is empty or is longer than MAX_ANSWER is left out (the record is kept).
 */
export function sanitizeRecord(value, now) {
  if (!isObject(value)) return null;
  const { box, lastSeen, seen, correct, answer } = value;
  if (!Number.isInteger(box) || box < 1 || box > BOXES) return null;
  if (!(lastSeen === null || lastSeen === undefined || (Number.isFinite(lastSeen) && lastSeen >= 0))) return null;
  if (!isCount(seen) || !isCount(correct) || correct > seen) return null;
  let last = lastSeen ?? null;
  if (last !== null && Number.isFinite(now) && last > now) last = now;
  const written = typeof answer === 'string' && answer !== '' && answer.length <= MAX_ANSWER;
  return { box, lastSeen: last, seen, correct, ...(written ? { answer } : {}) };
}

/** A written answer as a record keeps it: trimmed, at most MAX_ANSWER characters ('…' where cut); '' for none. */
export function keptAnswer(text) {
  const s = String(text ?? '').trim();
  const chars = Array.from(s);
  return chars.length > MAX_ANSWER ? `${chars.slice(0, MAX_ANSWER - 1).join('')}\u2026` : s;
}

/**
 * Checks a parsed document. Returns the usable part and a list of problems (sentences).
 * @param {unknown} doc
 * @param {{ids?: string[], now?: number}} [options] ids: the bank's ids (others are dropped)
 * @returns {{progress: object, problems: string[], reset: boolean}}
 */
export function sanitizeProgress(doc, { ids, now } = {}) {
  const known = Array.isArray(ids) ? new Set(ids) : null;
  const fresh = emptyProgress(Number.isFinite(now) ? now : 0);
  if (!isObject(doc)) {
    return { progress: fresh, problems: ['the saved quiz progress was not a progress record'], reset: true };
  }
  if (doc.version !== VERSION) {
    const v = Number.isSafeInteger(doc.version) ? `format version ${doc.version}` : 'no valid format version';
    return {
      progress: fresh,
      problems: [`the saved quiz progress had ${v} (this page reads version ${VERSION})`],
      reset: true,
    };
  }
  if (!isObject(doc.items)) {
    return { progress: fresh, problems: ['the saved quiz progress had no valid item list'], reset: true };
  }
  const problems = [];
  const items = {};
  const unknown = [];
  const broken = [];
  for (const [id, rec] of Object.entries(doc.items)) {
    if (!ID_PATTERN.test(id) || (known && !known.has(id))) {
      unknown.push(id);
      continue;
    }
    const clean = sanitizeRecord(rec, now);
    if (clean) items[id] = clean;
    else broken.push(id);
  }
  if (unknown.length)
    problems.push(`dropped ${plural(unknown.length, 'question')} the bank does not have${listIds(unknown)}`);
  if (broken.length) problems.push(`reset ${plural(broken.length, 'damaged question record')}${listIds(broken)}`);
  // Fields a progress record does not have (e.g. "__proto__" from a hostile edit): ignored, and said so.
  const extra = Object.keys(doc).filter((k) => !RECORD_FIELDS.has(k));
  if (extra.length) {
    const shown = extra.filter((k) => /^[A-Za-z0-9_$-]{1,24}$/.test(k)).slice(0, 3);
    const more = extra.length - shown.length;
    const names = shown.length ? ` (${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''})` : '';
    problems.push(`ignored ${plural(extra.length, 'unknown field')}${names}`);
  }
  let session = sanitizeSession(doc.session);
  if (!session) {
    if (doc.session !== undefined) problems.push('reset the session score, which was damaged');
    session = fresh.session;
  }
  return { progress: { version: VERSION, items, session }, problems, reset: false };
}

function storageUsable(storage) {
  return (
    storage !== null &&
    typeof storage === 'object' &&
    typeof storage.getItem === 'function' &&
    typeof storage.setItem === 'function'
  );
}

function errorName(e) {
  const name = e && typeof e.name === 'string' ? e.name.slice(0, 40) : 'error';
  return /quota/i.test(name) || (e && e.code === 22) ? 'the browser storage is full' : `the browser refused (${name})`;
}

/**
 * Reads progress. Never throws.
 * When saved data had to be reset or trimmed, the cleaned progress is written back (best effort),
 * so the notice appears once, not on every visit.
 * @param {Storage|null} storage localStorage or a fake with getItem/setItem/removeItem
 * @param {{ids?: string[], now?: number}} [options] ids: the bank's item ids; now: ms since the epoch
 * @returns {{progress: object, notice: string|null}}
 */
export function loadProgress(storage, { ids, now } = {}) {
  const t = Number.isFinite(now) ? now : 0;
  if (!storageUsable(storage)) {
    return {
      progress: emptyProgress(t),
      notice: 'Quiz progress cannot be saved in this browser; it lasts until the page is closed.',
    };
  }
  let raw;
  try {
    raw = storage.getItem(STORAGE_KEY);
  } catch (e) {
    return { progress: emptyProgress(t), notice: `Quiz progress could not be read: ${errorName(e)}. Starting fresh.` };
  }
  if (raw === null || raw === undefined) return { progress: emptyProgress(t), notice: null };
  let problems;
  let progress;
  if (typeof raw !== 'string') {
    progress = emptyProgress(t);
    problems = ['the saved quiz progress was not text'];
  } else if (raw.length > MAX_CHARS) {
    progress = emptyProgress(t);
    problems = [`the saved quiz progress was implausibly large (${raw.length} characters)`];
  } else {
    let doc;
    try {
      doc = JSON.parse(raw);
      ({ progress, problems } = sanitizeProgress(doc, { ids, now }));
    } catch {
      progress = emptyProgress(t);
      problems = ['the saved quiz progress was not valid JSON'];
    }
  }
  if (problems.length === 0) return { progress, notice: null };
  const saved = saveProgress(storage, progress);
  const tail = saved.ok ? '' : ` ${saved.notice}`;
  const sentence = problems.join('; ');
  return { progress, notice: `Quiz progress: ${sentence}.${tail}` };
}

/**
 * Writes progress. Never throws.
 * @param {Storage|null} storage
 * @param {object} progress
 * @returns {{ok: boolean, notice: string|null}}
 */
export function saveProgress(storage, progress) {
  if (!storageUsable(storage)) return { ok: false, notice: 'Quiz progress cannot be saved in this browser.' };
  let text;
  try {
    text = JSON.stringify(progress);
  } catch {
    return { ok: false, notice: 'Quiz progress could not be saved: it could not be serialized.' };
  }
  if (typeof text !== 'string' || text.length > MAX_CHARS) {
    return { ok: false, notice: 'Quiz progress could not be saved: it is implausibly large.' };
  }
  try {
    storage.setItem(STORAGE_KEY, text);
    return { ok: true, notice: null };
  } catch (e) {
    return { ok: false, notice: `Quiz progress could not be saved: ${errorName(e)}.` };
  }
}

/**
 * Forgets all progress. Never throws.
 * @param {Storage|null} storage
 * @returns {{ok: boolean, notice: string|null}}
 */
export function clearProgress(storage) {
  if (!storageUsable(storage) || typeof storage.removeItem !== 'function') {
    return { ok: false, notice: 'Quiz progress cannot be cleared in this browser.' };
  }
  try {
    storage.removeItem(STORAGE_KEY);
    return { ok: true, notice: null };
  } catch (e) {
    return { ok: false, notice: `Quiz progress could not be cleared: ${errorName(e)}.` };
  }
}
