// The embeds' events, for the page around them. Every message is a plain object
//
//   {source: 'resnorm', version: 1, type, embed: 'quiz' | 'explorer', ...fields}
//
// posted to the parent window from embed.html in an iframe, and, for the custom
// elements, dispatched on the element as a `resnorm-<type>` CustomEvent (detail:
// the same object) and posted to the element's own window, so one listener
//
//   addEventListener('message', (e) => { if (e.data?.source === 'resnorm') ... })
//
// hears both. The fields of each type are in EVENT_FIELDS; a new field may be
// added within a version, a field is never renamed or removed without a new one.
// Nothing in an event is private: the answers are the reader's own, hence '*'.
export const EVENT_SOURCE = 'resnorm';
export const EVENT_VERSION = 1;

/** The fields each event carries besides source, version, type and embed (documented in docs/embedding.md, "Events"). */
export const EVENT_FIELDS = Object.freeze({
  // The embed is drawn: the quiz with its item ids, the explorer with its config.
  ready: ['items', 'config'],
  // One question answered: its id, 0-based position, kind, the response as text, whether it was
  // right (for a self-graded one: as the reader graded it), whether the reader graded it
  // themselves, whether it counts in the score, and when (ISO 8601).
  answer: ['item', 'index', 'kind', 'response', 'correct', 'selfGraded', 'counts', 'time'],
  // The score after each answer (../quiz/grading.js): raw = right answers that count, max =
  // questions that count (0: nothing is scored), scaled = raw / max; the pass mark in percent.
  score: ['raw', 'max', 'scaled', 'answered', 'selfGraded', 'passMark'],
  // Every question answered: the score as in `score`, and whether it reaches the pass mark
  // (null when nothing is scored or there is no pass mark).
  complete: ['raw', 'max', 'scaled', 'answered', 'selfGraded', 'passMark', 'passed'],
  // The explorer's reader changed a setting: the config now shown.
  config: ['config'],
});

/** The message of one event. */
export function eventMessage(embed, type, fields) {
  return { source: EVENT_SOURCE, version: EVENT_VERSION, type, embed, ...fields };
}

/** True for a message an embed of any version posted (for host pages and tests). */
export const isEmbedEvent = (data) =>
  data !== null && typeof data === 'object' && data.source === EVENT_SOURCE && typeof data.type === 'string';

/**
 * An emit(type, fields) for an embed: to the parent window when in an iframe (nothing when the
 * page is on its own), or on `element` (and its window) for a custom element. `also` receives
 * every message too (the SCORM runtime listens there).
 */
export function eventSink(embed, { element = null, also = null } = {}) {
  return (type, fields) => {
    const msg = eventMessage(embed, type, fields);
    if (element) {
      element.dispatchEvent(new CustomEvent(`resnorm-${type}`, { detail: msg, bubbles: true, composed: true }));
      window.postMessage(msg, '*');
    } else if (window.parent !== window) window.parent.postMessage(msg, '*');
    also?.(msg);
  };
}
