// The training lab at configs its budget allows but that fill most of an
// engine worker's memory (two Pre-LN/Post-LN runs of d 256, e 4, T 128 at
// depth 19): Step, Save, then Load the file in the same page beside the run,
// Step on, and the file loads into a fresh page whose next step is the first
// page's, bit for bit. Every wait has a generous guard; none decides by time.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SITE_CSP, openPage, served, useBrowser } from './harness.js';

const it = useBrowser();

// Two architectures at depth 19: the budget holds both (740 MB of 768 MB); a
// logged step every 10 updates (the work budget's least for both at once).
const HASH =
  'task=reverse&arch=pre_ln,post_ln&width=256&seq=64&batch=1&expansion=4&eval_batches=1&steps=30&log_every=10&depth=19';

const waitState = (page, state) => page.waitForFunction((s) => window.__resnormTrain?.state === s, state);

/** Step: one logged step of both runs, up to `step`. */
async function stepTo(page, step) {
  await page.click('#train-step');
  await page.waitForFunction(
    (n) => ['pre_ln', 'post_ln'].every((a) => window.__resnormTrain.runs[a]?.logs.at(-1)?.step === n),
    step,
  );
  await waitState(page, 'paused');
}

/** The last log of each run, its arrays as plain arrays, every number as its exact text. */
const lastLogs = (page) =>
  page.evaluate(() =>
    JSON.stringify(
      ['pre_ln', 'post_ln'].map((a) => window.__resnormTrain.runs[a].logs.at(-1)),
      (k, v) => (ArrayBuffer.isView(v) ? Array.from(v, String) : typeof v === 'number' ? String(v) : v),
    ),
  );

async function loadFile(page, path) {
  await page.setInputFiles('#train-model-file', path);
  await page.waitForFunction(
    () =>
      /^Loaded /.test(document.querySelector('.lab-tools-status')?.textContent ?? '') ||
      !document.querySelector('.lab-tools-error')?.hidden,
    null,
  );
  const error = await page.locator('.lab-tools-error').evaluate((e) => (e.hidden ? '' : e.textContent));
  assert.equal(error, '', 'the file loads');
  const said = await page.locator('.lab-tools-status').textContent();
  assert.match(said, /Pre-LN at step 10/);
  assert.match(said, /Post-LN at step 10/);
  await waitState(page, 'paused');
}

test('depth 19, two runs: Save, Load beside the run in the same page, Step on; the file loads into a fresh page, bit for bit', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const dir = await mkdtemp(join(tmpdir(), 'resnorm-train-budget-'));
    try {
      const page = await openPage(it.browser, `${url}train.html#${HASH}`);
      await stepTo(page, 10);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#train-save-model')]);
      const file = join(dir, download.suggestedFilename());
      await download.saveAs(file);
      assert.match(await page.locator('.lab-tools-status').textContent(), /^Saved .*\.rnmodel/);
      assert.ok((await stat(file)).size > 300 * 2 ** 20, 'both runs: parameters and moments');

      // Load in the same page: the trainers are made again beside the run, then the run is replaced.
      await loadFile(page, file);
      await stepTo(page, 20);
      const next = await lastLogs(page);
      // Saved again after the load: the run can still be saved.
      const [again] = await Promise.all([page.waitForEvent('download'), page.click('#train-save-model')]);
      await again.saveAs(join(dir, 'again.rnmodel'));
      assert.match(await page.locator('.lab-tools-status').textContent(), /^Saved .*step20\.rnmodel/);
      assert.deepEqual(page.problems, []);
      await page.context().close();

      // A fresh page: the file brings the run back, and its next step is the first page's.
      const fresh = await openPage(it.browser, `${url}train.html`);
      await loadFile(fresh, file);
      await stepTo(fresh, 20);
      assert.equal(await lastLogs(fresh), next);
      assert.deepEqual(fresh.problems, []);
      await fresh.context().close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }));
