// The training lab (train.html) in Debian's Chromium under the site's CSP: it
// loads with no console message and names a hostile link's fields in a notice;
// a short run from a link completes with every logged point on the loss chart;
// a paused and continued run logs the held-out losses of an uninterrupted one,
// bit for bit; the heatmaps hold exactly the arrays the engine's trainer gives
// (the same run through the wasm API in Node); a learning rate that diverges
// shows the step it diverged at; at 360 px in the dark theme no text overlaps
// and nothing scrolls sideways; the keyboard reaches Start, Pause, Step, Reset
// and reads the charts step by step and a heatmap cell by cell. Screenshots in
// test-results/.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  SHOTS,
  SITE_CSP,
  labDrawn,
  openPage,
  overlaps,
  pass,
  release,
  served,
  useBrowser,
  waitStepsHeld,
} from './harness.js';
import { trainFromHash } from '../../web/src/train/link.js';
import { engineSettings } from '../../web/src/shared/train-fields.js';
import { DIVERGES, tiny } from '../node/train/tiny.js';

const it = useBrowser({ wasm: true });

const lab = (url, hash) => `${url}train.html#${hash}`;

/** The page's hook with its typed arrays as plain arrays (NaN and Infinity kept). */
const hook = (page) =>
  page.evaluate(() => {
    const h = window.__resnormTrain;
    const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
    const runs = Object.fromEntries(
      Object.entries(h.runs).map(([arch, r]) => [
        arch,
        { ...r, logs: r.logs.map((l) => Object.fromEntries(Object.entries(l).map(([k, v]) => [k, plain(v)]))) },
      ]),
    );
    const heatmaps = {};
    for (const arch of h.archs)
      heatmaps[arch] = Object.fromEntries(
        ['grad_norm', 'update_ratio'].map((m) => [
          m,
          { steps: h.heatmaps[arch][m].steps, columns: h.heatmaps[arch][m].columns.map(plain) },
        ]),
      );
    return {
      state: h.state,
      progress: h.progress,
      archs: h.archs,
      runs,
      heatmaps,
      plotted: h.plotted,
      legends: h.legends,
    };
  });

const waitState = (page, state) => page.waitForFunction((s) => window.__resnormTrain?.state === s, state);

/** The same run through the wasm API in Node: every log of every architecture. */
function direct(hash) {
  const { config } = trainFromHash(`#${hash}`);
  const out = {};
  for (const arch of config.arch) {
    const tr = it.rn.trainer({ ...engineSettings(config), arch });
    out[arch] = { task: tr.task, logs: tr.step(config.steps) };
    tr.delete();
  }
  return out;
}

/** Every value the same number, bit for bit (NaN equal to NaN). */
function sameNumbers(actual, expected, label) {
  assert.equal(actual.length, expected.length, `${label}: length`);
  for (let i = 0; i < expected.length; i++)
    assert.ok(Object.is(actual[i], expected[i]), `${label}[${i}]: ${actual[i]} != ${expected[i]}`);
}

