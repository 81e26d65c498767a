// The explorer as a student reads it: nothing covers the text, values read off
// the charts at the cursor, transformer blocks, the phone layout, and lines that
// can be told apart.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, openPage, served, useBrowser, waitForRender } from './harness.js';
import { fmtValue } from '../../web/src/shared/format.js';
import { ARCHS, REFERENCE_LINE, archLabel } from '../../web/src/shared/archs.js';

const it = useBrowser({ wasm: true });

/** fn(page) on the explorer at `hash`, in a context of its own (options: the context's). */
const onPage = (fn, options = {}, hash = '') =>
  served({}, async (url) => {
    const page = await openPage(it.browser, `${url}${hash}`, options);
    try {
      await fn(page);
    } finally {
      await page.context().close();
    }
  });

/**
 * Every visible block of text (headings, paragraphs, labels, legends, figure
 * captions) wholly inside the viewport whose own points are not covered by
 * another element: the element on top at its centre and at both ends of its
 * middle line must be itself or inside it.
 */
function coveredText() {
  const blocks = document.querySelectorAll('h1, h2, h3, p, li, legend, label, figcaption, summary');
  const covered = [];
  for (const b of blocks) {
    const r = b.getBoundingClientRect();
    if (r.width < 4 || r.height < 4) continue; // visually hidden or empty
    if (!b.checkVisibility({ contentVisibilityAuto: true, opacityProperty: true, visibilityProperty: true })) continue;
    if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) continue;
    const y = r.top + r.height / 2;
    // a point scrolled out of a scrolling box (the settings panel) is not shown
    const clips = [];
    for (let a = b.parentElement; a; a = a.parentElement)
      if (getComputedStyle(a).overflowY !== 'visible') clips.push(a.getBoundingClientRect());
    const shown = (x) => clips.every((c) => x >= c.left && x <= c.right && y >= c.top && y <= c.bottom);
    for (const x of [r.left + 2, r.left + r.width / 2, r.right - 2]) {
      if (!shown(x)) continue;
      const top = document.elementFromPoint(x, y);
      if (top && top !== b && !b.contains(top) && !top.contains(b)) {
        const name = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${[...e.classList].join('.')}`;
        covered.push(`${name(b)} "${b.textContent.trim().slice(0, 40)}" under ${name(top)}`);
        break;
      }
    }
  }
  return covered;
}

// Defect 1. Any covering is a failure, not only the settings panel over the cards.
test('at every desktop width, scrolling through the page, no element covers another one’s text', async () => {
  for (const width of [1024, 1280, 1366, 1920]) {
    await onPage(
      async (page) => {
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        for (let y = 0; y < height; y += 300) {
          await page.evaluate((top) => window.scrollTo(0, top), y);
          const covered = await page.evaluate(coveredText);
          assert.deepEqual(covered, [], `at ${width}px wide, scrolled to ${y}`);
        }
      },
      { viewport: { width, height: 900 } },
    );
  }
});

/** The plot area of chart `metric` and a point at fraction fx of its width. */
async function plotPoint(page, metric, fx, fy = 0.5) {
  const over = page.locator(`#chart-${metric} .u-over`);
  await over.scrollIntoViewIfNeeded();
  const box = await over.boundingBox();
  return { x: box.x + box.width * fx, y: box.y + box.height * fy };
}

const readoutLayer = (page) => page.evaluate(() => Number(document.getElementById('readout-layer').value));

/** The tooltip's value of each arch, and what the engine's numbers say it should be at `layer`. */
async function tipAgainstEngine(page, metric, layer) {
  return page.evaluate(
    ([m, l]) => {
      const tip = document.querySelector(`#chart-${m} .chart-tip`);
      const rows = {};
      for (const tr of tip.querySelectorAll('[data-arch]')) rows[tr.dataset.arch] = tr.querySelector('td').textContent;
      const key = { grad: 'grad_norm', stream: 'stream_rms', update: 'update_ratio' }[m];
      const i = m === 'update' ? l - 1 : l;
      const engine = {};
      for (const arch of window.__resnorm.config.arch) engine[arch] = window.__resnorm.result.results[arch][key][i];
      return { rows, engine, hidden: tip.hidden, title: tip.querySelector('.chart-tip-title').textContent };
    },
    [metric, layer],
  );
}

// Defect 3. Choices where the issue is silent: the tooltip shows the curves of
// the chart under the pointer (the readout has all three); a click on the pinned
// layer again unpins it; arrow keys on a focused chart with nothing pinned pin
// the layer shown and move from there; Home and End go to the ends.
test('hovering a chart moves the "Values at" slider and shows every curve’s value at the cursor', () =>
  onPage(async (page) => {
    const p = await plotPoint(page, 'grad', 0.5);
    await page.mouse.move(p.x, p.y);
    await page.waitForFunction(() => !document.querySelector('#chart-grad .chart-tip').hidden);
    const layer = await readoutLayer(page);
    assert.ok(layer > 30 && layer < 66, `slider at ${layer} after hovering the middle of a 96-layer chart`);
    const tip = await tipAgainstEngine(page, 'grad', layer);
    assert.equal(tip.title, `layer ${layer}`);
    assert.deepEqual(Object.keys(tip.rows), ['plain', 'residual', 'post_ln', 'pre_ln']);
    for (const [arch, text] of Object.entries(tip.rows)) assert.equal(text, fmtValue(tip.engine[arch]), arch);

    // Leaving keeps the last layer, not layer 0.
    await page.mouse.move(5, 5);
    await page.waitForFunction(() => document.querySelector('#chart-grad .chart-tip').hidden);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await readoutLayer(page), layer);
    assert.match(await page.locator('#readout-layer-value').textContent(), new RegExp(`layer ${layer} of 96`));
  }));

test('a click pins a layer, arrow keys move it, leaving comes back to it, Escape unpins', () =>
  onPage(async (page) => {
    const p = await plotPoint(page, 'stream', 0.25);
    await page.mouse.click(p.x, p.y);
    const pinned = await readoutLayer(page);
    const q = await plotPoint(page, 'stream', 0.75);
    await page.mouse.move(q.x, q.y);
    await page.waitForFunction((l) => Number(document.getElementById('readout-layer').value) !== l, pinned);
    await page.mouse.move(5, 5);
    await page.waitForFunction((l) => Number(document.getElementById('readout-layer').value) === l, pinned);
    assert.equal((await page.locator('#chart-stream').getAttribute('aria-keyshortcuts')) !== null, true);

    await page.locator('#chart-stream').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.equal(await readoutLayer(page), pinned + 2);
    const tip = await tipAgainstEngine(page, 'stream', pinned + 2);
    assert.equal(tip.hidden, false);
    assert.equal(tip.title, `layer ${pinned + 2}`);
    for (const [arch, text] of Object.entries(tip.rows)) assert.equal(text, fmtValue(tip.engine[arch]), arch);
    await page.keyboard.press('ArrowLeft');
    assert.equal(await readoutLayer(page), pinned + 1);

    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#chart-stream .chart-tip').isHidden(), true);
    // Unpinned: hovering and leaving no longer comes back to the pinned layer.
    await page.mouse.move(q.x, q.y);
    await page.mouse.move(5, 5);
    assert.notEqual(await readoutLayer(page), pinned + 1);
    assert.deepEqual(page.problems, []);
  }));

test('at 1366 x 900 the tooltip of the update chart is inside the viewport, with the block’s values', () =>
  onPage(
    async (page) => {
      for (const [fx, fy] of [
        [0.98, 0.95],
        [0.02, 0.05],
        [0.5, 0.5],
      ]) {
        const p = await plotPoint(page, 'update', fx, fy);
        await page.mouse.move(p.x, p.y);
        await page.waitForFunction(() => !document.querySelector('#chart-update .chart-tip').hidden);
        const box = await page.locator('#chart-update .chart-tip').boundingBox();
        assert.ok(box.x >= 0 && box.y >= 0, `tooltip at ${box.x},${box.y}`);
        assert.ok(box.x + box.width <= 1366 && box.y + box.height <= 900, `tooltip ends at ${box.x + box.width}`);
        const layer = await readoutLayer(page);
        const tip = await tipAgainstEngine(page, 'update', layer);
        assert.equal(tip.title, `block ${layer}`);
        for (const [arch, text] of Object.entries(tip.rows)) assert.equal(text, fmtValue(tip.engine[arch]), arch);
      }
      await page.screenshot({ path: `${SHOTS}/explorer-tooltip-1366.png` });
    },
    { viewport: { width: 1366, height: 900 } },
  ));

/** The charts' plotted arrays against the engine's own for the config on screen. */
async function assertPlottedIsEngine(page) {
  const shown = await page.evaluate(() => ({ config: window.__resnorm.config, plotted: window.__resnorm.plotted }));
  const api = it.rn.simulate(shown.config);
  // Non-finite values cross postMessage and JSON as null.
  const same = (v) => (Number.isFinite(v) ? v : 'not finite');
  for (const [chart, field] of Object.entries({ grad: 'grad_norm', stream: 'stream_rms', update: 'update_ratio' }))
    for (const arch of shown.config.arch)
      assert.deepEqual(
        shown.plotted[chart].series[arch].map((v) => same(v ?? NaN)),
        Array.from(api.results[arch][field], same),
        `${chart}/${arch}`,
      );
  return shown.config;
}

// Defect 4.
test('transformer blocks: the block control, a link with admin and 2 heads, and the starting point', async () => {
  await onPage(async (page) => {
    const renders = await page.evaluate(() => window.__resnorm.renders);
    await page.locator('#block').selectOption('transformer');
    await waitForRender(page, { block: 'transformer' }, renders);
    const config = await assertPlottedIsEngine(page);
    assert.equal(config.block, 'transformer');
    assert.ok('attn_update_ratio' in (await page.evaluate(() => window.__resnorm.result.results.plain)));
  });
  await onPage(
    async (page) => {
      const state = await page.evaluate(() => ({
        config: window.__resnorm.config,
        notice: document.getElementById('notice').hidden,
      }));
      assert.equal(state.notice, true, 'no notice');
      assert.deepEqual(state.config.arch, ['admin']);
      assert.equal(state.config.block, 'transformer');
      assert.equal(state.config.heads, 2);
      await assertPlottedIsEngine(page);
    },
    {},
    '#arch=admin&block=transformer&heads=2',
  );
  await onPage(async (page) => {
    const renders = await page.evaluate(() => window.__resnorm.renders);
    await page.locator('#starts [data-start="transformer"]').click();
    await waitForRender(page, { block: 'transformer', depth: 24, heads: 4 }, renders);
    const config = await assertPlottedIsEngine(page);
    assert.deepEqual(config.arch, ['post_ln', 'pre_ln', 'admin']);
    assert.equal(await page.locator('#starts [data-start="transformer"]').getAttribute('aria-pressed'), 'true');
    assert.deepEqual(page.problems, []);
  });
});

// Defect 5. The rest of the settings sit behind a button with aria-expanded,
// closed on a phone; starting points, depth and gain stay in front of the charts.
test('at 360 x 740 the first chart is on the first screen, depth and gain are at hand, no sideways scroll', () =>
  onPage(
    async (page) => {
      const top = await page.evaluate(() => document.getElementById('chart-grad').getBoundingClientRect().top);
      assert.ok(top < 740, `the first chart starts ${Math.round(top)} px down`);
      for (const id of ['#depth', '#gain', '#depth-number', '#gain-number', '#starts .start'])
        assert.equal(await page.locator(id).first().isVisible(), true, `${id} visible`);
      const toggle = page.locator('#settings-toggle');
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      assert.equal(await page.locator('#width').isVisible(), false);
      const renders = await page.evaluate(() => window.__resnorm.renders);
      await page.locator('#gain-number').fill('0.9');
      await waitForRender(page, { gain: 0.9 }, renders);
      await toggle.click();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      assert.equal(await page.locator('#width').isVisible(), true);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 360, `page is ${width}px wide`);
      await toggle.click();
      await page.screenshot({ path: `${SHOTS}/explorer-phone-360-dark.png` });
      await page.screenshot({ path: `${SHOTS}/explorer-phone-360-dark-full.png`, fullPage: true });
      assert.deepEqual(page.problems, []);
    },
    { viewport: { width: 360, height: 740 }, colorScheme: 'dark' },
  ));

