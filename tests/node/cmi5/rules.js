// What the tests check of every statement an AU session leaves in the LRS: Learning Locker's
// xAPI validator (@learninglocker/xapi-validation), then the cmi5 rules (cmi5 spec section 9):
// the order of a session (launched by the LMS, then initialized first and terminated last, no
// cmi5 defined verb twice, at most one of passed and failed), the defined statements' object,
// category context activities and result (score only in passed and failed, success true in passed
// and false in failed, completion only in completed, duration where required, the moveOn category
// exactly where success or completion is, the mastery score and its verdict), the context
// template kept in every statement, "cmi5 allowed" statements only between initialized and
// terminated, and in Browse and Review no defined statement but initialized and terminated.
// Each function returns a list of problems in words; [] when all hold.
import validation from '@learninglocker/xapi-validation';
import { CMI5, EXT, SESSION_ID } from './lms.js';

const validate = validation.default ?? validation;
export const VERB = (v) => `http://adlnet.gov/expapi/verbs/${v}`;
export const MOVE_ON = 'https://w3id.org/xapi/cmi5/context/categories/moveon';
export const DEFINED = ['launched', 'initialized', 'completed', 'passed', 'failed', 'terminated'];
const NEEDS_DURATION = ['completed', 'passed', 'failed', 'terminated'];
const ISO_DURATION =
  /^P(?!$)(\d+(?:\.\d+)?Y)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?W)?(\d+(?:\.\d+)?D)?(T(?=\d)(\d+(?:\.\d+)?H)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?S)?)?$/;