test('the lab loads under the site CSP with no console message; a hostile link is named in a notice and ignored', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hostile =
      'task=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&depth=1e309&lr=javascript:alert(1)&__proto__=1&heads=3';
    const page = await openPage(it.browser, lab(url, hostile));
    let dialogs = 0;
    page.on('dialog', (d) => {
      dialogs++;
      d.dismiss();
    });
    const notice = await page.locator('#notice').textContent();
    for (const field of ['(task)', '(depth)', '(lr)', '(heads)', '__proto__'])
      assert.ok(notice.includes(field), notice);
    assert.equal(await page.locator('#notice img').count(), 0);
    assert.equal(await page.locator('#train-task').inputValue(), 'reverse');
    assert.equal(await page.locator('#train-depth').inputValue(), '6');
    const nav = await page.evaluate(() =>
      [...document.querySelectorAll('.site-nav a')].map((a) => [
        a.getAttribute('href'),
        a.getAttribute('aria-current'),
      ]),
    );
    assert.deepEqual(nav.at(-1), ['./train.html', 'page']);
    assert.equal(dialogs, 0);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a short run from a link completes, with every logged point drawn on every line chart', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hash = tiny({ steps: 20 });
    const page = await openPage(it.browser, lab(url, hash));
    await page.click('#train-start');
    await waitState(page, 'done');
    const h = await hook(page);
    const steps = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20];
    // the charts draw one a frame while the run trains: at its end each canvas draws its last data
    for (const key of ['loss', 'grad', 'lr']) {
      assert.deepEqual(h.plotted[key].x, steps, `${key}: the steps its canvas draws`);
      assert.equal(h.plotted[key].drawn, true, `${key}: drawn`);
    }
    for (const arch of ['post_ln', 'pre_ln']) {
      assert.deepEqual(
        h.runs[arch].logs.map((l) => l.step),
        steps,
      );
      assert.equal(h.runs[arch].stepsDone, 20);
    }
    // held-out and training loss per arch, each finite at every logged step
    assert.equal(h.plotted.loss.raw.length, 4);
    for (const series of h.plotted.loss.raw) {
      assert.equal(series.length, steps.length);
      assert.ok(
        series.every((v) => Number.isFinite(v) && v > 0),
        String(series),
      );
    }
    assert.equal(h.progress.done, 40);
    assert.equal(h.progress.total, 40);
    assert.equal(await page.locator('.run-bar-progress').evaluate((p) => p.value / p.max), 1);
    assert.match(await page.locator('.run-stats').textContent(), /done .*40 of 40 steps/);
    // transformer blocks: the largest attention logit beside the loss, gradient norm and learning rate
    assert.equal(await page.locator('.train-chart canvas').count(), 4);
    await page.screenshot({ path: `${SHOTS}/train-desktop.png`, fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('Pause then Start logs the held-out losses of one uninterrupted run, bit for bit', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hash = tiny({ steps: 300 });
    const whole = await openPage(it.browser, lab(url, hash));
    await whole.click('#train-start');
    await waitState(whole, 'done');
    const expected = (await hook(whole)).runs;
    await whole.context().close();

    // Pause while the runs' step requests are out (both, or one at a time where the page has one
    // engine worker): the page holds their answers (harness.js's hold) and the test hands them over
    // a few logged steps at a time, so the click lands mid-run whatever the machine's speed.
    const page = await openPage(it.browser, lab(url, hash), { held: ['trainerStep'] });
    await page.click('#train-start');
    for (let k = 0; k < 3; k++) {
      await waitStepsHeld(page, 2);
      await pass(page);
    }
    await waitStepsHeld(page, 2);
    await page.click('#train-pause');
    await waitState(page, 'pausing');
    await release(page);
    await waitState(page, 'paused');
    const paused = await hook(page);
    assert.ok(
      paused.progress.done > 0 && paused.progress.done < 600,
      `paused after ${paused.progress.done} of 600 steps`,
    );
    assert.match(await page.locator('.run-stats').textContent(), /paused/);
    // Nothing is asked while paused. On purpose a person's pause, and it cannot decide the
    // outcome by the machine's speed: a step asked now would show as an answer seen, and a slow
    // machine could only hide one, never make a correct page fail.
    const seen = await page.evaluate(() => window.__testHold.seen.trainerStep);
    await page.waitForTimeout(400); // on purpose, a person's pause: it cannot decide the outcome (above)
    assert.equal(await page.evaluate(() => window.__testHold.seen.trainerStep), seen, 'a step was asked while paused');
    assert.equal((await hook(page)).progress.done, paused.progress.done, 'nothing trains while paused');
    await page.click('#train-start');
    await waitState(page, 'done');
    const resumed = (await hook(page)).runs;
    for (const arch of ['post_ln', 'pre_ln']) {
      const got = resumed[arch].logs;
      const want = expected[arch].logs;
      assert.deepEqual(
        got.map((l) => l.step),
        want.map((l) => l.step),
      );
      sameNumbers(
        got.map((l) => l.heldout_loss),
        want.map((l) => l.heldout_loss),
        `${arch} held-out loss`,
      );
    }
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('the heatmaps hold the engine\u2019s own arrays: the same run through rn.trainer in Node', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hash = tiny({ steps: 16, log_every: 4, depth: 3 });
    const page = await openPage(it.browser, lab(url, hash));
    await page.click('#train-start');
    await waitState(page, 'done');
    const h = await hook(page);
    const want = direct(hash);
    for (const arch of ['post_ln', 'pre_ln']) {
      const logs = want[arch].logs;
      for (const metric of ['grad_norm', 'update_ratio']) {
        const map = h.heatmaps[arch][metric];
        assert.deepEqual(
          map.steps,
          logs.map((l) => l.step),
        );
        map.columns.forEach((col, i) =>
          sameNumbers(col, Array.from(logs[i][metric]), `${arch} ${metric} step ${map.steps[i]}`),
        );
      }
      assert.equal(h.heatmaps[arch].grad_norm.columns[0].length, 4, 'L + 1 layers');
      assert.equal(h.heatmaps[arch].update_ratio.columns[0].length, 3, 'L blocks');
      assert.deepEqual(h.runs[arch].task, want[arch].task);
    }
    // the legend has ticks, the map reads out under the pointer
    assert.ok(h.legends.grad_norm.length >= 2, JSON.stringify(h.legends));
    const map = page.locator('.heatmap-figure[data-arch="pre_ln"] .heatmap').first();
    await map.scrollIntoViewIfNeeded();
    const box = await map.boundingBox();
    await page.mouse.move(box.x + box.width - 12, box.y + 10);
    const read = await page.locator('.heatmap-figure[data-arch="pre_ln"] .heatmap-readout').first().textContent();
    assert.match(read, /^Pre-LN, layer 3, step 16: gradient norm \S+/);
    assert.equal(await page.locator('.heatmap-figure[data-arch="pre_ln"] .chart-tip').first().isVisible(), true);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('Mix-LN\u2019s share: shown with Mix-LN, a bad value named and not taken, a run at 0.5 trains as the engine does', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, tiny({ steps: 8 })));
    const field = page.locator('.field-mix_fraction');
    const box = page.locator('#train-mix-fraction');
    const start = page.locator('#train-start');
    assert.equal(await field.isHidden(), true, 'hidden without Mix-LN');
    await page.locator('#train-arch-more summary').click();
    await page.check('#train-arch-mix_ln');
    assert.equal(await field.isVisible(), true, 'shown with Mix-LN');
    assert.equal(await box.inputValue(), '0.25');
    await box.fill('2');
    assert.equal(
      await page.locator('#train-mix-fraction-error').textContent(),
      'Mix-LN Post-LN share: out of range (allowed 0..1).',
    );
    await page.waitForFunction(() => document.getElementById('train-start').getAttribute('aria-disabled') === 'true');
    // without Mix-LN the box goes, and so does what was typed in it: nothing unseen holds Start back
    await page.uncheck('#train-arch-mix_ln');
    assert.equal(await field.isHidden(), true);
    await page.waitForFunction(() => document.getElementById('train-start').getAttribute('aria-disabled') === 'false');
    await page.check('#train-arch-mix_ln');
    assert.equal(await box.inputValue(), '0.25', 'the value taken, not the one refused');
    assert.equal(await page.locator('#train-mix-fraction-error').isHidden(), true);
    await page.uncheck('#train-arch-post_ln');
    await page.uncheck('#train-arch-pre_ln');
    await box.fill('0.5');
    await page.waitForFunction(() => /mix_fraction=0\.5/.test(location.hash));
    const hash = (await page.evaluate(() => location.hash)).slice(1);
    assert.deepEqual(trainFromHash(`#${hash}`).config.arch, ['mix_ln']);
    await start.click();
    await waitState(page, 'done');
    const h = await hook(page);
    const want = direct(hash).mix_ln.logs;
    assert.deepEqual(
      h.runs.mix_ln.logs.map((l) => l.step),
      want.map((l) => l.step),
    );
    h.runs.mix_ln.logs.forEach((l, i) => sameNumbers([l.heldout_loss], [want[i].heldout_loss], `step ${l.step}`));
    const atDefault = direct(hash.replace('mix_fraction=0.5', 'mix_fraction=0.25')).mix_ln.logs;
    assert.notEqual(atDefault.at(-1).heldout_loss, want.at(-1).heldout_loss, 'the share reaches the trainer');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('Start moves nothing above the after-training section: no setting, readout, chart or heatmap shifts as the run goes', () =>
  served({ csp: SITE_CSP }, async (url) => {
    // a shift above the charts makes Chromium repaint everything below it, in the frames a run starts in
    const page = await openPage(it.browser, lab(url, tiny({ steps: 40, log_every: 1 })));
    await page.evaluate(() => {
      window.__shifts = [];
      const name = (n) => {
        const e = n?.nodeType === 1 ? n : n?.parentElement;
        return e ? `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${[...e.classList].join('.')}` : '?';
      };
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries())
          for (const s of entry.sources)
            if (
              Math.abs(s.previousRect.y - s.currentRect.y) > 0.5 ||
              Math.abs(s.previousRect.height - s.currentRect.height) > 0.5
            )
              window.__shifts.push({
                node: name(s.node),
                y: s.currentRect.y + scrollY,
                from: s.previousRect.y + scrollY,
              });
      }).observe({ type: 'layout-shift' });
    });
    await page.click('#train-start');
    await waitState(page, 'done');
    await labDrawn(page);
    const { shifts, after } = await page.evaluate(() => ({
      shifts: window.__shifts,
      after: document.querySelector('#train-after').getBoundingClientRect().top + scrollY,
    }));
    // what is below the after-training section moves when its charts arrive: by design, at the end
    assert.deepEqual(
      shifts.filter((s) => Math.min(s.y, s.from) < after - 1),
      [],
      'elements above the after-training section moved',
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a learning rate that diverges shows the step it diverged at, and no console message', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hash = DIVERGES;
    const want = direct(hash);
    const stop = want.post_ln.logs.at(-1).first_nonfinite;
    assert.ok(Number.isInteger(stop), 'the test needs a config under which Post-LN diverges');
    const page = await openPage(it.browser, lab(url, hash));
    await page.click('#train-start');
    await waitState(page, 'done');
    const h = await hook(page);
    assert.equal(h.runs.post_ln.firstNonfinite, stop);
    assert.equal(h.runs.post_ln.stepsDone, stop);
    assert.match(
      await page.locator('#train-diverged').textContent(),
      new RegExp(`Post-LN diverged at step ${stop}\\b`),
    );
    assert.match(
      await page.locator('.train-readout-table tr[data-arch="post_ln"] .diverged-note').textContent(),
      new RegExp(`^diverged at step ${stop}$`),
    );
    for (const note of await page.locator('.heatmap-figure[data-arch="post_ln"] .heatmap-note').allTextContents())
      assert.equal(note, `diverged at step ${stop}`);
    // the step it stopped at has a number that is not finite, and its maps hold the engine's arrays
    // (non-finite cells drawn hatched, named in the legend)
    const last = h.runs.post_ln.logs.at(-1);
    assert.equal(last.step, stop);
    const numbers = [
      last.train_loss,
      last.heldout_loss,
      last.grad_norm_global,
      ...last.grad_norm,
      ...last.update_ratio,
    ];
    assert.ok(
      numbers.some((v) => !Number.isFinite(v)),
      String(numbers),
    );
    for (const metric of ['grad_norm', 'update_ratio'])
      h.heatmaps.post_ln[metric].columns.forEach((col, i) =>
        sameNumbers(col, Array.from(want.post_ln.logs[i][metric]), `post_ln ${metric} step ${i}`),
      );
    assert.match(await page.locator('.heat-keys').first().textContent(), /not finite/);
    assert.equal(await page.locator('.heatmap canvas').count(), 4);
    await page.screenshot({ path: `${SHOTS}/train-diverged.png`, fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('360 px in the dark theme: no text overlaps, nothing scrolls sideways, the run comes before its charts', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hash = DIVERGES;
    const page = await openPage(it.browser, lab(url, hash), {
      viewport: { width: 360, height: 780 },
      colorScheme: 'dark',
    });
    await page.click('#train-start');
    await waitState(page, 'done');
    await labDrawn(page);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360);
    assert.deepEqual(await overlaps(page), []);
    const top = async (sel) => (await page.locator(sel).first().boundingBox()).y;
    assert.ok((await top('.run-bar')) < (await top('#train-chart-loss')), 'the run bar above the loss chart');
    assert.ok((await top('#train-readout')) < (await top('#train-chart-loss')), 'the readout above the loss chart');
    // the other settings behind "All settings"
    assert.equal(await page.locator('#train-task').isVisible(), true);
    assert.equal(await page.locator('#train-lr').isVisible(), false);
    await page.click('#settings-toggle');
    assert.equal(await page.locator('#train-lr').isVisible(), true);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360);
    assert.deepEqual(await overlaps(page), []);
    await page.screenshot({ path: `${SHOTS}/train-phone-360-dark.png`, fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('the keyboard reaches Start, Pause, Step and Reset, and reads a heatmap cell by cell', () =>
  served({ csp: SITE_CSP }, async (url) => {
    // The step answers are held (harness.js's hold) and handed over until 8 steps are done, then
    // kept while Tab walks to Pause: the run is mid-way when Pause is pressed, whatever the speed.
    const page = await openPage(it.browser, lab(url, tiny({ steps: 2000 })), { held: ['trainerStep'] });
    const tabTo = async (selector) => {
      for (let i = 0; i < 120; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return;
      }
      assert.fail(`Tab never reached ${selector}`);
    };
    await tabTo('#train-start');
    await page.keyboard.press('Enter');
    while ((await hook(page)).progress.done < 8) {
      await waitStepsHeld(page, 2);
      await pass(page);
    }
    await waitStepsHeld(page, 2);
    await tabTo('#train-pause');
    await page.keyboard.press('Enter');
    await waitState(page, 'pausing');
    await release(page);
    await waitState(page, 'paused');
    const before = (await hook(page)).progress.done;
    await tabTo('#train-step');
    await page.keyboard.press(' ');
    await page.waitForFunction((n) => window.__resnormTrain.progress.done === n + 4, before);
    await waitState(page, 'paused');
    // a heatmap, by keys: End, then left and down, each read out in words
    await tabTo('.heatmap');
    await page.keyboard.press('End');
    const figure = page.locator('.heatmap-figure').filter({ has: page.locator('.heatmap:focus') });
    const readout = figure.locator('.heatmap-readout');
    const last = (await hook(page)).runs.post_ln.logs.at(-1);
    assert.match(await readout.textContent(), new RegExp(`^Post-LN, layer 2, step ${last.step}: gradient norm \\S+`));
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowDown');
    assert.match(
      await readout.textContent(),
      new RegExp(`^Post-LN, layer 1, step ${last.step - 2}: gradient norm \\S+`),
    );
    // the loss chart, by keys: the readout follows the step
    await tabTo('#train-chart-loss');
    await page.keyboard.press('Home');
    await page.waitForFunction(() => /^Step 2 /.test(document.querySelector('.train-readout-head').textContent));
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => /^Step 4 /.test(document.querySelector('.train-readout-head').textContent));
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => /\(the latest\)/.test(document.querySelector('.train-readout-head').textContent));
    await tabTo('#train-reset');
    await page.keyboard.press('Enter');
    await waitState(page, 'idle');
    assert.equal((await hook(page)).progress.total, 0);
    assert.equal(await page.locator('#train-depth').isDisabled(), false);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));
