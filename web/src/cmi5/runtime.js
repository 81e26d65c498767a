// The cmi5 side of the quiz's launch page (../pages/scorm.js, for a cmi5 package): the quiz as a
// cmi5 assignable unit (AU), speaking to the LMS through the maintained client @xapi/cmi5 (its
// class, given as `Cmi5`), which writes the statements and their cmi5 context.
//
//   at launch   the launch parameters from the URL's query (endpoint, fetch, actor, registration,
//               activityId); the auth token (one POST to fetch); the LMS.LaunchData document
//               (launchMode, masteryScore, returnURL, the context template); the learner's
//               preferences; then "initialized". Then the attempt stored so far in this
//               registration (the State API document ATTEMPT_STATE), which the quiz resumes.
//   per answer  (launchMode Normal) an "answered" statement, cmi5 allowed: the question as a
//               cmi.interaction activity under the AU (true-false, or long-fill-in for open and
//               find-the-error items), the learner's response (what was written in the answer
//               box, '' when nothing was) and success, judged by ../quiz/grading.js with the
//               package's grading: none for a self-graded answer left out of the score, whose
//               self-assessment goes in the result extension SELF_ASSESSMENT (as does a counted
//               one's); then the attempt's state document
//   as written  the answer box's text on the next question, in the state document too (one save
//               queued at a time, carrying the latest text), so a relaunch shows it again
//   at the end  after the last answer, "passed" or "failed": grading.js's score (the answers
//               that count) against the LMS's masteryScore (score raw, min, max and scaled;
//               neither without a mastery score or without a score), then
//               "completed": each at most once in the registration (the state document records
//               which were sent, so a relaunch neither repeats nor loses one)
//   on exit     "terminated" (the Exit button, or the page hidden), then the LMS's returnURL
//   Browse and Review: "initialized" and "terminated" only; answers are not recorded.
// Statements go one after another, in the order they are made; every failure goes to `onStatus`
// and `errors`, nothing is thrown. "launched" is the LMS's to send, before the launch.
import { RESPONSE_LIMIT, STATUS, readSuspendData, suspendText } from '../scorm/runtime.js';
import { DEFAULT_GRADING, attemptScore, itemReport, passes } from '../quiz/grading.js';

export const ATTEMPT_STATE = 'resnorm.attempt';
export const LAUNCH_PARAMS = ['endpoint', 'fetch', 'actor', 'registration', 'activityId'];
export const LAUNCH_MODES = ['Normal', 'Browse', 'Review'];
export const MASTERY_EXTENSION = 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore';
const TEST_ID = 'quiz'; // the questions' activity ids: <activityId>/test/quiz/question/<bank id>
/** The result extension of a self-graded answer's self-assessment ('got it' / 'missed it'), under the site's IRI. */
export const selfAssessmentKey = (site) => new URL('xapi/extensions/self-assessment', site).href;

/** A failed request of the client in a line: what the LMS answered, and where. */
export function requestError(e) {
  const url = e?.config?.url ? ` (${String(e.config.url).split('?')[0]})` : '';
  const status = e?.response?.status;
  if (!status && e?.config?.url && /network error|failed to fetch/i.test(e?.message ?? ''))
    return `the LMS could not be reached at ${String(e.config.url).split('?')[0]} (offline, or this page\u2019s Content-Security-Policy has no connect-src for it)`;
  if (!status) return `${e?.message ?? e}${url}`;
  const body = e.response.data;
  const said = typeof body === 'string' ? body : body && typeof body === 'object' ? JSON.stringify(body) : '';
  return `the LMS answered HTTP ${status}${url}${said ? `: ${said.replace(/\s+/g, ' ').slice(0, 160)}` : ''}`;
}

const percent = (x) => `${Number((x * 100).toFixed(2))} %`;
const isWebUrl = (s) => {
  try {
    return ['http:', 'https:'].includes(new URL(s).protocol);
  } catch {
    return false;
  }
};

/**
 * `cmi5` whose statements pass through `transform` before they are sent: for the client's
 * interaction methods, which take no options of their own.
 */
const transforming = (cmi5, transform) =>
  Object.create(cmi5, {
    sendXapiStatement: { value: (statement) => cmi5.sendXapiStatement(statement, { transform }) },
  });

