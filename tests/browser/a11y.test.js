// Accessibility: axe-core (npm, pinned) on every page of the site in light and
// dark: the explorer (default and transformer blocks, numbers shown), the
// quiz's three areas and an answered item, an assignment and its form, the papers page once its panels
// show their verdicts, the training lab before and after a short run (one
// architecture diverging), embed.html (explorer, quiz and training lab), the SCORM launch page
// and the embedding guide's served examples (plain, events, lab, lms). No serious or critical violation.
// axe runs under the site's CSP: page.evaluate() goes through the DevTools
// protocol, which the page's policy does not govern, so no inline script is
// needed. The counts per page and theme are printed.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { SITE_CSP, pageIn, served, useBrowser } from './harness.js';

const it = useBrowser();
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const THEMES = ['light', 'dark'];
const counts = [];

/** axe's violations on `page`: {serious, critical, moderate, minor, list}. */
async function audit(page) {
  // in every frame, so axe.run() also reads the iframes of a host page
  for (const frame of page.frames())
    if (!(await frame.evaluate(() => typeof window.axe === 'object'))) await frame.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, {
      resultTypes: ['violations'],
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(1, 2)}`),
      count: v.nodes.length,
    }));
  });
  const by = { critical: 0, serious: 0, moderate: 0, minor: 0 };
  for (const v of violations) by[v.impact] = (by[v.impact] ?? 0) + v.count;
  return { ...by, list: violations };
}

async function check(page, name, theme) {
  // the theme's colour transitions have finished (axe reads the colours on screen)
  await page.waitForFunction(() =>
    document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState !== 'running'),
  );
  const r = await audit(page);
  counts.push(
    `${name.padEnd(34)} ${theme.padEnd(5)} critical ${r.critical} serious ${r.serious} moderate ${r.moderate} minor ${r.minor}`,
  );
  const bad = r.list.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.impact} ${v.id} (${v.count}): ${v.help}\n    ${v.nodes.join('\n    ')}`),
    [],
    `${name}, ${theme}`,
  );
  assert.deepEqual(page.problems, [], `${name}, ${theme}`);
}

/** For each theme, a page at `path` (the system's colour scheme picks the theme), then `steps`. */
async function eachTheme(url, path, steps) {
  for (const theme of THEMES) {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: theme });
    try {
      const page = await pageIn(context, url + path, { ready: false });
      await steps(page, theme);
    } finally {
      await context.close();
    }
  }
}

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');

test('axe: the explorer, default and with transformer blocks, numbers shown', () =>
  served({ csp: SITE_CSP }, async (url) => {
    await eachTheme(url, '', async (page, theme) => {
      await ready(page);
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), theme);
      await check(page, 'index.html', theme);
      await page.locator('#show-numbers').click();
      await check(page, 'index.html, numbers shown', theme);
      await page.evaluate(() => {
        location.hash = '#block=transformer&depth=24&heads=2';
      });
      await page.waitForFunction(() => window.__resnorm?.config.block === 'transformer');
      await check(page, 'index.html, transformer blocks', theme);
    });
  }));

test('axe: the quiz page, its three areas and an answered item', () =>
  served({ csp: SITE_CSP }, async (url) => {
    await eachTheme(url, 'quiz.html#quiz/tf-01', async (page, theme) => {
      await ready(page);
      await page.locator('.quiz-item[data-id="tf-01"]').waitFor();
      await check(page, 'quiz.html, question bank', theme);
      await page.locator('.choice[data-choice=false]').click();
      await page.locator('[data-action=reveal]').click();
      await page.locator('.item-graded').waitFor();
      await check(page, 'quiz.html, an item answered', theme);
      await page.locator('#tab-generated').click();
      await page.locator('#area-generated').waitFor();
      await check(page, 'quiz.html, generated', theme);
      await page.locator('#tab-norm').click();
      await page.locator('#area-norm').waitFor();
      await page.waitForFunction(() => Number(document.getElementById('token-norm')?.dataset.renders || 0) > 0);
      await check(page, 'quiz.html, norm panel', theme);
    });
  }));

test('axe: the papers page with every verdict shown', () =>
  served({ csp: SITE_CSP }, async (url) => {
    await eachTheme(url, 'papers.html', async (page, theme) => {
      await ready(page);
      await check(page, 'papers.html', theme);
    });
  }));

test('axe: the training lab, before and after a short run', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hash = '#task=copy&seq=2&vocab=4&depth=2&width=16&heads=2&batch=4&steps=12&log_every=3&optimizer=sgd&lr=5';
    await eachTheme(url, `train.html${hash}`, async (page, theme) => {
      await ready(page);
      await check(page, 'train.html', theme);
      await page.click('#train-start');
      await page.waitForFunction(() => window.__resnormTrain?.state === 'done');
      await check(page, 'train.html, after a run', theme);
    });
  }));

test('axe: embed.html, the explorer, the quiz and the training lab', () =>
  served({ csp: SITE_CSP }, async (url) => {
    for (const [name, hash] of [
      ['embed.html, explorer', '#depth=24&controls=all'],
      ['embed.html, transformer blocks', '#block=transformer&depth=12&charts=grad'],
      ['embed.html, quiz', '#mode=quiz&items=tf-01,why-03'],
      ['embed.html, training lab', '#mode=train&task=copy&lock=task,arch&controls=task,arch,lr,warmup,steps'],
    ])
      await eachTheme(url, `embed.html${hash}`, async (page, theme) => {
        await ready(page);
        await check(page, name, theme);
      });
  }));

