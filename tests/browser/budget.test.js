// What one call may cost, in the page: a link whose fields are each valid but
// together more than the engine's budget (core/src/limits.cpp) is drawn at the
// deepest depth that fits, with a notice that names depth and what the asked
// depth needs, in the explorer and in embed.html; a computation over a second
// shows its time and a Cancel button, and Cancel stops it, puts back the
// settings on screen and leaves the page computing the next change normally.
// Debian's Chromium under the site's CSP; screenshots in test-results/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, SITE_CSP, hold, holdScript, openPage, release, served, useBrowser, waitForRender } from './harness.js';
import { configFromHash, parseHash } from '../../web/src/shared/state.js';

const it = useBrowser({ wasm: true });

const OVER = ['#depth=1024&width=512&expansion=4', '#depth=1024&width=128&expansion=2&tokens=64'];

/** The engine's own refusal of the config a link gives (through the wasm API in Node). */
function refusalOf(hash) {
  try {
    it.rn.simulate(configFromHash(hash));
  } catch (e) {
    return e;
  }
  assert.fail(`${hash}: the engine computed it; the test needs a config over the budget`);
}

/** What the page shows: the config drawn, its curves' lengths, the notice, the status. */
const shown = (page, inShadow) =>
  page.evaluate((shadow) => {
    const root = shadow ? document.getElementById('embed').shadowRoot : document;
    const notice = shadow ? root.querySelector('.notice') : document.getElementById('notice');
    const r = window.__resnorm;
    return {
      config: r.config,
      lengths: Object.values(r.plotted.grad.series).map((s) => s.length),
      canvases: root.querySelectorAll('.chart canvas').length,
      notice: notice.hidden ? '' : notice.textContent,
      status: root.querySelector('.status')?.textContent ?? document.getElementById('status').textContent,
    };
  }, inShadow);

for (const hash of OVER)
  test(`a link over the budget (${hash}) is drawn at the deepest depth that fits, with a notice`, () =>
    served({ csp: SITE_CSP }, async (url) => {
      const e = refusalOf(hash);
      assert.equal(e.field, 'depth', e.message);
      assert.ok(Number.isInteger(e.max) && e.max >= 1, `the engine's refusal carries no .max: ${e.message}`);
      const asked = configFromHash(hash);
      for (const [where, path, shadow] of [
        ['explorer', '', false],
        ['embed.html', 'embed.html', true],
      ]) {
        const page = await openPage(it.browser, `${url}${path}${hash}`);
        await waitForRender(page, { depth: e.max });
        const s = await shown(page, shadow);
        const label = `${where} ${hash}`;
        for (const k of ['width', 'expansion', 'tokens']) assert.equal(s.config[k], asked[k], `${label}: ${k}`);
        assert.equal(s.config.depth, e.max, label);
        assert.equal(s.canvases, 3, `${label}: every chart drawn`);
        assert.deepEqual(new Set(s.lengths), new Set([e.max + 1]), `${label}: curves of the depth that fits`);
        assert.match(s.notice, /\(depth\) \u201c1024\u201d/, `${label}: the notice names depth: ${s.notice}`);
        assert.ok(s.notice.includes(e.message.replace(/^depth: 1024 /, '')), `${label}: the engine's words`);
        assert.match(s.notice, new RegExp(`showing depth ${e.max}, the deepest that fits`), label);
        assert.match(s.status, /ready/, label);
        if (where === 'explorer') {
          assert.equal(await page.locator('#depth-number').inputValue(), String(e.max), 'the depth control moved');
          await page.waitForFunction((d) => location.hash.includes(`depth=${d}`), e.max);
          if (hash === OVER[1]) {
            await page.screenshot({ path: `${SHOTS}/budget-notice.png` });
            await page.setViewportSize({ width: 360, height: 800 });
            await page.screenshot({ path: `${SHOTS}/budget-notice-360.png` });
          }
        }
        assert.deepEqual(page.problems, [], label);
        await page.context().close();
      }
    }));

