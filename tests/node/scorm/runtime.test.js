// The SCORM runtime against small in-memory LMS APIs: discovery through parent
// frames (one of another origin on the way) and the opener, what each version
// is sent per answer and at the end, errors reported and never thrown, a
// resumed attempt's interactions not sent twice, and the suspend data checked.
// The real run-time (scorm-again) is driven in tests/browser/scorm.test.js.
// Run: node --test tests/node/scorm/runtime.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  duration2004,
  findLmsApi,
  plainResponse,
  readSuspendData,
  startScormRuntime,
  timespan12,
} from '../../../web/src/scorm/runtime.js';

const NAMES = {
  1.2: [
    'LMSInitialize',
    'LMSFinish',
    'LMSGetValue',
    'LMSSetValue',
    'LMSCommit',
    'LMSGetLastError',
    'LMSGetErrorString',
    'LMSGetDiagnostic',
  ],
  2004: [
    'Initialize',
    'Terminate',
    'GetValue',
    'SetValue',
    'Commit',
    'GetLastError',
    'GetErrorString',
    'GetDiagnostic',
  ],
};

/** An LMS API keeping values in a Map; `refuse` maps elements to the error code a SetValue of them gives. */
function fakeApi(version, { data = {}, refuse = {} } = {}) {
  const [init, finish, get, set, commit, error, errorString, diagnostic] = NAMES[version];
  const values = new Map(Object.entries(data));
  const sets = [];
  let last = '0';
  const ok = (out) => {
    last = '0';
    return out;
  };
  return {
    values,
    sets,
    commits: 0,
    finished: false,
    [init]: () => ok('true'),
    [finish]() {
      this.finished = true;
      return ok('true');
    },
    [get](k) {
      if (values.has(k)) return ok(values.get(k));
      last = version === '1.2' ? '0' : '403';
      return '';
    },
    [set](k, v) {
      sets.push([k, v]);
      if (refuse[k]) {
        last = refuse[k];
        return 'false';
      }
      values.set(k, v);
      return ok('true');
    },
    [commit]() {
      this.commits++;
      return ok('true');
    },
    [error]: () => last,
    [errorString]: (c) => `error text ${c}`,
    [diagnostic]: () => '',
  };
}

const answer = (index, item, kind, response, correct, selfGraded = false) => ({
  type: 'answer',
  item,
  index,
  kind,
  response,
  correct,
  selfGraded,
  time: '2024-05-17T10:20:30.456Z',
});
const score = (raw, max, answered, selfGraded = 0) => ({
  type: 'score',
  raw,
  max,
  scaled: raw / max,
  answered,
  selfGraded,
});

test('the API is found in a parent, past a frame of another origin, or through the opener', () => {
  const api = fakeApi('2004');
  const top = { API_1484_11: api };
  top.parent = top;
  const foreign = new Proxy(
    {},
    {
      get(_, k) {
        if (k === 'parent') return top;
        throw new Error('SecurityError: cross-origin');
      },
    },
  );
  const self = { parent: foreign };
  assert.deepEqual(findLmsApi(self), { api, version: '2004' });
  const lonely = { opener: top };
  lonely.parent = lonely;
  lonely.top = lonely;
  assert.equal(findLmsApi(lonely).api, api);
  const none = {};
  none.parent = none;
  assert.equal(findLmsApi(none), null);
  const both = { API: fakeApi('1.2'), API_1484_11: api };
  both.parent = both;
  assert.equal(findLmsApi(both, { prefer: '2004' }).version, '2004');
  assert.equal(findLmsApi(both, { prefer: '1.2' }).version, '1.2');
});

test('without an LMS: not connected, a status saying so, events ignored', () => {
  const win = {};
  win.parent = win;
  const status = [];
  const rt = startScormRuntime({ win, total: 2, onStatus: (...s) => status.push(s) });
  assert.equal(rt.connected, false);
  assert.deepEqual(status, [['off', 'Not connected to an LMS: your answers and score are not being recorded.']]);
  rt.onEvent(answer(0, 'tf-01', 'true-false', 'true', true));
  rt.finish();
});

