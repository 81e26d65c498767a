// The quiz page as a learner (and a course author) uses it, in Debian's Chromium, under the strict
// Content-Security-Policy: the question bank, deep links, live experiments, the norm panel, the
// generated questions, keyboard-only use, damaged saved progress, the phone layout, the exports.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SHOTS, STRICT_CSP, downloadBytes, launch, openPage, serve } from './harness.js';
import { toGift, toAnkiTsv } from '../../web/src/quiz/export.js';
import { exportText } from '../../web/src/quiz/ui/export-menu.js';
import { significant } from '../../web/src/shared/format.js';

const rawBank = JSON.parse(readFileSync(new URL('../../web/src/quiz/bank.json', import.meta.url), 'utf8'));
const KEY = 'resnorm.quiz.v1';

let browser;
let server;
before(async () => {
  browser = await launch();
  server = await serve({ csp: STRICT_CSP });
});
after(async () => {
  await server?.close();
  await browser?.close();
});

const quizUrl = (hash = '') => `${server.url}quiz.html${hash}`;
const itemId = (page) => page.locator('.quiz-item').getAttribute('data-id');
const saved = (page) => page.evaluate((k) => JSON.parse(localStorage.getItem(k)), KEY);

async function done(page) {
  assert.deepEqual(page.problems, [], page.problems.join('\n'));
  await page.context().close();
}

test('a true/false item: pick, reveal, graded; after a reload the progress is still there', async () => {
  const page = await openPage(browser, quizUrl('#quiz'));
  await page.locator('#filter-section').selectOption('true-false');
  assert.equal(await itemId(page), 'tf-01');
  const item = rawBank.items.find((it) => it.id === 'tf-01');
  // Nothing of the answer before committing: the solution is hidden, reveal is disabled.
  assert.equal(await page.locator('.item-solution').isHidden(), true);
  assert.equal(await page.locator('[data-action=reveal]').isDisabled(), true);
  await page.locator(`.choice[data-choice=${item.answer}]`).click();
  await page.locator('[data-action=reveal]').click();
  await page.locator('.item-solution').waitFor();
  assert.match(await page.locator('.item-result').textContent(), /^Right/);
  assert.match(await page.locator('.item-graded').textContent(), /box 2 of 5/);
  assert.match(await page.locator('#score').textContent(), /1 of 1 correct/);
  await page.screenshot({ path: `${SHOTS}/quiz-tf-revealed.png`, fullPage: true });

  const stored = await saved(page);
  assert.equal(stored.items['tf-01'].box, 2);
  assert.equal(stored.items['tf-01'].correct, 1);

  await page.reload();
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  assert.equal((await saved(page)).items['tf-01'].box, 2);
  assert.match(await page.locator('#score').textContent(), /1 of 1 correct/);
  // tf-01 moved to box 2 (due tomorrow): the due queue starts elsewhere; its deep link shows its box.
  assert.notEqual(await itemId(page), 'tf-01');
  assert.match(await page.locator('#queue-info').textContent(), /43 questions due/);
  await page.goto(quizUrl('#quiz/tf-01'));
  await page.locator('.quiz-item[data-id="tf-01"]').waitFor();
  assert.match(await page.locator('.item-box').textContent(), /box 2 of 5/);
  assert.match(await page.locator('.item-seen').textContent(), /answered 1×, right 1×/);
  await done(page);
});

