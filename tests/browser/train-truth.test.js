// The training lab tells the truth about the runs on the page, in Debian's Chromium under the
// site's CSP: the Warmup claim's learning-rate chart has each run's own schedule; Start and
// Step wait, and say why, while a setting's box holds a value that was not taken, and a new
// link rewrites every box (the focused one too), so Start trains what the form shows; a run
// that stopped early (the Depth claim's, once trained) or diverged (the ReZero claim's) shows
// its last numbers and how it stopped in the readout and over its heatmaps (dotted after it
// stopped, with a legend entry of its own), and the line charts have its numbers at the steps
// it logged them; a loss far above chance that stays finite is named; of two model files
// picked in a row the last one loads; the Warmup claim on its five seeds counts the seeds its claim
// holds on and gives each run's spread over them, as the CLI's runs on the same seeds do. No console
// message; 360 px dark and 1280 px light screenshots of the Depth claim and of the five seeds in
// test-results/.
// Run: node --test tests/browser/train-truth.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  SHOTS,
  SITE_CSP,
  downloadBytes,
  hold,
  labDrawn,
  layoutSettled,
  openPage,
  overlaps,
  release,
  served,
  useBrowser,
  waitHeld,
} from './harness.js';
import { DIVERGES, tiny } from '../node/train/tiny.js';
import { trainFromHash } from '../../web/src/train/link.js';
import {
  CLAIMS,
  CLAIM_BY_ID,
  FAR_ABOVE_TEXT,
  depthSentence,
  fromCli,
  median,
  runConfigs,
  seedsVerdict,
} from '../../web/src/claims/lab/index.js';
import { medianSeed } from '../../web/src/train/series.js';
import { seedList } from '../../web/src/shared/train-fields.js';
import { cliTrain } from '../node/helpers.js';
import { stepValue } from '../../web/src/train/readout.js';
import { fmtPlain } from '../../web/src/shared/format.js';

const it = useBrowser();

const lab = (url, hash) => `${url}train.html#${hash}`;
const waitState = (page, state) => page.waitForFunction((s) => window.__resnormTrain?.state === s, state);

/** Start, then every run done and drawn. */
async function trainToEnd(page) {
  await page.click('#train-start');
  await waitState(page, 'done');
  await labDrawn(page);
}

/** The hook's runs: key -> {arch, label, stepsDone, firstNonfinite, logs (the line keys)}, and the charts' plots. */
const hook = (page) =>
  page.evaluate(() => {
    const h = window.__resnormTrain;
    const keys = [
      'step',
      'lr',
      'heldout_loss',
      'train_loss',
      'heldout_accuracy',
      'grad_norm_global',
      'first_nonfinite',
    ];
    return {
      state: h.state,
      config: h.config,
      archs: h.archs,
      plotted: h.plotted,
      runs: Object.fromEntries(
        Object.entries(h.runs).map(([k, r]) => [
          k,
          {
            arch: r.arch,
            label: r.label,
            stepsDone: r.stepsDone,
            steps: r.config.steps,
            firstNonfinite: r.firstNonfinite,
            task: r.task,
            lesion: r.lesion && {
              contribution: Array.from(r.lesion.contribution),
              contribution_init: Array.from(r.lesion.contribution_init),
            },
            logs: r.logs.map((l) => Object.fromEntries(keys.map((q) => [q, l[q]]))),
          },
        ]),
      ),
    };
  });

/** The readout's row of run `key`: its name cell's notes, its four numbers and the step it shows. */
const readoutRow = (page, key) =>
  page.evaluate((k) => {
    const tr = document.querySelector(`.train-readout-table tr[data-arch="${k}"]`);
    const text = (sel) => tr.querySelector(sel)?.textContent ?? null;
    return {
      step: tr.dataset.step,
      stopped: text('.stopped-note'),
      diverged: text('.diverged-note'),
      far: text('.far-note'),
      rate: text('.train-readout-rate'),
      cells: Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.key, td.textContent])),
    };
  }, key);

/** The readout's four numbers of one log, as it prints them. */
const printed = (log) =>
  Object.fromEntries(
    ['heldout_loss', 'train_loss', 'heldout_accuracy', 'grad_norm_global'].map((k) => [k, stepValue(k, log[k])]),
  );

/**
 * How many of a heatmap's device pixels in the band from step `from` to the end of the axis
 * (its middle row, 8 CSS pixels high) differ from the background of steps not run: none when
 * the band is drawn as "not run (yet)".
 */
const unlikeBackground = (page, key, metric, from) =>
  page.evaluate(
    ([k, m, step]) => {
      const fig = document.querySelector(`#train-heat-${m} .heatmap-figure[data-arch="${k}"]`);
      const canvas = fig.querySelector('canvas.heatmap-canvas');
      const dpr = canvas.width / canvas.clientWidth;
      // heatmap.js's margins: left 34, right 8, top 4, bottom 20 (CSS pixels)
      const w = canvas.clientWidth - 42;
      const h = canvas.clientHeight - 24;
      const xMax = window.__resnormTrain.config.steps;
      const x0 = Math.ceil((34 + (w * step) / xMax + 2) * dpr);
      const x1 = Math.floor((34 + w - 2) * dpr);
      const y0 = Math.round((4 + h / 2 - 4) * dpr);
      const pixels = canvas.getContext('2d').getImageData(x0, y0, x1 - x0, Math.round(8 * dpr)).data;
      const probe = document.createElement('div');
      probe.style.color = getComputedStyle(document.querySelector('.lab')).getPropertyValue('--surface-2');
      document.body.append(probe);
      const bg = getComputedStyle(probe).color.match(/\d+/g).map(Number);
      probe.remove();
      let differ = 0;
      for (let i = 0; i < pixels.length; i += 4)
        if (Math.abs(pixels[i] - bg[0]) + Math.abs(pixels[i + 1] - bg[1]) + Math.abs(pixels[i + 2] - bg[2]) > 24)
          differ++;
      return { differ, total: pixels.length / 4 };
    },
    [key, metric, from],
  );

