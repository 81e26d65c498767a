// The papers page: a panel whose computation takes over a second shows the
// time so far and a Cancel button; Cancel stops it (the lane's worker is
// terminated) and offers to compute again. With engine workers that never
// answer, every panel is that slow; with the real engine no Cancel stays.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SILENT_WORKERS, openPage, served, useBrowser } from './harness.js';

const it = useBrowser();

test('a panel over a second shows its time and Cancel; Cancel stops it and offers to compute again', async () => {
  await served({}, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(SILENT_WORKERS);
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${url}papers.html`);
    const panel = page.locator('[data-panel]').first();
    const cancel = panel.locator('.paper-cancel');
    await cancel.waitFor({ state: 'visible' });
    assert.match(await panel.locator('.paper-status').textContent(), /computing for \d+\.\d s/);
    await cancel.focus();
    await page.keyboard.press('Enter');
    assert.match(await panel.locator('.paper-status').textContent(), /^cancelled after \d+\.\d s/);
    assert.equal(await cancel.isHidden(), true);
    const again = panel.locator('.paper-again');
    assert.equal(await again.isVisible(), true);
    assert.equal(await page.evaluate(() => document.activeElement.className), 'secondary paper-again');
    assert.equal(await panel.getAttribute('aria-busy'), null);
    await again.click();
    assert.match(await panel.locator('.paper-status').textContent(), /computing/);
    await cancel.waitFor({ state: 'visible' });
    assert.deepEqual(problems, []);
    await context.close();
  });
});

test('with the engine, every panel computes and no Cancel is left on screen', async () => {
  await served({}, async (url) => {
    const page = await openPage(it.browser, `${url}papers.html`);
    await page.waitForFunction(() => window.__papers?.ready === true);
    assert.equal(await page.locator('.paper-cancel:visible').count(), 0);
    assert.equal(await page.locator('.paper-again:visible').count(), 0);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
