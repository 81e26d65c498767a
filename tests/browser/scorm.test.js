// SCORM packages end to end, in Debian's Chromium, with a real SCORM run-time
// (scorm-again) playing the LMS: the package is built by web/src/scorm/package.js
// from the served build with the teacher's grading (self-graded answers left out
// unless counted, a pass mark), unzipped, and launched in an iframe of a host page
// that offers window.API (1.2) or window.API_1484_11 (2004), with the mastery score
// the manifest gives. The learner answers three questions (a true/false right, one
// wrong, an open one written in its answer box and graded "got it") and starts
// writing the fourth; the test reads what the LMS received, then relaunches with the
// stored data (cmi.entry = resume), checks that the quiz continues at the fourth
// question with the score and the text already written, answers it and checks the
// final status against the pass mark, the score and the interactions (none twice).
// Shorter attempts check that Reveal + "I got it" on every open question does not
// pass, and that the pass mark (50 or 90) decides passed or failed from the
// true/false answers alone. The package's page runs with no request outside its
// folder and no console error, under the site's CSP.
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
  // the cmi5 runtime (scorm-files.json's `cmi5`: its client, about 90 kB) stays out of a SCORM package
  const list = await (await fetch(new URL('scorm-files.json', site.url))).json();
  assert.ok(list.cmi5?.length > 0, 'the build lists the cmi5 runtime apart');
  const names = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
  assert.deepEqual(
    names.filter((n) => list.cmi5.includes(n)),
    [],
    'no cmi5 file in a SCORM package',
  );
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
/** One answer: 'true'/'false', or an open question revealed (after `text` is written in its box) and graded `how`. */
async function answer(frame, how, text = '') {
  if (how === 'true' || how === 'false') await click(frame, `button.choice[data-choice="${how}"]`);
  else {
    if (text) await frame.locator('#embed textarea.answer-text').fill(text);
    await click(frame, 'button[data-action="reveal"]');
    await click(frame, `button[data-action="${how}"]`);
  }
  await click(frame, 'button[data-action="next"]');
}
const quizState = (frame) => frame.evaluate(() => ({ quiz: window.__resnorm.quiz, scorm: window.__resnorm.scorm }));

/**
 * The LMS with the package of `options` (scormPackage's) for `version`: a served folder, a browser
 * context watching requests, console errors and CSP violations; `launch(saved)` starts an attempt
 * (with the data the LMS kept, or none) and gives the package's frame.
 */
async function openLms(version, options) {
  const { lms, href, manifest } = await buildPackage(version, options);
  const v12 = version === '1.2';
  // what an LMS takes from the manifest: the pass mark as the mastery score
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
  await page.goto(`${origin}/lms/host.html`);
  return {
    manifest,
    lmsData,
    page,
    origin,
    requests,
    problems,
    async launch(saved = null) {
      await page.evaluate(([v, h, s, d]) => window.startLms(v, `pkg/${h}`, s, d), [version, href, saved, lmsData]);
      return scoFrame(page);
    },
    /** The SCO leaves: Terminate on pagehide; the LMS's data as kept. */
    async unload() {
      await page.evaluate(() => window.unloadSco());
      await page.waitForFunction(() => window.__lms.finished);
      return page.evaluate(() => window.__lms.saved);
    },
    get: (names) =>
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
      ),
    stored: () => page.evaluate(() => window.__lms.saved),
    async close() {
      await context.close();
      await new Promise((ok) => server.close(ok));
    },
  };
}

/** The interactions (and 2004's comments) of the data an LMS kept, as plain rows. */
function interactionsOf(cmi, v12) {
  return Object.values(cmi.interactions.childArray ?? cmi.interactions).map((i) => ({
    id: i.id,
    type: i.type,
    response: v12 ? i.student_response : i.learner_response,
    result: i.result,
    weighting: i.weighting,
    ...(v12 ? { time: i.time } : { timestamp: i.timestamp, description: i.description }),
    correct: i.correct_responses?.childArray?.[0]?.pattern ?? i.correct_responses?.[0]?.pattern ?? null,
  }));
}
const commentsOf = (cmi) =>
  Object.values(cmi.comments_from_learner?.childArray ?? cmi.comments_from_learner ?? {}).map((c) => [
    c.location,
    c.comment,
  ]);
const statusOf = (cmi, v12) => (v12 ? cmi.core.lesson_status : cmi.success_status);

const WHY_03 = 'The identity path carries the gradient past every block, so it never vanishes.';
const ERR_01 = 'Pre-LN keeps a clean residual stream; the error is the claim about Post-LN.';

