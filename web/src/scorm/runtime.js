// The SCORM side of the quiz's launch page: finds the LMS's API (SCORM 1.2's
// `API`, SCORM 2004's `API_1484_11`) the way the standard's discovery
// algorithm does, starts the attempt, and turns the quiz embed's events
// (../embed/events.js: answer, score, complete) into the data model's values,
// committing after every answer. Every call's error code (GetLastError) is
// checked; errors go to `onStatus` and `errors`, nothing is thrown.
//
// What each version receives (README.md, "SCORM"):
//   at launch   1.2 cmi.core.lesson_status = incomplete, cmi.core.exit = suspend;
//               2004 cmi.completion_status = incomplete, cmi.exit = suspend
//   per answer  one interaction: id (the bank id), type (true-false; open and find-error
//               items fill-in in 1.2, long-fill-in in 2004), the response (1.2 t/f,
//               2004 true/false; the written answer, else "self-graded: got it" or
//               "self-graded: missed it"), result (1.2 correct/wrong, 2004
//               correct/incorrect), time (1.2) or timestamp and description (2004), the
//               correct response of a true/false item, weighting 1;
//               then the score (1.2 raw in percent, min 0, max 100; 2004 raw = correct
//               answers, min 0, max = questions, scaled), 2004 cmi.progress_measure,
//               the location (the next question's index), cmi.suspend_data, the session
//               time, and a commit
//   at the end  1.2 lesson_status passed or failed against the mastery score (completed
//               when there is none), exit ''; 2004 completion_status completed,
//               success_status passed or failed (unknown without a mastery score), exit normal
//   on pagehide the session time, a commit, LMSFinish / Terminate
// A suspended attempt (cmi.suspend_data {v, n, i, a: [[index, correct, selfGraded], ...]})
// is given back as `resume` for the quiz embed; its interactions are not recorded again.
// Once every question is answered the attempt is final: "Start again" is practice, not sent.

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

/** Free text as the data model takes it: one line, not opening with '{' (a language tag's mark), at most `max` characters. */
export function plainResponse(text, max) {
  let s = String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  if (s.startsWith('{')) s = ` ${s}`;
  return s.length > max ? `${s.slice(0, max - 1)}\u2026` : s;
}

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
  };
}

/** The attempt as cmi.suspend_data's text: readSuspendData's inverse. */
export const suspendText = (total, index, answers) =>
  JSON.stringify({
    v: 1,
    n: total,
    i: index,
    a: answers.map((a) => [a.index, a.correct ? 1 : 0, a.selfGraded ? 1 : 0]),
  });

/**
 * Starts the attempt. Returns {connected, version, resume, errors, onEvent(msg), finish()}:
 * `resume` ({index, answers}) or null for the quiz embed, `onEvent` for every embed event.
 * @param {{win?: Window, version?: '1.2'|'2004', total: number, mastery?: number|null,
 *   describe?: (index: number) => string, onStatus?: (state: string, text: string) => void}} options
 *   version: the package's (its API is looked for first); mastery: the package's passing fraction,
 *   used when the LMS gives none; describe: a question's text (2004's interaction description)
 */
