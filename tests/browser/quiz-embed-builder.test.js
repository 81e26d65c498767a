// The quiz page's "Embed questions…" dialog (web/src/embed/quiz-builder.js): a choice by
// section and one by one, its snippets (ids, or the section when it is whole), the live preview,
// the element snippet on a host page, copying, the SCORM download, the snippet's height at a
// 420 px column (with a self-graded question's answer box), the grading (self-graded answers
// counted or not, the pass mark) in the snippets and the package, the keyboard, 360 px and the
// dark theme, and the embed's answer box.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHOTS, downloadBytes, overlaps, pageIn, useBrowser } from './harness.js';
import { useSiteCopy } from './site-copy.js';
import { startServer } from '../../scripts/serve.js';
import { parseHash } from '../../web/src/shared/state.js';

const env = useBrowser();
const site = useSiteCopy({ base: '/course/' });

const bank = JSON.parse(readFileSync(new URL('../../web/src/quiz/bank.json', import.meta.url), 'utf8'));
const idsOf = (pred) => bank.items.filter(pred).map((it) => it.id);

async function openBuilder(options = {}) {
  const context = await env.browser.newContext({
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    ...options,
  });
  const page = await pageIn(context, `${site.url}quiz.html`);
  await page.locator('#embed-questions').click();
  await page.locator('dialog.quiz-embed-dialog').waitFor();
  return { context, page };
}

const snippetSrc = (snippet) => /<iframe src="([^"]+)"/.exec(snippet)[1].replaceAll('&amp;', '&');
const fragmentOf = (snippet) => parseHash(new URL(snippetSrc(snippet)).hash, { groups: ['view', 'quiz'] });
const checkedIds = (page) =>
  page.locator('#quiz-embed-items input[type=checkbox]:checked').evaluateAll((bs) => bs.map((b) => b.value));
const previewFrame = (page) => page.frames().find((f) => f.parentFrame() && f.url().includes('embed.html#mode=quiz'));

