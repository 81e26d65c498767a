// The session score: pure functions on a plain object, no DOM, no storage (store.js persists it).
//
// A session is
//   { answered, correct, selfGraded, selfCorrect, streak, bestStreak, startedAt }
// answered/correct count every answer; selfGraded/selfCorrect count the subset the learner graded
// themselves (open and find-error items: "I got it" / "I missed it"), so the UI can show how much of
// the score is self-assessed. streak is the current run of correct answers, bestStreak the longest.

const COUNTS = ['answered', 'correct', 'selfGraded', 'selfCorrect', 'streak', 'bestStreak'];

/**
 * @param {number} [now=0] ms since the epoch, when the session started
 * @returns {object} an empty session
 */
export function newSession(now = 0) {
  return {
    answered: 0,
    correct: 0,
    selfGraded: 0,
    selfCorrect: 0,
    streak: 0,
    bestStreak: 0,
    startedAt: Number.isFinite(now) && now >= 0 ? now : 0,
  };
}

/**
 * The session after one more answer; the input is not modified.
 * @param {object} session
 * @param {{correct: boolean, selfGraded?: boolean}} answer
 * @returns {object} the new session
 */
export function record(session, { correct, selfGraded = false }) {
  const ok = correct === true;
  const self = selfGraded === true;
  const streak = ok ? session.streak + 1 : 0;
  return {
    ...session,
    answered: session.answered + 1,
    correct: session.correct + (ok ? 1 : 0),
    selfGraded: session.selfGraded + (self ? 1 : 0),
    selfCorrect: session.selfCorrect + (self && ok ? 1 : 0),
    streak,
    bestStreak: Math.max(session.bestStreak, streak),
  };
}

/** Fraction correct in 0..1, or null before the first answer. */
export function accuracy(session) {
  return session.answered > 0 ? session.correct / session.answered : null;
}

/**
 * One line for the UI: "7 of 9 correct (2 self-graded) · streak 3 · best 5", or "No answers yet.".
 * @param {object} session
 * @returns {string}
 */
export function summary(session) {
  if (session.answered === 0) return 'No answers yet.';
  const self = session.selfGraded > 0 ? ` (${session.selfGraded} self-graded)` : '';
  return `${session.correct} of ${session.answered} correct${self} · streak ${session.streak} · best ${session.bestStreak}`;
}

/**
 * A session read back from storage, checked: every count a non-negative safe integer, correct <=
 * answered, selfCorrect <= selfGraded <= answered, selfCorrect <= correct, streak <= bestStreak <=
 * correct. Returns a clean copy, or null if anything is off (the caller starts a new session).
 * @param {unknown} value
 * @returns {object|null}
 */
export function sanitizeSession(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const out = {};
  for (const k of COUNTS) {
    const v = value[k];
    if (!Number.isSafeInteger(v) || v < 0) return null;
    out[k] = v;
  }
  const { answered, correct, selfGraded, selfCorrect, streak, bestStreak } = out;
  if (
    correct > answered ||
    selfGraded > answered ||
    selfCorrect > selfGraded ||
    selfCorrect > correct ||
    streak > bestStreak ||
    bestStreak > correct
  )
    return null;
  out.startedAt = Number.isFinite(value.startedAt) && value.startedAt >= 0 ? value.startedAt : 0;
  return out;
}
