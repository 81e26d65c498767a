// SCORM packages end to end, in Debian's Chromium, with a real SCORM run-time
// (scorm-again) playing the LMS: the package is built by web/src/scorm/package.js
// from the served build, unzipped, and launched in an iframe of a host page that
// offers window.API (1.2) or window.API_1484_11 (2004), with the mastery score the
// manifest gives. The learner answers three questions (a true/false right, one
// wrong, an open one graded "got it"); the test reads what the LMS received, then
// relaunches with the stored data (cmi.entry = resume), checks that the quiz
// continues at the fourth question with the score, answers it and checks the
// final status, score and interactions (none twice). The package's page runs
// with no request outside its folder and no console error, under the site's CSP.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, SHOTS, SITE_CSP, launch, recordCsp, serve } from './harness.js';
import { startServer } from '../../scripts/serve.js';
import { scormPackage } from '../../web/src/scorm/package.js';

const ITEMS = ['tf-08', 'tf-01', 'why-03', 'err-01']; // tf-08 is true, tf-01 false
let browser;
let site;
let work;

before(async () => {
  browser = await launch();
  site = await serve({ base: '/site/' });
  work = mkdtempSync(join(tmpdir(), 'resnorm-scorm-'));
});
after(async () => {
  await site?.close();
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

// The LMS: a host page that sets up the API before the iframe loads the package.
const HOST_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>LMS</title><link rel="icon" href="data:,">
<script src="scorm-again.js"></script><script src="host.js"></script></head>
<body><iframe id="sco" title="SCO" width="900" height="800"></iframe></body></html>`;
const HOST_JS = `
window.__lms = null;
window.startLms = function (version, launch, saved, lmsData) {
  var api = version === '1.2' ? new Scorm12API({ logLevel: 4 }) : new Scorm2004API({ logLevel: 4 });
  if (saved) api.loadFromJSON(saved);
  api.loadFromJSON(lmsData);
  var lms = { api: api, version: version, commits: 0, finished: false, saved: null };
  var save = function () { lms.saved = JSON.parse(JSON.stringify(api.cmi)); };
  api.on(version === '1.2' ? 'LMSCommit' : 'Commit', function () { lms.commits++; save(); });
  api.on(version === '1.2' ? 'LMSFinish' : 'Terminate', function () { lms.finished = true; save(); });
  window.__lms = lms;
  delete window.API;
  delete window.API_1484_11;
  window[version === '1.2' ? 'API' : 'API_1484_11'] = api;
  document.getElementById('sco').src = launch;
};
window.unloadSco = function () { document.getElementById('sco').src = 'about:blank'; };
`;

/** The package, built through package.js from the served site, unzipped into a folder of the LMS. */
async function buildPackage(version, options = {}) {
  const blob = await scormPackage({
    siteUrl: site.url,
    items: ITEMS,
    version,
    title: `Residuals (${version})`,
    ...options,
  });
  assert.equal(blob.type, 'application/zip');
  const lms = join(work, `lms-${version}`);
  const pkg = join(lms, 'pkg');
  mkdirSync(pkg, { recursive: true });
  const zip = join(work, `quiz-${version}.zip`);
  writeFileSync(zip, Buffer.from(await blob.arrayBuffer()));
  execFileSync('unzip', ['-q', '-o', zip, '-d', pkg]);
  writeFileSync(join(lms, 'host.html'), HOST_HTML);
  writeFileSync(join(lms, 'host.js'), HOST_JS);
  copyFileSync(join(ROOT, 'node_modules/scorm-again/dist/scorm-again.js'), join(lms, 'scorm-again.js'));
  const manifest = readFileSync(join(pkg, 'imsmanifest.xml'), 'utf8');
  const href = manifest.match(/<resource [^>]*href="([^"]+)"/)[1];
  return { lms, href, manifest, size: blob.size };
}

const frameOf = (page) => page.frames().find((f) => f !== page.mainFrame() && f.url().includes('/pkg/'));
async function scoFrame(page) {
  await page.waitForFunction(() => document.getElementById('sco').contentDocument?.body?.dataset.ready === '1');
  return frameOf(page);
}
// The text of an element of the quiz, inside the embed's shadow root.
const textOf = (frame, selector) =>
  frame.evaluate((sel) => document.getElementById('embed').shadowRoot.querySelector(sel).textContent, selector);
async function click(frame, selector) {
  await frame.locator(`#embed ${selector}`).first().click();
}
async function answer(frame, how) {
  if (how === 'true' || how === 'false') await click(frame, `button.choice[data-choice="${how}"]`);
  else {
    await click(frame, 'button[data-action="reveal"]');
    await click(frame, `button[data-action="${how}"]`);
  }
  await click(frame, 'button[data-action="next"]');
}
const quizState = (frame) => frame.evaluate(() => ({ quiz: window.__resnorm.quiz, scorm: window.__resnorm.scorm }));

async function run(version, { mastery, last, expectStatus }) {
  const { lms, href, manifest } = await buildPackage(version, mastery === undefined ? {} : { mastery });
  const v12 = version === '1.2';
  // what an LMS takes from the manifest: the mastery score
  const lmsData = v12
    ? {
        core: { student_id: 'u1', student_name: 'Learner, Ann' },
        student_data: { mastery_score: manifest.match(/<adlcp:masteryscore>(\d+)</)[1] },
      }
    : {
        learner_id: 'u1',
        learner_name: 'Ann Learner',
        scaled_passing_score: manifest.match(/<imsss:minNormalizedMeasure>([\d.]+)</)[1],
      };
  const server = await startServer({ port: 0, root: lms, base: '/lms/', csp: SITE_CSP });
  const origin = `http://127.0.0.1:${server.address().port}`;
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  await recordCsp(context);
  const requests = [];
  const problems = [];
  context.on('request', (r) => requests.push(r.url()));
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  try {
    await page.goto(`${origin}/lms/host.html`);
    const lmsGet = (names) =>
      page.evaluate(
        ([ns, v]) => {
          const api = window.__lms.api;
          const out = {};
          for (const n of ns) {
            out[n] = v === '1.2' ? api.LMSGetValue(n) : api.GetValue(n);
            out[`${n} error`] = String(v === '1.2' ? api.LMSGetLastError() : api.GetLastError());
          }
          return out;
        },
        [names, version],
      );
    const stored = () => page.evaluate(() => window.__lms.saved);

    // ---- first session: three answers
    await page.evaluate(([v, h, d]) => window.startLms(v, `pkg/${h}`, null, d), [version, href, lmsData]);
    let frame = await scoFrame(page);
    let state = await quizState(frame);
    assert.deepEqual(state.quiz.items, ITEMS);
    assert.equal(state.scorm.version, version);
    const status = () => textOf(frame, '.scorm-status');
    assert.match(await status(), new RegExp(`Recording to the LMS \\(SCORM ${version.replace('.', '\\.')}\\)`));
    await answer(frame, 'true'); // tf-08: true, right
    await answer(frame, 'true'); // tf-01: false, wrong
    await answer(frame, 'got-it'); // why-03: self-graded
    state = await quizState(frame);
    assert.equal(state.quiz.index, 3);
    assert.deepEqual(state.scorm.errors, []);
    assert.match(await status(), /Saved to the LMS .*3 of 4 answered/);

    const names = v12
      ? [
          'cmi.core.lesson_status',
          'cmi.core.score.raw',
          'cmi.core.score.min',
          'cmi.core.score.max',
          'cmi.core.lesson_location',
          'cmi.suspend_data',
          'cmi.interactions._count',
        ]
      : [
          'cmi.completion_status',
          'cmi.success_status',
          'cmi.score.raw',
          'cmi.score.min',
          'cmi.score.max',
          'cmi.score.scaled',
          'cmi.progress_measure',
          'cmi.location',
          'cmi.suspend_data',
          'cmi.interactions._count',
        ];
    const mid = await lmsGet(names);
    const midSaved = await stored();
    console.log(`SCORM ${version} after three answers:`, JSON.stringify(mid, null, 1));
    for (const n of names) assert.equal(mid[`${n} error`], '0', `${n}: error ${mid[`${n} error`]}`);
    if (v12) {
      assert.equal(mid['cmi.core.lesson_status'], 'incomplete');
      assert.equal(Number(mid['cmi.core.score.raw']), 50); // 2 of 4 questions
      assert.equal(mid['cmi.core.score.min'], '0');
      assert.equal(mid['cmi.core.score.max'], '100');
      assert.equal(mid['cmi.core.lesson_location'], '3');
      assert.equal(midSaved.core.exit, 'suspend');
      assert.match(midSaved.core.session_time, /^\d{2,4}:\d{2}:\d{2}(\.\d{1,2})?$/);
    } else {
      assert.equal(mid['cmi.completion_status'], 'incomplete');
      // the LMS derives it from cmi.scaled_passing_score and cmi.score.scaled (RTE 4.2.22); the SCO sets it at the end
      assert.equal(mid['cmi.success_status'], 'failed');
      console.log(`SCORM 2004 success_status stored after three answers: ${midSaved.success_status}`);
      assert.equal(mid['cmi.score.raw'], '2');
      assert.equal(mid['cmi.score.min'], '0');
      assert.equal(mid['cmi.score.max'], '4');
      assert.equal(Number(mid['cmi.score.scaled']), 0.5);
      assert.equal(Number(mid['cmi.progress_measure']), 0.75);
      assert.equal(mid['cmi.location'], '3');
      assert.equal(midSaved.exit, 'suspend');
      assert.match(midSaved.session_time, /^PT/);
    }
    assert.equal(mid['cmi.suspend_data'], '{"v":1,"n":4,"i":3,"a":[[0,1,0],[1,0,0],[2,1,1]]}');
    assert.equal(mid['cmi.interactions._count'], '3');

    // ---- the learner leaves: Terminate on pagehide; the LMS keeps the data and relaunches with it
    const commitsBefore = await page.evaluate(() => window.__lms.commits);
    assert.ok(commitsBefore >= 4, `${commitsBefore} commits`); // at launch and after each answer
    await page.evaluate(() => window.unloadSco());
    await page.waitForFunction(() => window.__lms.finished);
    const saved = await stored();
    if (v12) saved.core.entry = 'resume';
    else saved.entry = 'resume';
    await page.evaluate(([v, h, s, d]) => window.startLms(v, `pkg/${h}`, s, d), [version, href, saved, lmsData]);
    frame = await scoFrame(page);
    state = await quizState(frame);
    assert.equal(state.quiz.index, 3, 'resumes at the fourth question');
    assert.equal(state.quiz.current, 'err-01');
    assert.equal(state.quiz.session.answered, 3);
    assert.equal(state.quiz.session.correct, 2);
    assert.equal(state.quiz.session.selfGraded, 1);
    assert.match(
      `${await textOf(frame, '.quiz-head')} | ${await textOf(frame, '.scorm-status')}`,
      /Question 4 of 4.*2 of 3 correct \(1 self-graded\).*continuing your attempt, 3 of 4 answered/,
    );
    await answer(frame, last);
    assert.deepEqual((await quizState(frame)).scorm.errors, []);
    assert.match(await status(), /Recorded in the LMS .*the attempt is complete/);
    await page.screenshot({ path: join(SHOTS, `scorm-${version.replace('.', '')}.png`) });
    await page.evaluate(() => window.unloadSco());
    await page.waitForFunction(() => window.__lms.finished);

    const cmi = await stored();
    const interactions = Object.values(cmi.interactions.childArray ?? cmi.interactions).map((i) => ({
      id: i.id,
      type: i.type,
      response: v12 ? i.student_response : i.learner_response,
      result: i.result,
      ...(v12 ? { time: i.time } : { timestamp: i.timestamp, description: i.description }),
      correct: i.correct_responses?.childArray?.[0]?.pattern ?? i.correct_responses?.[0]?.pattern ?? null,
    }));
    const final = v12
      ? {
          lesson_status: cmi.core.lesson_status,
          exit: cmi.core.exit,
          session_time: cmi.core.session_time,
          score: cmi.core.score,
          lesson_location: cmi.core.lesson_location,
          suspend_data: cmi.suspend_data,
        }
      : {
          completion_status: cmi.completion_status,
          success_status: cmi.success_status,
          exit: cmi.exit,
          session_time: cmi.session_time,
          score: cmi.score,
          progress_measure: cmi.progress_measure,
          location: cmi.location,
          suspend_data: cmi.suspend_data,
        };
    console.log(`SCORM ${version} at the end:`, JSON.stringify({ ...final, interactions }, null, 1));

    // each version's words: true/false responses, the wrong result, the type of a self-graded item
    const words = v12
      ? { t: 't', f: 'f', wrong: 'wrong', open: 'fill-in' }
      : { t: 'true', f: 'false', wrong: 'incorrect', open: 'long-fill-in' };
    const lastRight = last === 'got-it';
    assert.deepEqual(
      interactions.map((i) => [i.id, i.type, i.response, i.result, i.correct]),
      [
        ['tf-08', 'true-false', words.t, 'correct', words.t],
        ['tf-01', 'true-false', words.t, words.wrong, words.f],
        ['why-03', words.open, 'self-graded: got it', 'correct', null],
        [
          'err-01',
          words.open,
          `self-graded: ${lastRight ? 'got it' : 'missed it'}`,
          lastRight ? 'correct' : words.wrong,
          null,
        ],
      ],
    );
    const right = lastRight ? 3 : 2;
    if (v12) {
      for (const i of interactions) assert.match(i.time, /^\d{2}:\d{2}:\d{2}$/);
      assert.equal(final.lesson_status, expectStatus);
      assert.equal(final.exit, '');
      assert.equal(Number(final.score.raw), right * 25);
      assert.equal(final.score.min, '0');
      assert.equal(final.score.max, '100');
    } else {
      for (const i of interactions) assert.match(i.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\dZ$/);
      assert.match(interactions[0].description, /^The \+1 in \(dy\)\/\(dx\)=1\+\(dF\)\/\(dx\) holds even before/);
      assert.equal(final.completion_status, 'completed');
      assert.equal(final.success_status, expectStatus);
      assert.equal(final.exit, 'normal');
      assert.equal(final.score.raw, String(right));
      assert.equal(final.score.max, '4');
      assert.equal(Number(final.score.scaled), right / 4);
      assert.equal(Number(final.progress_measure), 1);
    }
    assert.deepEqual(JSON.parse(final.suspend_data).a.length, 4);

    // nothing outside the LMS's folder: no request to the site the package came from
    const outside = requests.filter(
      (u) => !u.startsWith(`${origin}/lms/`) && u !== 'about:blank' && !u.startsWith('data:'),
    );
    assert.deepEqual(outside, []);
    assert.ok(
      requests.some((u) => u.includes('/lms/pkg/assets/bank-')),
      'the bank chunk comes from the package',
    );
    const csp = [];
    for (const f of page.frames()) csp.push(...(await f.evaluate(() => window.__csp ?? []).catch(() => [])));
    assert.deepEqual(csp, []);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await new Promise((ok) => server.close(ok));
  }
}

test('SCORM 1.2: answers, score, interactions and suspend data reach the LMS; the attempt resumes and fails at 50 %', async () => {
  await run('1.2', { last: 'missed-it', expectStatus: 'failed' });
});

test('SCORM 2004 4th edition: the same, and a 3-of-4 attempt passes a 0.75 mastery score', async () => {
  await run('2004', { mastery: 0.75, last: 'got-it', expectStatus: 'passed' });
});

test('the launch page opened on its own: the quiz works and says nothing is recorded', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${site.url}scorm.html`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  const text = await page.evaluate(
    () => document.getElementById('embed').shadowRoot.querySelector('.scorm-status').textContent,
  );
  assert.match(text, /Not connected to an LMS: your answers and score are not being recorded/);
  const quiz = await page.evaluate(() => window.__resnorm.quiz);
  assert.ok(quiz.items.length >= 40, 'the whole bank');
  await page.locator('#embed button.choice[data-choice="false"]').click();
  assert.equal((await page.evaluate(() => window.__resnorm.quiz)).session.answered, 1);
  assert.deepEqual(problems, []);
  await context.close();
});