/** The verb's last path segment (answered, passed, ...). */
export const verbOf = (s) => String(s?.verb?.id ?? '').replace(/^.*\//, '');
const categories = (s) => (s.context?.contextActivities?.category ?? []).map((a) => a.id);
const isDefined = (s) => categories(s).includes(CMI5);

/** Learning Locker's warnings for one statement, in words. */
export function xapiProblems(s) {
  return validate(s).map((w) =>
    `${verbOf(s)}: ${w.path?.join('.') ?? ''} ${w.constructor?.name ?? ''} ${w.typeName ?? ''}`.trim(),
  );
}

/**
 * The problems of one session's statements, in the order the LRS received them.
 * @param {object[]} list the session's statements, the LMS's "launched" first
 * @param {{activityId: string, registration: string, actor: object, session: string, auId: string,
 *   launchMode: string, masteryScore?: number}} launch what the LMS launched the AU with
 * @param {{ended?: boolean}} options ended: the session is over (terminated must be there)
 */
export function sessionProblems(list, launch, { ended = true } = {}) {
  const out = [];
  const say = (i, text) => out.push(`#${i} ${verbOf(list[i])}: ${text}`);
  const verbs = list.map(verbOf);
  if (verbs[0] !== 'launched' || verbs.lastIndexOf('launched') !== 0)
    out.push(`one "launched" first, got ${verbs.join(', ')}`);
  const au = verbs.slice(1);
  if (au[0] !== 'initialized') out.push(`the AU's first statement is ${au[0]}, not initialized`);
  const end = au.indexOf('terminated');
  if (ended && end === -1) out.push('no "terminated"');
  if (end !== -1 && end !== au.length - 1) out.push(`statements after "terminated": ${au.slice(end + 1).join(', ')}`);
  const defined = list.filter(isDefined).map(verbOf);
  for (const v of new Set(defined))
    if (defined.filter((d) => d === v).length > 1) out.push(`"${v}" twice in one session`);
  if (defined.includes('passed') && defined.includes('failed')) out.push('both passed and failed in one session');
  if (launch.launchMode !== 'Normal') {
    const judged = defined.filter((v) => !['launched', 'initialized', 'terminated'].includes(v));
    if (judged.length) out.push(`${launch.launchMode} mode, yet ${judged.join(', ')}`);
  }

  let last = -Infinity;
  list.forEach((s, i) => {
    const v = verbOf(s);
    if (!/(Z|[+-]00:00)$/.test(s.timestamp ?? '')) say(i, `timestamp ${s.timestamp} is not UTC`);
    const t = Date.parse(s.timestamp);
    if (!(t >= last)) say(i, `timestamp ${s.timestamp} is before the statement received before it`);
    last = t;
    if (JSON.stringify(s.actor) !== JSON.stringify(launch.actor)) say(i, `actor ${JSON.stringify(s.actor)}`);
    if (s.context?.registration !== launch.registration) say(i, `registration ${s.context?.registration}`);
    if (s.context?.extensions?.[SESSION_ID] !== launch.session) say(i, 'not the session id of the launch');
    if (!(s.context?.contextActivities?.grouping ?? []).some((a) => a.id === launch.auId))
      say(i, 'the publisher id activity of the context template is missing from grouping');
    const r = s.result ?? {};
    const moveOn = categories(s).includes(MOVE_ON);
    if (isDefined(s)) {
      if (!DEFINED.includes(v)) say(i, 'a cmi5 category on a verb cmi5 does not define');
      if (s.object?.id !== launch.activityId) say(i, `object ${s.object?.id}, not the AU's activityId`);
      if ('score' in r && !['passed', 'failed'].includes(v)) say(i, 'a score');
      if (v === 'passed' && r.success !== true) say(i, 'success is not true');
      if (v === 'failed' && r.success !== false) say(i, 'success is not false');
      if (!['passed', 'failed'].includes(v) && 'success' in r) say(i, 'a success');
      if (v === 'completed' && r.completion !== true) say(i, 'completion is not true');
      if (v !== 'completed' && 'completion' in r) say(i, 'a completion');
      if (NEEDS_DURATION.includes(v) && !ISO_DURATION.test(r.duration ?? '')) say(i, `duration ${r.duration}`);
      if (moveOn !== ('success' in r || 'completion' in r))
        say(i, `moveOn category ${moveOn ? 'without' : 'missing with'} success or completion`);
      if (['passed', 'failed'].includes(v) && launch.masteryScore !== undefined) {
        const m = s.context?.extensions?.[`${EXT}masteryscore`];
        if (m !== launch.masteryScore) say(i, `masteryScore ${m}, the LMS gave ${launch.masteryScore}`);
        const scaled = r.score?.scaled;
        if (typeof scaled === 'number' && v === 'passed' && !(scaled >= launch.masteryScore))
          say(i, `scaled ${scaled} under the mastery score`);
        if (typeof scaled === 'number' && v === 'failed' && !(scaled < launch.masteryScore))
          say(i, `scaled ${scaled} not under the mastery score`);
      }
      if (r.score && 'raw' in r.score) {
        const { raw, min, max } = r.score;
        if (!Number.isInteger(raw) || !Number.isInteger(min) || !Number.isInteger(max) || raw < min || raw > max)
          say(i, `score raw ${raw} not an integer within min ${min} and max ${max}`);
      }
    } else {
      if (DEFINED.includes(v) && v !== 'launched') say(i, 'a cmi5 defined verb without the cmi5 category');
      if (moveOn) say(i, 'the moveOn category on a statement that is not cmi5 defined');
      const k = i - 1; // its place among the AU's statements
      if (!(k > au.indexOf('initialized') && (end === -1 || k < end))) say(i, 'outside initialized ... terminated');
    }
  });
  return out;
}

/** The problems of a registration's sessions together: completed and passed at most once, no failed after passed. */
export function registrationProblems(sessions) {
  const defined = sessions.flat().filter(isDefined).map(verbOf);
  const out = [];
  for (const v of ['completed', 'passed'])
    if (defined.filter((d) => d === v).length > 1) out.push(`"${v}" more than once in the registration`);
  const passedAt = defined.indexOf('passed');
  if (passedAt !== -1 && defined.lastIndexOf('failed') > passedAt)
    out.push('"failed" after "passed" in the registration');
  return out;
}
