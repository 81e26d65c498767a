// Printing, in Debian's Chromium: the quiz page prints a worksheet (the questions of the chosen
// scope, then the answer key from a new page), the explorer prints one page with the charts, the
// caption and the settings. Each page is printed to PDF under print media and read back with
// poppler (pdfinfo, pdftotext, pdftoppm): page count, text per page, and no dark paper in the dark
// theme. The PDFs and a PNG of each page are left in test-results/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { STRICT_CSP, openPage, served, useBrowser } from './harness.js';
import { darkShare, pageCount, pageTexts, printToPdf, squash } from './pdf.js';
import { ARCHS } from '../../web/src/shared/archs.js';
import { CONTROLS, FIELDS } from '../../web/src/shared/state.js';
import { fieldApplies } from '../../web/src/shared/fields.js';
import { printChartSize } from '../../web/src/explorer/print.js';

const rawBank = JSON.parse(readFileSync(new URL('../../web/src/quiz/bank.json', import.meta.url), 'utf8'));
const it = useBrowser();

async function done(page) {
  assert.deepEqual(page.problems, [], page.problems.join('\n'));
  await page.context().close();
}

// ---- the quiz worksheet

/** The words a prompt starts with, before any math or markup: what the printed text must hold. */
const firstWords = (prompt) =>
  prompt
    .split(/\\\(|\\\[|\*\*|`/)[0]
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 4)
    .join(' ');

/** Checks a worksheet PDF for `items`: questions first, then the key on pages of its own. */
function checkWorksheet(pdf, items) {
  const pages = pageTexts(pdf).map(squash);
  assert.ok(pages.length >= 2, `${pages.length} pages`);
  const keyPage = pages.findIndex((t) => t.includes('Answer key'));
  assert.ok(keyPage > 0, 'the answer key is not on the first page');
  const questions = pages.slice(0, keyPage).join(' ');
  const key = pages.slice(keyPage).join(' ');
  assert.ok(!pages[0].includes('Answer key'));
  let last = -1;
  items.forEach((item, i) => {
    const words = firstWords(item.prompt);
    assert.ok(words.length > 0, item.id);
    const at = pages.findIndex((t) => t.includes(`${i + 1}. `) && t.includes(words));
    assert.ok(at >= 0 && at < keyPage, `question ${i + 1} (${item.id}, "${words}") on a page before the key`);
    last = Math.max(last, at);
    // its number in the key, with its id
    assert.match(key, new RegExp(`(^| )${i + 1}\\. `), `number ${i + 1} in the key`);
    assert.ok(key.includes(item.id), `${item.id} in the key`);
  });
  assert.ok(last < keyPage, 'the key comes after every question');
  assert.ok(!questions.includes('Answer key'));
  return { pages, keyPage };
}

test('the quiz: "Print worksheet" for one section in the dark theme prints its questions, then the key on a new page', () =>
  served({ csp: STRICT_CSP }, async (url) => {
    const page = await openPage(it.browser, `${url}quiz.html#quiz`, { colorScheme: 'dark' });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await page.locator('#filter-section').selectOption('why');
    await page.locator('#export-scope').selectOption('filter');
    // the print dialog is the browser's: count the calls instead
    await page.evaluate(() => {
      window.__printed = 0;
      window.print = () => window.__printed++;
    });
    await page.locator('#print-worksheet').click();
    assert.equal(await page.evaluate(() => window.__printed), 1);
    const items = rawBank.items.filter((x) => x.section === 'why');
    assert.equal(items.length, 7);
    assert.match(await page.locator('#export-status').textContent(), /7 questions/);
    // on screen the worksheet is not shown
    assert.equal(await page.locator('.worksheet').isVisible(), false);
    assert.deepEqual(
      await page.locator('.ws-question').evaluateAll((n) => n.map((x) => x.dataset.id)),
      items.map((x) => x.id),
    );

    await page.emulateMedia({ media: 'print' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    const look = await page.evaluate(() => ({
      theme: document.documentElement.dataset.theme,
      body: getComputedStyle(document.body).backgroundColor,
      text: getComputedStyle(document.querySelector('.ws-prompt')).color,
      shown: [...document.body.children].filter((n) => getComputedStyle(n).display !== 'none').map((n) => n.className),
    }));
    assert.equal(look.theme, 'light');
    assert.equal(look.body, 'rgb(255, 255, 255)');
    assert.equal(look.text, 'rgb(0, 0, 0)');
    assert.deepEqual(look.shown, ['worksheet print-only']);
    const pdf = await printToPdf(page, 'quiz-why', 'A4');
    const { pages, keyPage } = checkWorksheet(pdf, items);
    assert.ok(pages[0].includes('7 questions: Why'));
    // math as on screen (MathML, not TeX), no page chrome
    assert.ok(!pages.join(' ').includes('\\('));
    for (const chrome of ['Question bank', 'Norm panel', 'Download Moodle GIFT', 'Print worksheet', 'Dismiss'])
      assert.ok(!pages.join(' ').includes(chrome), chrome);
    // white paper in the dark theme, with the background printed
    for (const n of [1, keyPage + 1]) assert.ok(darkShare(pdf, n) < 0.1, `page ${n}: ${darkShare(pdf, n)}`);

    // after the print, the page is dark again
    await page.emulateMedia({ media: 'screen' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await done(page);
  }));

// page.pdf() alone, as Ctrl+P: the page hears beforeprint and afterprint, no print media emulated.
test('the quiz: Ctrl+P without the button, on the norm panel, prints the worksheet of the whole bank', () =>
  served({ csp: STRICT_CSP }, async (url) => {
    const page = await openPage(it.browser, `${url}quiz.html#norm`);
    const pdf = await printToPdf(page, 'quiz-all', 'Letter');
    const { pages } = checkWorksheet(pdf, rawBank.items);
    assert.ok(pages[0].includes('the whole bank, 44 questions'));
    assert.ok(!pages.join(' ').includes('Norm panel'));
    // true/false items offer both boxes; the others have no boxes
    assert.equal(await page.locator('.ws-question[data-id="tf-01"] .ws-box').count(), 2);
    assert.equal(await page.locator('.ws-question[data-id="why-01"] .ws-box').count(), 0);
    assert.ok((await page.locator('.ws-question[data-id="why-01"] .ws-line').count()) >= 2);
    await done(page);
  }));

// ---- the explorer

const ONE_PAGE = [
  { name: 'default', hash: '#depth=48', format: 'A4' },
  { name: 'default-letter', hash: '#depth=48', format: 'Letter' },
  { name: 'dark', hash: '#depth=48&gain=0.8', format: 'A4', dark: true },
  { name: 'dark-letter', hash: '#depth=48&gain=0.8', format: 'Letter', dark: true },
  {
    name: 'transformer',
    hash: '#arch=post_ln,pre_ln,admin&block=transformer&heads=2&causal=false&depth=24',
    format: 'A4',
    expect: ['Block transformer', 'Heads 2', 'Causal mask none'],
  },
  {
    name: 'transformer-letter',
    hash: '#arch=post_ln,pre_ln,admin&block=transformer&heads=2&depth=24',
    format: 'Letter',
    expect: ['Block transformer', 'Heads 2', 'Causal mask causal'],
  },
  { name: 'every-arch', hash: `#depth=48&arch=${ARCHS.map((a) => a.key).join(',')}`, format: 'A4' },
  {
    name: 'mix-ln',
    hash: '#arch=post_ln,pre_ln,mix_ln&mix_fraction=0.5&depth=24',
    format: 'Letter',
    expect: ['Mix-LN Post-LN share 0.50'],
  },
];

/** What the printed settings must say for `config`: each field's label and value (of the fields its architectures read). */
function expectedSettings(config) {
  return FIELDS.filter((f) => fieldApplies(CONTROLS[f], config)).map((f) => {
    const c = CONTROLS[f];
    const v = config[f];
    let text = String(v);
    if (f === 'arch') text = v.map((k) => ARCHS.find((a) => a.key === k).label).join(', ');
    else if (c.names) text = c.names[v];
    else if (c.kind === 'real') text = v.toFixed(2);
    return `${c.label} ${text}`;
  });
}

for (const { name, hash, format, dark = false, expect = [] } of ONE_PAGE)
  test(`the explorer prints on one ${format} page: charts, caption, settings (${name})`, () =>
    served({}, async (url) => {
      const page = await openPage(it.browser, `${url}index.html${hash}`, dark ? { colorScheme: 'dark' } : {});
      const screen = await page.evaluate(() => ({
        theme: document.documentElement.dataset.theme,
        config: window.__resnorm.config,
        renders: window.__resnorm.renders,
        width: document.querySelector('#chart-grad canvas').getBoundingClientRect().width,
        caption: document.getElementById('caption').textContent,
        // each title's words around its math
        titles: [...document.querySelectorAll('.chart-title')].map((t) =>
          [...t.childNodes]
            .filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim())
            .map((n) => n.textContent.trim()),
        ),
      }));
      assert.equal(screen.theme, dark ? 'dark' : 'light');
      assert.equal(screen.titles.length, 3);

      await page.emulateMedia({ media: 'print' });
      const size = printChartSize(screen.config.arch.length);
      // the charts are redrawn for paper, in the light theme's colours
      await page.waitForFunction(
        ([n, w]) =>
          window.__resnorm.renders > n &&
          [...document.querySelectorAll('.chart canvas')].every((c) => c.getBoundingClientRect().width === w),
        [screen.renders, size.width],
      );
      const printed = await page.evaluate(() => {
        const charts = [...document.querySelectorAll('.chart')].map((box) => {
          const canvas = box.querySelector('canvas');
          const b = box.getBoundingClientRect();
          const r = canvas.getBoundingClientRect();
          const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
          let inked = 0;
          for (let i = 3; i < px.length; i += 4) if (px[i] > 0) inked++;
          return {
            inside: r.left >= b.left && r.right <= b.right + 0.5 && r.top >= b.top && r.bottom <= b.bottom + 0.5,
            width: r.width,
            height: r.height,
            inked: inked / (canvas.width * canvas.height),
          };
        });
        return {
          theme: document.documentElement.dataset.theme,
          body: getComputedStyle(document.body).backgroundColor,
          charts,
        };
      });
      assert.equal(printed.theme, 'light');
      assert.equal(printed.body, 'rgb(255, 255, 255)');
      for (const c of printed.charts) {
        assert.ok(c.inside, `a chart is cut off: ${JSON.stringify(c)}`);
        assert.equal(c.height, size.height);
        assert.ok(c.inked > 0.01, `a blank chart: ${JSON.stringify(c)}`);
      }

      const pdf = await printToPdf(page, `explorer-${name}`, format);
      assert.equal(pageCount(pdf), 1, `${name}: one page`);
      const text = squash(pageTexts(pdf)[0]);
      const flat = (s) => s.replace(/\s+/g, '');
      assert.ok(
        flat(text).includes(flat(screen.caption)),
        `the caption as on screen:\n${screen.caption}\n---\n${text}`,
      );
      for (const part of screen.titles.flat()) assert.ok(text.includes(part), part);
      for (const line of [...expectedSettings(screen.config), ...expect]) assert.ok(text.includes(line), line);
      assert.ok(text.includes(`Depth L ${screen.config.depth}`));
      // Mix-LN's share only where Mix-LN is drawn
      assert.equal(text.includes('Mix-LN Post-LN share'), screen.config.arch.includes('mix_ln'), 'Mix-LN share');
      // no controls, header, explanations or buttons on paper
      for (const chrome of ['Starting points', 'Show numbers', 'Embed', 'What is going on', 'Skip to', 'Values at'])
        assert.ok(!text.includes(chrome), chrome);
      assert.ok(darkShare(pdf, 1) < 0.1, `dark share ${darkShare(pdf, 1)}`);

      // after the print: the screen's theme and sizes again
      await page.emulateMedia({ media: 'screen' });
      await page.waitForFunction(
        (w) => document.querySelector('#chart-grad canvas').getBoundingClientRect().width === w,
        screen.width,
      );
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), screen.theme);
      await done(page);
    }));

test('the explorer in the dark theme printed as Ctrl+P does (beforeprint, afterprint): one light page, then dark again', () =>
  served({}, async (url) => {
    const page = await openPage(it.browser, `${url}index.html#depth=48`, { colorScheme: 'dark' });
    const before = await page.evaluate(() => ({
      renders: window.__resnorm.renders,
      width: document.querySelector('#chart-grad canvas').getBoundingClientRect().width,
    }));
    const pdf = await printToPdf(page, 'explorer-ctrl-p-dark', 'A4');
    assert.equal(pageCount(pdf), 1);
    assert.ok(darkShare(pdf, 1) < 0.1, `dark share ${darkShare(pdf, 1)}`);
    const text = squash(pageTexts(pdf)[0]);
    for (const line of ['Per layer, at initialization', 'Settings', 'Depth L 48', 'Gain g 1.00'])
      assert.ok(text.includes(line), line);
    // redrawn for paper and back: two more paints, at the screen's width, in the dark theme
    await page.waitForFunction((n) => window.__resnorm.renders >= n + 2, before.renders);
    const after = await page.evaluate(() => ({
      theme: document.documentElement.dataset.theme,
      width: document.querySelector('#chart-grad canvas').getBoundingClientRect().width,
    }));
    assert.deepEqual(after, { theme: 'dark', width: before.width });
    await done(page);
  }));
