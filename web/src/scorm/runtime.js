// The SCORM side of the quiz's launch page: finds the LMS's API (SCORM 1.2's
// `API`, SCORM 2004's `API_1484_11`) the way the standard's discovery
// algorithm does, starts the attempt, and turns the quiz embed's events
// (../embed/events.js: answer, score, complete) into the data model's values,
// committing after every answer. Every call's error code (GetLastError) is
// checked; errors go to `onStatus` and `errors`, nothing is thrown.
//
// What each version receives (docs/embedding.md, "SCORM"); what counts and how an answer is
// judged is ../quiz/grading.js's (the package's grading: self-graded answers counted
// or not, the pass mark):
//   at launch   1.2 cmi.core.lesson_status = incomplete, cmi.core.exit = suspend;
//               2004 cmi.completion_status = incomplete, cmi.exit = suspend
//   per answer  one interaction: id (the bank id), type (true-false; open and find-error
//               items fill-in in 1.2, long-fill-in in 2004), the response (1.2 t/f,
//               2004 true/false; what the learner wrote in the answer box, on one line, at
//               most 255 characters in 1.2 and 4000 in 2004; none when nothing was written),
//               result (1.2 correct/wrong, 2004 correct/incorrect; neutral for a self-graded
//               answer left out of the score), weighting (1, 0 for an answer that does not
//               count), time (1.2) or timestamp and description (2004), the correct response
//               of a true/false item; 2004 also the self-assessment of a self-graded answer as
//               a comment from the learner (location: the bank id);
//               then the score (1.2 raw in percent, min 0, max 100; 2004 raw = right answers
//               that count, min 0, max = questions that count, scaled; no score when nothing
//               counts), 2004 cmi.progress_measure, the location (the next question's index),
//               cmi.suspend_data, the session time, and a commit
//   at the end  1.2 lesson_status passed or failed against the mastery score (completed
//               when there is none or nothing is scored), exit '', and the self-assessments in
//               cmi.comments (written once: LMSs disagree whether a write replaces or appends);
//               2004 completion_status completed, success_status passed or failed (unknown
//               without a mastery score or a score), exit normal
//   on pagehide the answer box's text as a draft in cmi.suspend_data, the session time, a
//               commit, LMSFinish / Terminate
// A suspended attempt (cmi.suspend_data {v, n, i, a: [[index, correct, selfGraded], ...], d?})
// is given back as `resume` for the quiz embed, with `d`, the text written for question i but
// not committed, as its draft; its interactions are not recorded again.
// Once every question is answered the attempt is final: "Start again" is practice, not sent.
import { DEFAULT_GRADING, itemReport, passes } from '../quiz/grading.js';

const MAX_DEPTH = 500; // how many parent frames the discovery climbs (the ADL examples' limit)

const CALLS = {
  1.2: {
    name: 'API',
    init: 'LMSInitialize',
    finish: 'LMSFinish',
    get: 'LMSGetValue',
    set: 'LMSSetValue',
    commit: 'LMSCommit',
    error: 'LMSGetLastError',
    errorString: 'LMSGetErrorString',
    diagnostic: 'LMSGetDiagnostic',
  },
  2004: {
    name: 'API_1484_11',
    init: 'Initialize',
    finish: 'Terminate',
    get: 'GetValue',
    set: 'SetValue',
    commit: 'Commit',
    error: 'GetLastError',
    errorString: 'GetErrorString',
    diagnostic: 'GetDiagnostic',
  },
};

// The data model's names for what both versions record.
const MODEL = {
  1.2: {
    status: 'cmi.core.lesson_status',
    mode: 'cmi.core.lesson_mode',
    exit: 'cmi.core.exit',
    location: 'cmi.core.lesson_location',
    sessionTime: 'cmi.core.session_time',
    mastery: 'cmi.student_data.mastery_score',
  },
  2004: {
    status: 'cmi.completion_status',
    mode: 'cmi.mode',
    exit: 'cmi.exit',
    location: 'cmi.location',
    sessionTime: 'cmi.session_time',
    mastery: 'cmi.scaled_passing_score',
  },
};

// Error codes a read may give without anything being wrong: 1.2's 401 (not implemented, e.g. an
// LMS without mastery_score), 2004's 403 (not initialized: nothing stored yet).
const QUIET_READ = ['401', '403'];

