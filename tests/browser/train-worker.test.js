// The training lab when its engine worker goes: a worker whose thread ends
// without an error event mid-run (the test ends it from outside, as the
// browser may: no error, no answer) is told from a busy one by its Web Lock,
// never by a deadline; the lab says so in a notice and in the run's own line,
// in the reader's words, and Reset then Start trains on a fresh worker. With
// the worker's script blocked, the notice says what is true: no engine could
// run, and what the reader can do, in the lab (at 360 px, dark) and the
// explorer. Screenshots in test-results/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, SITE_CSP, overlaps, pageIn, release, served, useBrowser, waitHeld } from './harness.js';
import { tiny } from '../node/train/tiny.js';

const it = useBrowser();

const lab = (url, hash) => `${url}train.html#${hash}`;

// Every Worker the page makes, in window.__workers, so the test can end one from outside the
// engine's client: for the client it is a worker that stopped without a word.
const RECORD_WORKERS = `(() => {
  const Real = window.Worker;
  window.__workers = [];
  window.Worker = class extends Real {
    constructor(url, options) {
      super(url, options);
      window.__workers.push(this);
    }
  };
})()`;

/**
 * The lab with the tiny one-run link in a context of its own (1280 px wide unless `look` says
 * otherwise), set up by `setup(context)` first.
 */
async function labPage(url, setup, options = {}, look = {}) {
  const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 }, ...look });
  await setup(context);
  return pageIn(context, lab(url, tiny({ arch: 'pre_ln', steps: 20 })), options);
}

/** The run's error line, once the page is saved as test-results/<name>.png and no text covers another. */
async function runError(page, name) {
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  assert.deepEqual(await overlaps(page), []);
  return text(page, '.run-error');
}

const waitState = (page, state) => page.waitForFunction((s) => window.__resnormTrain?.state === s, state);
const text = (page, selector) => page.locator(selector).evaluate((e) => e.textContent);

test("the lab's worker ends without an error mid-run: the lab says so, and Reset then Start trains on a fresh one", () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await labPage(url, (context) => context.addInitScript(RECORD_WORKERS), { held: ['trainerStep'] });
    await page.click('#train-start');
    // The first step's answer is held at the page: the run is mid-step whatever the machine's speed.
    await waitHeld(page, 1);
    assert.equal(await page.evaluate(() => window.__workers.length), 1, 'the run trains in one worker');
    await page.evaluate(() => window.__workers[0].terminate());
    await page.waitForSelector('.worker-lost');
    assert.equal(
      await text(page, '.worker-lost'),
      'An engine worker stopped without an error: its thread ended. The training run it held stopped with it. ' +
        'A fresh one takes its place when there is work.',
    );
    await waitState(page, 'done');
    assert.equal(await text(page, '#status'), 'done, with an error');
    assert.equal(
      await runError(page, 'train-worker-ended'),
      'Pre-LN stopped: the engine worker training it ended (engine worker stopped without an error), so this ' +
        'run cannot go on. Press Reset, then Start to train it again, or Load\u2026 a model file you saved.',
    );
    // The held answer of the ended worker is handed over: it is of no worker the page uses.
    await release(page);
    await page.click('#train-reset');
    await waitState(page, 'idle');
    await page.click('#train-start');
    await waitState(page, 'done');
    const run = await page.evaluate(() => {
      const r = window.__resnormTrain.runs.pre_ln;
      return { steps: r.logs.map((l) => l.step), error: r.error ? String(r.error.message ?? r.error) : null };
    });
    assert.deepEqual(run, { steps: [2, 4, 6, 8, 10, 12, 14, 16, 18, 20], error: null });
    assert.equal(await page.evaluate(() => window.__workers.length), 2, 'a fresh worker trained it');
    assert.equal(await page.locator('.run-error').isHidden(), true);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('the worker script blocked: the notice says no engine could run and what to do, never that the page goes on', () =>
  served({ csp: SITE_CSP }, async (url) => {
    // the engine worker's script, as Vite names it in dist/assets/
    const block = (context) => context.route(/\/assets\/worker-[^/]*\.js$/, (r) => r.abort());
    // at 360 px in the dark theme: the notice and the run's line fit
    const page = await labPage(url, block, {}, { viewport: { width: 360, height: 780 }, colorScheme: 'dark' });
    await page.click('#train-start');
    await waitState(page, 'error');
    await page.waitForSelector('.worker-lost');
    const notice = await text(page, '.worker-lost');
    assert.doesNotMatch(notice, /goes on/);
    assert.equal(
      notice,
      'An engine worker could not be started (engine worker failed: it could not be loaded). No engine could ' +
        'run on this page, so nothing was computed. Reload the page; if it fails again, something is blocking ' +
        'the engine\u2019s script (a browser extension, a firewall, or the site\u2019s settings).',
    );
    assert.equal(
      await runError(page, 'train-worker-blocked'),
      'Not started: the engine worker making it ended (engine worker failed: it could not be loaded). ' +
        'Press Start to try again.',
    );
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360, 'nothing scrolls sideways');
    assert.deepEqual(page.problems, []);
    // The explorer off its first paint says the same.
    const explorer = await pageIn(page.context(), `${url}#depth=30`, { ready: false });
    await explorer.waitForSelector('.worker-lost');
    assert.equal(await text(explorer, '.worker-lost'), notice);
    assert.deepEqual(explorer.problems, []);
    await page.context().close();
  }));