test('the Warmup claim\u2019s learning-rate chart draws each run\u2019s own schedule, and the readout gives each rate', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, 'preset=warmup&steps=20&seeds=1'));
    await trainToEnd(page);
    const h = await hook(page);
    assert.deepEqual(h.archs, ['post_ln', 'post_ln_warmup', 'pre_ln']);
    // the engine's own rates: with 200 warmup steps the rate climbs from 0; without, it starts at the peak
    const own = (k) => h.runs[k].logs.map((l) => l.lr);
    assert.ok(own('post_ln_warmup')[0] < own('post_ln')[0] / 10, `${own('post_ln_warmup')} against ${own('post_ln')}`);
    const lr = h.plotted.lr;
    assert.equal(lr.raw.length, 3, 'one learning-rate line per run');
    h.archs.forEach((k, i) => assert.deepEqual(lr.raw[i], own(k), `${k}: its own schedule`));
    // the readout: no one rate for the step, each run's beside its name
    assert.match(await page.textContent('.train-readout-head'), /learning rate \(lr\) per run/);
    for (const k of h.archs) {
      const row = await readoutRow(page, k);
      assert.equal(row.rate, ` \u00b7 lr ${stepValue('lr', own(k).at(-1))}`, k);
    }
    // the numbers table: a learning-rate column per run, each the run's own
    const table = await page.evaluate(() => ({
      heads: [...document.querySelectorAll('#train-data-table thead tr:nth-child(2) th')].map((th) => th.textContent),
      first: [...document.querySelectorAll('#train-data-table tbody tr:first-child :is(th, td)')].map(
        (c) => c.textContent,
      ),
    }));
    assert.equal(table.heads.filter((t) => t === 'learning rate').length, 3, String(table.heads));
    h.archs.forEach((k, i) =>
      assert.equal(table.first[1 + 6 * i + 5], fmtPlain(own(k)[0]), `${k}: its rate in the table`),
    );
    await page.locator('#train-readout').screenshot({ path: `${SHOTS}/train-truth-warmup-readout.png` });
    await page.locator('#train-chart-lr').screenshot({ path: `${SHOTS}/train-truth-warmup-lr.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

/** Start's and Step's state, and the line that says why they wait (null when hidden). */
const buttons = (page) =>
  page.evaluate(() => {
    const why = document.getElementById('train-blocked');
    return {
      start: document.getElementById('train-start').getAttribute('aria-disabled'),
      step: document.getElementById('train-step').getAttribute('aria-disabled'),
      why: why && !why.hidden ? why.textContent : null,
      describedBy: document.getElementById('train-start').getAttribute('aria-describedby'),
    };
  });

const SMALL = tiny({ steps: 4, arch: 'pre_ln' });

test('a learning rate out of range: Start and Step wait and say why, and the keyboard cannot start a run', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, SMALL));
    await page.fill('#train-lr', '11');
    const b = await buttons(page);
    assert.equal(b.start, 'true');
    assert.equal(b.step, 'true');
    assert.match(b.why ?? '', /Peak learning rate: out of range \(allowed 0\.\.10\)\./);
    assert.equal(b.describedBy, 'train-blocked');
    await page.focus('#train-start');
    await page.keyboard.press('Enter');
    await page.focus('#train-step');
    await page.keyboard.press('Space');
    // put right: Start and Step go, and the line with them; the one logged step is Step's, at the rate typed
    await page.fill('#train-lr', '0.002');
    assert.deepEqual(await buttons(page), { start: 'false', step: 'false', why: null, describedBy: 'train-blocked' });
    await page.click('#train-step');
    await waitState(page, 'paused');
    const h = await hook(page);
    assert.equal(h.config.lr, 0.002);
    assert.equal(h.runs.pre_ln.logs.length, 1, 'no run started while the rate was out of range');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a new link while the learning rate box holds 11 and the focus: Start trains the value the form shows', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, SMALL));
    await page.fill('#train-lr', '11');
    // the link has the same value out of range: its notice says the default is used
    await page.evaluate((h) => {
      location.hash = `${h}&lr=11`;
    }, SMALL);
    await page.waitForFunction(() => /out of range/.test(document.getElementById('notice').textContent));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.evaluate(() => document.activeElement.id), 'train-lr', 'the box kept the focus');
    const shown = await page.inputValue('#train-lr');
    const b = await buttons(page);
    if (b.start === 'true') assert.match(b.why ?? '', /Peak learning rate/, 'Start waits and says why');
    else {
      // Start is ready: to train the link's value, the default (the link's 11 is not taken)
      const want = trainFromHash(`#${SMALL}&lr=11`).config.lr;
      assert.equal(Number(shown), want, `Start is ready to train at ${want} while the form shows ${shown}`);
      await page.click('#train-start');
      await waitState(page, 'done');
      const h = await hook(page);
      assert.equal(h.config.lr, Number(shown), `the form showed ${shown}; the run trained at ${h.config.lr}`);
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('no architecture ticked: Start and Step wait and say why', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, SMALL));
    await page.uncheck('#train-arch-pre_ln');
    let b = await buttons(page);
    assert.equal(b.start, 'true');
    assert.equal(b.step, 'true');
    assert.match(b.why ?? '', /Pick at least one architecture\./);
    await page.focus('#train-start');
    await page.keyboard.press('Enter');
    await page.check('#train-arch-pre_ln');
    b = await buttons(page);
    assert.equal(b.start, 'false');
    assert.equal(b.why, null);
    await page.click('#train-step');
    await waitState(page, 'paused');
    assert.equal((await hook(page)).runs.pre_ln.logs.length, 1, 'no run started with no architecture ticked');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('the Depth claim: runs that stopped once trained show their last numbers and how they stopped (1280 light, 360 dark)', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, 'preset=depth&seeds=1'), { colorScheme: 'light' });
    await trainToEnd(page);
    const h = await hook(page);
    const steps = h.config.steps;
    const stopped = h.archs.filter((k) => h.runs[k].logs.at(-1).step < steps && h.runs[k].firstNonfinite === null);
    assert.ok(stopped.length >= 3, `runs that stopped once trained: ${stopped}`);
    assert.match(await page.textContent('.train-readout-head'), new RegExp(`^Step ${steps} \\(the latest\\)`));
    const note = await page.textContent('#train-diverged');
    const legend = await page.locator('#train-heat-grad-norm .heat-keys').textContent();
    assert.match(legend, /after the run stopped/);
    for (const k of stopped) {
      const last = h.runs[k].logs.at(-1);
      const said = `stopped at step ${last.step} (trained)`;
      // the readout at the latest step: this run's last numbers, and when it stopped
      const row = await readoutRow(page, k);
      assert.equal(row.stopped, said, k);
      assert.equal(row.step, String(last.step), k);
      assert.deepEqual(row.cells, printed(last), `${k}: its last numbers`);
      // over its heatmaps; the warning over the loss chart is for runs that failed, not for these
      for (const n of await page.locator(`.heatmap-figure[data-arch="${k}"] .heatmap-note`).allTextContents())
        assert.equal(n, said, k);
      assert.ok(!note.includes(h.runs[k].label), note);
      // after the stop the map is not drawn as "not run (yet)"
      const band = await unlikeBackground(page, k, 'grad-norm', last.step);
      assert.ok(
        band.differ > 0,
        `${k}: ${band.differ} of ${band.total} pixels after step ${last.step} unlike the background`,
      );
    }
    // the run that ran every step has nothing to say
    assert.equal((await readoutRow(page, 'post_ln')).stopped, null);
    // after training, each run's sentence is written from what it did: Post-LN at 18 blocks stayed at chance
    const sentences = await page.locator('#train-after-depth li').allTextContents();
    h.archs.forEach((k, i) => assert.equal(sentences[i], depthSentence(h.runs[k], h.runs[k].label).text, k));
    const stuck = sentences[h.archs.indexOf('post_ln')];
    assert.match(stuck, /^Post-LN, 18 blocks: did not train \(held-out loss 2\.08, chance 2\.08\)/);
    assert.doesNotMatch(stuck, /uses more of its depth/);
    await page.screenshot({ path: `${SHOTS}/train-truth-depth-1280-light.png`, fullPage: true });
    await page
      .locator('#train-heat-grad-norm')
      .screenshot({ path: `${SHOTS}/train-truth-depth-1280-light-heatmaps.png` });

    await page.setViewportSize({ width: 360, height: 780 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await labDrawn(page);
    await layoutSettled(page, '.lab');
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360, 'nothing scrolls sideways');
    assert.deepEqual(await overlaps(page), []);
    for (const k of stopped)
      assert.match((await readoutRow(page, k)).stopped ?? '', /^stopped at step \d+ \(trained\)$/);
    await page.screenshot({ path: `${SHOTS}/train-truth-depth-360-dark.png`, fullPage: true });
    await page.locator('#train-readout').screenshot({ path: `${SHOTS}/train-truth-depth-360-dark-readout.png` });
    await page
      .locator('#train-heat-grad-norm')
      .screenshot({ path: `${SHOTS}/train-truth-depth-360-dark-heatmaps.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('the ReZero claim: the run that diverged shows its numbers at the step it diverged, and says so', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, 'preset=rezero&steps=20&seeds=1'));
    await trainToEnd(page);
    const h = await hook(page);
    const r = h.runs.residual;
    const stop = r.firstNonfinite;
    assert.ok(Number.isInteger(stop) && stop < h.config.log_every, `the residual stack diverges first: ${stop}`);
    const last = r.logs.at(-1);
    assert.equal(last.step, stop);
    const row = await readoutRow(page, 'residual');
    assert.equal(row.diverged, `diverged at step ${stop}`);
    assert.equal(row.step, String(stop));
    assert.deepEqual(row.cells, printed(last), 'its last numbers at the latest step');
    // the line charts put its numbers at the step it logged them
    const { x, raw } = h.plotted.loss;
    const i = x.indexOf(stop);
    assert.ok(i >= 0, `the step axis ${x} has step ${stop}`);
    const col = h.archs.indexOf('residual') * 2 + 1; // held-out then training per run
    assert.ok(Object.is(raw[col][i], last.train_loss), `training loss at step ${stop}: ${raw[col][i]}`);
    for (const n of await page.locator('.heatmap-figure[data-arch="residual"] .heatmap-note').allTextContents())
      assert.equal(n, `diverged at step ${stop}`);
    const band = await unlikeBackground(page, 'residual', 'grad-norm', stop);
    assert.ok(band.differ > 0, `${band.differ} of ${band.total} pixels after step ${stop} unlike the background`);
    // after training: its sentence says it diverged, and reads nothing into its blocks
    const sentences = await page.locator('#train-after-depth li').allTextContents();
    const said = sentences[h.archs.indexOf('residual')];
    assert.equal(
      said,
      `${r.label}: diverged at step ${stop}, so its blocks\u2019 contributions say nothing about its depth.`,
    );
    h.archs.forEach((k, i) => assert.equal(sentences[i], depthSentence(h.runs[k], h.runs[k].label).text, k));
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a loss that rose far above chance while it stayed finite is named over the loss chart and in the readout', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, tiny({ optimizer: 'adam', lr: 10, steps: 30, log_every: 3 })));
    await trainToEnd(page);
    const h = await hook(page);
    for (const k of h.archs) {
      const r = h.runs[k];
      assert.equal(r.firstNonfinite, null, `${k} stays finite`);
      const peak = Math.max(...r.logs.map((l) => l.heldout_loss));
      assert.ok(peak > 100 * Math.log(4), `${k}: the loss rose to ${peak}`);
      assert.equal((await readoutRow(page, k)).far, FAR_ABOVE_TEXT, k);
      assert.ok((await page.textContent('#train-diverged')).includes(`${r.label}: ${FAR_ABOVE_TEXT}`));
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('two model files picked in a row: the last one loads, and no reset is claimed', () =>
  served({ csp: SITE_CSP }, async (url) => {
    // one run: its trainer takes one of the pool's workers, so a second file's trainer has another to be made in
    const page = await openPage(it.browser, lab(url, tiny({ steps: 20, arch: 'pre_ln' })));
    const save = async () => {
      const [d] = await Promise.all([page.waitForEvent('download'), page.click('#train-save-model')]);
      return downloadBytes(d);
    };
    const step = async (n) => {
      await page.click('#train-step');
      await page.waitForFunction((k) => window.__resnormTrain.runs.pre_ln?.logs.length === k, n);
      await waitState(page, 'paused');
    };
    await step(1);
    const a = await save();
    await step(2);
    const b = await save();
    await page.click('#train-reset');
    await waitState(page, 'idle');

    // the first file's states held on their way into the trainers, then the second file picked
    await hold(page, ['trainerLoad']);
    const pick = (name, buffer) =>
      page.setInputFiles('#train-model-file', { name, mimeType: 'application/octet-stream', buffer });
    await pick('a.rnmodel', a);
    await waitHeld(page, 1);
    await pick('b.rnmodel', b);
    // the second file's load under way too (its state held), or waiting for the first
    await page.waitForFunction(
      () =>
        window.__testHold.waiting >= 2 ||
        /^Loading b\.rnmodel/.test(document.querySelector('.lab-tools-status').textContent),
    );
    await release(page);
    await page.waitForFunction(
      () =>
        /^Loaded b\.rnmodel/.test(document.querySelector('.lab-tools-status').textContent) ||
        !document.querySelector('.lab-tools-error').hidden,
    );
    const problem = await page.evaluate(() => {
      const e = document.querySelector('.lab-tools-error');
      return e.hidden ? null : e.textContent;
    });
    assert.equal(problem, null);
    assert.match(await page.textContent('.lab-tools-status'), /^Loaded b\.rnmodel: Pre-LN at step 4$/);
    // the page draws the second file's run: its logs end at step 4 (the first file's at 2)
    await page.waitForFunction(() => window.__resnormTrain.runs.pre_ln?.logs.at(-1)?.step === 4);
    const h = await hook(page);
    assert.equal(h.state, 'paused');
    assert.equal(h.runs.pre_ln.stepsDone, 4);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

/** Every seed's logs of every run (heldout_loss and grad_norm_global, the step, the grad_norm map) by key. */
const seedRuns = (page) =>
  page.evaluate(() =>
    Object.fromEntries(
      Object.entries(window.__resnormTrain.runs).map(([k, r]) => [
        k,
        r.seeds.map((s) => ({
          seed: s.seed,
          logs: s.logs.map((l) => ({
            step: l.step,
            heldout_loss: l.heldout_loss,
            grad_norm_global: l.grad_norm_global,
            grad_norm: Array.from(l.grad_norm),
          })),
        })),
      ]),
    ),
  );

/**
 * On a claim's five seeds: the loss chart draws each run's median with a band from its lowest seed to
 * its highest; the heatmaps show each run's median seed, or the seed the menu picks; the numbers table,
 * the CSV and the model file carry every seed.
 */
async function seedsDrawn(page, claim) {
  const runs = await seedRuns(page);
  const h = await hook(page);
  const { x, raw } = h.plotted.loss;
  const keys = claim.runs.map((r) => r.key);
  keys.forEach((k, i) => {
    const seeds = runs[k];
    const at = (step) => seeds.map((s) => s.logs.find((l) => l.step === step)?.heldout_loss);
    const finite = (v) => typeof v === 'number' && Number.isFinite(v);
    // the loss chart's columns: each run's held-out and training, then each run's lowest and highest seed
    const mid = raw[2 * i];
    const low = raw[2 * keys.length + 2 * i];
    const high = raw[2 * keys.length + 2 * i + 1];
    x.forEach((step, j) => {
      const v = at(step).filter(finite);
      if (!v.length) return;
      assert.equal(mid[j], median(v), `${k} median at step ${step}`);
      assert.equal(low[j], Math.min(...v), `${k} lowest at step ${step}`);
      assert.equal(high[j], Math.max(...v), `${k} highest at step ${step}`);
    });
  });
  assert.match(await page.textContent('.train-readout-table'), /median of 5 seeds/);
  // the heatmaps: each run's median seed by its last held-out loss, named so
  const heat = async () =>
    page.evaluate(() => ({
      names: Object.fromEntries(
        [...document.querySelectorAll('#train-heat-grad-norm .heatmap-figure')].map((f) => [
          f.dataset.arch,
          f.querySelector('.heatmap-arch').textContent,
        ]),
      ),
      cols: Object.fromEntries(
        Object.entries(window.__resnormTrain.heatmaps).map(([k, m]) => [
          k,
          m.grad_norm.columns.map((c) => Array.from(c)),
        ]),
      ),
    }));
  let shown = await heat();
  for (const r of claim.runs) {
    const want = medianSeed({ seeds: runs[r.key].map((s) => ({ ...s })) });
    assert.equal(shown.names[r.key], `${r.label}, median seed ${want.seed}`);
    assert.deepEqual(
      shown.cols[r.key],
      want.logs.map((l) => l.grad_norm),
      `${r.key}: the median seed\u2019s map`,
    );
  }
  const frames = await page.evaluate(() => window.__resnormTrain.frames);
  await page.selectOption('#train-heat-seed', '22');
  await page.waitForFunction((n) => window.__resnormTrain.frames > n, frames);
  shown = await heat();
  for (const r of claim.runs) {
    assert.equal(shown.names[r.key], `${r.label}, seed 22`);
    assert.deepEqual(
      shown.cols[r.key],
      runs[r.key].find((s) => s.seed === 22).logs.map((l) => l.grad_norm),
    );
  }
  // the numbers table: a group of columns per run and seed
  const groups = await page.$$eval('#train-data-table thead tr:first-child th[scope="colgroup"]', (ths) =>
    ths.map((t) => t.textContent),
  );
  assert.deepEqual(
    groups,
    claim.runs.flatMap((r) => [20, 21, 22, 23, 24].map((s) => `${r.label}, seed ${s}`)),
  );
  // the CSV: every seed's rows, each with its seed
  const [d] = await Promise.all([page.waitForEvent('download'), page.click('#train-export-csv')]);
  const csv = (await downloadBytes(d)).toString('utf8').split('\n');
  const head = csv.find((l) => l.startsWith('run,'));
  assert.ok(head.startsWith('run,arch,seed,'), head);
  const rows = csv.filter((l) => /^[a-z_]+,[a-z_]+,\d+,/.test(l) && !l.startsWith('#'));
  for (const r of claim.runs)
    for (const s of runs[r.key])
      assert.equal(
        rows.filter((l) => l.startsWith(`${r.key},${r.arch},${s.seed},`)).length,
        s.logs.length,
        `${r.key} seed ${s.seed}: its rows`,
      );
  // the model file: every seed's trainer saved, and loaded back with every seed's logs
  const [m] = await Promise.all([page.waitForEvent('download'), page.click('#train-save-model')]);
  const bytes = await downloadBytes(m);
  await page.setInputFiles('#train-model-file', {
    name: 'seeds.rnmodel',
    mimeType: 'application/octet-stream',
    buffer: bytes,
  });
  await page.waitForFunction(() =>
    /^Loaded seeds\.rnmodel/.test(document.querySelector('.lab-tools-status').textContent),
  );
  await page.waitForFunction(() => window.__resnormTrain.state === 'done');
  await labDrawn(page);
  assert.deepEqual(await seedRuns(page), runs, 'every seed loaded back');
}

/** The claim's runs on every seed of `config` through `resnorm train --json --seed S`: [{seed, runs}] (seedsVerdict's). */
function cliSeeds(claim, config) {
  return seedList(config).map((seed) => {
    const runs = {};
    runConfigs(claim, config, seed).forEach((c, i) => {
      const out = cliTrain(c);
      const r = claim.runs[i];
      runs[r.key] = fromCli([...out.logs[c.arch], out.summary], c.arch, {
        key: r.key,
        label: r.label,
        stopWhenTrained: r.stopWhenTrained,
      });
    });
    return { seed, runs };
  });
}

test('the Warmup claim on its five seeds: the page counts the seeds it holds on and gives the CLI\u2019s spread (1280 light, 360 dark)', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, 'preset=warmup&seed=20'), { colorScheme: 'light' });
    assert.equal(await page.inputValue('#train-seeds'), '5', 'a claim trains five seeds');
    const t0 = Date.now();
    await trainToEnd(page);
    const seconds = (Date.now() - t0) / 1000;
    const h = await page.evaluate(() => {
      const t = window.__resnormTrain;
      return {
        config: t.config,
        verdict: t.verdict,
        seeds: Object.fromEntries(Object.entries(t.runs).map(([k, r]) => [k, r.seeds.map((x) => x.seed)])),
        badge: document.querySelector('#train-paper .verdict-badge').textContent,
        parts: document.querySelector('#train-paper-parts').textContent,
        caption: document.querySelector('#train-paper-caption').textContent,
        rows: [...document.querySelectorAll('#train-paper .paper-checks tbody tr')].map((tr) =>
          [...tr.querySelectorAll('td')].map((td) => td.textContent),
        ),
      };
    });
    const claim = CLAIM_BY_ID.warmup;
    for (const r of claim.runs) assert.deepEqual(h.seeds[r.key], [20, 21, 22, 23, 24], `${r.key}: its seeds`);
    const want = seedsVerdict(claim, cliSeeds(claim, h.config));
    assert.equal(h.verdict.held, want.held, `page ${h.verdict.held}, CLI ${want.held} seeds`);
    assert.equal(h.badge, want.badge);
    assert.match(h.badge, /^holds on [0-5] of 5 seeds$/);
    assert.equal(h.parts, want.summary);
    assert.deepEqual(
      h.verdict.seeds.map((s) => [s.seed, s.verdict.holds]),
      want.seeds.map((s) => [s.seed, s.verdict.holds]),
    );
    assert.equal(h.caption, want.caption, 'the caption: each run\u2019s spread over the seeds');
    for (const [k, v] of Object.entries(want.numbers))
      assert.ok(
        Math.abs(h.verdict.numbers[k] - v) <= 1e-4 * Math.abs(v) || (Number.isNaN(v) && h.verdict.numbers[k] === null),
        `${k}: page ${h.verdict.numbers[k]}, CLI ${v}`,
      );
    assert.deepEqual(
      h.rows.map((r) => r[1]),
      want.checks.map((c) => `${c.held} of 5 seeds`),
    );
    console.log(`# Warmup on 5 seeds: ${seconds.toFixed(1)} s in the page, ${h.badge}`);
    await seedsDrawn(page, claim);
    await page.screenshot({ path: `${SHOTS}/train-seeds-1280-light.png`, fullPage: true });
    await page.locator('#train-chart-loss').screenshot({ path: `${SHOTS}/train-seeds-1280-light-loss.png` });
    await page.locator('#train-paper').screenshot({ path: `${SHOTS}/train-seeds-1280-light-verdict.png` });

    await page.setViewportSize({ width: 360, height: 780 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await labDrawn(page);
    await layoutSettled(page, '.lab');
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360, 'nothing scrolls sideways');
    assert.deepEqual(await overlaps(page), []);
    await page.screenshot({ path: `${SHOTS}/train-seeds-360-dark.png`, fullPage: true });
    await page.locator('#train-chart-loss').screenshot({ path: `${SHOTS}/train-seeds-360-dark-loss.png` });
    await page.locator('#train-paper').screenshot({ path: `${SHOTS}/train-seeds-360-dark-verdict.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

/** A value the engine had as not finite: NaN in the page, null in the CLI's JSON. */
const notFinite = (v) => v === null || Number.isNaN(v);

test('the QK-norm claim on two seeds: each seed\u2019s checks, caption and largest logits are the CLI\u2019s, and the numbers table shows the logits', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, 'preset=qknorm&seed=3&seeds=2'), { colorScheme: 'light' });
    await trainToEnd(page);
    const h = await page.evaluate(() => {
      const t = window.__resnormTrain;
      return {
        config: t.config,
        verdict: t.verdict,
        badge: document.querySelector('#train-paper .verdict-badge').textContent,
        heads: [...document.querySelectorAll('#train-data-table thead tr:nth-child(2) th')].map((th) => th.textContent),
        logits: Object.fromEntries(
          Object.entries(t.runs).map(([k, r]) => [k, r.seeds.map((x) => x.logs.map((l) => l.max_logit))]),
        ),
      };
    });
    const claim = CLAIM_BY_ID.qknorm;
    assert.equal(h.config.seeds, 2);
    const cli = cliSeeds(claim, h.config);
    const want = seedsVerdict(claim, cli);
    assert.equal(h.badge, want.badge);
    want.seeds.forEach((w, i) => {
      const got = h.verdict.seeds[i];
      assert.equal(got.seed, w.seed);
      assert.deepEqual(
        got.verdict.checks.map((c) => [c.holds, c.measured]),
        w.verdict.checks.map((c) => [c.holds, c.measured]),
        `seed ${w.seed}: each check and what it measured`,
      );
      assert.equal(got.verdict.caption, w.verdict.caption, `seed ${w.seed}: the caption`);
      for (const [k, v] of Object.entries(w.verdict.numbers))
        assert.ok(
          Math.abs(got.verdict.numbers[k] - v) <= 1e-4 * Math.abs(v) ||
            (notFinite(v) && notFinite(got.verdict.numbers[k])),
          `seed ${w.seed} ${k}: page ${got.verdict.numbers[k]}, CLI ${v}`,
        );
    });
    // every logged largest logit, run by run and seed by seed, is the CLI's to 1e-4
    for (const r of claim.runs)
      cli.forEach(({ seed, runs }, i) => {
        const mine = h.logits[r.key][i];
        const theirs = runs[r.key].logs.map((l) => l.max_logit);
        assert.equal(mine.length, theirs.length, `${r.key} seed ${seed}: its logged steps`);
        mine.forEach((v, j) =>
          assert.ok(
            (notFinite(v) && notFinite(theirs[j])) || Math.abs(v - theirs[j]) <= 1e-4 * Math.abs(theirs[j]),
            `${r.key} seed ${seed} log ${j}: page ${v}, CLI ${theirs[j]}`,
          ),
        );
      });
    // the numbers table: a largest-logit column per run and seed (transformer blocks)
    assert.equal(h.heads.filter((t) => t === 'largest logit').length, 2 * claim.runs.length, String(h.heads));
    console.log(`# qknorm on seeds 3 and 4: ${h.badge}; ${h.verdict.seeds.map((x) => x.verdict.caption).join(' | ')}`);
    await page.locator('#train-paper').screenshot({ path: `${SHOTS}/train-qknorm-verdict.png` });
    await page.locator('#train-chart-loss').screenshot({ path: `${SHOTS}/train-qknorm-loss.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('every claim on its five seeds: the page counts the seeds as the CLI\u2019s runs on them do, and gives their spread', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, ''));
    for (const claim of CLAIMS) {
      await page.click(`#train-presets [data-preset="${claim.id}"]`);
      await page.waitForFunction((id) => window.__resnormTrain?.preset === id, claim.id);
      assert.equal(await page.inputValue('#train-seeds'), '5', `${claim.id}: five seeds`);
      const t0 = Date.now();
      await page.click('#train-start');
      await page.waitForFunction(() => window.__resnormTrain?.state === 'done' && window.__resnormTrain.verdict);
      const seconds = (Date.now() - t0) / 1000;
      const h = await page.evaluate(() => ({
        config: window.__resnormTrain.config,
        verdict: window.__resnormTrain.verdict,
        badge: document.querySelector('#train-paper .verdict-badge').textContent,
        caption: document.querySelector('#train-paper-caption').textContent,
      }));
      const want = seedsVerdict(claim, cliSeeds(claim, h.config));
      assert.equal(h.badge, want.badge, claim.id);
      assert.deepEqual(
        h.verdict.seeds.map((s) => s.verdict.checks.map((c) => c.holds)),
        want.seeds.map((s) => s.verdict.checks.map((c) => c.holds)),
        `${claim.id}: each seed's parts`,
      );
      assert.equal(h.caption, want.caption, `${claim.id}: the caption`);
      console.log(`# ${claim.id} on 5 seeds: ${seconds.toFixed(1)} s in the page, ${h.badge}`);
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a run that diverges on some of its seeds: each such seed is named over the loss chart, the median and band go on', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, `${DIVERGES}&seeds=3&seed=4`));
    await trainToEnd(page);
    const h = await hook(page);
    const seeds = await page.evaluate(() =>
      Object.fromEntries(
        Object.entries(window.__resnormTrain.runs).map(([k, r]) => [
          k,
          r.seeds.map((s) => ({ seed: s.seed, firstNonfinite: s.firstNonfinite })),
        ]),
      ),
    );
    const note = await page.textContent('#train-diverged');
    let named = 0;
    for (const k of h.archs)
      for (const s of seeds[k]) {
        const said = `${h.runs[k].label}: seed ${s.seed} diverged at step ${s.firstNonfinite}`;
        if (s.firstNonfinite === null) assert.ok(!note.includes(`${h.runs[k].label}: seed ${s.seed} diverged`), note);
        else {
          assert.ok(note.includes(said), `${said} in ${note}`);
          named++;
        }
      }
    assert.ok(named > 0, `a seed diverged: ${JSON.stringify(seeds)}`);
    // the loss chart: each run's median and band, finite or a gap (null), never a non-finite number drawn
    for (const col of h.plotted.loss.raw)
      for (const v of col) assert.ok(v === null || v === undefined || typeof v === 'number', String(v));
    assert.match(await page.textContent('.train-readout-table'), /median of 3 seeds/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

/**
 * A claim on two seeds in the page against the CLI's runs on the same seeds: the badge, each seed's
 * checks (whether each holds and what it measured), caption and numbers; a screenshot of its panel
 * and of each selector of `shots` (`[selector, name]`).
 */
async function claimOnTwoSeeds(url, id, seed, shots = []) {
  const page = await openPage(it.browser, lab(url, `preset=${id}&seed=${seed}&seeds=2`), { colorScheme: 'light' });
  await trainToEnd(page);
  const h = await page.evaluate(() => ({
    config: window.__resnormTrain.config,
    verdict: window.__resnormTrain.verdict,
    badge: document.querySelector('#train-paper .verdict-badge').textContent,
  }));
  const claim = CLAIM_BY_ID[id];
  assert.equal(h.config.seeds, 2);
  const want = seedsVerdict(claim, cliSeeds(claim, h.config));
  assert.equal(h.badge, want.badge);
  want.seeds.forEach((w, i) => {
    const got = h.verdict.seeds[i];
    assert.equal(got.seed, w.seed);
    assert.deepEqual(
      got.verdict.checks.map((c) => [c.holds, c.measured]),
      w.verdict.checks.map((c) => [c.holds, c.measured]),
      `${id} seed ${w.seed}: each check and what it measured`,
    );
    assert.equal(got.verdict.caption, w.verdict.caption, `${id} seed ${w.seed}: the caption`);
    for (const [k, v] of Object.entries(w.verdict.numbers))
      assert.ok(
        Math.abs(got.verdict.numbers[k] - v) <= 1e-4 * Math.abs(v) ||
          (notFinite(v) && notFinite(got.verdict.numbers[k])),
        `${id} seed ${w.seed} ${k}: page ${got.verdict.numbers[k]}, CLI ${v}`,
      );
  });
  assert.equal(h.verdict.caption, want.caption, `${id}: each run\u2019s spread over the seeds`);
  console.log(
    `# ${id} on seeds ${seed} and ${seed + 1}: ${h.badge}; ${h.verdict.seeds.map((x) => x.verdict.caption).join(' | ')}`,
  );
  await page.locator('#train-paper').screenshot({ path: `${SHOTS}/train-${id}-verdict.png` });
  for (const [sel, name] of shots) await page.locator(sel).screenshot({ path: `${SHOTS}/train-${id}-${name}.png` });
  assert.deepEqual(page.problems, []);
  await page.context().close();
}

test('the HybridNorm claim on two seeds: each seed\u2019s checks, caption and numbers are the CLI\u2019s', () =>
  served({ csp: SITE_CSP }, (url) => claimOnTwoSeeds(url, 'hybrid', 0)));

test('the Attention Residuals claim on two seeds: each seed\u2019s spreads across depth, checks and caption are the CLI\u2019s', () =>
  served({ csp: SITE_CSP }, (url) => claimOnTwoSeeds(url, 'attnres', 0, [['#train-learned-attn-res', 'learned']])));

test('the mHC claim on two seeds: each seed\u2019s checks, caption and composite gains are the CLI\u2019s', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, 'preset=hc&seed=0&seeds=2'), { colorScheme: 'dark' });
    await trainToEnd(page);
    const h = await page.evaluate(() => {
      const t = window.__resnormTrain;
      return {
        config: t.config,
        verdict: t.verdict,
        badge: document.querySelector('#train-paper .verdict-badge').textContent,
        gains: Object.fromEntries(
          Object.entries(t.runs).map(([k, r]) => [
            k,
            r.seeds.map((x) => x.logs.map((l) => [l.hc_gain_fwd, l.hc_gain_bwd])),
          ]),
        ),
      };
    });
    const claim = CLAIM_BY_ID.hc;
    assert.equal(h.config.seeds, 2);
    const cli = cliSeeds(claim, h.config);
    const want = seedsVerdict(claim, cli);
    assert.equal(h.badge, want.badge);
    want.seeds.forEach((w, i) => {
      const got = h.verdict.seeds[i];
      assert.equal(got.seed, w.seed);
      assert.deepEqual(
        got.verdict.checks.map((c) => [c.holds, c.measured]),
        w.verdict.checks.map((c) => [c.holds, c.measured]),
        `seed ${w.seed}: each check and what it measured`,
      );
      assert.equal(got.verdict.caption, w.verdict.caption, `seed ${w.seed}: the caption`);
      for (const [k, v] of Object.entries(w.verdict.numbers))
        assert.ok(
          Math.abs(got.verdict.numbers[k] - v) <= 1e-4 * Math.abs(v) ||
            (notFinite(v) && notFinite(got.verdict.numbers[k])),
          `seed ${w.seed} ${k}: page ${got.verdict.numbers[k]}, CLI ${v}`,
        );
    });
    // every logged gain, both directions, run by run and seed by seed, is the CLI's to 1e-4
    // (NaN, the CLI's null, for Pre-LN, which has no streams)
    for (const r of claim.runs)
      cli.forEach(({ seed, runs }, i) => {
        const mine = h.gains[r.key][i];
        const theirs = runs[r.key].logs.map((l) => [l.hc_gain_fwd, l.hc_gain_bwd]);
        assert.equal(mine.length, theirs.length, `${r.key} seed ${seed}: its logged steps`);
        mine.forEach((pair, j) =>
          pair.forEach((v, d) => {
            const c = theirs[j][d] ?? NaN;
            assert.ok(
              (notFinite(v) && notFinite(c)) || Math.abs(v - c) <= 1e-4 * Math.abs(c),
              `${r.key} seed ${seed} log ${j} gain ${d}: page ${v}, CLI ${c}`,
            );
            assert.equal(notFinite(v), r.arch === 'pre_ln', `${r.key}: a gain exactly where there are streams`);
          }),
        );
      });
    console.log(`# hc on seeds 0 and 1: ${h.badge}; ${h.verdict.seeds.map((x) => x.verdict.caption).join(' | ')}`);
    await page.locator('#train-paper').screenshot({ path: `${SHOTS}/train-hc-verdict.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('the Late layers claim on two seeds: each seed\u2019s checks, caption and ratios (the shown runs\u2019 too) are the CLI\u2019s', () =>
  served({ csp: SITE_CSP }, (url) =>
    claimOnTwoSeeds(url, 'late', 0, [
      ['#train-after', 'after'],
      ['#train-heat-grad-norm', 'heat'],
    ]),
  ));

test('the nGPT claim on two seeds: each seed\u2019s checks, caption and steps to the target are the CLI\u2019s', () =>
  served({ csp: SITE_CSP }, (url) => claimOnTwoSeeds(url, 'ngpt', 0)));