test('typing a depth over the budget moves the control to the deepest that fits', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hash = '#width=128&expansion=2&tokens=64&depth=24';
    const e = refusalOf(hash.replace('depth=24', 'depth=1000'));
    const page = await openPage(it.browser, `${url}${hash}`, { colorScheme: 'dark' });
    await page.locator('#depth-number').fill('1000');
    await page.locator('#depth-number').press('Enter');
    await waitForRender(page, { depth: e.max });
    const notice = await page.locator('#notice').textContent();
    assert.match(notice, /^One setting could not be used as given:/, notice);
    assert.match(notice, /\(depth\) \u201c1000\u201d: needs .*; showing depth \d+, the deepest that fits/);
    assert.equal(await page.locator('#depth-number').inputValue(), String(e.max));
    await page.screenshot({ path: `${SHOTS}/budget-notice-dark.png` });
    // the next setting that fits is drawn and the notice goes
    await page.locator('#depth-number').fill('30');
    await page.locator('#depth-number').press('Enter');
    await waitForRender(page, { depth: 30 });
    assert.equal(await page.locator('#notice').isHidden(), true);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

// A computation that is slow on purpose: the page holds the engine's answers to simulate
// (harness.js's hold) until the test releases them, so the second after which Cancel shows
// passes whatever the machine's speed. One architecture, so the page's pool does not split it.
const SLOW = '#arch=pre_ln&depth=40';

const setHash = (page, hash) =>
  page.evaluate((h) => {
    location.hash = h;
  }, hash);

test('over a second: the time and a Cancel button; Cancel stops it and puts back the settings; the next change computes', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const slow = SLOW;
    const page = await openPage(it.browser, url);
    // the engine's own answer on screen (the page opens on the shipped first paint)
    await page.waitForFunction(() => document.getElementById('status').dataset.state === 'ready');
    const before = await page.evaluate(() => ({ config: window.__resnorm.config, renders: window.__resnorm.renders }));

    // the slow one, cancelled by keyboard
    const onScreen = before.config;
    let renders = before.renders;
    await hold(page, ['simulate']);
    await setHash(page, `${slow}&seed=7`);
    await page.locator('.pending').waitFor({ state: 'visible' });
    await page.locator('#cancel').focus();
    assert.equal(await page.evaluate(() => document.activeElement.id), 'cancel', 'Cancel takes the focus');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('status').dataset.state === 'cancelled');
    assert.equal(await page.locator('.pending').isHidden(), true);
    const notice = await page.locator('#notice').textContent();
    assert.match(
      notice,
      /^Computation cancelled:stopped after \d+\.\d s \(.*seed 7.*\); the charts show the settings before it/,
    );
    const after = await page.evaluate(() => ({ config: window.__resnorm.config, renders: window.__resnorm.renders }));
    assert.equal(after.renders, renders, 'the charts were not redrawn');
    assert.deepEqual(after.config, onScreen);
    // the cancelled computation's answer, handed over now, is dropped with its worker
    await release(page);
    assert.equal(await page.evaluate(() => window.__resnorm.renders), renders, 'a cancelled answer was drawn');
    assert.equal(await page.locator('#depth-number').inputValue(), '96', 'the controls show the settings on screen');
    assert.equal(await page.locator('#seed').inputValue(), String(after.config.seed));
    await page.waitForFunction(() => !location.hash.includes('seed=7'));

    // the next change computes on a fresh worker, and the notice goes
    await page.locator('#depth-number').fill('20');
    await page.locator('#depth-number').press('Enter');
    renders = await waitForRender(page, { depth: 20 }, renders);
    assert.equal(await page.locator('#notice').isHidden(), true);
    assert.match(await page.locator('#status').textContent(), /ready/);
    // once to the end: the time shows while it computes, and goes when the answer is drawn
    await hold(page, ['simulate']);
    await setHash(page, slow);
    await page.locator('.pending').waitFor({ state: 'visible' });
    assert.match(await page.locator('.pending').textContent(), /computing for \d+\.\d s/);
    await page.screenshot({ path: `${SHOTS}/budget-cancel.png` });
    assert.equal(await page.evaluate(() => window.__resnorm.renders), renders, 'drawn before its answer came');
    await release(page);
    await waitForRender(page, { depth: configFromHash(slow).depth }, renders);
    assert.equal(await page.locator('.pending').isHidden(), true, 'the status goes when it is done');

    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a slow link cancelled before anything is drawn shows the defaults; phone width and dark', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const slow = `${SLOW}&seed=3`;
    const context = await it.browser.newContext({ viewport: { width: 360, height: 800 }, colorScheme: 'dark' });
    await context.addInitScript(holdScript(['simulate']));
    const page = await context.newPage();
    page.problems = [];
    page.on('console', (m) => ['error', 'warning'].includes(m.type()) && page.problems.push(m.text()));
    page.on('pageerror', (e) => page.problems.push(e.message));
    await page.goto(url + slow);
    await page.locator('.pending').waitFor({ state: 'visible' });
    await page.locator('#cancel').click();
    await release(page);
    await waitForRender(page, { seed: 0, depth: 96 });
    await page.screenshot({ path: `${SHOTS}/budget-cancel-360-dark.png` });
    assert.match(await page.locator('#notice').textContent(), /the default settings are shown/);
    assert.deepEqual(
      (await page.evaluate(() => window.__resnorm.config)).arch,
      parseHash('').config.arch,
      'the default architectures',
    );
    assert.deepEqual(page.problems, []);
    await context.close();
  }));

test('embed.html: a slow config shows Cancel in the embed, and Cancel works there', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, `${url}embed.html#depth=24`);
    await hold(page, ['simulate']);
    await setHash(page, `${SLOW}&seed=5`); // a new fragment is a new embed
    const root = page.locator('#embed');
    await root.locator('.pending').waitFor({ state: 'visible' });
    await root.locator('.pending button').click();
    await release(page);
    await waitForRender(page, { seed: 0, depth: 96 }); // the defaults, in the embed mounted for the new fragment
    assert.match(await root.locator('.notice').textContent(), /Computation cancelled/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));