test('SCORM 1.2: the values sent per answer and at the end, with the LMS mastery score', () => {
  const api = fakeApi('1.2', {
    data: {
      'cmi.core.lesson_status': 'not attempted',
      'cmi.student_data.mastery_score': '50',
      'cmi.interactions._count': '0',
    },
  });
  const win = { API: api };
  win.parent = win;
  const rt = startScormRuntime({
    win,
    version: '1.2',
    total: 2,
    grading: { countSelfGraded: true, passMark: 80 },
    ids: ['tf-01', 'why-03'],
  });
  assert.equal(rt.connected, true);
  assert.equal(api.values.get('cmi.core.lesson_status'), 'incomplete');
  assert.equal(api.values.get('cmi.core.exit'), 'suspend');
  rt.onEvent(answer(0, 'tf-01', 'true-false', 'true', false));
  rt.onEvent(score(0, 2, 1));
  rt.onEvent(answer(1, 'why-03', 'open', `  a long\nanswer ${'x'.repeat(300)}`, true, true));
  rt.onEvent(score(1, 2, 2, 1));
  rt.onEvent({ type: 'complete', raw: 1, max: 2, scaled: 0.5, answered: 2, selfGraded: 1 });
  const v = Object.fromEntries(api.values);
  assert.equal(v['cmi.interactions.0.id'], 'tf-01');
  assert.equal(v['cmi.interactions.0.type'], 'true-false');
  assert.equal(v['cmi.interactions.0.student_response'], 't');
  assert.equal(v['cmi.interactions.0.correct_responses.0.pattern'], 'f');
  assert.equal(v['cmi.interactions.0.result'], 'wrong');
  assert.match(v['cmi.interactions.0.time'], /^\d\d:\d\d:\d\d$/);
  assert.equal(v['cmi.interactions.1.type'], 'fill-in');
  assert.equal(v['cmi.interactions.1.student_response'].length, 255);
  assert.match(v['cmi.interactions.1.student_response'], /^a long answer x+…$/);
  assert.equal(v['cmi.interactions.1.result'], 'correct', 'the teacher counts self-graded answers');
  assert.equal(v['cmi.interactions.1.weighting'], '1');
  assert.equal(v['cmi.comments'], 'Self-assessed: why-03 got it.');
  assert.equal(v['cmi.core.score.raw'], '50');
  assert.equal(v['cmi.core.score.max'], '100');
  assert.equal(v['cmi.core.lesson_status'], 'passed', 'the LMS mastery score (50) wins over the package default');
  assert.equal(v['cmi.core.exit'], '');
  assert.equal(v['cmi.core.lesson_location'], '2');
  assert.equal(v['cmi.suspend_data'], '{"v":1,"n":2,"i":2,"a":[[0,0,0],[1,1,1]]}');
  assert.ok(api.commits >= 3);
  // the attempt is final: practice after it is not sent
  const sent = api.sets.length;
  rt.onEvent(answer(0, 'tf-01', 'true-false', 'false', true));
  assert.equal(api.sets.length, sent);
  rt.finish();
  rt.finish();
  assert.equal(api.finished, true);
  assert.match(v['cmi.core.session_time'], /^\d{2,4}:\d\d:\d\d\.\d\d$/);
  assert.deepEqual(rt.errors, []);
});

