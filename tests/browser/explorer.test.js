// The explorer as a person uses it, in Debian's Chromium.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  GUARD_MS,
  SHOTS,
  STRICT_CSP,
  hold,
  openPage,
  release,
  served,
  useBrowser,
  waitForRender,
  waitHeld,
} from './harness.js';

const it = useBrowser({ wasm: true });

/** fn(page) on the explorer, served at /, in a context of its own (pageOptions: the context's). */
const onPage = (fn, pageOptions) =>
  served({}, async (url) => {
    const page = await openPage(it.browser, url, pageOptions);
    try {
      await fn(page);
    } finally {
      await page.context().close();
    }
  });

test('the page loads with no console error, draws three charts and a caption', () =>
  onPage(async (page) => {
    const state = await page.evaluate(() => ({
      charts: ['chart-grad', 'chart-stream', 'chart-update'].map(
        (id) => document.querySelectorAll(`#${id} canvas`).length,
      ),
      caption: document.getElementById('caption').textContent,
      archs: window.__resnorm.config.arch,
    }));
    assert.deepEqual(state.charts, [1, 1, 1]);
    assert.deepEqual(state.archs, ['plain', 'residual', 'post_ln', 'pre_ln']);
    assert.ok(state.caption.length > 40, `caption: ${state.caption}`);
    await page.screenshot({ path: `${SHOTS}/explorer-desktop.png`, fullPage: true });
    assert.deepEqual(page.problems, []);
  }));

test('depth 96 and gain 1.2 update every chart, with the values the wasm API returns', () =>
  onPage(async (page) => {
    let renders = await page.evaluate(() => window.__resnorm.renders);
    await page.locator('#depth').fill('40'); // the default is 96: move away first
    renders = await waitForRender(page, { depth: 40 }, renders);
    await page.locator('#depth').fill('96');
    renders = await waitForRender(page, { depth: 96 }, renders);
    await page.locator('#gain').fill('1.2');
    await waitForRender(page, { depth: 96, gain: 1.2 }, renders);
    const shown = await page.evaluate(() => ({ config: window.__resnorm.config, plotted: window.__resnorm.plotted }));
    const api = it.rn.simulate(shown.config);
    const fields = { grad: 'grad_norm', stream: 'stream_rms', update: 'update_ratio' };
    for (const [chart, field] of Object.entries(fields)) {
      for (const arch of shown.config.arch) {
        const plotted = shown.plotted[chart].series[arch];
        const expect = Array.from(api.results[arch][field]);
        assert.equal(plotted.length, expect.length, `${chart}/${arch} length`);
        plotted.forEach((v, i) => {
          // Non-finite values cross postMessage and JSON as null.
          if (!Number.isFinite(expect[i])) assert.ok(v === null || !Number.isFinite(v), `${chart}/${arch}[${i}]`);
          else assert.equal(v, expect[i], `${chart}/${arch}[${i}]`);
        });
      }
    }
    // The gain-1.2 plain stack explodes toward layer 0: the picture must say so.
    assert.ok(api.results.plain.grad_norm[0] > 100);
    await page.screenshot({ path: `${SHOTS}/explorer-depth96-gain1.2.png`, fullPage: true });
    assert.deepEqual(page.problems, []);
  }));

test('the page works under a sub-path and under a strict Content-Security-Policy', async () => {
  for (const base of ['/', '/course/week-3/', '/a/deeply/nested/path/to/resnorm/']) {
    await served({ base, csp: STRICT_CSP }, async (url) => {
      const page = await openPage(it.browser, url);
      let renders = await page.evaluate(() => window.__resnorm.renders);
      await page.locator('#gain').fill('0.8');
      await waitForRender(page, { gain: 0.8 }, renders);
      assert.deepEqual(page.problems, [], `${base}: ${page.problems.join('; ')}`);
      await page.context().close();
    });
  }
});

test('keyboard alone moves the depth slider; 360 px wide has no horizontal scroll; dark theme', () =>
  onPage(
    async (page) => {
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 360, `page is ${width}px wide at 360`);
      await page.locator('#depth').focus();
      const before = await page.evaluate(() => ({
        depth: window.__resnorm.config.depth,
        renders: window.__resnorm.renders,
      }));
      await page.keyboard.press('ArrowLeft');
      await waitForRender(page, { depth: before.depth - 1 }, before.renders);
      await page.screenshot({ path: `${SHOTS}/explorer-phone-dark.png`, fullPage: true });
      assert.deepEqual(page.problems, []);
    },
    { viewport: { width: 360, height: 780 }, colorScheme: 'dark' },
  ));

test('a bad value gets a message naming the field and range, and the charts stay', () =>
  onPage(async (page) => {
    const renders = await page.evaluate(() => window.__resnorm.renders);
    await page.locator('#depth-number').fill('0');
    await page.locator('#depth-number').press('Enter');
    await page.waitForFunction(
      () => /depth/i.test(document.body.innerText) && /1\.\.1024|1 to 1024|1–1024/.test(document.body.innerText),
    );
    const after = await page.evaluate(() => ({
      renders: window.__resnorm.renders,
      canvases: document.querySelectorAll('#chart-grad canvas').length,
    }));
    assert.equal(after.canvases, 1);
    assert.ok(after.renders >= renders);
  }));

