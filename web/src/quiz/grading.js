// What a graded quiz reports, the same for every channel: the quiz embed's events, the SCORM
// runtime (1.2 and 2004) and any other gradebook protocol. Pure functions, no DOM, no storage.
//
// The teacher's grading is {countSelfGraded, passMark}:
//   countSelfGraded  whether the answers the learner grades themselves (open and find-error items:
//                    "I got it" / "I missed it") count in the score. By default they do not: the
//                    score is the share of the automatically marked (true/false) questions answered
//                    right, and a self-graded answer is reported as the learner's self-assessment,
//                    judged neither right nor wrong.
//   passMark         the share of the score's questions to answer right to pass, in percent (0..100),
//                    or null for no pass mark.
// A quiz whose every question is self-graded and left out has no score: max 0, no pass or fail.
import { FIELDS_TABLE } from '../shared/state.js';

/** An answer box's most characters where nothing narrower is asked (an LMS's limit). */
export const ANSWER_LIMIT = 4000;

export const DEFAULT_GRADING = Object.freeze({
  countSelfGraded: FIELDS_TABLE.self_graded.default === 'count',
  passMark: FIELDS_TABLE.pass_mark.default,
});

/** The grading of a quiz state's fields (state.js's quiz group: self_graded, pass_mark). */
export function gradingOf(quiz = {}) {
  const pass = quiz.pass_mark;
  return {
    countSelfGraded: quiz.self_graded === undefined ? DEFAULT_GRADING.countSelfGraded : quiz.self_graded === 'count',
    passMark:
      pass === null ? null : Number.isFinite(pass) && pass >= 0 && pass <= 100 ? pass : DEFAULT_GRADING.passMark,
  };
}

/** Whether the learner grades an item of this kind (bank `type`) themselves. */
export const isSelfGradedKind = (kind) => kind !== 'true-false';

/**
 * What to report for one answer.
 * @param {{kind: string, response?: string, correct: boolean, selfGraded?: boolean}} answer the
 *   quiz embed's `answer` event: the item's kind, the response ('true'/'false' or the text written),
 *   right or not (for a self-graded item: as the learner graded it), whether it was self-graded
 * @param {{countSelfGraded: boolean}} grading
 * @returns {{counts: boolean, success: boolean|null, selfAssessment: 'got it'|'missed it'|null,
 *   response: string}} counts: whether it counts in the score; success: right or wrong where it is
 *   judged, null for a self-graded answer left out of the score; selfAssessment: the learner's own
 *   grade of a self-graded answer; response: the learner's response, whole ('' when nothing was written)
 */
export function itemReport(answer, grading) {
  const self = answer.selfGraded === true || isSelfGradedKind(answer.kind);
  const right = answer.correct === true;
  const counts = !self || grading.countSelfGraded === true;
  return {
    counts,
    success: counts ? right : null,
    selfAssessment: self ? (right ? 'got it' : 'missed it') : null,
    response: String(answer.response ?? '').trim(),
  };
}

/**
 * Whether `raw` right of `max` reaches `passMark` percent; null with no score (max 0) or no pass
 * mark. Compared in whole numbers (raw * 100 against passMark * max), so 7 of 10 passes 70 %.
 */
export function passes(raw, max, passMark) {
  if (!(max > 0) || passMark === null || !Number.isFinite(passMark)) return null;
  return raw * 100 >= Math.round(passMark * max * 1e6) / 1e6;
}

/**
 * The attempt's score.
 * @param {{kind: string, correct: boolean, selfGraded?: boolean}[]} answers the answers so far
 * @param {string[]} kinds every question's kind, in order (what `max` counts)
 * @param {{countSelfGraded: boolean, passMark: number|null}} grading
 * @returns {{raw: number, max: number, scaled: number, answered: number, total: number,
 *   selfGraded: number, selfCounted: boolean, passMark: number|null, passed: boolean|null}}
 *   raw: answers that count and are right; max: questions that count (0: no score); scaled:
 *   raw / max (0 with no score); selfGraded: self-graded answers so far; passed: raw against the
 *   pass mark, questions not yet answered counting as wrong (null with no score or no pass mark)
 */
export function attemptScore(answers, kinds, grading) {
  const countSelf = grading.countSelfGraded === true;
  const max = kinds.filter((k) => countSelf || !isSelfGradedKind(k)).length;
  let raw = 0;
  let selfGraded = 0;
  for (const a of answers) {
    const r = itemReport(a, grading);
    if (r.selfAssessment !== null) selfGraded += 1;
    if (r.success === true) raw += 1;
  }
  return {
    raw,
    max,
    scaled: max > 0 ? raw / max : 0,
    answered: answers.length,
    total: kinds.length,
    selfGraded,
    selfCounted: countSelf,
    passMark: grading.passMark,
    passed: passes(raw, max, grading.passMark),
  };
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const percent = (x) => `${Math.round(x * 1000) / 10} %`;

/** One line for the quiz's head: "Score 1 of 2 · 1 self-assessed answer, not counted". */
export function scoreLine(score) {
  if (score.answered === 0) return 'No answers yet.';
  const self = score.selfGraded;
  if (score.max === 0) return `${score.answered} of ${score.total} answered · self-assessed, not scored`;
  const note = self
    ? ` · ${plural(self, 'self-assessed answer')}${score.selfCounted ? ', counted' : ', not counted'}`
    : '';
  return `Score ${score.raw} of ${score.max}${note}`;
}

/** The verdict once every question is answered: what the score is and whether it passes, in words. */
export function verdictText(score) {
  if (score.max === 0)
    return 'None of these questions is marked automatically, so there is no score to pass or fail: compare your answers with the model answers.';
  const of = `${score.raw} of ${score.max} ${score.selfCounted ? 'questions' : 'automatically marked questions'} right (${percent(score.scaled)})`;
  if (score.passed === null) return `${of[0].toUpperCase()}${of.slice(1)}.`;
  return `${score.passed ? 'Passed' : 'Not passed'}: ${of}; the pass mark is ${score.passMark} %.`;
}