async function run(version, { passMark, expectStatus }) {
  const v12 = version === '1.2';
  const lms = await openLms(version, { passMark });
  const { page, requests, problems, origin } = lms;
  try {
    // the manifest carries the teacher's pass mark where each version's LMS reads it
    if (v12) assert.match(lms.manifest, new RegExp(`<adlcp:masteryscore>${passMark}</adlcp:masteryscore>`));
    else
      assert.match(
        lms.manifest,
        new RegExp(`<imsss:minNormalizedMeasure>${passMark / 100}</imsss:minNormalizedMeasure>`),
      );

    // ---- first session: three answers, and the fourth begun
    let frame = await lms.launch();
    let state = await quizState(frame);
    assert.deepEqual(state.quiz.items, ITEMS);
    assert.equal(state.scorm.version, version);
    const status = () => textOf(frame, '.scorm-status');
    assert.match(await status(), new RegExp(`Recording to the LMS \\(SCORM ${version.replace('.', '\\.')}\\)`));
    assert.match(await textOf(frame, '.quiz-head'), new RegExp(`Question 1 of 4 · pass mark ${passMark} %`));
    await answer(frame, 'true'); // tf-08: true, right
    await answer(frame, 'true'); // tf-01: false, wrong
    // the open question's answer box: labelled, limited to what the LMS keeps, with a hint saying where the text goes
    const box = frame.locator('#embed textarea.answer-text');
    assert.equal(await box.getAttribute('maxlength'), v12 ? '255' : '4000');
    assert.equal(await frame.locator('#embed label[for="answer-why-03"]').textContent(), 'Your answer');
    assert.match(
      await textOf(frame, '.item-commit .hint'),
      new RegExp(`your answer \\(at most ${v12 ? 255 : 4000} characters\\) and your self-assessment go to the LMS`),
    );
    await answer(frame, 'got-it', WHY_03); // why-03: written, self-graded
    state = await quizState(frame);
    assert.equal(state.quiz.index, 3);
    assert.deepEqual(state.scorm.errors, []);
    assert.match(await status(), /Saved to the LMS .*3 of 4 answered/);
    // the learner starts the last answer and leaves before revealing
    await box.fill('Pre-LN keeps');

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
          'cmi.comments_from_learner._count',
        ];
    const mid = await lms.get(names);
    const midSaved = await lms.stored();
    console.log(`SCORM ${version} after three answers:`, JSON.stringify(mid, null, 1));
    for (const n of names) assert.equal(mid[`${n} error`], '0', `${n}: error ${mid[`${n} error`]}`);
    // the score is the true/false questions only: 1 of 2 right
    if (v12) {
      assert.equal(mid['cmi.core.lesson_status'], 'incomplete');
      assert.equal(Number(mid['cmi.core.score.raw']), 50);
      assert.equal(mid['cmi.core.score.min'], '0');
      assert.equal(mid['cmi.core.score.max'], '100');
      assert.equal(mid['cmi.core.lesson_location'], '3');
      assert.equal(midSaved.core.exit, 'suspend');
      assert.match(midSaved.core.session_time, /^\d{2,4}:\d{2}:\d{2}(\.\d{1,2})?$/);
    } else {
      assert.equal(mid['cmi.completion_status'], 'incomplete');
      // the LMS derives it from cmi.scaled_passing_score and cmi.score.scaled (RTE 4.2.22); the SCO sets it at the end
      assert.equal(mid['cmi.success_status'], 0.5 >= passMark / 100 ? 'passed' : 'failed');
      assert.equal(mid['cmi.score.raw'], '1');
      assert.equal(mid['cmi.score.min'], '0');
      assert.equal(mid['cmi.score.max'], '2');
      assert.equal(Number(mid['cmi.score.scaled']), 0.5);
      assert.equal(Number(mid['cmi.progress_measure']), 0.75);
      assert.equal(mid['cmi.location'], '3');
      assert.equal(mid['cmi.comments_from_learner._count'], '1');
      assert.equal(midSaved.exit, 'suspend');
      assert.match(midSaved.session_time, /^PT/);
    }
    assert.equal(mid['cmi.suspend_data'], '{"v":1,"n":4,"i":3,"a":[[0,1,0],[1,0,0],[2,1,1]]}');
    assert.equal(mid['cmi.interactions._count'], '3');

    // ---- the learner leaves: the draft goes into the suspend data, Terminate on pagehide; the LMS relaunches
    const commitsBefore = await page.evaluate(() => window.__lms.commits);
    assert.ok(commitsBefore >= 4, `${commitsBefore} commits`); // at launch and after each answer
    const saved = await lms.unload();
    assert.equal(
      saved.suspend_data,
      '{"v":1,"n":4,"i":3,"a":[[0,1,0],[1,0,0],[2,1,1]],"d":"Pre-LN keeps"}',
      'the text begun is kept',
    );
    if (v12) saved.core.entry = 'resume';
    else saved.entry = 'resume';
    frame = await lms.launch(saved);
    state = await quizState(frame);
    assert.equal(state.quiz.index, 3, 'resumes at the fourth question');
    assert.equal(state.quiz.current, 'err-01');
    assert.equal(state.quiz.session.answered, 3);
    assert.deepEqual([state.quiz.score.raw, state.quiz.score.max, state.quiz.score.selfGraded], [1, 2, 1]);
    assert.match(
      `${await textOf(frame, '.quiz-head')} | ${await textOf(frame, '.scorm-status')}`,
      /Question 4 of 4 · pass mark \d+ %.*Score 1 of 2 · 1 self-assessed answer, not counted.*continuing your attempt, 3 of 4 answered/,
    );
    assert.equal(await frame.locator('#embed textarea.answer-text').inputValue(), 'Pre-LN keeps', 'the draft is back');
    await answer(frame, 'got-it', ERR_01);
    assert.deepEqual((await quizState(frame)).scorm.errors, []);
    const passed = expectStatus === 'passed';
    assert.match(
      await status(),
      new RegExp(
        `Recorded in the LMS .*${passed ? 'passed' : 'not passed'}, 1 of 2 right \\(pass mark ${passMark} %\\); the attempt is complete`,
      ),
    );
    assert.match(
      await textOf(frame, '.quiz-verdict'),
      new RegExp(
        `^${passed ? 'Passed' : 'Not passed'}: 1 of 2 automatically marked questions right \\(50 %\\); the pass mark is ${passMark} %\\.$`,
      ),
    );
    await page.screenshot({ path: join(SHOTS, `scorm-${version.replace('.', '')}.png`) });
    const cmi = await lms.unload();

    const interactions = interactionsOf(cmi, v12);
    const final = v12
      ? {
          lesson_status: cmi.core.lesson_status,
          exit: cmi.core.exit,
          session_time: cmi.core.session_time,
          score: cmi.core.score,
          lesson_location: cmi.core.lesson_location,
          suspend_data: cmi.suspend_data,
          comments: cmi.comments,
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
          comments_from_learner: commentsOf(cmi),
        };
    console.log(`SCORM ${version} at the end:`, JSON.stringify({ ...final, interactions }, null, 1));

    // each version's words: true/false responses, the wrong result, the type of a self-graded item;
    // the written answers arrive as the responses, judged neither right nor wrong, weighting 0
    const words = v12
      ? { t: 't', f: 'f', wrong: 'wrong', open: 'fill-in' }
      : { t: 'true', f: 'false', wrong: 'incorrect', open: 'long-fill-in' };
    assert.deepEqual(
      interactions.map((i) => [i.id, i.type, i.response, i.result, i.weighting, i.correct]),
      [
        ['tf-08', 'true-false', words.t, 'correct', '1', words.t],
        ['tf-01', 'true-false', words.t, words.wrong, '1', words.f],
        ['why-03', words.open, WHY_03, 'neutral', '0', null],
        ['err-01', words.open, ERR_01, 'neutral', '0', null],
      ],
    );
    if (v12) {
      for (const i of interactions) assert.match(i.time, /^\d{2}:\d{2}:\d{2}$/);
      assert.equal(final.lesson_status, expectStatus);
      assert.equal(final.exit, '');
      assert.equal(Number(final.score.raw), 50);
      assert.equal(final.score.min, '0');
      assert.equal(final.score.max, '100');
      // the self-assessments, written once at the end
      assert.equal(final.comments, 'Self-assessed: why-03 got it; err-01 got it.');
    } else {
      for (const i of interactions) assert.match(i.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\dZ$/);
      assert.match(interactions[0].description, /^The \+1 in \(dy\)\/\(dx\)=1\+\(dF\)\/\(dx\) holds even before/);
      assert.equal(final.completion_status, 'completed');
      assert.equal(final.success_status, expectStatus);
      assert.equal(final.exit, 'normal');
      assert.equal(final.score.raw, '1');
      assert.equal(final.score.max, '2');
      assert.equal(Number(final.score.scaled), 0.5);
      assert.equal(Number(final.progress_measure), 1);
      assert.deepEqual(final.comments_from_learner, [
        ['why-03', 'Self-assessment of why-03: got it'],
        ['err-01', 'Self-assessment of err-01: got it'],
      ]);
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
    await lms.close();
  }
}