test('a section with one question unchecked: the snippets list the checked ids, the preview shows the first, the element renders them, copy and SCORM', async () => {
  const { context, page } = await openBuilder({ permissions: ['clipboard-read', 'clipboard-write'] });
  const dialog = page.locator('dialog.quiz-embed-dialog');
  assert.equal(await dialog.isVisible(), true);
  await page.locator('#quiz-embed-section').selectOption('why');
  const why = idsOf((it) => it.section === 'why');
  assert.deepEqual(await checkedIds(page), why, 'a new section starts with all its questions checked');
  // the checklist shows each question's id and its prompt
  const first = page.locator('#quiz-embed-items li').first();
  assert.match(await first.textContent(), /^why-01\s*Why does the/);
  await page.locator('#quiz-embed-items input[value="why-02"]').uncheck();
  const chosen = await checkedIds(page);
  assert.deepEqual(
    chosen,
    why.filter((id) => id !== 'why-02'),
  );
  assert.match(
    await page.locator('#quiz-embed-count').textContent(),
    new RegExp(`^${chosen.length} of ${why.length} `),
  );

  const iframe = await page.locator('#quiz-embed-iframe').inputValue();
  const element = await page.locator('#quiz-embed-element').inputValue();
  const state = fragmentOf(iframe);
  assert.equal(state.view.mode, 'quiz');
  assert.deepEqual(state.quiz.items, chosen);
  assert.deepEqual(state.quiz.section, []);
  assert.deepEqual(state.notices, []);
  assert.ok(snippetSrc(iframe).startsWith(`${site.url}embed.html#`), 'the snippet keeps the site\u2019s sub-path');
  assert.match(
    iframe,
    / data-resnorm title="resnorm quiz: 6 questions" width="100%" height="\d+" loading="lazy"><\/iframe>\n/,
  );
  assert.match(iframe, new RegExp(`<script src="${site.url}resnorm-iframe\\.js" defer></script>$`));
  assert.match(element, new RegExp(`^<script type="module" src="${site.url}resnorm-embed\\.js"></script>\n`));
  assert.match(element, new RegExp(`<resnorm-quiz items="${chosen.join(',')}">\n {2}<p>Loading the resnorm quiz… `));

  // the preview: the embed with the chosen questions, the first one shown
  await page.waitForFunction((ids) => {
    const f = document.querySelector('#quiz-embed-preview');
    const r = f?.contentWindow?.__resnorm;
    return r?.quiz && JSON.stringify(r.quiz.items) === JSON.stringify(ids);
  }, chosen);
  const preview = previewFrame(page);
  assert.equal(await preview.evaluate(() => window.__resnorm.quiz.current), chosen[0]);
  assert.match(
    await preview.locator('#embed').locator('.quiz-prompt').textContent(),
    /Why does the \+1 term specifically prevent vanishing gradients/,
  );

  // copy: the clipboard holds the textarea's text
  await dialog.locator('button', { hasText: 'Copy iframe snippet' }).click();
  await page.waitForFunction(() =>
    /Copied the iframe snippet/.test(document.querySelector('.quiz-embed-dialog .embed-status').textContent),
  );
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), iframe);
  await dialog.locator('button', { hasText: 'Copy web component snippet' }).click();
  await page.waitForFunction(() =>
    /Copied the web component snippet/.test(document.querySelector('.quiz-embed-dialog .embed-status').textContent),
  );
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), element);

  // SCORM 2004: a download of a .zip whose bytes start with PK
  assert.equal(await page.locator('#quiz-embed-scorm-title').inputValue(), 'resnorm quiz: 6 questions');
  await page.locator('#quiz-embed-scorm-version').selectOption('2004');
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#quiz-embed-scorm').click()]);
  assert.match(download.suggestedFilename(), /^resnorm-quiz-6-questions-scorm2004\.zip$/);
  const bytes = await downloadBytes(download);
  assert.equal(bytes.subarray(0, 2).toString('latin1'), 'PK');
  await page.waitForFunction(() =>
    /Downloaded .*\.zip/.test(document.querySelector('.quiz-embed-dialog .embed-status').textContent),
  );
  await page.screenshot({ path: `${SHOTS}/quiz-embed-builder.png` });
  assert.deepEqual(page.problems, []);

  // the element snippet on a page of the site's origin renders those questions
  writeFileSync(
    join(site.dir, 'examples', 'builder-element.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>element</title><link rel="icon" href="data:,"></head><body>\n${element}\n</body></html>`,
  );
  const host = await pageIn(context, `${site.url}examples/builder-element.html`, { ready: false });
  await host.waitForFunction(() => document.querySelector('resnorm-quiz')?.snapshot?.quiz);
  const quiz = await host.evaluate(() => document.querySelector('resnorm-quiz').snapshot.quiz);
  assert.deepEqual(quiz.items, chosen);
  assert.equal(quiz.current, chosen[0]);
  assert.equal(await host.locator('resnorm-quiz > p').isVisible(), false, 'the fallback text stays hidden');
  assert.deepEqual(host.problems, []);

  // the iframe snippet on a host page on another origin
  const hostDir = mkdtempSync(join(tmpdir(), 'resnorm-builder-host-'));
  writeFileSync(
    join(hostDir, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,"></head><body>\n${iframe}\n</body></html>`,
  );
  const origin = site.origin;
  const other = await startServer({
    port: 0,
    root: hostDir,
    csp: `default-src 'self'; img-src data:; script-src 'self' ${origin}; frame-src ${origin}`,
  });
  const hostPage = await pageIn(context, `http://127.0.0.1:${other.address().port}/`, { ready: false });
  const embedFrame = await (await hostPage.$('iframe')).contentFrame();
  await embedFrame.waitForFunction(() => window.__resnorm?.quiz);
  assert.deepEqual(await embedFrame.evaluate(() => window.__resnorm.quiz.items), chosen);
  // resnorm-iframe.js sizes it to what the embed reports
  const reported = await embedFrame.evaluate(() =>
    Math.ceil(document.getElementById('embed').getBoundingClientRect().height),
  );
  await hostPage.waitForFunction((h) => Number(document.querySelector('iframe').height) === h, reported);
  assert.deepEqual(hostPage.problems, []);
  await new Promise((ok) => other.close(ok));
  rmSync(hostDir, { recursive: true, force: true });
  await context.close();
});

