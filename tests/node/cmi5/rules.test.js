// The statement checks the cmi5 browser test relies on (rules.js) can fail: a well-formed session
// passes them, and each broken rule (order, duplicates, result properties, categories, mastery
// score, launch mode, the context template, registration-wide once-only verbs, xAPI validity) is
// named. Run: node --test tests/node/cmi5/rules.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { CMI5, EXT, SESSION_ID } from './lms.js';
import { MOVE_ON, VERB, registrationProblems, sessionProblems, xapiProblems } from './rules.js';

const launch = {
  activityId: 'http://lms.example/activities/1',
  registration: '3f0b9a0e-5f7a-4b9e-8d8e-1d2c3b4a5f60',
  actor: { objectType: 'Agent', account: { homePage: 'http://lms.example', name: 'ann' } },
  session: 's-1',
  auId: 'http://site.example/cmi5/course/1/au/quiz',
  launchMode: 'Normal',
  masteryScore: 0.75,
};
let clock = Date.parse('2025-01-01T10:00:00Z');
function st(verb, { defined = true, result, moveOn = false, object, extensions = {} } = {}) {
  clock += 1000;
  return {
    id: `00000000-0000-4000-8000-${String(clock).slice(-12)}`,
    actor: launch.actor,
    verb: { id: VERB(verb), display: { 'en-US': verb } },
    object: object ?? { objectType: 'Activity', id: launch.activityId },
    ...(result ? { result } : {}),
    context: {
      registration: launch.registration,
      contextActivities: {
        grouping: [{ objectType: 'Activity', id: launch.auId }],
        ...(defined ? { category: [{ id: CMI5 }, ...(moveOn ? [{ id: MOVE_ON }] : [])] } : {}),
      },
      extensions: { [SESSION_ID]: launch.session, ...extensions },
    },
    timestamp: new Date(clock).toISOString(),
  };
}
const mastery = { [`${EXT}masteryscore`]: 0.75 };
const score = (raw) => ({ raw, min: 0, max: 4, scaled: raw / 4 });
const question = (id) => ({
  objectType: 'Activity',
  id: `${launch.activityId}/test/quiz/question/${id}`,
  definition: { type: 'http://adlnet.gov/expapi/activities/cmi.interaction', interactionType: 'true-false' },
});
function session(last = 3) {
  return [
    st('launched'),
    st('initialized'),
    st('answered', { defined: false, object: question('tf-01'), result: { response: 'true', success: true } }),
    st(last >= 3 ? 'passed' : 'failed', {
      result: { score: score(last), success: last >= 3, duration: 'PT1M2.5S' },
      moveOn: true,
      extensions: mastery,
    }),
    st('completed', { result: { completion: true, duration: 'PT1M3S' }, moveOn: true }),
    st('terminated', { result: { duration: 'PT1M4S' } }),
  ];
}
const problemsOf = (list, at = launch) => sessionProblems(list, at).join('\n');
const edit = (list, i, fn) => list.map((s, k) => (k === i ? fn(structuredClone(s)) : s));

test('a well-formed session passes every check, and Learning Locker finds nothing', () => {
  assert.deepEqual(sessionProblems(session(), launch), []);
  assert.deepEqual(sessionProblems(session(2), launch), []);
  assert.deepEqual(session().flatMap(xapiProblems), []);
  const noCompleted = (list) => list.filter((x) => !x.verb.id.endsWith('completed'));
  assert.deepEqual(registrationProblems([noCompleted(session(2)), session(3)]), [], 'failed, then passed later');
});