test('axe: the SCORM launch page and the embedding examples', () =>
  served({ csp: SITE_CSP }, async (url) => {
    await eachTheme(url, 'scorm.html', async (page, theme) => {
      await page.locator('.quiz-item').first().waitFor();
      await check(page, 'scorm.html', theme);
    });
    for (const name of ['plain', 'events', 'lab', 'lms'])
      await eachTheme(url, `examples/${name}.html`, async (page, theme) => {
        // every element has drawn, and every iframe's embed is ready
        await page.waitForFunction(() =>
          [...document.querySelectorAll('resnorm-explorer, resnorm-quiz, resnorm-train')].every((e) =>
            e.shadowRoot?.querySelector('canvas, .quiz-item'),
          ),
        );
        for (const iframe of await page.locator('iframe').all()) await iframe.scrollIntoViewIfNeeded(); // lazy ones load
        for (const frame of page.frames().slice(1))
          await frame.waitForFunction(() => document.body?.dataset.ready === '1');
        await check(page, `examples/${name}.html`, theme);
      });
  }));

test('axe: an assignment (the lab and three questions) and the form that makes one', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hash =
      '#title=Week+3&text=Read+this.%0A%0A-+one%0A-+two&experiment=lab&items=tf-08,err-03,why-06&task=copy&depth=2';
    await eachTheme(url, `assignment.html${hash}`, async (page, theme) => {
      await ready(page);
      await check(page, 'assignment.html, the lab and questions', theme);
    });
    await eachTheme(url, 'assignment.html', async (page, theme) => {
      await page.locator('#assign-q-tf-08').waitFor();
      await page.check('#assign-q-tf-08');
      await check(page, 'assignment.html, the form', theme);
    });
  }));

test('axe at 360 px in the dark theme: a box that scrolls sideways takes the focus, one that fits does not', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const phone = await it.browser.newContext({ viewport: { width: 360, height: 780 }, colorScheme: 'dark' });
    const desk = await it.browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    try {
      // the explorer's formulas are wider than a phone
      const explorer = await pageIn(phone, url);
      await check(explorer, 'index.html at 360 px', 'dark');
      const formulas = await explorer.evaluate(() =>
        [...document.querySelectorAll('math[display="block"]')].map((m) => ({
          wide: m.scrollWidth > m.clientWidth + 1,
          stop: m.getAttribute('tabindex') === '0',
        })),
      );
      assert.ok(
        formulas.some((f) => f.wide),
        'a formula wider than 360 px',
      );
      assert.deepEqual(
        formulas.map((f) => f.stop),
        formulas.map((f) => f.wide),
        'exactly the wide formulas are keyboard stops',
      );
      // the papers page's wider tables of numbers
      const papers = await pageIn(phone, `${url}papers.html`, { ready: false });
      await ready(papers);
      await check(papers, 'papers.html at 360 px', 'dark');
      // the lab after its thirteen-run Late layers claim, on a phone and on a desktop
      const lab = async (context) => {
        const page = await pageIn(context, `${url}train.html#preset=late`);
        await page.click('#train-start');
        await page.waitForFunction(() => window.__resnormTrain?.state === 'done');
        // the after-training numbers, shown: the lesion table of thirteen runs is wider than a phone
        for (const summary of await page.locator('details.after-numbers > summary:visible').all())
          await summary.click();
        return page;
      };
      const small = await lab(phone);
      await check(small, 'train.html#preset=late at 360 px', 'dark');
      // every box of numbers is a keyboard stop exactly while its content is wider than it
      const boxes = (page) =>
        page.evaluate(() =>
          [...document.querySelectorAll('.readout-scroll')]
            .filter((b) => b.checkVisibility())
            .map((b) => ({
              wide: b.scrollWidth > b.clientWidth + 1,
              stop: b.getAttribute('tabindex') === '0',
              named: b.getAttribute('role') === 'region' && !!b.getAttribute('aria-label'),
              readout: b.parentElement.id === 'train-readout',
            })),
        );
      const onPhone = await boxes(small);
      const onDesk = await boxes(await lab(desk));
      for (const list of [onPhone, onDesk])
        for (const b of list) assert.deepEqual([b.stop, b.named], [b.wide, b.wide], JSON.stringify(b));
      assert.ok(onPhone.some((b) => b.wide) && onPhone.length === onDesk.length, JSON.stringify(onPhone));
      // the readout of thirteen runs fits a phone: each name on its own line above its numbers
      assert.deepEqual(
        onPhone.filter((b) => b.readout).map((b) => b.wide),
        [false],
        'the thirteen-run readout at 360 px',
      );
      // a wide formula scrolls from the keyboard
      const wide = explorer.locator('math[display="block"][tabindex="0"]').first();
      // keyboard scrolling is animated: wait for the box to move, the guard decides only a hang
      await explorer.bringToFront();
      await wide.focus();
      await explorer.keyboard.press('ArrowRight');
      await explorer.waitForFunction((m) => m.scrollLeft > 0, await wide.elementHandle());
      assert.ok((await wide.evaluate((m) => m.scrollLeft)) > 0, 'ArrowRight scrolls the focused formula');
    } finally {
      await phone.close();
      await desk.close();
    }
  }));

after(() => {
  console.log(`axe-core violations per page and theme:\n${counts.join('\n')}`);
});