test('a whole section or topic is written as section= / tag=, the whole bank as no field; no question is refused', async () => {
  const { context, page } = await openBuilder();
  const iframe = () => page.locator('#quiz-embed-iframe').inputValue();
  const element = () => page.locator('#quiz-embed-element').inputValue();
  // the whole bank
  assert.deepEqual(
    await checkedIds(page),
    idsOf(() => true),
  );
  assert.equal(snippetSrc(await iframe()), `${site.url}embed.html#mode=quiz`);
  assert.match(await element(), /<resnorm-quiz>\n/);
  // a whole section
  await page.locator('#quiz-embed-section').selectOption('rapid-fire');
  assert.equal(snippetSrc(await iframe()), `${site.url}embed.html#mode=quiz&section=rapid-fire`);
  assert.match(await element(), /<resnorm-quiz section="rapid-fire">\n/);
  assert.match(await page.locator('.quiz-embed-describe').textContent(), /name the section/);
  // section and topic
  await page.locator('#quiz-embed-tag').selectOption('warmup');
  assert.deepEqual(
    await checkedIds(page),
    idsOf((it) => it.section === 'rapid-fire' && it.tags.includes('warmup')),
  );
  assert.equal(snippetSrc(await iframe()), `${site.url}embed.html#mode=quiz&section=rapid-fire&tag=warmup`);
  // a topic alone, with the theme
  await page.locator('#quiz-embed-section').selectOption('');
  await page.locator('#quiz-embed-theme').selectOption('dark');
  assert.equal(snippetSrc(await iframe()), `${site.url}embed.html#mode=quiz&theme=dark&tag=warmup`);
  assert.match(await element(), /<resnorm-quiz tag="warmup" theme="dark">\n/);
  // none: refused, nothing to copy or download; all again
  await page.locator('button', { hasText: 'Select none' }).click();
  assert.equal(await page.locator('.quiz-embed-dialog .embed-refusal').isVisible(), true);
  assert.equal(await iframe(), '');
  assert.equal(await element(), '');
  for (const name of ['Copy iframe snippet', 'Copy web component snippet', 'Download SCORM package'])
    assert.equal(await page.locator('.quiz-embed-dialog button', { hasText: name }).isDisabled(), true, name);
  assert.equal(await page.locator('#quiz-embed-preview').isVisible(), false);
  await page.locator('button', { hasText: 'Select all' }).click();
  assert.equal(await page.locator('.quiz-embed-dialog .embed-refusal').isVisible(), false);
  assert.equal(snippetSrc(await iframe()), `${site.url}embed.html#mode=quiz&theme=dark&tag=warmup`);
  // one question alone: its id
  await page.locator('button', { hasText: 'Select none' }).click();
  const one = idsOf((it) => it.tags.includes('warmup'))[1];
  await page.locator(`#quiz-embed-items input[value="${one}"]`).check();
  assert.equal(snippetSrc(await iframe()), `${site.url}embed.html#mode=quiz&theme=dark&items=${one}`);
  assert.match(await iframe(), /title="resnorm quiz: 1 question"/);
  assert.deepEqual(page.problems, []);
  await context.close();
});