/** The API object an LMS offers a SCO in `win`'s parents or opener: {api, version} or null. */
export function findLmsApi(win = window, { prefer = '1.2' } = {}) {
  const order = prefer === '2004' ? ['2004', '1.2'] : ['1.2', '2004'];
  const inChain = (start, name) => {
    let w = start;
    for (let depth = 0; w && depth <= MAX_DEPTH; depth++) {
      try {
        if (w[name] && typeof w[name] === 'object') return w[name];
      } catch {
        // a frame of another origin: its properties cannot be read
      }
      let up = null;
      try {
        up = w.parent;
      } catch {
        up = null;
      }
      if (!up || up === w) return null;
      w = up;
    }
    return null;
  };
  for (const version of order) {
    const name = CALLS[version].name;
    let api = inChain(win, name);
    if (!api) {
      let opener = null;
      try {
        opener = win.top?.opener ?? win.opener;
      } catch {
        opener = null;
      }
      if (opener) api = inChain(opener, name);
    }
    if (api) return { api, version };
  }
  return null;
}

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** A duration as SCORM 1.2's CMITimespan (HHHH:MM:SS.SS). */
export function timespan12(ms) {
  const cs = Math.max(0, Math.round(ms / 10));
  const h = Math.min(9999, Math.floor(cs / 360000));
  const m = Math.floor(cs / 6000) % 60;
  const s = (cs % 6000) / 100;
  return `${pad(h)}:${pad(m)}:${s.toFixed(2).padStart(5, '0')}`;
}

/** A duration as SCORM 2004's timeinterval (ISO 8601, e.g. PT1H2M3.45S). */
export function duration2004(ms) {
  const cs = Math.max(0, Math.round(ms / 10));
  const h = Math.floor(cs / 360000);
  const m = Math.floor(cs / 6000) % 60;
  const s = (cs % 6000) / 100;
  return `PT${h}H${m}M${Number(s.toFixed(2))}S`;
}

/**
 * Free text as the data model takes it: one line (line breaks and runs of spaces become one
 * space), not opening with '{' (2004's mark of a language tag; a space is put before it), at most
 * `max` characters (code points: a character outside the BMP is never split); longer text keeps
 * its first max - 1 and ends with '…'.
 */