test('a deep link #quiz/<id> opens that item; an unknown id gets a notice, not a broken page', async () => {
  const page = await openPage(browser, quizUrl('#quiz/why-03'));
  await page.locator('.quiz-item[data-id="why-03"]').waitFor();
  assert.equal(await page.locator('#area-quiz').isVisible(), true);
  // Math from the build: MathML, not TeX.
  const page2 = await openPage(browser, quizUrl('#quiz/tf-03'));
  await page2.locator('.quiz-item[data-id="tf-03"]').waitFor();
  assert.ok((await page2.locator('.quiz-prompt math').count()) > 0, 'the prompt has MathML');
  assert.doesNotMatch(await page2.locator('.quiz-prompt').textContent(), /\\\(/);
  await done(page2);
  await page.evaluate(() => {
    location.hash = '#quiz/nope-99';
  });
  await page.locator('#notice').waitFor();
  assert.match(await page.locator('#notice-text').textContent(), /nope-99/);
  assert.ok((await page.locator('.quiz-item').count()) === 1);
  await page.evaluate(() => {
    location.hash = '#quiz/edge-05';
  });
  await page.locator('.quiz-item[data-id="edge-05"]').waitFor();
  await done(page);
});

test('every check in the bank shows "Confirmed by the engine" with its numbers', async () => {
  const page = await openPage(browser, quizUrl('#quiz'));
  const withCheck = rawBank.items.filter((it) => it.experiment && it.experiment.check);
  assert.ok(withCheck.length >= 20);
  for (const it of withCheck) {
    await page.evaluate((id) => {
      location.hash = `#quiz/${id}`;
    }, it.id);
    await page.locator(`.quiz-item[data-id="${it.id}"]`).waitFor();
    if (it.type === 'true-false') await page.locator('.choice[data-choice=true]').click();
    await page.locator('[data-action=reveal]').click();
    const check = page.locator('.exp-check');
    await page.waitForFunction(() => document.querySelector('.exp-check')?.dataset.status !== 'pending');
    const [status, text] = [await check.getAttribute('data-status'), await check.textContent()];
    assert.equal(status, 'confirmed', `${it.id}: ${text}`);
    assert.match(text, /^Confirmed by the engine: .*\d/);
  }
  await done(page);
});

test("a live experiment opens the explorer set to the item's setting; a norm item opens the norm panel", async () => {
  const page = await openPage(browser, quizUrl('#quiz/tf-02'));
  const item = rawBank.items.find((it) => it.id === 'tf-02');
  await page.locator('.choice[data-choice=false]').click();
  await page.locator('[data-action=reveal]').click();
  await page.waitForFunction(() => document.querySelector('.exp-check')?.dataset.status === 'confirmed');
  await page.screenshot({ path: `${SHOTS}/quiz-experiment.png`, fullPage: true });
  await Promise.all([page.waitForURL(/\/#/), page.locator('[data-action=explorer]').click()]);
  await page.waitForFunction(() => document.body.dataset.ready === '1' && window.__resnorm);
  const config = await page.evaluate(() => window.__resnorm.config);
  assert.deepEqual(config.arch, item.experiment.setting.arch);
  assert.equal(config.depth, item.experiment.setting.depth);
  assert.equal(config.gain, item.experiment.setting.gain);
  // Back comes to the same question.
  await page.goBack();
  await page.locator('.quiz-item[data-id="tf-02"]').waitFor();

  await page.goto(quizUrl('#quiz/err-04'));
  await page.locator('.quiz-item[data-id="err-04"]').waitFor();
  await page.locator('[data-action=reveal]').click();
  await page.locator('[data-action=norm]').click();
  await page.locator('#area-norm').waitFor();
  assert.equal(await page.locator('#area-quiz').isHidden(), true);
  assert.match(await page.locator('#norm-back').textContent(), /err-04/);
  await page.locator('#norm-back a').click();
  await page.locator('.quiz-item[data-id="err-04"][data-phase="revealed"]').waitFor();
  await done(page);
});

test('a training claim\u2019s live experiment opens the training lab set to the item\u2019s settings', async () => {
  const page = await openPage(browser, quizUrl('#quiz/why-06'));
  const item = rawBank.items.find((it) => it.id === 'why-06');
  await page.locator('[data-action=reveal]').click();
  // the settings' summary names the item's own task, depth and width
  const { task, depth, width } = item.experiment.train;
  assert.ok(
    (await page.locator('.exp-train').textContent()).includes(
      `Post-LN; Pre-LN \u00b7 ${task} \u00b7 depth ${depth} \u00b7 width ${width}`,
    ),
  );
  assert.match(
    await page.locator('.exp-train-check').textContent(),
    /^Checked by the project\u2019s tests.*Post-LN without warmup/,
  );
  await Promise.all([page.waitForURL(/\/train\.html#/), page.locator('[data-action=lab]').click()]);
  await page.waitForFunction(() => document.body.dataset.ready === '1' && window.__resnormTrain);
  const config = await page.evaluate(() => window.__resnormTrain.config ?? null);
  assert.equal(config, null, 'nothing trains before Start');
  for (const [key, value] of Object.entries(item.experiment.train))
    if (key !== 'arch')
      assert.equal(await page.locator(`#train-${key.replaceAll('_', '-')}`).inputValue(), String(value), key);
  assert.equal(await page.locator('#train-arch-post_ln').isChecked(), true);
  assert.equal(await page.locator('#train-arch-pre_ln').isChecked(), true);
  // Back comes to the same question.
  await page.goBack();
  await page.locator('.quiz-item[data-id="why-06"]').waitFor();
  await done(page);
});

test('an item about BatchNorm links to the lab\u2019s claim, which opens with its runs ready to train', async () => {
  const page = await openPage(browser, quizUrl('#quiz/why-04'));
  const item = rawBank.items.find((it) => it.id === 'why-04');
  assert.equal(item.experiment.claim, 'batchnorm');
  await page.locator('[data-action=reveal]').click();
  const link = page.locator('.exp-claim [data-action=claim]');
  assert.equal(await link.textContent(), 'See it trained: Why not BatchNorm');
  assert.equal(await link.getAttribute('href'), './train.html#preset=batchnorm');
  await Promise.all([page.waitForURL(/\/train\.html#preset=batchnorm$/), link.click()]);
  await page.waitForFunction(
    () => document.body.dataset.ready === '1' && window.__resnormTrain?.preset === 'batchnorm',
  );
  assert.equal(await page.evaluate(() => window.__resnormTrain.config ?? null), null, 'nothing trains before Start');
  await page.goBack();
  await page.locator('.quiz-item[data-id="why-04"]').waitFor();
  await done(page);
});

test('damaged or old saved progress is reset with a visible notice, and the quiz works', async () => {
  for (const bad of [
    '{not json',
    JSON.stringify({ version: 0, items: {} }),
    JSON.stringify({ version: 1, items: { 'tf-01': { box: 9 } } }),
  ]) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(
      ([k, v]) => {
        if (!sessionStorage.getItem('seeded')) {
          localStorage.setItem(k, v);
          sessionStorage.setItem('seeded', '1');
        }
      },
      [KEY, bad],
    );
    const page = await context.newPage();
    page.problems = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') page.problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
    await page.goto(quizUrl('#quiz/tf-01'));
    await page.waitForFunction(() => document.body.dataset.ready === '1');
    assert.equal(await page.locator('#notice').isVisible(), true, bad);
    assert.match(await page.locator('#notice-text').textContent(), /Quiz progress/);
    await page.locator('.choice[data-choice=false]').click();
    await page.locator('[data-action=reveal]').click();
    assert.match(await page.locator('.item-graded').textContent(), /Recorded/);
    assert.equal((await saved(page)).items['tf-01'].seen, 1);
    await page.locator('#notice-close').click();
    assert.equal(await page.locator('#notice').isHidden(), true);
    assert.deepEqual(page.problems, [], page.problems.join('\n'));
    await context.close();
  }
});

// The displayed numbers of some cells, as text.
const cells = (page, prefix, n) =>
  Promise.all(Array.from({ length: n }, (_, i) => page.locator(`[data-cell="${prefix}-${i}"]`).textContent()));
const renders = (page, id) => page.evaluate((i) => Number(document.getElementById(i).dataset.renders || 0), id);
const waitRender = (page, id, n) =>
  page.waitForFunction(([i, k]) => Number(document.getElementById(i).dataset.renders || 0) > k, [id, n]);

/** Picks `value` in the generated card `id` (norms, archs), checks it, and returns its result line once graded. */
async function answer(page, id, value) {
  const card = page.locator(`#${id}`);
  await card.locator(`input[value=${value}]`).check();
  await page.locator(`[data-action=${id}-check]`).click();
  await page.waitForFunction((i) => document.getElementById(i).dataset.state === 'checked', id);
  return card.locator('.gen-result').textContent();
}

/** A result line's grade ("Right" or "Not quite") and the key the engine's numbers name. */
const graded = (result) => result.match(/^(Right|Not quite): the engine’s numbers say “([^”]+)”/);

async function setNumber(page, id, value) {
  const n = await renders(page, id.startsWith('tok') ? 'token-norm' : 'batch-norm');
  await page.locator(`#${id}-num`).fill(String(value));
  await page.locator(`#${id}-num`).press('Enter');
  await waitRender(page, id.startsWith('tok') ? 'token-norm' : 'batch-norm', n);
}

test("the norm panel: a constant token gives beta; another sequence's length moves BatchNorm, not LayerNorm", async () => {
  const page = await openPage(browser, quizUrl('#norm'));
  await waitRender(page, 'token-norm', 0);
  await waitRender(page, 'batch-norm', 0);
  assert.equal(await page.locator('#nav-norm').getAttribute('aria-current'), 'page');

  // gamma = 1, beta = 0 still standardizes: output mean 0, variance 1.
  assert.equal(await page.locator('[data-cell="ln-out-mean"]').textContent(), '0.0000');
  assert.equal(await page.locator('[data-cell="ln-out-var"]').textContent(), '1.0000');

  await setNumber(page, 'tok-beta', 0.75);
  await setNumber(page, 'tok-gamma', 2);
  let n = await renders(page, 'token-norm');
  await page.locator('#tok-constant').click();
  await waitRender(page, 'token-norm', n);
  const x = await cells(page, 'x', 6);
  assert.ok(
    x.every((v) => v === x[0]),
    `constant: ${x}`,
  );
  assert.deepEqual(await cells(page, 'ln', 6), Array(6).fill('0.750'));
  assert.equal(await page.locator('[data-cell="ln-var"]').textContent(), '0.0000');
  assert.match(await page.locator('#token-norm .norm-note').textContent(), /outputs β = 0\.75/);
  await page.screenshot({ path: `${SHOTS}/quiz-norm-constant.png`, fullPage: true });
  n = await renders(page, 'token-norm');
  await page.locator('#tok-shift').click(); // still constant: still beta
  await waitRender(page, 'token-norm', n);
  assert.deepEqual(await cells(page, 'ln', 6), Array(6).fill('0.750'));

  // BatchNorm against LayerNorm: the watched token is sequence 1's first.
  const before = { bn: await cells(page, 'watch-bn', 4), ln: await cells(page, 'watch-ln', 4) };
  await setNumber(page, 'bn-len-1', 6); // sequence 2: 3 -> 6 real tokens
  const afterLen = { bn: await cells(page, 'watch-bn', 4), ln: await cells(page, 'watch-ln', 4) };
  assert.notDeepEqual(afterLen.bn, before.bn, 'BatchNorm moved');
  assert.deepEqual(afterLen.ln, before.ln, 'LayerNorm stayed');
  assert.ok(Number(await page.locator('.moved').getAttribute('data-bn')) > 1e-3);
  assert.equal(Number(await page.locator('.moved').getAttribute('data-ln')), 0);

  await setNumber(page, 'bn-padding', 4); // more padding, counted
  const afterPad = { bn: await cells(page, 'watch-bn', 4), ln: await cells(page, 'watch-ln', 4) };
  assert.notDeepEqual(afterPad.bn, afterLen.bn);
  assert.deepEqual(afterPad.ln, before.ln);

  await setNumber(page, 'bn-batch', 1); // as at inference
  const afterOne = { bn: await cells(page, 'watch-bn', 4), ln: await cells(page, 'watch-ln', 4) };
  assert.notDeepEqual(afterOne.bn, afterPad.bn);
  assert.deepEqual(afterOne.ln, before.ln);
  assert.equal(await page.locator('#bn-len-1').isHidden(), true);
  await page.screenshot({ path: `${SHOTS}/quiz-norm-batch1.png`, fullPage: true });
  await done(page);
});

test('keyboard alone: answer, reveal, grade, next', async () => {
  const page = await openPage(browser, quizUrl('#quiz/tf-01'));
  await page.locator('.quiz-item[data-id="tf-01"]').waitFor();
  await page.keyboard.press('f'); // tf-01 is false
  assert.equal(await page.locator('.choice[data-choice=false]').getAttribute('aria-pressed'), 'true');
  await page.keyboard.press('Enter'); // the focus moved to "Reveal"
  await page.locator('.quiz-item[data-phase="graded"]').waitFor();
  assert.match(await page.locator('.item-result').textContent(), /^Right/);
  await page.keyboard.press('Enter'); // the focus moved to "Next question"
  await page.waitForFunction(() => document.querySelector('.quiz-item')?.dataset.id !== 'tf-01');
  assert.equal(await page.evaluate(() => location.hash), '#quiz');
  const second = await itemId(page);
  assert.equal(second, 'tf-02');
  await page.keyboard.press('t');
  await page.keyboard.press('r');
  await page.locator('.quiz-item[data-phase="graded"]').waitFor();
  assert.match(await page.locator('.item-result').textContent(), /^Not quite/);
  await page.keyboard.press('n');
  await page.waitForFunction(() => document.querySelector('.quiz-item')?.dataset.id === 'tf-03');

  // An open item: Tab into the answer box, type, Ctrl+Enter reveals, G grades, N moves on.
  await page.evaluate(() => {
    location.hash = '#quiz/why-01';
  });
  await page.locator('.quiz-item[data-id="why-01"]').waitFor();
  for (let i = 0; i < 60 && !(await page.evaluate(() => document.activeElement?.id === 'answer-why-01')); i++)
    await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'answer-why-01');
  await page.keyboard.type('the identity path');
  await page.keyboard.press('Control+Enter');
  await page.locator('.quiz-item[data-phase="revealed"]').waitFor();
  assert.match(await page.locator('.your-answer-text').textContent(), /the identity path/);
  await page.keyboard.press('g');
  await page.locator('.quiz-item[data-phase="graded"]').waitFor();
  assert.match(await page.locator('#score').textContent(), /2 of 3 correct \(1 self-graded\)/);
  await page.keyboard.press('n');
  await page.waitForFunction(() => document.querySelector('.quiz-item')?.dataset.id !== 'why-01');
  // The focus is visible somewhere sensible: on the new question.
  assert.match(await page.evaluate(() => document.activeElement?.id || ''), /^item-title-/);
  await page.screenshot({ path: `${SHOTS}/quiz-keyboard.png` });
  // The written answer is kept with the progress: after a reload, the next time why-01 is revealed
  // it shows what was written last time (and not before the reveal).
  await page.reload();
  await page.evaluate(() => {
    location.hash = '#quiz/why-01';
  });
  await page.locator('.quiz-item[data-id="why-01"]').waitFor();
  assert.equal(await page.locator('.your-answer-before').count(), 0);
  assert.equal(await page.locator('#answer-why-01').inputValue(), '', 'the box starts empty');
  await page.locator('#answer-why-01').fill('the gradient highway');
  await page.locator('button[data-action="reveal"]').click();
  assert.deepEqual(await page.locator('.your-answer-text').allTextContents(), [
    'the gradient highway',
    'the identity path',
  ]);
  assert.match(await page.locator('.your-answer').textContent(), /Last time you wrote:the identity path/);
  await done(page);
});

test('generated questions: which is which, predict the number; counted in the score', async () => {
  const page = await openPage(browser, quizUrl('#generated'));
  await page.waitForFunction(
    () =>
      document.getElementById('which').dataset.state === 'asked' &&
      document.getElementById('predict').dataset.state === 'asked',
  );
  assert.equal(await page.locator('#which canvas').count(), 2);
  const selects = page.locator('#which .assign select');
  const k = await selects.count();
  assert.ok(k >= 2 && k <= 4);
  for (let i = 0; i < k; i++) await selects.nth(i).selectOption({ index: 1 + i });
  await page.locator('[data-action=which-check]').click();
  assert.match(await page.locator('#which .gen-result').textContent(), /right/);
  assert.equal(await page.locator('#which .gen-details li').count(), k);
  // the reader meets the architectures' names, never the engine's ids (pre_rms, stream_rms[95])
  const INTERNAL = /\b[a-z]{2,}_[a-z]{2,}\b|\w\[\d+\]|\b(rezero|layerscale|deepnorm|gpt2|dwa|lns|admin)\b/;
  for (const sel of ['#which', '#predict'])
    assert.doesNotMatch(await page.locator(sel).evaluate((e) => e.innerText), INTERNAL, sel);

  await page.locator('#guess').fill('1.1^50');
  await page.locator('#guess').press('Enter');
  await page.waitForFunction(() => document.getElementById('predict').dataset.state === 'checked');
  assert.match(await page.locator('#predict .gen-result').textContent(), /the engine says/);
  assert.equal(await page.locator('#predict canvas').count(), 1);
  assert.match(await page.locator('#score').textContent(), /of 2 correct/);

  // Pick the architecture: a radio per architecture; the right one is graded right, the chart is drawn.
  await page.waitForFunction(() => document.getElementById('pick').dataset.state === 'asked');
  assert.equal(await page.locator('#pick input[type=radio]').count(), 4);
  await page.locator('#pick input[type=radio]').first().check();
  await page.locator('[data-action=pick-check]').click();
  assert.equal(await page.locator('#pick').getAttribute('data-state'), 'checked');
  assert.match(await page.locator('#pick .gen-result').textContent(), /^(Right|Not quite): it is /);
  assert.equal(await page.locator('#pick canvas').count(), 1);
  assert.match(await page.locator('#score').textContent(), /of 3 correct/);
  await page.screenshot({ path: `${SHOTS}/quiz-generated.png`, fullPage: true });
  await done(page);
});

test('generated questions on the newer architectures: every new kind is asked and graded', async () => {
  const page = await openPage(browser, quizUrl('#generated'));
  const state = (id, s) => page.waitForFunction(([i, v]) => document.getElementById(i).dataset.state === v, [id, s]);
  await state('predict', 'asked');
  // Predict the number: each new kind; the rule's value (from the explanation's numbers) is not
  // needed, the engine's own answer is read back from the result and must be graded right.
  for (const kind of ['lns-stream', 'lns-vs-preln', 'layerscale-update', 'mix-ln-post-blocks']) {
    await page.locator('#predict-kind').selectOption(kind);
    await page.waitForFunction(
      (k) =>
        document.getElementById('predict').dataset.kind === k &&
        document.getElementById('predict').dataset.state === 'asked',
      kind,
    );
    await page.locator('#guess').fill('1');
    await page.locator('#guess').press('Enter');
    await state('predict', 'checked');
    const result = await page.locator('#predict .gen-result').textContent();
    assert.match(result, /the engine says/, kind);
    assert.match(await page.locator('#predict .gen-explain').textContent(), /The engine/, kind);
    assert.equal(await page.locator('#predict canvas').count(), 1);
  }
  // The count question: a guess equal to the engine's answer is graded right.
  await page.locator('[data-action=predict-new]').click();
  await state('predict', 'asked');
  const depth = Number((await page.locator('#predict .gen-prompt').textContent()).match(/depth (\d+)/)[1]);
  await page.locator('#guess').fill(String(Math.floor(depth / 4)));
  await page.locator('#guess').press('Enter');
  await state('predict', 'checked');
  assert.equal(await page.locator('#predict .gen-result').getAttribute('data-correct'), 'true');

  // Pick the architecture, every gradient equal to the top's: ReZero is right, another is wrong.
  for (const [choice, correct] of [
    ['rezero', 'true'],
    ['other', 'false'],
  ]) {
    await page.locator('#pick-kind').selectOption('identity-gradient');
    await page.locator('[data-action=pick-new]').click();
    await state('pick', 'asked');
    const radio =
      choice === 'rezero'
        ? page.locator('#pick input[value=rezero]')
        : page.locator('#pick input:not([value=rezero])').first();
    await radio.check();
    await page.locator('[data-action=pick-check]').click();
    await state('pick', 'checked');
    assert.equal(await page.locator('#pick .gen-result').getAttribute('data-correct'), correct);
    assert.match(await page.locator('#pick .gen-result').textContent(), /it is ReZero/);
    assert.match(await page.locator('#pick .gen-explain').textContent(), /exactly 1 at every layer/);
  }

  // Which is which from the newer architectures: the choices include one of them.
  await page.locator('#which-pool').selectOption('newer');
  await page.waitForFunction(
    () =>
      document.getElementById('which').dataset.pool === 'newer' &&
      document.getElementById('which').dataset.state === 'asked',
  );
  const options = await page.locator('#which .assign select').first().locator('option').allTextContents();
  assert.ok(
    options.some((o) => /^(ReZero|LayerScale \(CaiT\)|LayerNorm Scaling|Mix-LN|DenseFormer \(DWA\))$/.test(o)),
    options.join(' | '),
  );
  assert.match(await page.locator('#score').textContent(), /of 7 correct/);
  await page.screenshot({ path: `${SHOTS}/quiz-generated-newer.png`, fullPage: true });
  await done(page);
});

test('generated norm question: one sequence alone, answered from trained runs, with feedback', async () => {
  const page = await openPage(browser, quizUrl('#generated'));
  const norms = page.locator('#norms');
  const settled = () =>
    page.waitForFunction(() => /^(asked|error)$/.test(document.getElementById('norms')?.dataset.state));
  await settled();
  await page.locator('#norms-kind').selectOption('one-seq');
  await page.waitForFunction(() => document.getElementById('norms').dataset.kind === 'one-seq');
  await settled();
  assert.equal(await norms.getAttribute('data-state'), 'asked', await norms.locator('.gen-result').textContent());
  assert.match(await norms.locator('.gen-prompt').textContent(), /one sequence at a time/);
  assert.equal(await norms.locator('input[type=radio]').count(), 4);
  const result = await answer(page, 'norms', 'batchnorm');
  const m = graded(result);
  assert.ok(m, result);
  // The grade agrees with the key the message names, and the explanation quotes the runs' losses.
  assert.equal(m[1] === 'Right', m[2] === 'BatchNorm’s', result);
  assert.equal(await norms.locator('.gen-result').getAttribute('data-correct'), String(m[1] === 'Right'));
  const explanation = await norms.locator('.gen-explain').textContent();
  assert.match(explanation, /LayerNorm: eval mode \d[\d.]*, one sequence alone \d/);
  assert.match(explanation, /BatchNorm: eval mode \d[\d.]*, one sequence alone \d/);
  assert.equal(await norms.locator('input:checked').isDisabled(), true);
  assert.match(await page.locator('#score').textContent(), /of 1 correct/);
  assert.doesNotMatch(await norms.evaluate((e) => e.innerText), /\b(pre_ln|pre_rms|batchnorm|heldout_\w+)\b/);
  await done(page);
});

test('generated question on HC, mHC, AttnRes, DyT, HybridNorm and QK-norm: answered from the engine, with its numbers', async () => {
  const page = await openPage(browser, quizUrl('#generated'));
  const archs = page.locator('#archs');
  const settled = () =>
    page.waitForFunction(() => /^(asked|error)$/.test(document.getElementById('archs')?.dataset.state));
  await settled();
  // AttnRes before training, through the worker's trainer: every read weight is 1/(k + 1)
  await page.locator('#archs-kind').selectOption('attnres-init');
  await page.waitForFunction(() => document.getElementById('archs').dataset.kind === 'attnres-init');
  await settled();
  assert.equal(await archs.getAttribute('data-state'), 'asked', await archs.locator('.gen-result').textContent());
  assert.match(await archs.locator('.gen-prompt').textContent(), /What weight does it give the embedding\?/);
  assert.equal(await archs.locator('input[type=radio]').count(), 6);
  assert.match(await answer(page, 'archs', 'uniform'), /^Right: the engine’s numbers say “1\/\(k \+ 1\) = 1\/\d”/);
  assert.equal(await archs.locator('.gen-result').getAttribute('data-correct'), 'true');
  assert.match(
    await archs.locator('.gen-explain').textContent(),
    /read weight of the embedding at block \d, averaged over the held-out tokens: 0\.\d+/,
  );
  // A simulation: HC and mHC start on Pre-LN's gradients; a wrong answer is graded wrong, and the explorer link follows
  await page.locator('#archs-kind').selectOption('same-grad');
  await page.waitForFunction(
    () =>
      document.getElementById('archs').dataset.kind === 'same-grad' &&
      document.getElementById('archs').dataset.state === 'asked',
  );
  assert.match(
    await answer(page, 'archs', 'attnres-dyt'),
    /^Not quite: the engine’s numbers say “Hyper-Connections and mHC”, not “AttnRes and DyT”\.$/,
  );
  assert.match(await archs.locator('.gen-explain').textContent(), /Hyper-Connections \d\.\d×10\^-\d+, mHC \d/);
  assert.equal(
    await archs
      .locator('a.button-link')
      .getAttribute('href')
      .then((h) => h.startsWith('./#')),
    true,
  );
  assert.match(await page.locator('#score').textContent(), /of 2 correct/);
  assert.doesNotMatch(await archs.evaluate((e) => e.innerText), /\b(pre_ln|attn_res|hyper|mhc_|max_logit)\b/);
  await archs.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/quiz-generated-archs.png`, fullPage: true });
  await done(page);
});

test('generated question on what AttnRes and DenseFormer read after training: two runs trained in the worker, the key and the explanation from their weights, and the lab link trains the same runs', async () => {
  const page = await openPage(browser, quizUrl('#generated'));
  const archs = page.locator('#archs');
  await page.waitForFunction(() => /^(asked|error)$/.test(document.getElementById('archs')?.dataset.state));
  await page.locator('#archs-kind').selectOption('trained-read');
  await page.waitForFunction(
    () =>
      document.getElementById('archs').dataset.kind === 'trained-read' &&
      /^(asked|error)$/.test(document.getElementById('archs').dataset.state),
  );
  assert.equal(await archs.getAttribute('data-state'), 'asked', await archs.locator('.gen-result').textContent());
  assert.match(
    await archs.locator('.gen-prompt').textContent(),
    /^Attention Residuals \(AttnRes\) and DenseFormer, each a transformer of 1 block .* engine seed \d+\. .*compare with its start\?$/,
  );
  assert.equal(await archs.locator('input[type=radio]').count(), 5);
  const result = await answer(page, 'archs', 'both-less');
  const m = graded(result);
  assert.ok(m, result);
  // The grade agrees with the key the message names, and the key with the weights the explanation quotes.
  assert.equal(m[1] === 'Right', m[2] === 'both give h₀ less weight', result);
  const explanation = await archs.locator('.gen-explain').textContent();
  const w = explanation.match(/final norm reads h₀ with (-?[\d.]+),.* stream after the block is (-?[\d.]+) · h₀/);
  assert.ok(w, explanation);
  const [a, d] = [Number(w[1]), Number(w[2])];
  assert.equal(m[1] === 'Right', a < 1 / 3 - 0.01 && d < -0.01, `${a} ${d}: ${result}`);
  assert.match(explanation, /Held-out loss at the end: \d[\d.]* AttnRes, \d[\d.]* DenseFormer\.$/);
  // The lab link trains the same two runs: both architectures, the question's seed and learning rate
  const seed = (await archs.locator('.gen-prompt').textContent()).match(/engine seed (\d+)/)[1];
  const href = await archs.locator('a.button-link').getAttribute('href');
  assert.match(href, /^\.\/train\.html#/);
  const params = new URLSearchParams(href.split('#')[1]);
  assert.equal(params.get('arch'), 'attn_res,dwa');
  assert.equal(params.get('depth'), '1');
  assert.equal(params.get('seed'), seed);
  assert.match(await page.locator('#score').textContent(), /of 1 correct/);
  assert.doesNotMatch(await archs.evaluate((e) => e.innerText), /\b(attn_res|dwa|heldout_\w+)\b/);
  await archs.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/quiz-generated-trained-read.png`, fullPage: true });
  // The lab, from that link, trains the same runs: its learned panel's weights are the question's
  const quoted = explanation.match(/h₀ with (\S+), the attention output with (\S+) and the MLP output with (\S+),/);
  const dwaQuoted = explanation.match(/is (\S+) · h₀ \+ (\S+) · y₁/);
  await page.goto(new URL(href, page.url()).href);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  await page.locator('#train-start').click();
  await page.waitForFunction(() => window.__resnormTrain?.state === 'done' && window.__resnormTrain.learned);
  const learned = await page.evaluate(() => {
    const l = window.__resnormTrain.learned;
    return [...l.attn_res.attnResWeights.at(-1), ...l.dwa.dwaWeights.at(-1)].map(Number);
  });
  assert.deepEqual(
    learned.map((v) => significant(v, 3)),
    [...quoted.slice(1), ...dwaQuoted.slice(1)],
  );
  await done(page);
});

test('predict the number: sqrt(2) is accepted and graded; a broken expression says what was not understood', async () => {
  const page = await openPage(browser, quizUrl('#generated'));
  await page.waitForFunction(() => document.getElementById('predict').dataset.state === 'asked');
  await page.locator('#guess').fill('sqrt(2');
  await page.locator('#guess').press('Enter');
  assert.match(await page.locator('#predict .gen-result').textContent(), /expected "\)"/i);
  assert.equal(await page.locator('#predict').getAttribute('data-state'), 'asked');
  await page.locator('#guess').fill('sqrt(2)');
  await page.locator('#guess').press('Enter');
  await page.waitForFunction(() => document.getElementById('predict').dataset.state === 'checked');
  const result = await page.locator('#predict .gen-result').textContent();
  assert.match(result, /the engine says .*, you said 1\.414/);
  assert.match(await page.locator('#predict .gen-result').getAttribute('data-correct'), /^(true|false)$/);
  assert.match(await page.locator('#score').textContent(), /of 1 correct/);
  await done(page);
});

test('360 px wide and dark: no horizontal scroll in any area, no console message', async () => {
  const page = await openPage(browser, quizUrl('#quiz'), {
    viewport: { width: 360, height: 780 },
    colorScheme: 'dark',
  });
  for (const area of ['quiz', 'generated', 'norm']) {
    await page.evaluate((a) => {
      location.hash = `#${a}`;
    }, area);
    await page.locator(`#area-${area}`).waitFor();
    if (area === 'norm') await waitRender(page, 'batch-norm', 0);
    if (area === 'generated') {
      await page.waitForFunction(() => document.getElementById('which').dataset.state === 'asked');
    }
    if (area === 'quiz') {
      await page
        .locator('.choice')
        .first()
        .click()
        .catch(() => {});
      await page.locator('[data-action=reveal]').click();
    }
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 360, `#${area} is ${width}px wide at 360`);
    await page.screenshot({ path: `${SHOTS}/quiz-phone-dark-${area}.png`, fullPage: true });
  }
  await done(page);
});

test('without a CSP and under a sub-path, every area works with no console message', async () => {
  const s = await serve({ base: '/course/week-3/' });
  try {
    const page = await openPage(browser, `${s.url}quiz.html#quiz/edge-01`);
    await page.locator('.quiz-item[data-id="edge-01"]').waitFor();
    await page.locator('[data-action=reveal]').click();
    await page.waitForFunction(() => document.querySelector('.exp-check')?.dataset.status === 'confirmed');
    await page.evaluate(() => {
      location.hash = '#norm';
    });
    await waitRender(page, 'batch-norm', 0);
    await page.evaluate(() => {
      location.hash = '#generated';
    });
    await page.waitForFunction(() => document.getElementById('predict').dataset.state === 'asked');
    await page.evaluate(() => {
      location.hash = '#quiz';
    });
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#export-tsv').click()]);
    assert.equal((await downloadBytes(download)).toString('utf8'), toAnkiTsv(rawBank));
    await page.locator('#theme-toggle').click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await done(page);
  } finally {
    await s.close();
  }
});

test("exports: GIFT and Anki TSV downloads are the export module's output", async () => {
  const page = await openPage(browser, quizUrl('#quiz'));
  const grab = async (button) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator(button).click()]);
    return { name: download.suggestedFilename(), text: (await downloadBytes(download)).toString('utf8') };
  };
  const gift = await grab('#export-gift');
  assert.equal(gift.name, 'resnorm-quiz.gift.txt');
  assert.ok(gift.text.length > 1000);
  assert.equal(gift.text, toGift(rawBank));
  const tsv = await grab('#export-tsv');
  assert.equal(tsv.name, 'resnorm-quiz.tsv');
  assert.equal(tsv.text, toAnkiTsv(rawBank));
  assert.match(await page.locator('#export-status').textContent(), /44 questions/);

  await page.locator('#filter-section').selectOption('why');
  await page.locator('#export-scope').selectOption('filter');
  const why = await grab('#export-gift');
  assert.equal(why.name, 'resnorm-quiz-why.gift.txt');
  assert.equal(why.text, exportText('gift', rawBank, { section: 'why' }));
  assert.equal((why.text.match(/^::why-/gm) || []).length, rawBank.items.filter((it) => it.section === 'why').length);
  const whyTsv = await grab('#export-tsv');
  assert.equal(whyTsv.text, toAnkiTsv(rawBank, { section: 'why' }));
  await done(page);
});

test('the quiz embed asks with the same item view in its shorter form, and stores nothing', async () => {
  const page = await openPage(browser, `${server.url}embed.html#mode=quiz&items=tf-01,why-03`);
  const root = page.locator('#embed');
  const item = root.locator('.quiz-item');
  assert.equal(await item.getAttribute('data-id'), 'tf-01');
  assert.equal(await item.getAttribute('data-phase'), 'ask');
  // No link to the quiz page's #quiz/<id>, no boxes, no answer box for a true/false item; Next only once graded.
  assert.equal(await root.locator('.permalink, .item-box, textarea').count(), 0);
  assert.equal(await root.locator('[data-action=next]').isHidden(), true);
  await page.keyboard.press('n'); // the item view's keys work inside the embed, and N does not skip
  assert.equal(await item.getAttribute('data-id'), 'tf-01');
  // A choice commits at once.
  await root.locator('.choice[data-choice=false]').click();
  assert.equal(await item.getAttribute('data-phase'), 'graded');
  assert.match(await root.locator('.item-result').textContent(), /^Right: the statement is false/);
  assert.equal(await root.locator('.item-solution').isVisible(), true);
  await page.keyboard.press('Enter'); // "Next question" has the focus
  await page.waitForFunction(() => window.__resnorm.quiz.current === 'why-03');
  // an open item: the answer box, as on the quiz page
  await root.locator('#answer-why-03').fill('the identity path');
  await root.locator('button', { hasText: 'Commit and reveal' }).click();
  assert.equal(await root.locator('.your-answer-text').textContent(), 'the identity path');
  assert.equal(await root.locator('[data-action=next]').isHidden(), true);
  await page.keyboard.press('g');
  await page.waitForFunction(() => window.__resnorm.quiz.session.answered === 2);
  assert.equal(await root.locator('[data-action=next]').textContent(), 'Finish');
  assert.equal(await page.evaluate(() => localStorage.length), 0, 'the embed stored nothing');
  assert.equal(await page.evaluate(() => window.__resnorm.quiz.session.correct), 2);
  await done(page);
});