test('the dialog starts at the page\u2019s section and topic, keeps the focus inside, and Escape closes it', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await pageIn(context, `${site.url}quiz.html`);
  await page.locator('#filter-section').selectOption('edge-cases');
  await page.locator('#embed-questions').focus();
  await page.keyboard.press('Enter');
  const dialog = page.locator('dialog.quiz-embed-dialog');
  await dialog.waitFor();
  assert.equal(await page.locator('#quiz-embed-section').inputValue(), 'edge-cases');
  assert.deepEqual(
    await checkedIds(page),
    idsOf((it) => it.section === 'edge-cases'),
  );
  // Tab and Shift+Tab never leave the dialog (the page behind it is inert)
  for (const key of [...Array(40).fill('Tab'), ...Array(10).fill('Shift+Tab')]) {
    await page.keyboard.press(key);
    const inside = await page.evaluate(() => {
      const a = document.activeElement;
      return a === document.body || a.closest('dialog.quiz-embed-dialog') !== null;
    });
    assert.ok(inside, `focus left the dialog after ${key}`);
  }
  // a checkbox by keyboard
  await page.locator('#quiz-embed-items input').first().focus();
  await page.keyboard.press('Space');
  assert.equal((await checkedIds(page)).length, idsOf((it) => it.section === 'edge-cases').length - 1);
  await page.keyboard.press('Escape');
  assert.equal(await dialog.isVisible(), false);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'embed-questions');
  // opened again, it keeps the author's choice
  await page.keyboard.press('Enter');
  assert.equal((await checkedIds(page)).length, idsOf((it) => it.section === 'edge-cases').length - 1);
  assert.deepEqual(page.problems, []);
  await context.close();
});

test('at 360 px and in the dark theme the dialog fits the screen', async () => {
  for (const [name, options] of [
    ['phone', { viewport: { width: 360, height: 780 } }],
    ['dark', { viewport: { width: 1280, height: 900 }, colorScheme: 'dark' }],
    ['phone-dark', { viewport: { width: 360, height: 780 }, colorScheme: 'dark' }],
  ]) {
    const { context, page } = await openBuilder(options);
    await page.locator('#quiz-embed-section').selectOption('true-false');
    await page.locator('#quiz-embed-items input[value="tf-03"]').uncheck();
    await page.waitForFunction(() => document.querySelector('#quiz-embed-preview').contentWindow.__resnorm?.quiz);
    const fit = await page.evaluate(() => {
      const d = document.querySelector('dialog.quiz-embed-dialog');
      const r = d.getBoundingClientRect();
      return {
        page: document.documentElement.scrollWidth,
        inner: d.scrollWidth - d.clientWidth,
        left: r.left,
        right: r.right,
      };
    });
    const width = options.viewport.width;
    assert.ok(fit.page <= width, `${name}: the page scrolls sideways (${fit.page} px)`);
    assert.equal(fit.inner, 0, `${name}: the dialog scrolls sideways`);
    assert.ok(fit.left >= 0 && fit.right <= width, `${name}: the dialog is off screen`);
    if (options.colorScheme === 'dark') {
      const colors = await page.evaluate(() => {
        const d = document.querySelector('dialog.quiz-embed-dialog');
        const preview = document.querySelector('#quiz-embed-preview').contentWindow;
        return {
          dialog: getComputedStyle(d).backgroundColor,
          list: getComputedStyle(document.querySelector('.quiz-embed-list')).backgroundColor,
          preview: preview.document.getElementById('embed').shadowRoot.querySelector('.rn').dataset.theme,
        };
      });
      const dark = (rgb) =>
        rgb
          .match(/\d+/g)
          .slice(0, 3)
          .every((v) => Number(v) < 80);
      assert.ok(dark(colors.dialog) && dark(colors.list), `${name}: ${JSON.stringify(colors)}`);
      assert.equal(colors.preview, 'dark', 'the preview follows the page\u2019s theme');
    }
    await page.screenshot({ path: `${SHOTS}/quiz-embed-builder-${name}.png` });
    // the grading fields, with a pass mark refused
    await page.locator('#quiz-embed-pass-mark').fill('101');
    await page.locator('.quiz-embed-grading').scrollIntoViewIfNeeded();
    const grading = await page.locator('.quiz-embed-grading').evaluate((f) => ({
      inner: f.scrollWidth - f.clientWidth,
      right: f.getBoundingClientRect().right,
    }));
    assert.equal(grading.inner, 0, `${name}: the grading fields scroll sideways`);
    assert.ok(grading.right <= width, `${name}: the grading fields are off screen`);
    await page.screenshot({ path: `${SHOTS}/quiz-embed-builder-${name}-grading.png` });
    await page.locator('#quiz-embed-pass-mark').fill('80');
    await page.locator('dialog.quiz-embed-dialog').evaluate((d) => (d.scrollTop = d.scrollHeight));
    await page.screenshot({ path: `${SHOTS}/quiz-embed-builder-${name}-end.png` });
    assert.deepEqual(page.problems, []);
    await context.close();
  }
});