test('SCORM 2004: a resumed attempt continues, old interactions are not sent again, errors are shown', () => {
  const stored = JSON.stringify({ v: 1, n: 3, i: 1, a: [[0, 1, 0]] });
  const api = fakeApi('2004', {
    data: {
      'cmi.suspend_data': stored,
      'cmi.interactions._count': '1',
      'cmi.completion_status': 'incomplete',
      'cmi.entry': 'resume',
    },
    refuse: { 'cmi.interactions.1.description': '406' },
  });
  const win = { API_1484_11: api };
  win.parent = win;
  const status = [];
  const rt = startScormRuntime({
    win,
    version: '2004',
    total: 3,
    grading: { countSelfGraded: true, passMark: 60 },
    describe: (i) => `{question ${i}`,
    onStatus: (...s) => status.push(s),
  });
  assert.deepEqual(rt.resume, { index: 1, answers: [{ index: 0, correct: true, selfGraded: false }], draft: '' });
  assert.match(status.at(-1)[1], /continuing your attempt, 1 of 3 answered/);
  rt.onEvent(answer(0, 'tf-08', 'true-false', 'true', true)); // already recorded
  rt.onEvent(answer(1, 'tf-01', 'true-false', 'false', true));
  assert.doesNotThrow(() => rt.onEvent(score(2, 3, 2)));
  assert.deepEqual(rt.errors, ['LMS error 406 on cmi.interactions.1.description: error text 406']);
  assert.equal(status.at(-1)[0], 'error');
  rt.onEvent(answer(2, 'err-01', 'find-error', '', false, true));
  rt.onEvent(score(2, 3, 3, 1));
  rt.onEvent({ type: 'complete', raw: 2, max: 3, scaled: 2 / 3, answered: 3, selfGraded: 1 });
  const v = Object.fromEntries(api.values);
  assert.equal(v['cmi.interactions.0.id'], undefined, 'the stored interaction is not sent again');
  assert.equal(v['cmi.interactions.1.id'], 'tf-01');
  assert.equal(v['cmi.interactions.1.learner_response'], 'false');
  assert.equal(v['cmi.interactions.1.correct_responses.0.pattern'], 'false');
  assert.equal(v['cmi.interactions.1.timestamp'], '2024-05-17T10:20:30.45Z');
  assert.equal(v['cmi.interactions.2.type'], 'long-fill-in');
  assert.equal(v['cmi.interactions.2.learner_response'], undefined, 'nothing written: no response');
  assert.equal(v['cmi.interactions.2.result'], 'incorrect');
  assert.equal(v['cmi.comments_from_learner.0.comment'], 'Self-assessment of err-01: missed it');
  assert.equal(v['cmi.comments_from_learner.0.location'], 'err-01');
  assert.equal(v['cmi.comments_from_learner.0.timestamp'], '2024-05-17T10:20:30.45Z');
  assert.equal(v['cmi.interactions.2.description'], ' {question 2');
  assert.equal(v['cmi.score.raw'], '2');
  assert.equal(v['cmi.score.max'], '3');
  assert.equal(v['cmi.score.scaled'], '0.6667');
  assert.equal(v['cmi.progress_measure'], '1');
  assert.equal(v['cmi.completion_status'], 'completed');
  assert.equal(v['cmi.success_status'], 'passed');
  assert.equal(v['cmi.exit'], 'normal');
  assert.deepEqual(JSON.parse(v['cmi.suspend_data']).a, [
    [0, 1, 0],
    [1, 1, 0],
    [2, 0, 1],
  ]);
  rt.finish();
  assert.match(v['cmi.session_time'] ?? api.values.get('cmi.session_time'), /^PT\d+H\d+M[\d.]+S$/);
});

test('self-graded answers left out (the default): the written answer is the response, the result neutral, weighting 0; the pass mark decides', () => {
  for (const version of ['1.2', '2004']) {
    const v12 = version === '1.2';
    const api = fakeApi(version);
    const win = v12 ? { API: api } : { API_1484_11: api };
    win.parent = win;
    const status = [];
    const rt = startScormRuntime({
      win,
      version,
      total: 3,
      grading: { countSelfGraded: false, passMark: 90 },
      ids: ['tf-01', 'why-03', 'err-01'],
      onStatus: (...x) => status.push(x),
    });
    assert.equal(rt.answerLimit, v12 ? 255 : 4000);
    assert.equal(rt.recording, true);
    rt.onEvent(answer(0, 'tf-01', 'true-false', 'false', true));
    rt.onEvent({ ...score(1, 1, 1), passMark: 90 });
    rt.onEvent(answer(1, 'why-03', 'open', 'The identity path\ncarries the gradient.', true, true));
    rt.onEvent({ ...score(1, 1, 2, 1), passMark: 90 });
    // a draft in the answer box of the last question, kept when the page goes
    rt.saveDraft(2, 'half an answer');
    const r = (k) => api.values.get(`cmi.interactions.1.${k}`);
    assert.equal(r(v12 ? 'student_response' : 'learner_response'), 'The identity path carries the gradient.');
    assert.equal(r('result'), 'neutral', `${version}: "I got it" is not recorded as correct`);
    assert.equal(r('weighting'), '0');
    assert.equal(r('type'), v12 ? 'fill-in' : 'long-fill-in');
    if (!v12) assert.equal(api.values.get('cmi.comments_from_learner.0.comment'), 'Self-assessment of why-03: got it');
    rt.onEvent(answer(2, 'err-01', 'find-error', '', true, true));
    rt.onEvent({ ...score(1, 1, 3, 2), passMark: 90 });
    rt.onEvent({ type: 'complete', raw: 1, max: 1, scaled: 1, answered: 3, selfGraded: 2, passMark: 90, passed: true });
    const v = Object.fromEntries(api.values);
    if (v12) {
      assert.equal(v['cmi.core.score.raw'], '100');
      assert.equal(v['cmi.core.lesson_status'], 'passed');
      assert.equal(v['cmi.comments'], 'Self-assessed: why-03 got it; err-01 got it.');
    } else {
      assert.equal(v['cmi.score.raw'], '1');
      assert.equal(v['cmi.score.max'], '1');
      assert.equal(v['cmi.progress_measure'], '1');
      assert.equal(v['cmi.success_status'], 'passed');
    }
    assert.match(status.at(-1)[1], /passed, 1 of 1 right \(pass mark 90 %\); the attempt is complete/);
  }
});