// The introduction asks the reader to change the depth and the gain: on a laptop's first screen
// both sliders (and their boxes) are in view, unscrolled, and nothing covers them.
test('at 1024 x 768 and 1280 x 800 the depth and gain sliders are on the first screen', async () => {
  for (const [width, height] of [
    [1024, 768],
    [1280, 800],
  ])
    await onPage(
      async (page) => {
        const boxes = await page.evaluate(() =>
          ['depth', 'depth-number', 'gain', 'gain-number'].map((id) => {
            const e = document.getElementById(id);
            const r = e.getBoundingClientRect();
            const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return { id, top: r.top, bottom: r.bottom, clear: top === e || e.contains(top) };
          }),
        );
        assert.equal(await page.evaluate(() => scrollY), 0);
        for (const b of boxes) {
          assert.ok(
            b.top >= 0 && b.bottom <= height,
            `${width}x${height}: #${b.id} is at ${Math.round(b.top)}..${Math.round(b.bottom)} px`,
          );
          assert.ok(b.clear, `${width}x${height}: #${b.id} is covered`);
        }
        await page.screenshot({ path: `${SHOTS}/explorer-first-screen-${width}x${height}.png` });
        assert.deepEqual(page.problems, []);
      },
      { viewport: { width, height } },
    );
});