// Without resnorm-iframe.js the iframe keeps the snippet's height: at a 420 px column it must hold
// the tallest chosen question with its answer revealed, and leave at most a quarter of it empty.
const HEIGHT_CASES = [
  ['the shortest answer', (p) => p.locator('#quiz-embed-items input[value="recall-01"]').check()],
  ['a true/false question', (p) => p.locator('#quiz-embed-items input[value="tf-01"]').check()],
  ['a display formula', (p) => p.locator('#quiz-embed-items input[value="rapid-01"]').check()],
  ['the longest answer', (p) => p.locator('#quiz-embed-items input[value="rapid-08"]').check()],
  ['a whole section', (p) => p.locator('#quiz-embed-section').selectOption('recall')],
];

test('without the script the quiz snippet height holds each chosen question revealed at a 420 px column, within 25%', async (t) => {
  const { context, page } = await openBuilder();
  const column = await context.newPage();
  await column.setViewportSize({ width: 480, height: 900 });
  for (const [name, choose] of HEIGHT_CASES) {
    await page.locator('#quiz-embed-section').selectOption('');
    await page.locator('button', { hasText: 'Select none' }).click();
    if (name === 'a whole section') await page.locator('button', { hasText: 'Select all' }).click();
    await choose(page);
    const snippet = await page.locator('#quiz-embed-iframe').inputValue();
    const height = Number(/ height="(\d+)"/.exec(snippet)[1]);
    const ids = fragmentOf(snippet).quiz;
    await column.setContent(`<div style="width: 420px">${snippet.split('\n')[0]}</div>`);
    const frame = await (await column.$('iframe')).contentFrame();
    await frame.waitForFunction(() => window.__resnorm?.quiz);
    const items = await frame.evaluate(() => window.__resnorm.quiz.items);
    assert.ok(items.length > 0, name);
    assert.ok(ids.items.length || ids.section.length, name);
    const root = frame.locator('#embed');
    let tallest = 0;
    let inner = 0;
    for (const id of items) {
      const item = root.locator(`.quiz-item[data-id="${id}"]`);
      if ((await item.getAttribute('data-type')) === 'true-false')
        await item.locator('button[data-choice="true"]').click();
      else {
        await item.locator('button[data-action="reveal"]').click();
        await item.locator('button[data-action="got-it"]').click();
      }
      await frame.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
      const m = await frame.evaluate(() => ({
        content: Math.ceil(document.getElementById('embed').getBoundingClientRect().height),
        scroll: document.documentElement.scrollHeight,
        client: document.documentElement.clientHeight,
      }));
      tallest = Math.max(tallest, m.content);
      inner = Math.max(inner, m.scroll - m.client);
      assert.equal(m.client, height, `${name}: the iframe's inside is the snippet's height`);
      await item.locator('button[data-action="next"]').click();
    }
    t.diagnostic(
      `${name}: tallest ${tallest} px, snippet ${height} px (${Math.round((100 * (height - tallest)) / tallest)}% over)`,
    );
    assert.equal(inner, 0, `${name}: a scrollbar inside the iframe`);
    assert.ok(tallest <= height, `${name}: ${tallest} px does not fit ${height} px`);
    assert.ok(height <= 1.25 * tallest, `${name}: ${height} px is more than 25% above ${tallest} px`);
  }
  assert.deepEqual(page.problems, []);
  await context.close();
});