/** The session of a launch that records nothing: `state` and `text` go to onStatus (and an error to `errors`). */
function notConnected(errors, onStatus, state, text) {
  if (state === 'error') errors.push(text);
  onStatus(state, text);
  const none = () => {};
  return {
    connected: false,
    version: 'cmi5',
    mode: null,
    resume: null,
    errors,
    recording: false,
    answerLimit: null,
    onEvent: none,
    saveDraft: none,
    finish: none,
  };
}

/** What keeps the launch parameters `params` from a session: [state, text] for the status line, or null. */
function launchProblem(params) {
  const given = LAUNCH_PARAMS.filter((p) => params[p] !== undefined && params[p] !== '');
  if (!given.length) return ['off', STATUS.notConnected];
  const missing = LAUNCH_PARAMS.filter((p) => !given.includes(p));
  if (missing.length)
    return [
      'error',
      `The LMS\u2019s launch link lacks ${missing.join(', ')} (cmi5 needs ${LAUNCH_PARAMS.join(', ')}): your answers are not being recorded.`,
    ];
  if (typeof params.actor !== 'object' || params.actor === null)
    return [
      'error',
      'The LMS\u2019s launch link gives an actor that is not an xAPI agent in JSON: your answers are not being recorded.',
    ];
  return null;
}

/**
 * The attempt stored so far in this registration (the state document `where`, as readSuspendData
 * reads it, or null) and which result statements were sent for it ({stored, sent}).
 */
async function readAttempt(cmi5, where, total) {
  const { agent, activityId, registration } = where;
  // the list first: asking for a document the LRS does not have is a 404, an error in the console
  const ids = (await cmi5.xapi.getStates({ agent, activityId, registration })).data;
  let doc = Array.isArray(ids) && ids.includes(ATTEMPT_STATE) ? (await cmi5.xapi.getState(where)).data : null;
  if (typeof doc === 'string') doc = JSON.parse(doc);
  const stored = readSuspendData(typeof doc?.attempt === 'string' ? doc.attempt : '', total);
  const sent =
    stored && Array.isArray(doc.sent) ? doc.sent.filter((v) => ['passed', 'failed', 'completed'].includes(v)) : [];
  return { stored, sent };
}

/**
 * One step after another: a statement is made (and stamped) only when the one before is answered.
 * step(what, fn) queues fn (skipped once `ended()`; its failure goes to fail(what, e)) and returns
 * the queue's promise; settled() is that promise.
 */
function sequence(ended, fail) {
  let chain = Promise.resolve();
  return {
    step(what, fn) {
      chain = chain.then(async () => {
        if (ended()) return;
        try {
          await fn();
        } catch (e) {
          fail(what, e);
        }
      });
      return chain;
    },
    settled: () => chain,
  };
}

/**
 * The "answered" statement of the embed's answer event `msg`: a true-false interaction, or a
 * long-fill-in one with what was written, the self-assessment in the result extension `selfKey`
 * (none without a key).
 */
function sendAnswer(cmi5, msg, { grading, describe, selfKey }) {
  const r = itemReport(msg, grading);
  const text = describe(msg.index);
  const name = { en: msg.item };
  const description = text ? { en: text } : undefined;
  const success = r.success ?? undefined; // not judged: no success at all
  if (msg.kind === 'true-false') {
    const said = msg.response === 'true';
    const right = msg.correct === true;
    return cmi5.interactionTrueFalse(TEST_ID, msg.item, said, said === right, name, description, success);
  }
  const client =
    r.selfAssessment && selfKey
      ? transforming(cmi5, (s) => ({
          ...s,
          result: { ...s.result, extensions: { ...s.result?.extensions, [selfKey]: r.selfAssessment } },
        }))
      : cmi5;
  return client.interactionLongFillIn(TEST_ID, msg.item, [r.response], undefined, name, description, success);
}

/**
 * The options of a "passed" or "failed" statement that put the LMS's mastery score in its context:
 * the client leaves out a mastery score of 0; cmi5 wants the one the LMS gave, whatever it is.
 */
const withMastery = (masteryScore) => ({
  transform: (s) => ({
    ...s,
    context: { ...s.context, extensions: { ...s.context?.extensions, [MASTERY_EXTENSION]: masteryScore } },
  }),
});

/**
 * The attempt as the registration's state document keeps it: `answers`, the result statements
 * `sent`, the answer box's `draft` on the question to answer next (kept to 4000 characters);
 * next() is that question's index, save() writes the document.
 */
