// The quiz's state between the page and the pure logic modules: progress (store.js), the Leitner
// schedule (schedule.js), the session score (score.js), the filter and this session's queue.
// No DOM: it takes any Storage-like object, so the Node tests drive it with a fake.
//
// The queue is built once per session (and again when the filter changes), as schedule.js asks:
// a missed item drops to box 1 and would otherwise be offered again at once. An item answered in
// this session is skipped if a queue reaches it again (after a deep link, a change of filter or a
// reload of the page: the stored records say what was answered since the stored session started),
// until a new session starts.
//
// Every method that writes returns the store's `notice` (a sentence, or null), and every change
// reaches the listeners as {type, notice}.

import { loadProgress, saveProgress, clearProgress, emptyProgress, keptAnswer } from '../store.js';
import { due, grade, nextDueAt, boxCounts, recordOf, matches, dueAt, answeredSince } from '../schedule.js';
import { newSession, record, summary } from '../score.js';

export const MODES = Object.freeze(['due', 'all']);

const itemsOf = (bank) => (Array.isArray(bank) ? bank : bank && Array.isArray(bank.items) ? bank.items : []);

/** A fresh uint32 for shuffling (crypto when there is one). */
export function randomSeed() {
  const c = globalThis.crypto;
  if (c && typeof c.getRandomValues === 'function') return c.getRandomValues(new Uint32Array(1))[0];
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}

/**
 * @param {{bank: object, storage: Storage|null, now?: () => number, seed?: () => number}} options
 */
export function createSession({ bank, storage, now = () => Date.now(), seed = randomSeed }) {
  const items = itemsOf(bank);
  const byId = new Map(items.map((it) => [it.id, it]));
  const ids = items.map((it) => it.id);
  const order = new Map(ids.map((id, i) => [id, i]));
  const listeners = new Set();

  let { progress, notice: loadNotice } = loadProgress(storage, { ids, now: now() });
  let filter = { section: null, tag: null, mode: 'due', shuffle: false };
  let queue = [];
  let pos = 0;
  // ids answered in this session: read from the stored records, so a reload asks none of them again
  const answeredInSession = () => new Set(answeredSince(progress, progress.session.startedAt));
  let done = answeredInSession();

  const emit = (type, notice = null) => listeners.forEach((fn) => fn({ type, notice }));
  const scheduleFilter = () => ({ section: filter.section || undefined, tag: filter.tag || undefined });

  function buildQueue() {
    const f = { ...scheduleFilter(), seed: filter.shuffle ? seed() : undefined };
    // "all": every item passing the filter, still least-known first (due() with a time past everything).
    const list = due(items, progress, filter.mode === 'all' ? Infinity : now(), f);
    // Unshuffled, each box keeps the bank's order (true/false first, as the bank is written),
    // not schedule.js's alphabetical order of ids.
    if (!filter.shuffle) list.sort((a, b) => a.box - b.box || order.get(a.id) - order.get(b.id));
    queue = list.map((d) => d.id);
    pos = 0;
    skipDone();
  }

  function skipDone() {
    while (pos < queue.length && done.has(queue[pos])) pos += 1;
  }

  function save() {
    const { notice } = saveProgress(storage, progress);
    return notice;
  }

  buildQueue();

  return {
    /** The notice from reading saved progress (reset or trimmed data), or null. */
    loadNotice: () => loadNotice,
    item: (id) => byId.get(id) || null,
    has: (id) => byId.has(id),
    items: () => items,
    filter: () => ({ ...filter }),
    progress: () => progress,
    record: (id) => recordOf(progress, id),
    /** The current queue entry's id, or null when the queue is done. */
    currentId: () => (pos < queue.length ? queue[pos] : null),
    /** {position (1-based), total, remaining} of the queue. */
    queueInfo: () => ({
      position: Math.min(pos + 1, queue.length),
      total: queue.length,
      remaining: queue.filter((id, i) => i >= pos && !done.has(id)).length,
    }),
    answeredThisSession: (id) => done.has(id),

    /** Sets part of the filter ({section, tag, mode, shuffle}) and rebuilds the queue. */
    setFilter(patch) {
      filter = { ...filter, ...patch };
      if (!MODES.includes(filter.mode)) filter.mode = 'due';
      buildQueue();
      emit('queue');
    },

    /** Moves to the next unanswered queue entry; returns its id or null. */
    next() {
      if (pos < queue.length) pos += 1;
      skipDone();
      emit('queue');
      return pos < queue.length ? queue[pos] : null;
    },

    /**
     * Records one answer: Leitner box, session score, storage; `response`, what was written in an
     * open item's box, is kept as the item's last written answer (an empty one keeps the one before).
     * @returns {string|null} notice
     */
    answer(id, correct, { selfGraded = false, response = '' } = {}) {
      if (!byId.has(id)) return null;
      const t = now();
      const written = byId.get(id).type === 'true-false' ? '' : keptAnswer(response) || recordOf(progress, id).answer;
      progress = grade(progress, id, correct === true, t);
      if (written)
        progress = { ...progress, items: { ...progress.items, [id]: { ...progress.items[id], answer: written } } };
      progress = { ...progress, session: record(progress.session, { correct: correct === true, selfGraded }) };
      done.add(id);
      const notice = save();
      emit('answer', notice);
      return notice;
    },

    /** A generated question's answer: counts in the session score only (it has no box). */
    answerGenerated(correct) {
      progress = { ...progress, session: record(progress.session, { correct: correct === true }) };
      const notice = save();
      emit('answer', notice);
      return notice;
    },

    /** Starts a new session: score back to zero, queue rebuilt. Boxes are kept. */
    newSession() {
      progress = { ...progress, session: newSession(now()) };
      const notice = save();
      done = new Set();
      buildQueue();
      emit('session', notice);
      return notice;
    },

    /** Forgets everything saved: boxes and score. */
    reset() {
      const { notice } = clearProgress(storage);
      progress = emptyProgress(now());
      done = new Set();
      buildQueue();
      emit('session', notice);
      return notice;
    },

    /** Re-reads storage (another tab saved); returns the notice, if any. */
    reload() {
      const r = loadProgress(storage, { ids, now: now() });
      progress = r.progress;
      done = new Set([...done, ...answeredInSession()]);
      skipDone();
      emit('reload', r.notice);
      return r.notice;
    },

    summary: () => summary(progress.session),
    session: () => progress.session,
    boxCounts: () => boxCounts(items, progress, scheduleFilter()),
    matching: () => items.filter((it) => matches(it, scheduleFilter())).length,
    dueCount: () => due(items, progress, now(), scheduleFilter()).length,
    nextDueAt: () => nextDueAt(items, progress, now(), scheduleFilter()),
    /** When an item is due again (ms), 0 if now. */
    dueAt: (id) => dueAt(recordOf(progress, id)),
    now,

    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}