const unzipFile = (bytes, name) => {
  const dir = mkdtempSync(join(tmpdir(), 'resnorm-builder-zip-'));
  const zip = join(dir, 'p.zip');
  writeFileSync(zip, bytes);
  try {
    return execFileSync('unzip', ['-p', zip, name], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

test('grading: self-graded answers counted or not and the pass mark go into the snippets, the preview and the SCORM package; a bad pass mark is named', async () => {
  const { context, page } = await openBuilder({ acceptDownloads: true });
  const iframe = () => page.locator('#quiz-embed-iframe').inputValue();
  const element = () => page.locator('#quiz-embed-element').inputValue();
  const note = () => page.locator('#quiz-embed-grading-note').textContent();
  // the warmup topic: 2 true/false questions and 4 open ones
  await page.locator('#quiz-embed-tag').selectOption('warmup');
  assert.equal(await page.locator('#quiz-embed-self-graded').inputValue(), 'exclude', 'left out by default');
  assert.equal(await page.locator('#quiz-embed-pass-mark').inputValue(), '80');
  assert.equal(
    await note(),
    'The score counts the 2 questions marked automatically; the 4 self-graded ones are recorded (what was written, "I got it" or "I missed it") but not counted. To pass: 2 of 2 right.',
  );
  assert.equal(snippetSrc(await iframe()), `${site.url}embed.html#mode=quiz&tag=warmup`, 'defaults write no field');

  // counted, at 50 %: in both snippets and the preview
  await page.locator('#quiz-embed-self-graded').selectOption('count');
  await page.locator('#quiz-embed-pass-mark').fill('50');
  assert.equal(snippetSrc(await iframe()), `${site.url}embed.html#mode=quiz&tag=warmup&self_graded=count&pass_mark=50`);
  assert.deepEqual(fragmentOf(await iframe()).notices, []);
  assert.match(await element(), /<resnorm-quiz tag="warmup" self-graded="count" pass-mark="50">\n/);
  assert.equal(
    await note(),
    'The score counts all 6 questions, 4 of them as the learner grades them. To pass: 3 of 6 right.',
  );
  await page.waitForFunction(() => {
    const r = document.querySelector('#quiz-embed-preview').contentWindow.__resnorm?.quiz;
    return r?.score?.passMark === 50 && r.score.max === 6;
  });

  // out of range, not a number, empty: named beside the field, nothing to copy or download
  const error = page.locator('#quiz-embed-pass-mark-error');
  for (const [typed, reason] of [
    ['120', 'Pass mark (%): out of range (allowed 0..100).'],
    ['-1', 'Pass mark (%): out of range (allowed 0..100).'],
    ['62.5', 'Pass mark (%): not a whole number; allowed: a whole number 0..100.'],
    ['eighty', 'Pass mark (%): not a number; allowed: a whole number 0..100.'],
    ['', 'Pass mark (%): empty; allowed: a whole number 0..100.'],
  ]) {
    await page.locator('#quiz-embed-pass-mark').fill(typed);
    assert.equal(await error.isVisible(), true, typed);
    assert.equal(await error.textContent(), reason);
    assert.equal(await page.locator('#quiz-embed-pass-mark').getAttribute('aria-invalid'), 'true');
    assert.equal(await iframe(), '', `${typed}: a snippet was written`);
    assert.equal(await element(), '');
    for (const name of ['Copy iframe snippet', 'Copy web component snippet', 'Download SCORM package'])
      assert.equal(await page.locator('.quiz-embed-dialog button', { hasText: name }).isDisabled(), true, name);
  }
  await page.screenshot({ path: `${SHOTS}/quiz-embed-builder-pass-mark-error.png` });
  await page.locator('#quiz-embed-pass-mark').fill('90');
  assert.equal(await error.isVisible(), false);
  assert.equal(await page.locator('#quiz-embed-pass-mark').getAttribute('aria-invalid'), null);
  assert.match(snippetSrc(await iframe()), /&self_graded=count&pass_mark=90$/);

  // the SCORM package carries the same: the manifest's mastery score and the launch page's settings
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#quiz-embed-scorm').click()]);
  const bytes = await downloadBytes(download);
  assert.match(unzipFile(bytes, 'imsmanifest.xml'), /<adlcp:masteryscore>90<\/adlcp:masteryscore>/);
  assert.match(unzipFile(bytes, 'scorm.html'), /self_graded=count&amp;pass_mark=90&amp;/);
  await page.waitForFunction(() =>
    /Downloaded .*pass mark 90 %/.test(document.querySelector('.quiz-embed-dialog .embed-status').textContent),
  );

  // only open questions, left out: no score, so the package has no pass mark
  await page.locator('#quiz-embed-self-graded').selectOption('exclude');
  await page.locator('#quiz-embed-section').selectOption('why');
  assert.match(await note(), /^None of these questions is marked automatically: .*no score/);
  await page.locator('#quiz-embed-scorm-version').selectOption('2004');
  const [none] = await Promise.all([page.waitForEvent('download'), page.locator('#quiz-embed-scorm').click()]);
  const manifest = unzipFile(await downloadBytes(none), 'imsmanifest.xml');
  assert.doesNotMatch(manifest, /minNormalizedMeasure/);
  await page.waitForFunction(() =>
    /Downloaded .*no pass mark/.test(document.querySelector('.quiz-embed-dialog .embed-status').textContent),
  );
  assert.deepEqual(page.problems, []);
  await context.close();
});

test('the embed\u2019s answer box at 360 px dark and on a desktop: labelled, its text quoted once revealed, no overlap; hostile grading values are named', async () => {
  for (const [name, options] of [
    ['phone-dark', { viewport: { width: 360, height: 780 }, colorScheme: 'dark' }],
    ['desktop', { viewport: { width: 1280, height: 900 } }],
  ]) {
    const context = await env.browser.newContext(options);
    const hash = `mode=quiz&items=why-06,tf-07&pass_mark=${encodeURIComponent('<b>150</b>')}&self_graded=all`;
    const page = await pageIn(context, `${site.url}embed.html#${hash}`);
    const root = page.locator('#embed');
    const notice = await root.locator('.notice').textContent();
    assert.match(notice, /Pass mark \(%\) \(pass_mark\) “<b>150<\/b>”: not a number; the default is used/);
    assert.match(
      notice,
      /Self-graded answers in the score \(self_graded\) “all”: not one of the choices \(allowed exclude, count\)/,
    );
    assert.equal(await root.locator('b').count(), 0, 'the value is shown as text');
    const box = root.locator('textarea.answer-text');
    assert.equal(await root.locator('label[for="answer-why-06"]').textContent(), 'Your answer');
    assert.equal(await box.getAttribute('maxlength'), '4000');
    await box.fill('Warmup keeps the early Adam steps small while the second moments are still noisy.');
    assert.deepEqual(await overlaps(page, '#embed'), [], `${name}: before reveal`);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= options.viewport.width);
    await page.screenshot({ path: `${SHOTS}/quiz-embed-answer-box-${name}.png`, fullPage: true });
    await root.locator('button[data-action="reveal"]').click();
    await root.locator('button[data-action="got-it"]').click();
    assert.match(await root.locator('.your-answer-text').textContent(), /^Warmup keeps the early Adam steps/);
    assert.deepEqual(await overlaps(page, '#embed'), [], `${name}: revealed`);
    await page.screenshot({ path: `${SHOTS}/quiz-embed-answer-box-${name}-revealed.png`, fullPage: true });
    const score = await page.evaluate(() => window.__resnorm.quiz.score);
    assert.deepEqual([score.raw, score.max, score.passMark], [0, 1, 80], 'the defaults: not counted, 80 %');
    assert.match(
      await root.locator('.quiz-head').textContent(),
      /pass mark 80 %.*Score 0 of 1 · 1 self-assessed answer, not counted/,
    );
    assert.deepEqual(page.problems, []);
    await context.close();
  }
});