test('nothing counts (every question self-graded and left out): no score, completed without pass or fail', () => {
  for (const version of ['1.2', '2004']) {
    const v12 = version === '1.2';
    const api = fakeApi(version, { data: v12 ? { 'cmi.student_data.mastery_score': '80' } : {} });
    const win = v12 ? { API: api } : { API_1484_11: api };
    win.parent = win;
    const rt = startScormRuntime({ win, version, total: 1, grading: { countSelfGraded: false, passMark: 80 } });
    rt.onEvent(answer(0, 'why-03', 'open', 'words', true, true));
    rt.onEvent({ type: 'score', raw: 0, max: 0, scaled: 0, answered: 1, selfGraded: 1, passMark: 80 });
    rt.onEvent({ type: 'complete', raw: 0, max: 0, scaled: 0, answered: 1, selfGraded: 1, passMark: 80, passed: null });
    const keys = [...api.values.keys()];
    assert.deepEqual(
      keys.filter((k) => /score\.(raw|scaled|max|min)$/.test(k)),
      [],
      `${version}: a score was sent`,
    );
    if (v12) assert.equal(api.values.get('cmi.core.lesson_status'), 'completed');
    else assert.equal(api.values.get('cmi.success_status'), 'unknown');
  }
});

test('the answer box draft: kept in the suspend data on finish, given back on relaunch, dropped once answered', () => {
  const api = fakeApi('1.2');
  const win = { API: api };
  win.parent = win;
  const rt = startScormRuntime({ win, version: '1.2', total: 2 });
  rt.saveDraft(0, 'my first thoughts');
  rt.finish();
  const data = api.values.get('cmi.suspend_data');
  assert.equal(data, '{"v":1,"n":2,"i":0,"a":[],"d":"my first thoughts"}');
  const again = fakeApi('1.2', { data: { 'cmi.suspend_data': data } });
  const win2 = { API: again };
  win2.parent = win2;
  const rt2 = startScormRuntime({ win: win2, version: '1.2', total: 2 });
  assert.deepEqual(rt2.resume, { index: 0, answers: [], draft: 'my first thoughts' });
  rt2.onEvent(answer(0, 'why-03', 'open', 'my first thoughts, finished', false, true));
  rt2.onEvent(score(0, 0, 1, 1));
  assert.equal(again.values.get('cmi.suspend_data'), '{"v":1,"n":2,"i":1,"a":[[0,0,1]]}');
  // a page left before any answer and with nothing written stores nothing
  const idle = fakeApi('2004');
  const win3 = { API_1484_11: idle };
  win3.parent = win3;
  startScormRuntime({ win: win3, version: '2004', total: 2 }).finish();
  assert.equal(idle.values.has('cmi.suspend_data'), false);
});