test('Mix-LN\u2019s share shows while Mix-LN is chosen, names its range when refused, and moves the numbers', () =>
  onPage(async (page) => {
    const box = page.locator('#mix-fraction');
    const field = page.locator('.field-mix_fraction');
    assert.equal(await field.isHidden(), true, 'hidden without Mix-LN');
    let renders = await page.evaluate(() => window.__resnorm.renders);
    await page.locator('#arch-more summary').click();
    await page.locator('label.chip-mix_ln').click();
    renders = await waitForRender(page, { arch: ['plain', 'residual', 'post_ln', 'pre_ln', 'mix_ln'] }, renders);
    assert.equal(await field.isVisible(), true, 'shown with Mix-LN');
    assert.equal(await box.inputValue(), '0.25');
    assert.equal(await page.locator('label[for="mix-fraction"]').innerText(), 'Mix-LN Post-LN share');
    await box.fill('2');
    await page.waitForFunction(() =>
      /mix_fraction: 2 is out of range \(allowed 0\.\.1\)/.test(
        document.getElementById('mix-fraction-error')?.textContent ?? '',
      ),
    );
    assert.equal(await box.getAttribute('aria-invalid'), 'true');
    // unchecking Mix-LN keeps a refused value in sight, so it can be put right
    await page.locator('label.chip-mix_ln').click();
    assert.equal(await field.isVisible(), true, 'a refused value stays in sight');
    await page.locator('label.chip-mix_ln').click();
    await box.fill('0.5');
    renders = await waitForRender(page, { mix_fraction: 0.5 }, renders);
    const shown = await page.evaluate(() => ({ config: window.__resnorm.config, plotted: window.__resnorm.plotted }));
    assert.equal(await page.locator('#mix-fraction-error').isHidden(), true);
    const api = it.rn.simulate(shown.config);
    const before = it.rn.simulate({ ...shown.config, mix_fraction: 0.25 });
    const grad = shown.plotted.grad.series.mix_ln;
    grad.forEach((v, i) => assert.equal(v, api.results.mix_ln.grad_norm[i], `grad_norm[${i}]`));
    assert.ok(
      grad.some((v, i) => v !== before.results.mix_ln.grad_norm[i]),
      'the share changes what is drawn',
    );
    await page.waitForFunction(() => /mix_fraction=0\.5/.test(location.hash)); // written a moment after the paint
    await page.locator('label.chip-mix_ln').click();
    await waitForRender(page, { arch: ['plain', 'residual', 'post_ln', 'pre_ln'] }, renders);
    assert.equal(await field.isHidden(), true, 'hidden again without Mix-LN');
    assert.deepEqual(page.problems, []);
  }));

test('timing: one slider step at the default scene (reported, not asserted)', () =>
  onPage(async (page) => {
    const times = await page.evaluate(async (guard) => {
      const gain = document.getElementById('gain');
      const out = [];
      for (let i = 0; i < 30; i++) {
        const n = window.__resnorm.renders;
        const t0 = performance.now();
        // Whole slider steps (0.01), each different from the last, so every input changes the config.
        gain.value = (0.8 + 0.01 * i).toFixed(2);
        gain.dispatchEvent(new Event('input', { bubbles: true }));
        // the paint's own time stamp is the measure; the frames only look for it (a guard ends a hang)
        while (window.__resnorm.renders === n && performance.now() < t0 + guard)
          await new Promise((r) => requestAnimationFrame(r));
        if (window.__resnorm.renders !== n) out.push(window.__resnorm.lastPaintMs - t0);
      }
      return out.sort((a, b) => a - b);
    }, GUARD_MS);
    assert.equal(times.length, 30, `only ${times.length} of 30 steps repainted`);
    const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
    console.log(
      `  slider step (input -> repaint) at the default scene: median ${q(0.5)} ms, p95 ${q(0.95)} ms, n=${times.length}`,
    );
  }));

test('an answer that comes after a newer one is never drawn over it', () =>
  // One architecture is not split over the workers, so with two workers a request
  // goes to the idle one while the older is still out: the older answer, kept back
  // here, then comes second. The page must keep the newer settings on screen.
  served({}, async (url) => {
    const page = await openPage(it.browser, `${url}#arch=pre_ln&depth=24`);
    try {
      const workers = await page.evaluate(() => navigator.hardwareConcurrency);
      let renders = await page.evaluate(() => window.__resnorm.renders);
      await hold(page, ['simulate']);
      await page.locator('#gain').fill('1.2');
      await waitHeld(page, 1); // the answer for gain 1.2 is computed and kept back
      await page.evaluate(() => window.__testHold.hold([])); // later answers go through
      await page.locator('#gain').fill('0.8');
      // With two workers the gain-0.8 answer is drawn while the older one is kept back; with
      // one, it waits for that worker, and comes after the older answer is let go.
      if (workers >= 2) await waitForRender(page, { gain: 0.8 }, renders);
      await release(page); // the gain-1.2 answer arrives now
      if (workers < 2) await waitForRender(page, { gain: 0.8 }, renders);
      // Whatever the stale answer could still do happens within a task and the frames after it.
      await page.evaluate(
        () => new Promise((r) => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(r)), 0)),
      );
      const shown = await page.evaluate(() => ({
        config: window.__resnorm.config,
        renders: window.__resnorm.renders,
        status: document.getElementById('status').textContent,
        link: location.hash,
      }));
      assert.equal(shown.config.gain, 0.8, `drawn: ${JSON.stringify(shown.config)} after ${shown.renders} renders`);
      assert.match(shown.status, /ready/);
      const api = it.rn.simulate(shown.config);
      const plotted = await page.evaluate(() => window.__resnorm.plotted.grad.series.pre_ln);
      assert.deepEqual(plotted, Array.from(api.results.pre_ln.grad_norm));
      assert.deepEqual(page.problems, []);
    } finally {
      await page.context().close();
    }
  }));