test('SCORM 1.2: the written answer, the score of the true/false questions and the suspend data reach the LMS; the attempt resumes with its draft and passes a 50 % pass mark', async () => {
  await run('1.2', { passMark: 50, expectStatus: 'passed' });
});

test('SCORM 2004 4th edition: the same, and the same answers fail a 90 % pass mark', async () => {
  await run('2004', { passMark: 90, expectStatus: 'failed' });
});

/** One attempt in one session: `answers` (as answer() takes them) to the four questions; the data the LMS kept. */
async function attempt(version, options, answers) {
  const lms = await openLms(version, options);
  try {
    const frame = await lms.launch();
    for (const a of answers) await answer(frame, ...a);
    assert.deepEqual((await quizState(frame)).scorm.errors, []);
    const verdict = await frame.evaluate(
      () => document.getElementById('embed').shadowRoot.querySelector('.quiz-verdict')?.textContent ?? null,
    );
    const cmi = await lms.unload();
    assert.deepEqual(lms.problems, []);
    return { cmi, verdict, manifest: lms.manifest };
  } finally {
    await lms.close();
  }
}

// one true/false question right, one wrong, both open ones revealed and "I got it" without a word written
const GAMED = [['true'], ['true'], ['got-it'], ['got-it']];

for (const version of ['1.2', '2004']) {
  const v12 = version === '1.2';
  test(`SCORM ${version}: Reveal + "I got it" on every open question does not pass when self-graded answers are left out, and does when the teacher counts them`, async () => {
    // left out: 1 of the 2 true/false questions, 50 %, under a 60 % pass mark
    const left = await attempt(version, { passMark: 60 }, GAMED);
    const rows = interactionsOf(left.cmi, v12);
    assert.deepEqual(
      rows.map((r) => [r.id, r.result, r.weighting, r.response ?? '']),
      [
        ['tf-08', 'correct', '1', v12 ? 't' : 'true'],
        ['tf-01', v12 ? 'wrong' : 'incorrect', '1', v12 ? 't' : 'true'],
        ['why-03', 'neutral', '0', ''],
        ['err-01', 'neutral', '0', ''],
      ],
      'nothing written: no response, and "I got it" is not "correct"',
    );
    assert.equal(statusOf(left.cmi, v12), 'failed');
    assert.equal(v12 ? Number(left.cmi.core.score.raw) : Number(left.cmi.score.scaled), v12 ? 50 : 0.5);
    assert.equal(
      left.verdict,
      'Not passed: 1 of 2 automatically marked questions right (50 %); the pass mark is 60 %.',
    );
    // the same answers with self-graded answers counted: 3 of 4, 75 %, pass
    const counted = await attempt(version, { passMark: 60, selfGraded: 'count' }, GAMED);
    assert.deepEqual(
      interactionsOf(counted.cmi, v12).map((r) => [r.result, r.weighting]),
      [
        ['correct', '1'],
        [v12 ? 'wrong' : 'incorrect', '1'],
        ['correct', '1'],
        ['correct', '1'],
      ],
    );
    assert.equal(statusOf(counted.cmi, v12), 'passed');
    assert.equal(counted.verdict, 'Passed: 3 of 4 questions right (75 %); the pass mark is 60 %.');
  });

  test(`SCORM ${version}: the pass mark decides from the true/false answers: one of two right passes 50 % and fails 90 %`, async () => {
    // one true/false right, one wrong, both open questions "I missed it": the self-assessment changes nothing
    const answers = [['true'], ['true'], ['missed-it'], ['missed-it']];
    for (const [passMark, expected] of [
      [50, 'passed'],
      [90, 'failed'],
    ]) {
      const { cmi, verdict, manifest } = await attempt(version, { passMark }, answers);
      assert.match(
        manifest,
        v12
          ? new RegExp(`>${passMark}</adlcp:masteryscore>`)
          : new RegExp(`>${passMark / 100}</imsss:minNormalizedMeasure>`),
      );
      assert.equal(statusOf(cmi, v12), expected, `pass mark ${passMark}`);
      assert.match(
        verdict,
        new RegExp(`1 of 2 automatically marked questions right \\(50 %\\); the pass mark is ${passMark} %`),
      );
    }
  });
}

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