// Defect 8.
/** sRGB relative luminance and contrast (WCAG 2). */
const channel = (c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const luminance = ([r, g, b]) => 0.2126 * channel(r / 255) + 0.7152 * channel(g / 255) + 0.0722 * channel(b / 255);
const contrast = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
/** Colours further apart than this (Euclidean, in sRGB 0..255) read as different. */
const MIN_DISTANCE = 48;
const distance = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** Each theme's arch colours, reference colour and chart background, as the page resolves them. */
async function themeColours(page) {
  return page.evaluate(
    (keys) => {
      const rgb = (name, root) => {
        const probe = document.createElement('span');
        probe.style.color = getComputedStyle(root).getPropertyValue(name).trim();
        root.append(probe);
        const [r, g, b] = getComputedStyle(probe)
          .color.match(/\d+(\.\d+)?/g)
          .map(Number);
        probe.remove();
        return [r, g, b];
      };
      const out = {};
      for (const theme of ['light', 'dark']) {
        document.documentElement.dataset.theme = theme;
        const charts = document.getElementById('charts');
        out[theme] = {
          background: getComputedStyle(charts).backgroundColor.match(/\d+/g).slice(0, 3).map(Number),
          reference: rgb('--reference', charts),
          arch: Object.fromEntries(keys.map((k) => [k, rgb(`--arch-${k}`, charts)])),
        };
      }
      return out;
    },
    ARCHS.map((a) => a.key),
  );
}

// A pair of line styles differs when the colours are at least MIN_DISTANCE
// apart; the dash patterns must differ too, so the lines also differ without colour.
test('every arch’s line differs from the reference and from every other arch, with 3:1 contrast in both themes', () =>
  onPage(async (page) => {
    const colours = await themeColours(page);
    const problems = [];
    for (const [theme, c] of Object.entries(colours)) {
      for (const [i, a] of ARCHS.entries()) {
        const col = c.arch[a.key];
        const ratio = contrast(col, c.background);
        if (ratio < 3) problems.push(`${theme}: ${a.key} contrast ${ratio.toFixed(2)}`);
        if (distance(col, c.reference) < MIN_DISTANCE) problems.push(`${theme}: ${a.key} looks like the reference`);
        if (a.dash.join() === REFERENCE_LINE.dash.join()) problems.push(`${a.key} has the reference's dashes`);
        for (const b of ARCHS.slice(i + 1)) {
          if (distance(col, c.arch[b.key]) < MIN_DISTANCE) problems.push(`${theme}: ${a.key} ~ ${b.key} colour`);
          if (a.dash.join() === b.dash.join()) problems.push(`${a.key} and ${b.key} share dashes`);
        }
      }
    }
    assert.deepEqual(problems, []);
  }));

// At gain 0 every branch is zero: residual and Pre-LN carry the same gradient
// (exactly 1 at every layer), and every update ratio is 0.
test('where two curves are the same array, the readout says "same as <name>"', () =>
  onPage(
    async (page) => {
      const shown = await page.evaluate(() => window.__resnorm.plotted);
      assert.deepEqual(shown.grad.series.pre_ln, shown.grad.series.residual);
      const rows = await page.locator('#readout tbody tr').allTextContents();
      assert.match(rows[0], new RegExp(`^ ?${archLabel('residual')}`));
      assert.doesNotMatch(rows[0], /same as/);
      assert.match(rows[1], new RegExp(`^ ?${archLabel('pre_ln')}gradient[^:]*: same as ${archLabel('residual')}`));
    },
    {},
    '#gain=0&arch=residual,pre_ln',
  ));