function attemptDocument(cmi5, where, total, stored, sent) {
  const attempt = {
    answers: stored ? [...stored.answers] : [],
    sent,
    draft: stored ? { index: stored.index, text: stored.draft } : { index: 0, text: '' },
    next: () => Math.max(0, ...attempt.answers.map((a) => a.index + 1)),
    save() {
      const at = attempt.next();
      const { draft, answers } = attempt;
      const text = draft.index === at ? draft.text.slice(0, RESPONSE_LIMIT[2004]) : '';
      return cmi5.xapi.setState({
        ...where,
        state: { attempt: suspendText(total, at, answers, text), sent: attempt.sent },
      });
    },
  };
  return attempt;
}

/**
 * "passed" or "failed" (the score `now` against `mastery`; neither without one, nor once either
 * was sent), then "completed", each recorded in the attempt's state document once sent.
 */
async function sendResult(cmi5, attempt, now, { mastery, masteryScore }) {
  const passed = mastery === null ? null : passes(now.raw, now.max, mastery * 100);
  if (passed !== null && !attempt.sent.includes('passed') && !attempt.sent.includes('failed')) {
    const result = { raw: now.raw, min: 0, max: now.max, scaled: now.scaled };
    const options = withMastery(masteryScore);
    await (passed ? cmi5.pass(result, options) : cmi5.fail(result, options));
    attempt.sent = [...attempt.sent, passed ? 'passed' : 'failed'];
    await attempt.save();
  }
  await cmi5.complete();
  attempt.sent = [...attempt.sent, 'completed'];
  await attempt.save();
}

/** The status line of a complete attempt: its score, and the verdict once "passed" or "failed" was `sent`. */
function resultText(label, { raw, max }, sent, mastery) {
  const verdict = sent.includes('passed') ? ', passed' : sent.includes('failed') ? ', not passed' : '';
  const mark = verdict && mastery !== null ? ` (pass mark ${percent(mastery)})` : '';
  const right = max === 0 ? 'no score (only self-assessed answers)' : `${raw} of ${max} right`;
  return `Recorded in the LMS (${label}): ${right}${verdict}${mark}; the attempt is complete.`;
}

/**
 * Starts the AU session. Resolves to {connected, version: 'cmi5', mode, resume, errors, recording,
 * answerLimit, onEvent(msg), saveDraft(index, text), finish(), exit()}: `resume` ({index, answers,
 * draft}) or null for the quiz embed, `recording` whether answers go to the LMS, `answerLimit`
 * null (xAPI sets none), `onEvent` for every embed event, `saveDraft` for the answer box's text as
 * it is written, `finish` for pagehide, `exit` (null when not connected) ends the session and goes
 * to the LMS's returnURL, `settled()` resolves once everything queued was sent.
 * @param {{Cmi5: Function, launchParameters?: object, total: number, kinds?: string[],
 *   grading?: {countSelfGraded: boolean, passMark: number|null}, site?: URL|string|null,
 *   describe?: (index: number) => string, onStatus?: (state: string, text: string) => void,
 *   navigate?: (url: string) => void}} options
 *   launchParameters: as the client reads them from the page's query, unless given;
 *   kinds: every question's kind (bank `type`), in order: what the score counts (grading.js);
 *   grading: the package's (grading.js); its pass mark is the LMS's masteryScore's to give;
 *   site: the site the package was made from, the IRI of the self-assessment extension (none without);
 *   describe: a question's text (the interaction's description)
 */
