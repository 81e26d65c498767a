// What the LMS is told about one answer and about the attempt, from the quiz embed's events
// (../embed/events.js), by the rules the SCORM runtime (../scorm/runtime.js) follows: a true/false
// item's response is the learner's choice and its correct response follows from whether they were
// right; an open or find-the-error item's response is what the learner wrote, else their own grade
// ("self-graded: got it" / "missed it"); a self-graded answer counts as the learner graded it.
// Pure, so that the cmi5 runtime reads grading from this one module.

/**
 * One answer: {kind: 'true-false', response: boolean, correctResponse: boolean, success} or
 * {kind: 'long-fill-in', response: string, success}.
 * @param {{kind: string, response?: string, correct?: boolean}} msg an `answer` event
 */
export function answerReport(msg) {
  const success = msg.correct === true;
  if (msg.kind === 'true-false') {
    const said = msg.response === 'true';
    return { kind: 'true-false', response: said, correctResponse: said === success, success };
  }
  const written = String(msg.response ?? '').trim();
  return {
    kind: 'long-fill-in',
    response: written || `self-graded: ${success ? 'got it' : 'missed it'}`,
    success,
  };
}

/**
 * The attempt's score: {raw (correct answers), min 0, max (questions), scaled (raw / max, 0..1)}.
 * @param {{correct: boolean}[]} answers the answers given so far
 * @param {number} total how many questions the quiz asks
 */
export function scoreOf(answers, total) {
  const raw = answers.filter((a) => a.correct).length;
  const max = Math.max(total, raw);
  return { raw, min: 0, max, scaled: max > 0 ? raw / max : 0 };
}