export function startScormRuntime({
  win = window,
  version: preferred = '1.2',
  total,
  mastery = null,
  describe = () => '',
  onStatus = () => {},
}) {
  const errors = [];
  const found = findLmsApi(win, { prefer: preferred });
  const off = (state, text) => {
    onStatus(state, text);
    return { connected: false, version: null, resume: null, errors, onEvent: () => {}, finish: () => {} };
  };
  if (!found) return off('off', 'Not connected to an LMS: your answers and score are not being recorded.');
  const { api, version } = found;
  const fn = CALLS[version];
  const model = MODEL[version];
  const v12 = version === '1.2';
  const label = `SCORM ${version}`;

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
  // One API call; its result (as a string), with the error code checked unless `quiet` lists it.
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
  const get = (el) => call(fn.get, [el], el, QUIET_READ);
  const set = (el, value) => call(fn.set, [el, String(value)], el);
  const commit = () => call(fn.commit, [''], fn.commit);

  if (call(fn.init, [''], fn.init) !== 'true') return off('error', errors.at(-1) ?? `The LMS refused ${fn.init}.`);
  const startedAt = Date.now();
  let finished = false;
  const saveTime = () => set(model.sessionTime, (v12 ? timespan12 : duration2004)(Date.now() - startedAt));

  const mode = get(model.mode);
  const review = mode === 'review' || mode === 'browse';
  let interactions = Number.parseInt(get('cmi.interactions._count'), 10);
  if (!Number.isInteger(interactions) || interactions < 0) interactions = 0;
  const stored = readSuspendData(get('cmi.suspend_data'), total);
  const answers = stored ? [...stored.answers] : [];
  let final = review || (stored !== null && stored.index >= total);
  const lmsMastery = Number.parseFloat(get(model.mastery));
  const threshold = Number.isFinite(lmsMastery) ? (v12 ? lmsMastery / 100 : lmsMastery) : mastery;

  const finish = () => {
    if (finished) return;
    finished = true;
    if (!review) {
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
          : stored
            ? `Recording to the LMS (${label}): continuing your attempt, ${answers.length} of ${total} answered.`
            : `Recording to the LMS (${label}): each answer is saved.`,
      );
  }

  function recordAnswer(msg) {
    if (answers.some((a) => a.index === msg.index)) return;
    answers.push({ index: msg.index, correct: msg.correct === true, selfGraded: msg.selfGraded === true });
    const n = `cmi.interactions.${interactions++}`;
    const tf = msg.kind === 'true-false';
    // a self-graded item's response: what the reader wrote, else their own grade
    const written = String(msg.response ?? '').trim() || `self-graded: ${msg.correct ? 'got it' : 'missed it'}`;
    const when = new Date(msg.time);
    const at = Number.isNaN(when.getTime()) ? new Date() : when;
    set(`${n}.id`, msg.item);
    if (v12) {
      set(`${n}.type`, tf ? 'true-false' : 'fill-in');
      set(`${n}.time`, `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`);
      set(`${n}.weighting`, 1);
      set(`${n}.student_response`, tf ? (msg.response === 'true' ? 't' : 'f') : plainResponse(written, 255));
      if (tf) {
        const right = (msg.response === 'true') === msg.correct;
        set(`${n}.correct_responses.0.pattern`, right ? 't' : 'f');
      }
      set(`${n}.result`, msg.correct ? 'correct' : 'wrong');
    } else {
      set(`${n}.type`, tf ? 'true-false' : 'long-fill-in');
      set(`${n}.timestamp`, `${at.toISOString().slice(0, 22)}Z`);
      set(`${n}.weighting`, 1);
      const description = plainResponse(describe(msg.index), 250);
      if (description) set(`${n}.description`, description);
      if (tf) {
        const right = (msg.response === 'true') === msg.correct;
        set(`${n}.correct_responses.0.pattern`, String(right));
      }
      set(`${n}.learner_response`, tf ? (msg.response === 'true' ? 'true' : 'false') : plainResponse(written, 4000));
      set(`${n}.result`, msg.correct ? 'correct' : 'incorrect');
    }
  }

  function recordScore(msg) {
    if (v12) {
      set('cmi.core.score.min', 0);
      set('cmi.core.score.max', 100);
      set('cmi.core.score.raw', Math.round(msg.scaled * 10000) / 100);
    } else {
      set('cmi.score.min', 0);
      set('cmi.score.max', msg.max);
      set('cmi.score.raw', msg.raw);
      set('cmi.score.scaled', round4(msg.scaled));
      set('cmi.progress_measure', round4(msg.max > 0 ? Math.min(1, msg.answered / msg.max) : 1));
    }
    const next = Math.max(0, ...answers.map((a) => a.index + 1));
    set(model.location, next);
    set('cmi.suspend_data', suspendText(total, next, answers));
  }

  function recordComplete(msg) {
    const passed = threshold === null ? null : msg.scaled >= threshold;
    if (v12) {
      set(model.status, passed === null ? 'completed' : passed ? 'passed' : 'failed');
      set(model.exit, '');
    } else {
      set(model.status, 'completed');
      set('cmi.success_status', passed === null ? 'unknown' : passed ? 'passed' : 'failed');
      set(model.exit, 'normal');
    }
  }

  function onEvent(msg) {
    if (final || finished || !msg) return;
    if (msg.type === 'answer') recordAnswer(msg);
    else if (msg.type === 'score') {
      recordScore(msg);
      saveTime();
      commit();
    } else if (msg.type === 'complete') {
      recordComplete(msg);
      saveTime();
      commit();
      final = true;
    } else return;
    // an error stays on the status line: later answers may be saved, but one was not
    if (!errors.length && msg.type !== 'answer')
      onStatus(
        'ready',
        final
          ? `Recorded in the LMS (${label}): ${msg.raw} of ${msg.max} correct; the attempt is complete.`
          : `Saved to the LMS (${label}): ${answers.length} of ${total} answered.`,
      );
  }

  return {
    connected: true,
    version,
    resume: stored ? { index: stored.index, answers: stored.answers } : null,
    errors,
    onEvent,
    finish,
  };
}
