// Leitner spaced repetition over the question bank. Pure functions: progress in, progress out.
//
// Five boxes. A new item is in box 1. A correct answer moves it up one box (box 5 stays in 5), a
// wrong one sends it back to box 1. An item is due once its box's interval has passed since it was
// last answered:
//   box      1     2      3       4       5
//   interval 0     1 day  3 days  7 days  21 days
// Box 1 has no wait: a missed or new item is due in every session. The intervals roughly triple, the
// classic Leitner progression, and the last one (three weeks) is long enough that an item answered
// correctly four times in a row mostly stays out of the way. Intervals are exact durations in ms
// (an item answered at 20:00 is due the next day at 20:00).
//
// Ordering: due items by box (lowest first: the least known), then by id. With a seed, the items
// of each box are shuffled instead (deterministically for a given seed); boxes still come in order.
// Build a session's queue once with due() and work through it: a missed item goes back to box 1 and
// is due again at once, so calling due() after every answer would offer it again immediately. The
// items a session has answered are answeredSince(progress, session.startedAt): a reload of the
// page (a new queue) skips them too, until a new session starts.

import { BOXES, emptyProgress } from './store.js';
import { mulberry32, shuffled } from './random.js';

export const DAY_MS = 24 * 60 * 60 * 1000;
/** Review interval of box b (1..5) in days, at index b - 1. */
export const INTERVALS_DAYS = Object.freeze([0, 1, 3, 7, 21]);

/** The review interval of a box in ms. */
export function intervalMs(box) {
  const b = Math.min(Math.max(Math.trunc(box) || 1, 1), BOXES);
  return INTERVALS_DAYS[b - 1] * DAY_MS;
}

/** The record of an item, or the record of a new item (box 1, never seen). */
export function recordOf(progress, id) {
  const rec =
    progress && progress.items && Object.prototype.hasOwnProperty.call(progress.items, id) ? progress.items[id] : null;
  return rec || { box: 1, lastSeen: null, seen: 0, correct: 0 };
}

/** When an item becomes due (ms since the epoch); 0 for an item never answered. */
export function dueAt(record) {
  return record.lastSeen === null || record.lastSeen === undefined ? 0 : record.lastSeen + intervalMs(record.box);
}

/**
 * The progress after one answer; the input is not modified (the session score is score.js's job).
 * @param {object} progress from store.js
 * @param {string} id item id
 * @param {boolean} correct
 * @param {number} now ms since the epoch
 * @returns {object} new progress
 */
export function grade(progress, id, correct, now) {
  const base = progress && progress.items ? progress : emptyProgress(now);
  const rec = recordOf(base, id);
  const ok = correct === true;
  const next = {
    box: ok ? Math.min(rec.box + 1, BOXES) : 1,
    lastSeen: now,
    seen: rec.seen + 1,
    correct: rec.correct + (ok ? 1 : 0),
  };
  return { ...base, items: { ...base.items, [id]: next } };
}

/**
 * The ids of the items answered at or after `since` (ms), e.g. since the stored session started:
 * the session's own record of what it has already asked, which survives a reload.
 */
export function answeredSince(progress, since) {
  const items = progress && progress.items ? progress.items : {};
  return Object.keys(items).filter((id) => Number.isFinite(items[id].lastSeen) && items[id].lastSeen >= since);
}

const asList = (v) => (v === undefined || v === null || v === '' ? null : Array.isArray(v) ? v : [v]);

/**
 * Whether an item passes a filter: section (a name or a list: the item's section is one of them)
 * and tag (a name or a list: the item has at least one of them). Missing criteria match everything.
 */
export function matches(item, filter = {}) {
  const sections = asList(filter.section);
  const tags = asList(filter.tag);
  if (sections && !sections.includes(item.section)) return false;
  if (tags && !(Array.isArray(item.tags) && item.tags.some((t) => tags.includes(t)))) return false;
  return true;
}

const itemsOf = (bank) => (Array.isArray(bank) ? bank : bank && Array.isArray(bank.items) ? bank.items : []);

/**
 * The due items, in review order.
 * @param {object|object[]} bank the bank ({items}) or its item list
 * @param {object} progress from store.js
 * @param {number} now ms since the epoch
 * @param {{section?: string|string[], tag?: string|string[], seed?: number|string}} [filter]
 * @returns {{id: string, item: object, box: number, lastSeen: number|null, dueAt: number}[]}
 */
export function due(bank, progress, now, filter = {}) {
  const list = [];
  for (const item of itemsOf(bank)) {
    if (!matches(item, filter)) continue;
    const rec = recordOf(progress, item.id);
    const at = dueAt(rec);
    if (at <= now) list.push({ id: item.id, item, box: rec.box, lastSeen: rec.lastSeen, dueAt: at });
  }
  list.sort((a, b) => a.box - b.box || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (filter.seed === undefined || filter.seed === null) return list;
  const rand = mulberry32(filter.seed);
  const out = [];
  for (let box = 1; box <= BOXES; box++)
    out.push(
      ...shuffled(
        list.filter((d) => d.box === box),
        rand,
      ),
    );
  return out;
}

/**
 * When the next item (passing the filter) that is not yet due becomes due, or null if none is
 * waiting. For "nothing due; come back in 2 days".
 */
export function nextDueAt(bank, progress, now, filter = {}) {
  let next = null;
  for (const item of itemsOf(bank)) {
    if (!matches(item, filter)) continue;
    const at = dueAt(recordOf(progress, item.id));
    if (at > now && (next === null || at < next)) next = at;
  }
  return next;
}

/** How many items (passing the filter) sit in each box: [n1, n2, n3, n4, n5]. */
export function boxCounts(bank, progress, filter = {}) {
  const counts = new Array(BOXES).fill(0);
  for (const item of itemsOf(bank)) if (matches(item, filter)) counts[recordOf(progress, item.id).box - 1] += 1;
  return counts;
}
