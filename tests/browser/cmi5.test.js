// cmi5 packages end to end, in Debian's Chromium, against a tiny cmi5 LMS and xAPI LRS run by
// the test (tests/node/cmi5/lms.js): the package is built by web/src/cmi5/package.js from the
// served build and unzipped into the LMS's folder; the LMS reads cmi5.xml (the AU's url, id,
// masteryScore, moveOn), writes LMS.LaunchData, sends "launched" and launches the page with the
// cmi5 query parameters. The learner answers; every statement the LRS receives is checked with
// Learning Locker's validator and the cmi5 rules (tests/node/cmi5/rules.js: the order launched,
// initialized, answered, passed or failed, completed, terminated; the defined verbs' category,
// object and result; the context template; registration-wide once-only verbs). A pass that exits
// to the LMS's returnURL, the answer box's text arriving as result.response; Reveal + "I got it"
// on every open question failing by default and passing when the teacher counts them; a fail
// spread over two sessions (the attempt and an unsent written answer resumed from the State API,
// the first session ended by closing the page) with the LRS on another origin named by the page's
// CSP, then a Review launch; a Browse launch; a launch link that lacks parameters and an
// LRS the CSP does not allow, each said in the status line; the quiz dialog's cmi5 download with
// the teacher's grading (cmi5.xml's masteryScore the pass mark / 100, none when nothing is scored).
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHOTS, SITE_CSP, downloadBytes, overlaps, pageIn, recordCsp, serve, useBrowser } from './harness.js';
import { startServer } from '../../scripts/serve.js';
import { cmi5Package } from '../../web/src/cmi5/package.js';
import { ATTEMPT_STATE } from '../../web/src/cmi5/runtime.js';
import { createLms, listenLms } from '../node/cmi5/lms.js';
import { registrationProblems, sessionProblems, verbOf, xapiProblems } from '../node/cmi5/rules.js';

const ITEMS = ['tf-08', 'tf-01', 'why-03', 'err-01']; // tf-08 is true, tf-01 false
const WRITTEN = 'Pre-LN keeps an identity path,\nso the gradient reaches the first block.';
const env = useBrowser();
let site;
let work;
let made = 0;

before(async () => {
  site = await serve({ base: '/site/' });
  work = mkdtempSync(join(tmpdir(), 'resnorm-cmi5-'));
});
after(async () => {
  await site?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The package, built from the served site and unzipped into an LMS folder: {dir, au}. */
async function buildPackage(options = {}) {
  const blob = await cmi5Package({ siteUrl: site.url, items: ITEMS, title: 'Residuals (cmi5)', ...options });
  const dir = join(work, `lms-${++made}`);
  mkdirSync(join(dir, 'pkg'), { recursive: true });
  const zip = join(dir, 'quiz.zip');
  writeFileSync(zip, Buffer.from(await blob.arrayBuffer()));
  execFileSync('unzip', ['-q', zip, '-d', join(dir, 'pkg')]);
  writeFileSync(
    join(dir, 'return.html'),
    '<!doctype html><title>LMS</title><link rel="icon" href="data:,"><p>Back in the LMS',
  );
  // what the LMS reads from the course structure
  const xml = readFileSync(join(dir, 'pkg', 'cmi5.xml'), 'utf8');
  const auTag = xml.match(/<au [^>]*>/)[0];
  const attr = (name) => auTag.match(new RegExp(`${name}="([^"]*)"`))?.[1];
  const au = {
    id: attr('id'),
    url: xml.match(/<url>([^<]+)<\/url>/)[1],
    masteryScore: attr('masteryScore') === undefined ? undefined : Number(attr('masteryScore')),
    moveOn: attr('moveOn'),
  };
  return { dir, au };
}

/**
 * The LMS serving the package's folder under /lms/ with `csp`; its LRS on the same origin, or with
 * `crossOrigin` on one of its own (csp then a function of that origin).
 */
async function startLms(dir, { csp = SITE_CSP, crossOrigin = false } = {}) {
  let lms;
  let closeLrs = async () => {};
  if (crossOrigin) {
    ({ lms, close: closeLrs } = await listenLms());
    csp = csp(lms.origin);
  } else lms = createLms();
  const server = await startServer({ port: 0, root: dir, base: '/lms/', csp });
  const origin = `http://127.0.0.1:${server.address().port}`;
  if (!crossOrigin) {
    lms.origin = origin;
    const [files] = server.listeners('request');
    server.removeAllListeners('request');
    server.on('request', (req, res) => lms.handle(req, res).then((done) => done || files(req, res)));
  }
  const close = async () => {
    await new Promise((ok) => {
      server.close(ok);
      server.closeAllConnections?.();
    });
    await closeLrs();
  };
  return { lms, origin, close };
}

/** A context that records CSP violations, requests and problems, and the page at the launch URL. */
async function launchPage(url, options = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1000, height: 900 }, ...options });
  await recordCsp(context);
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  const page = await pageIn(context, url);
  return { context, page, requests };
}