export function plainResponse(text, max) {
  let s = String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  if (s.startsWith('{')) s = ` ${s}`;
  const chars = Array.from(s);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}\u2026` : s;
}

/** The most characters of a written answer each version keeps (1.2 CMIString255, 2004 long-fill-in's SPM). */
export const RESPONSE_LIMIT = { 1.2: 255, 2004: 4000 };

const round4 = (x) => Math.round(x * 10000) / 10000;

/** The attempt stored in cmi.suspend_data, checked against the quiz's `total` questions; null if it is not one. */
export function readSuspendData(text, total) {
  let d;
  try {
    d = JSON.parse(text);
  } catch {
    return null;
  }
  if (!d || d.v !== 1 || d.n !== total || !Number.isInteger(d.i) || d.i < 0 || d.i > total || !Array.isArray(d.a))
    return null;
  const draft = typeof d.d === 'string' && d.d.length <= RESPONSE_LIMIT[2004] ? d.d : '';
  const seen = new Set();
  for (const a of d.a) {
    const ok =
      Array.isArray(a) &&
      a.length === 3 &&
      Number.isInteger(a[0]) &&
      a[0] >= 0 &&
      a[0] < total &&
      !seen.has(a[0]) &&
      (a[1] === 0 || a[1] === 1) &&
      (a[2] === 0 || a[2] === 1);
    if (!ok) return null;
    seen.add(a[0]);
  }
  return {
    index: d.i,
    answers: d.a.map(([index, correct, self]) => ({ index, correct: correct === 1, selfGraded: self === 1 })),
    draft,
  };
}

/** The attempt as cmi.suspend_data's text (`draft`: the answer box's text, if any): readSuspendData's inverse. */
export const suspendText = (total, index, answers, draft) =>
  JSON.stringify({
    v: 1,
    n: total,
    i: index,
    a: answers.map((a) => [a.index, a.correct ? 1 : 0, a.selfGraded ? 1 : 0]),
    ...(draft ? { d: draft } : {}),
  });

/**
 * The status lines of an attempt both runtimes (this one and ../cmi5/runtime.js) show, `label`
 * naming the standard: without an LMS, at launch (`resumed`: an attempt is continued), after an answer is saved.
 */
export const STATUS = {
  notConnected: 'Not connected to an LMS: your answers and score are not being recorded.',
  recording: (label, resumed, answered, total) =>
    resumed
      ? `Recording to the LMS (${label}): continuing your attempt, ${answered} of ${total} answered.`
      : `Recording to the LMS (${label}): each answer is saved.`,
  saved: (label, answered, total) => `Saved to the LMS (${label}): ${answered} of ${total} answered.`,
};

/** The attempt of a SCO that found no LMS or was refused: nothing is recorded; `state` and `text` go to onStatus. */
function notConnected(errors, onStatus, state, text) {
  onStatus(state, text);
  return {
    connected: false,
    version: null,
    resume: null,
    errors,
    recording: false,
    answerLimit: null,
    onEvent: () => {},
    saveDraft: () => {},
    finish: () => {},
  };
}

/**
 * The calls of the LMS's `api` (its names `fn`, one version's CALLS), every error code checked: an
 * error goes to `errors` and onStatus. call(name, args, what, quiet) gives the result as a string
 * ('' after an error), the codes `quiet` lists left unreported; get(element) reads (QUIET_READ
 * quiet), set(element, value) writes, commit() commits.
 */
function apiCalls(api, fn, errors, onStatus) {
  const fail = (what, code) => {
    let text = '';
    let detail = '';
    try {
      text = String(api[fn.errorString](code) ?? '');
      detail = String(api[fn.diagnostic](code) ?? '');
    } catch {
      // the messages are a courtesy; the code is what matters
    }
    const line = `LMS error ${code} on ${what}${text ? `: ${text}` : ''}${detail && detail !== text ? ` (${detail})` : ''}`;
    errors.push(line);
    onStatus('error', line);
  };
  const call = (name, args, what, quiet = []) => {
    let out = '';
    try {
      out = api[name](...args);
    } catch (e) {
      errors.push(`LMS ${name} failed: ${e.message}`);
      onStatus('error', `LMS ${name} failed: ${e.message}`);
      return '';
    }
    let code = '0';
    try {
      code = String(api[fn.error]() ?? '0');
    } catch {
      code = '0';
    }
    if (code !== '0' && code !== '' && !quiet.includes(code)) fail(what, code);
    return code === '0' || code === '' ? String(out ?? '') : '';
  };
  return {
    call,
    get: (el) => call(fn.get, [el], el, QUIET_READ),
    set: (el, value) => call(fn.set, [el, String(value)], el),
    commit: () => call(fn.commit, [''], fn.commit),
  };
}

/**
 * What the embed's answer event `msg` (its grading.js report `report`) writes in SCORM `version`,
 * in order: the interaction's [element, value] pairs under `n` (cmi.interactions.n), and 2004's
 * comment from the learner with a self-graded answer's self-assessment (pairs under the comment's
 * element, or null). `limit`: the most characters of a written answer; describe(index): a
 * question's text (2004's description).
 */
function interactionValues(version, n, msg, report, { limit, describe }) {
  const v12 = version === '1.2';
  const tf = msg.kind === 'true-false';
  const when = new Date(msg.time);
  const at = Number.isNaN(when.getTime()) ? new Date() : when;
  const timestamp = `${at.toISOString().slice(0, 22)}Z`;
  const written = tf ? '' : plainResponse(report.response, limit);
  const result = report.success === null ? 'neutral' : report.success ? 'correct' : v12 ? 'wrong' : 'incorrect';
  const right = (msg.response === 'true') === msg.correct;
  const values = [[`${n}.id`, msg.item]];
  if (v12) {
    values.push([`${n}.type`, tf ? 'true-false' : 'fill-in']);
    values.push([`${n}.time`, `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`]);
    values.push([`${n}.weighting`, report.counts ? 1 : 0]);
    if (tf) values.push([`${n}.student_response`, msg.response === 'true' ? 't' : 'f']);
    else if (written) values.push([`${n}.student_response`, written]);
    if (tf) values.push([`${n}.correct_responses.0.pattern`, right ? 't' : 'f']);
    values.push([`${n}.result`, result]);
    return { interaction: values, comment: null };
  }
  values.push([`${n}.type`, tf ? 'true-false' : 'long-fill-in']);
  values.push([`${n}.timestamp`, timestamp]);
  values.push([`${n}.weighting`, report.counts ? 1 : 0]);
  const description = plainResponse(describe(msg.index), 250);
  if (description) values.push([`${n}.description`, description]);
  if (tf) values.push([`${n}.correct_responses.0.pattern`, String(right)]);
  if (tf) values.push([`${n}.learner_response`, msg.response === 'true' ? 'true' : 'false']);
  else if (written) values.push([`${n}.learner_response`, written]);
  values.push([`${n}.result`, result]);
  const comment = report.selfAssessment
    ? [
        ['comment', `Self-assessment of ${msg.item}: ${report.selfAssessment}`],
        ['location', msg.item],
        ['timestamp', timestamp],
      ]
    : null;
  return { interaction: values, comment };
}

/**
 * What the embed's score event `msg` writes in SCORM `version`: [element, value] pairs, none when
 * nothing counts (max 0); `progress` (answered of all, 2004's cmi.progress_measure) is not 1.2's.
 */
function scoreValues(version, msg, progress) {
  const values = [];
  if (msg.max > 0 && version === '1.2') {
    values.push(['cmi.core.score.min', 0]);
    values.push(['cmi.core.score.max', 100]);
    values.push(['cmi.core.score.raw', Math.round(msg.scaled * 10000) / 100]);
  } else if (msg.max > 0) {
    values.push(['cmi.score.min', 0]);
    values.push(['cmi.score.max', msg.max]);
    values.push(['cmi.score.raw', msg.raw]);
    values.push(['cmi.score.scaled', round4(msg.scaled)]);
  }
  if (version !== '1.2') values.push(['cmi.progress_measure', round4(progress)]);
  return values;
}

/**
 * What the embed's complete event `msg` writes in SCORM `version`, its score against `passMark`
 * (percent): {values: [element, value] pairs, verdict: the status line's words}.
 */
function completionValues(version, msg, passMark) {
  const model = MODEL[version];
  const passed = passes(msg.raw, msg.max, passMark);
  const values =
    version === '1.2'
      ? [
          [model.status, passed === null ? 'completed' : passed ? 'passed' : 'failed'],
          [model.exit, ''],
        ]
      : [
          [model.status, 'completed'],
          ['cmi.success_status', passed === null ? 'unknown' : passed ? 'passed' : 'failed'],
          [model.exit, 'normal'],
        ];
  const right = `${msg.raw} of ${msg.max} right`;
  const verdict =
    msg.max === 0
      ? 'no score (only self-assessed answers)'
      : passed === null
        ? right
        : `${passed ? 'passed' : 'not passed'}, ${right} (pass mark ${Math.round(passMark * 100) / 100} %)`;
  return { values, verdict };
}

/** 1.2's cmi.comments, written once at the end: "Self-assessed: why-03 got it; err-01 missed it.", or null. */
function selfAssessments12(answers, ids) {
  const lines = answers
    .filter((a) => a.selfGraded)
    .sort((a, b) => a.index - b.index)
    .map((a) => `${ids[a.index] ?? `question ${a.index + 1}`} ${a.correct ? 'got it' : 'missed it'}`);
  return lines.length ? plainResponse(`Self-assessed: ${lines.join('; ')}.`, 4096) : null;
}

/**
 * Starts the attempt. Returns {connected, version, resume, errors, recording, answerLimit,
 * onEvent(msg), saveDraft(index, text), finish()}: `resume` ({index, answers, draft}) or null for
 * the quiz embed, `recording` whether answers go to the LMS (not in review mode), `answerLimit`
 * the most characters of a written answer the LMS keeps, `onEvent` for every embed event,
 * `saveDraft` for the answer box's text as it is written.
 * @param {{win?: Window, version?: '1.2'|'2004', total: number,
 *   grading?: {countSelfGraded: boolean, passMark: number|null}, ids?: string[],
 *   describe?: (index: number) => string, onStatus?: (state: string, text: string) => void}} options
 *   version: the package's (its API is looked for first); grading: the package's (grading.js), its
 *   pass mark used when the LMS gives no mastery score; ids: the questions' bank ids (1.2's
 *   comment names them); describe: a question's text (2004's interaction description)
 */
export function startScormRuntime({
  win = window,
  version: preferred = '1.2',
  total,
  grading = DEFAULT_GRADING,
  ids = [],
  describe = () => '',
  onStatus = () => {},
}) {
  const errors = [];
  const found = findLmsApi(win, { prefer: preferred });
  if (!found) return notConnected(errors, onStatus, 'off', STATUS.notConnected);
  const { api, version } = found;
  const fn = CALLS[version];
  const model = MODEL[version];
  const v12 = version === '1.2';
  const label = `SCORM ${version}`;
  const { call, get, set, commit } = apiCalls(api, fn, errors, onStatus);
  const setAll = (values) => values.forEach(([el, value]) => set(el, value));

  if (call(fn.init, [''], fn.init) !== 'true')
    return notConnected(errors, onStatus, 'error', errors.at(-1) ?? `The LMS refused ${fn.init}.`);
  const startedAt = Date.now();
  let finished = false;
  const saveTime = () => set(model.sessionTime, (v12 ? timespan12 : duration2004)(Date.now() - startedAt));

  const mode = get(model.mode);
  const review = mode === 'review' || mode === 'browse';
  let interactions = Number.parseInt(get('cmi.interactions._count'), 10);
  if (!Number.isInteger(interactions) || interactions < 0) interactions = 0;
  let comments = v12 ? 0 : Number.parseInt(get('cmi.comments_from_learner._count'), 10);
  if (!Number.isInteger(comments) || comments < 0) comments = 0;
  const stored = readSuspendData(get('cmi.suspend_data'), total);
  const answers = stored ? [...stored.answers] : [];
  let final = review || (stored !== null && stored.index >= total);
  // the pass mark in percent: the LMS's mastery score (1.2 in percent, 2004 scaled) wins over the package's
  const lmsMastery = Number.parseFloat(get(model.mastery));
  const passMark = Number.isFinite(lmsMastery) ? (v12 ? lmsMastery : lmsMastery * 100) : grading.passMark;
  const limit = RESPONSE_LIMIT[version];
  let draft = stored ? { index: stored.index, text: stored.draft } : { index: 0, text: '' };
  const nextIndex = () => Math.max(0, ...answers.map((a) => a.index + 1));
  const saveSuspend = () => {
    const next = nextIndex();
    set('cmi.suspend_data', suspendText(total, next, answers, draft.index === next ? draft.text.slice(0, limit) : ''));
  };

  const finish = () => {
    if (finished) return;
    finished = true;
    if (!review) {
      // the answer box's text, unless there is nothing to keep or to clear
      if (!final && (draft.text !== '' || stored !== null || answers.length > 0)) saveSuspend();
      saveTime();
      commit();
    }
    call(fn.finish, [''], fn.finish);
  };

  if (review) onStatus('off', `Review mode (${label}): your answers are not recorded.`);
  else {
    const status = get(model.status);
    if (!final && !['passed', 'failed', 'completed', 'incomplete'].includes(status)) set(model.status, 'incomplete');
    if (!final) set(model.exit, 'suspend');
    commit();
    if (!errors.length)
      onStatus(
        'ready',
        final
          ? `Recorded in the LMS (${label}): the attempt is complete.`
          : STATUS.recording(label, stored, answers.length, total),
      );
  }

  function recordAnswer(msg) {
    if (answers.some((a) => a.index === msg.index)) return;
    answers.push({ index: msg.index, correct: msg.correct === true, selfGraded: msg.selfGraded === true });
    const n = `cmi.interactions.${interactions++}`;
    const { interaction, comment } = interactionValues(version, n, msg, itemReport(msg, grading), { limit, describe });
    setAll(interaction);
    if (comment) {
      const c = `cmi.comments_from_learner.${comments++}`;
      setAll(comment.map(([el, value]) => [`${c}.${el}`, value]));
    }
  }

  function recordScore(msg) {
    setAll(scoreValues(version, msg, total > 0 ? Math.min(1, answers.length / total) : 1));
    set(model.location, nextIndex());
    saveSuspend();
  }

  let verdict = '';
  function recordComplete(msg) {
    const completion = completionValues(version, msg, passMark);
    setAll(completion.values);
    verdict = completion.verdict;
    const selfAssessed = v12 ? selfAssessments12(answers, ids) : null;
    if (selfAssessed) call(fn.set, ['cmi.comments', selfAssessed], 'cmi.comments', ['401']);
  }

  function onEvent(msg) {
    if (final || finished || !msg) return;
    if (msg.type === 'answer') return recordAnswer(msg);
    if (msg.type === 'score') recordScore(msg);
    else if (msg.type === 'complete') recordComplete(msg);
    else return;
    saveTime();
    commit();
    if (msg.type === 'complete') final = true;
    // an error stays on the status line: later answers may be saved, but one was not
    if (!errors.length)
      onStatus(
        'ready',
        final
          ? `Recorded in the LMS (${label}): ${verdict}; the attempt is complete.`
          : STATUS.saved(label, answers.length, total),
      );
  }

  return {
    connected: true,
    version,
    resume: stored ? { index: stored.index, answers: stored.answers, draft: stored.draft } : null,
    errors,
    recording: !review,
    answerLimit: limit,
    onEvent,
    /** The answer box's text for question `index` as it is written: kept in the suspend data when the page goes. */
    saveDraft(index, text) {
      if (!final && !review) draft = { index, text: String(text ?? '') };
    },
    finish,
  };
}