test('each broken rule is named', () => {
  const s = session();
  assert.match(problemsOf(s.slice(1)), /one "launched" first/);
  assert.match(problemsOf([s[0], s[2], s[1], ...s.slice(3)]), /first statement is answered, not initialized/);
  assert.match(problemsOf(s.slice(0, -1)), /no "terminated"/);
  assert.match(problemsOf([...s.slice(0, 4), s[5], s[4]]), /statements after "terminated": completed/);
  assert.match(
    problemsOf([
      ...s.slice(0, 5),
      st('completed', { result: { completion: true, duration: 'PT1S' }, moveOn: true }),
      st('terminated', { result: { duration: 'PT2S' } }),
    ]),
    /"completed" twice/,
  );
  assert.match(
    problemsOf([
      ...s.slice(0, 4),
      st('failed', {
        result: { score: score(1), success: false, duration: 'PT1S' },
        moveOn: true,
        extensions: mastery,
      }),
      ...s.slice(4),
    ]),
    /both passed and failed/,
  );
  assert.match(
    problemsOf(edit(s, 3, (x) => ({ ...x, result: { ...x.result, score: score(2) } }))),
    /scaled 0\.5 under the mastery score/,
  );
  assert.match(
    problemsOf(edit(s, 3, (x) => ({ ...x, result: { ...x.result, success: false } }))),
    /success is not true/,
  );
  assert.match(
    problemsOf(edit(s, 3, (x) => ({ ...x, context: { ...x.context, extensions: { [SESSION_ID]: 's-1' } } }))),
    /masteryScore undefined, the LMS gave 0\.75/,
  );
  assert.match(problemsOf(edit(s, 4, (x) => ({ ...x, result: { ...x.result, success: true } }))), /a success/);
  assert.match(problemsOf(edit(s, 4, (x) => ({ ...x, result: { completion: true } }))), /duration undefined/);
  assert.match(
    problemsOf(edit(s, 5, (x) => ({ ...x, result: { duration: 'PT1M4S', completion: true } }))),
    /a completion/,
  );
  assert.match(problemsOf(edit(s, 1, (x) => ({ ...x, result: { score: { scaled: 1 } } }))), /a score/);
  assert.match(
    problemsOf(
      edit(s, 4, (x) => ({
        ...x,
        context: { ...x.context, contextActivities: { ...x.context.contextActivities, category: [{ id: CMI5 }] } },
      })),
    ),
    /moveOn category missing/,
  );
  assert.match(
    problemsOf(
      edit(s, 2, (x) => ({
        ...x,
        context: { ...x.context, contextActivities: { ...x.context.contextActivities, category: [{ id: CMI5 }] } },
      })),
    ),
    /a cmi5 category on a verb cmi5 does not define/,
  );
  assert.match(problemsOf([s[0], s[2], ...s.slice(1, 2), ...s.slice(3)]), /outside initialized/);
  assert.match(problemsOf(edit(s, 1, (x) => ({ ...x, object: { id: launch.auId } }))), /not the AU's activityId/);
  assert.match(
    problemsOf(edit(s, 2, (x) => ({ ...x, context: { ...x.context, registration: 'other' } }))),
    /registration other/,
  );
  assert.match(
    problemsOf(edit(s, 2, (x) => ({ ...x, context: { ...x.context, contextActivities: {} } }))),
    /publisher id/,
  );
  assert.match(problemsOf(edit(s, 2, (x) => ({ ...x, context: { ...x.context, extensions: {} } }))), /session id/);
  assert.match(
    problemsOf(edit(s, 2, (x) => ({ ...x, timestamp: '2024-01-01T00:00:00Z' }))),
    /before the statement received before it/,
  );
  assert.match(problemsOf(edit(s, 2, (x) => ({ ...x, timestamp: '2025-01-01T11:00:00+02:00' }))), /not UTC/);
  assert.match(problemsOf(s, { ...launch, launchMode: 'Browse' }), /Browse mode, yet passed, completed/);
  assert.match(
    registrationProblems([session(3), session(3)]).join(),
    /"completed" more than once.*"passed" more than once/,
  );
  assert.match(
    registrationProblems([session(3), session(2).filter((x) => !x.verb.id.endsWith('completed'))]).join(),
    /"failed" after "passed"/,
  );
  assert.ok(
    xapiProblems({ ...s[2], verb: { id: 'answered' } }).length > 0,
    'Learning Locker refuses a verb id that is not an IRI',
  );
  assert.ok(
    xapiProblems({ ...s[3], result: { ...s[3].result, score: { scaled: 2 } } }).length > 0,
    'and a scaled score over 1',
  );
});