const statusOf = (page) =>
  page.evaluate(() => document.getElementById('embed').shadowRoot.querySelector('.scorm-status').textContent);
/** Waits until the status line matches `pattern`; on a hang, says what it showed. */
const waitStatus = (page, pattern) =>
  page
    .waitForFunction(
      (src) =>
        new RegExp(src).test(document.getElementById('embed').shadowRoot.querySelector('.scorm-status').textContent),
      pattern.source,
    )
    .catch(async (e) => {
      throw new Error(
        `${e.message}\nwanted ${pattern}, the status line says: ${await statusOf(page).catch(() => '?')}`,
      );
    });
/** Answers the question shown: a true/false choice, or `text` in the answer box, Reveal and a self-assessment. */
async function answer(page, how, text = '') {
  const click = (sel) => page.locator(`#embed ${sel}`).first().click();
  if (how === 'true' || how === 'false') await click(`button.choice[data-choice="${how}"]`);
  else {
    if (text) await page.locator('#embed textarea.answer-text').fill(text);
    await click('button[data-action="reveal"]');
    await click(`button[data-action="${how}"]`);
  }
  await click('button[data-action="next"]');
}
/** A written answer left unsent when a session ends. */
const DRAFT = 'The norm sits on the branch, so the identity path stays clean.';
const cspOf = (page) => page.evaluate(() => window.__csp);
const verbs = (list) => list.map(verbOf);
const noProblems = (list, launch, what) => {
  assert.deepEqual(sessionProblems(list, launch), [], `${what}: cmi5 rules`);
  assert.deepEqual(list.flatMap(xapiProblems), [], `${what}: Learning Locker's validator`);
};
/** The self-assessment extension of the package built from the served site. */
const selfKey = () => new URL('xapi/extensions/self-assessment', site.url).href;
const answeredOf = (list) =>
  list
    .filter((s) => verbOf(s) === 'answered')
    .map((s) => [
      s.object.id.replace(/^.*\/question\//, ''),
      s.object.definition.interactionType,
      s.result.response,
      s.result.success,
      s.object.definition.correctResponsesPattern?.[0] ?? null,
    ]);

test('a pass: initialized, answered per question (the written answers as the responses), passed, completed, then Exit sends terminated and returns to the LMS', async () => {
  const { dir, au } = await buildPackage({ passMark: 75 });
  assert.deepEqual([au.url, au.masteryScore, au.moveOn], ['scorm.html', 0.75, 'Passed']);
  const { lms, origin, close } = await startLms(dir);
  const launch = lms.launch({
    launchUrl: `${origin}/lms/pkg/${au.url}`,
    auId: au.id,
    masteryScore: au.masteryScore,
    moveOn: au.moveOn,
    returnURL: `${origin}/lms/return.html`,
  });
  const { context, page, requests } = await launchPage(launch.url);
  try {
    await waitStatus(page, /^Recording to the LMS \(cmi5\): each answer is saved\.$/);
    assert.deepEqual(verbs(lms.session(launch.session)), ['launched', 'initialized']);
    assert.deepEqual((await page.evaluate(() => window.__resnorm.quiz)).items, ITEMS);
    await answer(page, 'true'); // tf-08: true, right
    await answer(page, 'false'); // tf-01: false, right
    await answer(page, 'got-it', WRITTEN); // why-03: self-graded, left out of the score
    await answer(page, 'missed-it'); // err-01: self-graded, nothing written
    await lms.waitFor(() => verbs(lms.session(launch.session)).includes('completed'));
    await waitStatus(
      page,
      /^Recorded in the LMS \(cmi5\): 2 of 2 right, passed \(pass mark 75 %\); the attempt is complete\.$/,
    );
    assert.deepEqual(await overlaps(page, '#embed'), []);
    await page.screenshot({ path: join(SHOTS, 'cmi5-passed.png') });

    await page.locator('#embed button.lms-exit').click();
    await page.waitForURL(`${origin}/lms/return.html`);
    const list = lms.session(launch.session);
    console.log(
      `cmi5 pass, the statements:\n${list.map((x) => `  ${verbOf(x)} ${JSON.stringify(x.result ?? {})}`).join('\n')}`,
    );
    assert.deepEqual(verbs(list), [
      'launched',
      'initialized',
      'answered',
      'answered',
      'answered',
      'answered',
      'passed',
      'completed',
      'terminated',
    ]);
    noProblems(list, launch, 'the pass');
    // the written answer is the response, whole; a self-graded answer left out of the score has no
    // success (neither right nor wrong), its self-assessment in the result's extension
    assert.deepEqual(answeredOf(list), [
      ['tf-08', 'true-false', 'true', true, 'true'],
      ['tf-01', 'true-false', 'false', true, 'false'],
      ['why-03', 'long-fill-in', WRITTEN, undefined, null],
      ['err-01', 'long-fill-in', '', undefined, null],
    ]);
    const self = list.filter((s) => verbOf(s) === 'answered').map((s) => s.result.extensions?.[selfKey()] ?? null);
    assert.deepEqual(self, [null, null, 'got it', 'missed it']);
    const first = list.find((s) => verbOf(s) === 'answered');
    assert.equal(first.object.id, `${launch.activityId}/test/quiz/question/tf-08`);
    assert.equal(first.object.definition.type, 'http://adlnet.gov/expapi/activities/cmi.interaction');
    assert.match(first.object.definition.description.en, /^The \+1 in /);
    const passed = list.find((s) => verbOf(s) === 'passed');
    assert.deepEqual(passed.result.score, { raw: 2, min: 0, max: 2, scaled: 1 });
    // the token was fetched once, by POST, and every xAPI request carried it
    assert.deepEqual(
      lms.requests.filter((r) => r.path.startsWith('/lms/fetch/')).map((r) => [r.method, r.status]),
      [['POST', 200]],
    );
    assert.deepEqual(
      lms.requests.filter(
        (r) => r.status >= 400 && r.path !== '/lms/xapi/activities/state' && r.path !== '/lms/xapi/agents/profile',
      ),
      [],
    );
    assert.deepEqual(lms.state(launch, ATTEMPT_STATE).sent, ['passed', 'completed']);
    // nothing but the LMS: no request to the site the package came from
    assert.deepEqual(
      requests.filter((u) => !u.startsWith(`${origin}/lms/`)),
      [],
    );
    assert.deepEqual(await cspOf(page), []);
    assert.deepEqual(page.problems, []);
  } finally {
    await context.close();
    await close();
  }
});

test('Reveal and "I got it" on every open question: failed by default (left out of the score), passed when the teacher counts them', async () => {
  for (const [selfGraded, verdict, score] of [
    ['exclude', 'failed', { raw: 1, min: 0, max: 2, scaled: 0.5 }],
    ['count', 'passed', { raw: 3, min: 0, max: 4, scaled: 0.75 }],
  ]) {
    const { dir, au } = await buildPackage({ passMark: 75, selfGraded });
    assert.equal(au.masteryScore, 0.75);
    const { lms, origin, close } = await startLms(dir);
    const launch = lms.launch({
      launchUrl: `${origin}/lms/pkg/${au.url}`,
      auId: au.id,
      masteryScore: au.masteryScore,
      moveOn: au.moveOn,
    });
    const { context, page } = await launchPage(launch.url);
    try {
      for (const how of ['true', 'true', 'got-it', 'got-it']) await answer(page, how); // tf-01 wrong
      await lms.waitFor(() => verbs(lms.session(launch.session)).includes('completed'));
      assert.deepEqual(page.problems, []);
      await page.goto('about:blank'); // pagehide: "terminated"
      await lms.waitFor(() => verbs(lms.session(launch.session)).includes('terminated'));
      const list = lms.session(launch.session);
      assert.deepEqual(verbs(list).slice(-3), [verdict, 'completed', 'terminated'], `self_graded=${selfGraded}`);
      noProblems(list, launch, `self_graded=${selfGraded}`);
      assert.deepEqual(list.find((s) => verbOf(s) === verdict).result.score, score);
      // counted, the self-assessment is the success; left out, there is none
      const success = selfGraded === 'count' ? true : undefined;
      assert.deepEqual(
        answeredOf(list).map((a) => a[3]),
        [true, false, success, success],
      );
    } finally {
      await context.close();
      await close();
    }
  }
});

test('a fail over two sessions, the LRS on another origin: closing the page terminates, a relaunch resumes, Review records nothing', async () => {
  const { dir, au } = await buildPackage({ passMark: 80 });
  const { lms, origin, close } = await startLms(dir, {
    crossOrigin: true,
    csp: (lrs) => `${SITE_CSP}; connect-src 'self' ${lrs}`,
  });
  const registration = crypto.randomUUID();
  const activityId = `${lms.origin}/lms/activities/${crypto.randomUUID()}`;
  const actor = { objectType: 'Agent', account: { homePage: lms.origin, name: 'learner-ann' } };
  const launchAs = (launchMode) =>
    lms.launch({
      launchUrl: `${origin}/lms/pkg/${au.url}`,
      auId: au.id,
      masteryScore: au.masteryScore,
      moveOn: au.moveOn,
      registration,
      activityId,
      actor,
      launchMode,
    });
  const contexts = [];
  try {
    // ---- first session: two answers, then the learner closes the page
    const one = launchAs('Normal');
    let { context, page, requests } = await launchPage(one.url);
    contexts.push(context);
    await answer(page, 'true'); // tf-08: right
    await answer(page, 'true'); // tf-01: wrong
    await waitStatus(page, /^Saved to the LMS \(cmi5\): 2 of 4 answered\.$/);
    // an answer written on the third question, not yet sent: the state document keeps it as a draft
    await page.locator('#embed textarea.answer-text').fill(DRAFT);
    const draftOf = () => JSON.parse(lms.state(one, ATTEMPT_STATE)?.attempt ?? '{}').d;
    await lms.waitFor(() => draftOf() === DRAFT);
    assert.deepEqual(await cspOf(page), []);
    assert.deepEqual(page.problems, []);
    await page.goto('about:blank'); // pagehide: "terminated"
    await lms.waitFor(() => verbs(lms.session(one.session)).includes('terminated'));
    const first = lms.session(one.session);
    assert.deepEqual(verbs(first), ['launched', 'initialized', 'answered', 'answered', 'terminated']);
    noProblems(first, one, 'the first session');
    assert.ok(
      requests.some((u) => u.startsWith(`${lms.origin}/lms/xapi/statements`)),
      'the statements went to the LRS on its own origin',
    );

    // ---- second session: the attempt continues at the third question and fails at 1 of 2
    const two = launchAs('Normal');
    ({ context, page } = await launchPage(two.url));
    contexts.push(context);
    await waitStatus(page, /^Recording to the LMS \(cmi5\): continuing your attempt, 2 of 4 answered\.$/);
    const quiz = await page.evaluate(() => window.__resnorm.quiz);
    assert.equal(quiz.index, 2, 'resumes at the third question');
    assert.equal(quiz.current, 'why-03');
    assert.equal(quiz.session.correct, 1);
    assert.equal(await page.locator('#embed textarea.answer-text').inputValue(), DRAFT, 'the draft is back');
    await answer(page, 'missed-it');
    await answer(page, 'got-it');
    await waitStatus(
      page,
      /^Recorded in the LMS \(cmi5\): 1 of 2 right, not passed \(pass mark 80 %\); the attempt is complete\.$/,
    );
    await page.screenshot({ path: join(SHOTS, 'cmi5-failed.png') });
    await page.locator('#embed button.lms-exit').click(); // no returnURL: the page says the session ended
    await waitStatus(page, /^Session ended \(cmi5\): you can close this window\.$/);
    const second = lms.session(two.session);
    assert.deepEqual(verbs(second), [
      'launched',
      'initialized',
      'answered',
      'answered',
      'failed',
      'completed',
      'terminated',
    ]);
    noProblems(second, two, 'the second session');
    assert.deepEqual(answeredOf(second), [
      ['why-03', 'long-fill-in', DRAFT, undefined, null],
      ['err-01', 'long-fill-in', '', undefined, null],
    ]);
    const failed = second.find((s) => verbOf(s) === 'failed');
    assert.deepEqual(failed.result.score, { raw: 1, min: 0, max: 2, scaled: 0.5 });
    assert.equal(failed.context.extensions['https://w3id.org/xapi/cmi5/context/extensions/masteryscore'], 0.8);
    assert.deepEqual(await cspOf(page), []);
    assert.deepEqual(page.problems, []);
    await context.close();

    // ---- third session, Review: the finished attempt shown, nothing but initialized and terminated
    const three = launchAs('Review');
    ({ context, page } = await launchPage(three.url));
    contexts.push(context);
    await waitStatus(page, /^Review mode \(cmi5\): your answers are not recorded\.$/);
    assert.equal((await page.evaluate(() => window.__resnorm.quiz)).index, 4, 'the attempt as it ended');
    await page.locator('#embed button.lms-exit').click();
    await waitStatus(page, /^Session ended \(cmi5\)/);
    const third = lms.session(three.session);
    assert.deepEqual(verbs(third), ['launched', 'initialized', 'terminated']);
    noProblems(third, three, 'the review');
    assert.deepEqual(registrationProblems([first, second, third]), []);
    assert.deepEqual(page.problems, []);
  } finally {
    for (const c of contexts) await c.close();
    await close();
  }
});

test('Browse: the quiz works from the start and only initialized and terminated reach the LMS', async () => {
  const { dir, au } = await buildPackage({ passMark: 75 });
  const { lms, origin, close } = await startLms(dir);
  const launch = lms.launch({
    launchUrl: `${origin}/lms/pkg/${au.url}`,
    auId: au.id,
    masteryScore: 0.75,
    launchMode: 'Browse',
  });
  const { context, page } = await launchPage(launch.url, {
    viewport: { width: 360, height: 740 },
    colorScheme: 'dark',
  });
  try {
    await waitStatus(page, /^Browse mode \(cmi5\): your answers are not recorded\.$/);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await page.screenshot({ path: join(SHOTS, 'cmi5-browse-360-dark.png') });
    await answer(page, 'true');
    assert.equal((await page.evaluate(() => window.__resnorm.quiz)).session.answered, 1);
    // on the second question (no math, whose stacked fractions the check takes for overlaps)
    assert.deepEqual(await overlaps(page, '#embed'), []);
    await page.goto('about:blank');
    await lms.waitFor(() => verbs(lms.session(launch.session)).includes('terminated'));
    const list = lms.session(launch.session);
    assert.deepEqual(verbs(list), ['launched', 'initialized', 'terminated']);
    noProblems(list, launch, 'browse');
    assert.equal(lms.state(launch, ATTEMPT_STATE), null, 'no attempt stored');
    assert.deepEqual(page.problems, []);
  } finally {
    await context.close();
    await close();
  }
});

test('a pass mark of 0: every finished attempt passes, and "passed" carries the mastery score 0 the LMS gave', async () => {
  const { dir, au } = await buildPackage({ passMark: 0 });
  assert.equal(au.masteryScore, 0);
  const { lms, origin, close } = await startLms(dir);
  const launch = lms.launch({
    launchUrl: `${origin}/lms/pkg/${au.url}`,
    auId: au.id,
    masteryScore: 0,
    moveOn: au.moveOn,
  });
  const { context, page } = await launchPage(launch.url);
  try {
    for (const how of ['false', 'true', 'missed-it', 'missed-it']) await answer(page, how);
    await waitStatus(page, /^Recorded in the LMS \(cmi5\): 0 of 2 right, passed \(pass mark 0 %\)/);
    await page.goto('about:blank');
    await lms.waitFor(() => verbs(lms.session(launch.session)).includes('terminated'));
    const list = lms.session(launch.session);
    assert.deepEqual(verbs(list).slice(-3), ['passed', 'completed', 'terminated']);
    noProblems(list, launch, 'pass mark 0');
    assert.deepEqual(page.problems, []);
  } finally {
    await context.close();
    await close();
  }
});

test('a launch link without all the parameters, and an LRS the CSP does not allow: the status line says so, the quiz works', async () => {
  const { dir, au } = await buildPackage();
  const { lms, origin, close } = await startLms(dir, { crossOrigin: true, csp: () => SITE_CSP });
  const contexts = [];
  try {
    const launch = lms.launch({ launchUrl: `${origin}/lms/pkg/${au.url}`, auId: au.id, masteryScore: au.masteryScore });
    const partial = new URL(launch.url);
    partial.searchParams.delete('fetch');
    partial.searchParams.delete('registration');
    let { context, page } = await launchPage(partial.href);
    contexts.push(context);
    assert.equal(
      await statusOf(page),
      'The LMS\u2019s launch link lacks fetch, registration (cmi5 needs endpoint, fetch, actor, registration, activityId): your answers are not being recorded.',
    );
    assert.equal(await page.locator('#embed button.lms-exit').count(), 0);
    await answer(page, 'true');
    assert.equal((await page.evaluate(() => window.__resnorm.quiz)).session.answered, 1);
    assert.deepEqual(page.problems, []);

    // the LRS on another origin, the site's CSP as it is: connect-src refuses it, and the page says so
    ({ context, page } = await launchPage(launch.url));
    contexts.push(context);
    assert.equal(
      await statusOf(page),
      `The cmi5 session could not start: the LMS could not be reached at ${new URL(launch.url).searchParams.get('fetch')} (offline, or this page\u2019s Content-Security-Policy has no connect-src for it). Your answers are not being recorded.`,
    );
    assert.deepEqual(await page.evaluate(() => window.__resnorm.scorm.errors.length), 1);
    assert.ok(
      (await cspOf(page)).some((v) => v.startsWith('connect-src') && v.includes(lms.origin)),
      'the CSP refused the LRS',
    );
    assert.deepEqual(verbs(lms.session(launch.session)), ['launched'], 'nothing reached the LRS');
    await answer(page, 'false');
    assert.equal((await page.evaluate(() => window.__resnorm.quiz)).session.answered, 1);
    await page.screenshot({ path: join(SHOTS, 'cmi5-refused.png') });
  } finally {
    for (const c of contexts) await c.close();
    await close();
  }
});

test('the quiz page\u2019s dialog downloads the chosen questions as a cmi5 package, with the teacher\u2019s grading and pass mark', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  try {
    const page = await pageIn(context, `${site.url}quiz.html`);
    await page.locator('#embed-questions').click();
    await page.locator('dialog.quiz-embed-dialog').waitFor();
    await page.locator('#quiz-embed-section').selectOption('why');
    await page.locator('#quiz-embed-scorm-version').selectOption('cmi5');
    assert.equal(await page.locator('#quiz-embed-scorm').textContent(), 'Download cmi5 package');
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#quiz-embed-scorm').click()]);
    assert.match(download.suggestedFilename(), /-cmi5\.zip$/);
    const zip = join(work, 'dialog.zip');
    writeFileSync(zip, await downloadBytes(download));
    const names = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
    assert.equal(names[0], 'cmi5.xml');
    assert.ok(names.includes('scorm.html'));
    // every "why" question is self-graded: left out (the default), nothing is scored, nothing to pass
    let xml = execFileSync('unzip', ['-p', zip, 'cmi5.xml'], { encoding: 'utf8' });
    assert.match(xml, /<au id="[^"]+" moveOn="Completed" launchMethod="AnyWindow">/);
    await page.waitForFunction(() =>
      /Downloaded .*-cmi5\.zip .*no pass mark\): upload it to the LMS as a cmi5 activity/.test(
        document.querySelector('.quiz-embed-dialog .embed-status').textContent,
      ),
    );
    // counted, with the teacher's pass mark: the course's masteryScore, and the page's grading
    await page.locator('#quiz-embed-self-graded').selectOption('count');
    await page.locator('#quiz-embed-pass-mark').fill('60');
    const [again] = await Promise.all([page.waitForEvent('download'), page.locator('#quiz-embed-scorm').click()]);
    writeFileSync(zip, await downloadBytes(again));
    xml = execFileSync('unzip', ['-p', zip, 'cmi5.xml'], { encoding: 'utf8' });
    assert.match(xml, /<au id="[^"]+" moveOn="Passed" masteryScore="0.6" launchMethod="AnyWindow">/);
    const launchPage = execFileSync('unzip', ['-p', zip, 'scorm.html'], { encoding: 'utf8' });
    assert.match(
      launchPage,
      /<meta name="resnorm-scorm" content="version=cmi5&amp;[^"]*self_graded=count&amp;pass_mark=60&amp;/,
    );
    await page.waitForFunction(() =>
      /Downloaded .*-cmi5\.zip .*pass mark 60 %\): upload it to the LMS as a cmi5 activity/.test(
        document.querySelector('.quiz-embed-dialog .embed-status').textContent,
      ),
    );
    assert.deepEqual(page.problems, []);
  } finally {
    await context.close();
  }
});