export async function startCmi5Runtime({
  Cmi5,
  launchParameters = Cmi5.getLaunchParametersFromLMS(),
  total,
  kinds = Array(total).fill('true-false'),
  grading = DEFAULT_GRADING,
  site = null,
  describe = () => '',
  onStatus = () => {},
  navigate = (url) => window.location.assign(url),
}) {
  const errors = [];
  const params = launchParameters ?? {};
  const problem = launchProblem(params);
  if (problem) return notConnected(errors, onStatus, ...problem);

  let cmi5;
  try {
    cmi5 = new Cmi5(params);
    await cmi5.initialize(); // the token, LMS.LaunchData, the learner's preferences, "initialized"
  } catch (e) {
    const text = `The cmi5 session could not start: ${requestError(e)}. Your answers are not being recorded.`;
    return notConnected(errors, onStatus, 'error', text);
  }
  const data = cmi5.getLaunchData() ?? {};
  const mode = LAUNCH_MODES.includes(data.launchMode) ? data.launchMode : null;
  const judged = mode === 'Normal';
  const m = Number(data.masteryScore);
  const mastery = data.masteryScore !== undefined && data.masteryScore !== null && m >= 0 && m <= 1 ? m : null;
  const { actor, activityId, registration } = cmi5.getLaunchParameters();
  const where = { agent: actor, activityId, registration, stateId: ATTEMPT_STATE };
  const label = 'cmi5';

  const fail = (what, e) => {
    const line = `LMS error on ${what}: ${requestError(e)}`;
    errors.push(line);
    onStatus('error', line);
  };

  // The attempt so far in this registration, and which result statements were sent for it.
  let stored = null;
  let sent = [];
  try {
    ({ stored, sent } = await readAttempt(cmi5, where, total));
  } catch (e) {
    fail('reading the attempt stored so far', e);
  }
  const attempt = attemptDocument(cmi5, where, total, stored, sent);
  const { answers, next } = attempt;
  const score = () =>
    attemptScore(
      answers.map((a) => ({ ...a, kind: kinds[a.index] ?? '' })),
      kinds,
      grading,
    );
  const resultDue = () => next() >= total && !attempt.sent.includes('completed');
  let final = !judged || next() >= total; // from here on, answers are practice and not sent
  let ended = false;
  const { step, settled } = sequence(() => ended, fail);

  let draftQueued = false;
  const answering = { grading, describe, selfKey: site ? selfAssessmentKey(site) : null };

  const showIfClean = (text) => {
    if (!errors.length) onStatus('ready', text);
  };
  const result = () => sendResult(cmi5, attempt, score(), { mastery, masteryScore: data.masteryScore });
  const showResult = () => showIfClean(resultText(label, score(), attempt.sent, mastery));

  if (!mode)
    fail('the launch', {
      message: `the LMS gave launchMode ${JSON.stringify(data.launchMode)} (not ${LAUNCH_MODES.join(', ')}), so nothing is recorded`,
    });
  else if (!judged) onStatus('off', `${mode} mode (${label}): your answers are not recorded.`);
  else if (resultDue()) step('the result', result).then(showResult);
  else if (final) showResult();
  else showIfClean(STATUS.recording(label, stored, answers.length, total));

  function onEvent(msg) {
    if (final || ended || !msg) return;
    if (msg.type === 'answer') {
      if (answers.some((a) => a.index === msg.index)) return;
      answers.push({ index: msg.index, correct: msg.correct === true, selfGraded: msg.selfGraded === true });
      step(`the answer to ${msg.item}`, () => sendAnswer(cmi5, msg, answering));
      step('saving the attempt', attempt.save).then(() => showIfClean(STATUS.saved(label, answers.length, total)));
    } else if (msg.type === 'complete') {
      final = true;
      step('the result', result).then(showResult);
    }
  }

  /**
   * Ends the session as the page goes: "terminated" at once, ahead of anything still queued. Should
   * the browser drop it with the page, the LMS records the session as abandoned, as cmi5 has it.
   */
  function finish() {
    if (ended) return;
    ended = true;
    cmi5.terminate().catch(() => {}); // nobody is left to tell
  }

  /** Ends the session when the learner asks: what is queued, "terminated", then the LMS's returnURL. */
  async function exit() {
    if (ended) return;
    await settled();
    ended = true;
    try {
      await cmi5.terminate();
    } catch (e) {
      fail('terminated', e);
      return;
    }
    if (data.returnURL && isWebUrl(data.returnURL)) navigate(data.returnURL);
    else onStatus(errors.length ? 'error' : 'off', `Session ended (${label}): you can close this window.`);
  }

  return {
    connected: true,
    version: 'cmi5',
    mode,
    resume: stored && mode !== 'Browse' ? { index: stored.index, answers: stored.answers, draft: stored.draft } : null,
    errors,
    recording: judged && !final,
    answerLimit: null,
    onEvent,
    /** The answer box's text for question `index` as it is written: saved in the state document, one save queued at a time. */
    saveDraft(index, text) {
      if (final || ended) return;
      attempt.draft = { index, text: String(text ?? '') };
      if (draftQueued) return; // the save queued sends the latest text
      draftQueued = true;
      step('saving the written answer', () => {
        draftQueued = false;
        return attempt.save();
      });
    },
    finish,
    exit,
    settled,
  };
}