test('an API that throws or refuses to start is reported, not thrown', () => {
  const api = fakeApi('1.2');
  api.LMSInitialize = () => 'false';
  api.LMSGetLastError = () => '101';
  const win = { API: api };
  win.parent = win;
  const status = [];
  const rt = startScormRuntime({ win, total: 1, onStatus: (...s) => status.push(s) });
  assert.equal(rt.connected, false);
  assert.equal(status.at(-1)[0], 'error');
  const api2 = fakeApi('1.2');
  api2.LMSSetValue = () => {
    throw new Error('boom');
  };
  const win2 = { API: api2 };
  win2.parent = win2;
  const rt2 = startScormRuntime({ win: win2, total: 1 });
  assert.doesNotThrow(() => rt2.onEvent(answer(0, 'tf-01', 'true-false', 'true', true)));
  assert.ok(rt2.errors.some((e) => /LMSSetValue failed: boom/.test(e)));
});

test('suspend data is taken only when it fits the quiz', () => {
  assert.deepEqual(readSuspendData('{"v":1,"n":2,"i":1,"a":[[0,1,1]]}', 2), {
    index: 1,
    answers: [{ index: 0, correct: true, selfGraded: true }],
    draft: '',
  });
  assert.equal(readSuspendData('{"v":1,"n":2,"i":1,"a":[],"d":"text"}', 2).draft, 'text');
  assert.equal(readSuspendData(`{"v":1,"n":2,"i":1,"a":[],"d":"${'x'.repeat(4001)}"}`, 2).draft, '', 'too long');
  assert.equal(readSuspendData('{"v":1,"n":2,"i":1,"a":[],"d":5}', 2).draft, '');
  for (const bad of [
    '',
    'x',
    '{"v":2,"n":2,"i":0,"a":[]}',
    '{"v":1,"n":3,"i":0,"a":[]}',
    '{"v":1,"n":2,"i":3,"a":[]}',
    '{"v":1,"n":2,"i":1,"a":[[2,1,0]]}',
    '{"v":1,"n":2,"i":1,"a":[[0,1,0],[0,0,0]]}',
    '{"v":1,"n":2,"i":1,"a":[[0,2,0]]}',
  ])
    assert.equal(readSuspendData(bad, 2), null, bad);
});

test('times and free text in the data model formats', () => {
  assert.equal(timespan12(0), '00:00:00.00');
  assert.equal(timespan12(3723456), '01:02:03.46');
  assert.equal(duration2004(3723456), 'PT1H2M3.46S');
  assert.equal(duration2004(5000), 'PT0H0M5S');
  assert.equal(plainResponse(' a\n\tb ', 10), 'a b');
  assert.equal(plainResponse('{lang=x}', 100), ' {lang=x}');
  assert.equal(plainResponse('abcdef', 4), 'abc…');
  // cut by characters, never inside one outside the BMP
  assert.equal(plainResponse('ab\u{1d6c6}\u{1d6c6}cd', 4), 'ab\u{1d6c6}…');
  assert.equal(plainResponse('ab\u{1d6c6}c', 4), 'ab\u{1d6c6}c');
});

test('a relaunched attempt that was complete, or review mode, sends nothing more', () => {
  const done = fakeApi('2004', { data: { 'cmi.suspend_data': '{"v":1,"n":1,"i":1,"a":[[0,1,0]]}' } });
  const win = { API_1484_11: done };
  win.parent = win;
  const status = [];
  const rt = startScormRuntime({ win, total: 1, onStatus: (...s) => status.push(s) });
  assert.deepEqual(rt.resume, { index: 1, answers: [{ index: 0, correct: true, selfGraded: false }], draft: '' });
  assert.match(status.at(-1)[1], /the attempt is complete/);
  rt.onEvent(answer(0, 'tf-01', 'true-false', 'true', true));
  rt.onEvent(score(1, 1, 1));
  assert.deepEqual(done.sets, []);
  const review = fakeApi('1.2', { data: { 'cmi.core.lesson_mode': 'review' } });
  const win2 = { API: review };
  win2.parent = win2;
  const rt2 = startScormRuntime({ win: win2, total: 1, onStatus: (...s) => status.push(s) });
  assert.match(status.at(-1)[1], /Review mode/);
  rt2.onEvent(answer(0, 'tf-01', 'true-false', 'true', true));
  rt2.finish();
  assert.deepEqual(review.sets, []);
  assert.equal(review.finished, true);
});
