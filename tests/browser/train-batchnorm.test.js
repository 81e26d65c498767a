// The training lab's BatchNorm heatmaps in Debian's Chromium under the site's
// CSP: the "Why not BatchNorm" claim, shortened to a few steps, trains
// LayerNorm, RMSNorm and two BatchNorm runs; the sections of BatchNorm's
// batch-vs-running distances (mean and variance) show one map per BatchNorm
// run, its rows the BatchNorm layers by name, and a line for each run without
// BatchNorm instead of a map; every cell is the engine's logged distance (the
// page's hook), and the JSON, CSV and SVG exports hold the same numbers; a
// cell read by keyboard names its layer and its value, a non-finite one said
// so; the explanations stand beside the maps. A comparison without BatchNorm has no such section. At 360
// px in either theme no text covers another and nothing scrolls sideways; no
// console message. Screenshots in test-results/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, SITE_CSP, downloadBytes, labDrawn, openPage, overlaps, served, useBrowser } from './harness.js';
import { cellText } from '../../web/src/shared/heat-cells.js';
import { tiny } from '../node/train/tiny.js';

const it = useBrowser();

// the claim's four runs (LayerNorm, RMSNorm, BatchNorm with pads masked and counted), a few steps, one
// seed: the maps checked value for value against the logs are one trainer's
const BN_HASH = 'preset=batchnorm&steps=12&log_every=4&width=16&batch=8&seeds=1';
const BN_RUNS = ['bn_mask', 'bn_count'];
const OWN_RUNS = ['layernorm', 'rmsnorm'];
const METRICS = ['bn_mean_distance', 'bn_var_distance'];
const sectionOf = (m) => `#train-heat-${m.replaceAll('_', '-')}`;

const done = (page) => page.waitForFunction(() => window.__resnormTrain?.state === 'done');

/** Trains the lab's current settings to the end and waits until every map is drawn. */
async function train(page) {
  await page.click('#train-start');
  await done(page);
  await labDrawn(page);
}

/** The hook's runs' logged distances, its BatchNorm maps' columns and their rows' names (plain arrays). */
const hooked = (page) =>
  page.evaluate((metrics) => {
    const h = window.__resnormTrain;
    const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
    const out = { archs: h.archs, logs: {}, maps: {}, rows: h.heatRows ?? {} };
    for (const k of h.archs) {
      out.logs[k] = h.runs[k].logs.map((l) => ({
        step: l.step,
        ...Object.fromEntries(metrics.map((m) => [m, plain(l[m])])),
      }));
      out.maps[k] = Object.fromEntries(
        metrics.filter((m) => h.heatmaps[k]?.[m]).map((m) => [m, h.heatmaps[k][m].columns.map(plain)]),
      );
    }
    return out;
  }, METRICS);

const same = (a, b, label) => assert.ok(Object.is(a, b), `${label}: ${a} != ${b}`);
const jsonOf = (v) => (Number.isFinite(v) ? v : null);

/** Clicks export `selector` and returns the download's text. */
async function download(page, selector) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return new TextDecoder().decode(await downloadBytes(d));
}

test('the BatchNorm claim: a map per BatchNorm run of the logged distances, named rows, a line for the others; the exports agree', async () => {
  await served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, `${url}train.html#${BN_HASH}`);
    // before training the sections already say which runs will have a map
    for (const m of METRICS) assert.equal(await page.locator(sectionOf(m)).isVisible(), true, m);
    await train(page);
    const h = await hooked(page);
    assert.deepEqual(h.archs, [...OWN_RUNS, ...BN_RUNS]);

    for (const m of METRICS) {
      const section = page.locator(sectionOf(m));
      assert.ok(await section.isVisible(), `${m} shown`);
      // one map per BatchNorm run, none for LayerNorm and RMSNorm: a line each instead
      assert.deepEqual(
        await section.locator('.heatmap-figure').evaluateAll((fs) => fs.map((f) => f.dataset.arch)),
        BN_RUNS,
      );
      const none = await section
        .locator('.heat-none li')
        .evaluateAll((ls) => ls.map((l) => [l.dataset.arch, l.textContent]));
      assert.deepEqual(
        none.map(([k]) => k),
        OWN_RUNS,
      );
      assert.match(none[0][1], /^LayerNorm .*batch statistics: nothing to draw\.$/);
      assert.match(none[1][1], /^RMSNorm /);
      for (const k of OWN_RUNS) assert.equal(h.maps[k][m], undefined, `${k} has no ${m} map`);

      for (const k of BN_RUNS) {
        const logs = h.logs[k];
        assert.ok(logs.length >= 3, `${k} logged`);
        // the map's columns are the logged arrays, value for value
        const cols = h.maps[k][m];
        assert.equal(cols.length, logs.length, `${k} ${m}: a column per logged step`);
        logs.forEach((l, i) => {
          assert.equal(l[m].length, 5, `${k}: 2 blocks x (attention, MLP) + the final norm`);
          l[m].forEach((v, r) => same(cols[i][r], v, `${k} ${m} step ${l.step} row ${r}`));
        });
        // the rows are the BatchNorm layers, named, bottom first, the final norm on top
        assert.deepEqual(h.rows[m][k], [
          'block 1 attention, norm before the sublayer',
          'block 1 MLP, norm before the sublayer',
          'block 2 attention, norm before the sublayer',
          'block 2 MLP, norm before the sublayer',
          'final norm, before the readout',
        ]);
      }
    }

    // the explanations: the running statistics with this run's momentum, one sequence alone, PowerNorm's finding
    const explain = await page.locator(`${sectionOf('bn_mean_distance')} .heat-explain`).textContent();
    assert.match(explain, /Running statistics:.*exponential average.*m = 0\.1 here.*Eval mode/);
    assert.match(explain, /one sequence at a time.*autoregressive decoding/);
    assert.match(explain, /PowerNorm .*Fig\. 2/);

    // a cell read by keyboard: the top right one is the final norm at the last step, its value the log's
    const map = page.locator(`${sectionOf('bn_mean_distance')} .heatmap-figure[data-arch="bn_count"]`);
    await map.locator('.heatmap').focus();
    await page.keyboard.press('End');
    const last = h.logs.bn_count.at(-1);
    const readout = await map.locator('.heatmap-readout').textContent();
    assert.ok(
      readout.includes(`final norm, before the readout, step ${last.step}: `) &&
        readout.endsWith(cellText(last.bn_mean_distance[4])),
      readout,
    );
    await page.keyboard.press('ArrowDown');
    assert.match(await map.locator('.heatmap-readout').textContent(), /block 2 MLP, norm before the sublayer, step /);

    // the exports: the JSON every distance as logged, the CSV a column per BatchNorm layer, the SVG every cell
    const json = JSON.parse(await download(page, '[data-export="json"]'));
    const byKey = Object.fromEntries(json.runs.map((r) => [r.key ?? r.arch, r]));
    for (const k of [...OWN_RUNS, ...BN_RUNS])
      for (const m of METRICS)
        h.logs[k].forEach((l, i) =>
          assert.deepEqual(byKey[k].logs[i][m], l[m].map(jsonOf), `JSON ${k} ${m} step ${l.step}`),
        );
    const csv = (await download(page, '[data-export="csv"]')).trimEnd().split('\n');
    const head = csv.find((l) => !l.startsWith('#')).split(',');
    const rows = csv
      .filter((l) => !l.startsWith('#'))
      .slice(1)
      .map((l) => l.split(','));
    assert.deepEqual(head.slice(0, 2), ['run', 'arch']);
    for (const k of BN_RUNS)
      assert.ok(
        csv.includes(`# bn_layers,${k},${h.rows.bn_mean_distance[k].map((n) => `"${n}"`).join(',')}`),
        `the CSV names ${k}'s BatchNorm layers`,
      );
    for (const k of [...OWN_RUNS, ...BN_RUNS]) {
      const mine = rows.filter((r) => r[0] === k);
      assert.equal(mine.length, h.logs[k].length, `CSV rows of ${k}`);
      mine.forEach((row, i) => {
        for (const m of METRICS)
          for (let r = 0; r < 5; r++) {
            const cell = row[head.indexOf(`${m}.bn${r + 1}`)];
            const want = h.logs[k][i][m][r];
            if (want === undefined) assert.equal(cell, '', `CSV ${k} ${m} bn${r + 1}: empty without BatchNorm`);
            else same(Number(cell), want, `CSV ${k} ${m} bn${r + 1} step ${h.logs[k][i].step}`);
          }
      });
    }
    const svg = await download(page, '[data-export="svg"]');
    for (const m of METRICS) {
      for (const k of BN_RUNS) {
        const group = new RegExp(`<g class="heatmap heatmap-${m}" data-arch="${k}">([\\s\\S]*?)</g>`).exec(svg);
        assert.ok(group, `SVG map ${m} ${k}`);
        const cells = [
          ...group[1].matchAll(/data-step="(\d+)" data-row="(\d+)" data-v="([^"]+)" data-name="([^"]+)"/g),
        ];
        assert.equal(cells.length, h.logs[k].length * 5);
        for (const [, step, row, v, name] of cells) {
          const l = h.logs[k].find((x) => x.step === Number(step));
          same(Number(v), l[m][Number(row) - 1], `SVG ${m} ${k} step ${step} row ${row}`);
          assert.equal(name, h.rows[m][k][Number(row) - 1]);
        }
      }
      for (const k of OWN_RUNS) assert.ok(!svg.includes(`heatmap-${m}" data-arch="${k}"`), `no SVG ${m} map of ${k}`);
    }
    assert.deepEqual(page.problems, []);
    await page.locator(sectionOf('bn_mean_distance')).screenshot({ path: `${SHOTS}/train-batchnorm-heat.png` });
    await page.context().close();
  });
});

test('a comparison without BatchNorm has no BatchNorm section', async () => {
  await served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, `${url}train.html#${tiny({ steps: 4 })}`);
    await train(page);
    const h = await hooked(page);
    assert.ok(h.logs.pre_ln.length > 0);
    for (const m of METRICS) {
      assert.equal(await page.locator(sectionOf(m)).isVisible(), false, `${m} hidden`);
      assert.equal(await page.locator(`${sectionOf(m)} .heatmap-figure`).count(), 0);
      for (const k of h.archs) assert.equal(h.maps[k][m], undefined);
    }
    // the other heatmaps are there
    assert.equal(await page.locator('#train-heat-grad-norm .heatmap-figure').count(), 2);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});

test('a BatchNorm run whose distances overflow: the map holds the non-finite values and reads them out, no console message', async () => {
  await served({ csp: SITE_CSP }, async (url) => {
    // plain SGD at a learning rate of 10: Pre-LN with BatchNorm logs infinite variance distances before it diverges
    const hash = tiny({ arch: 'pre_ln', norm: 'batchnorm', steps: 30, log_every: 1, optimizer: 'sgd', lr: 10 });
    const page = await openPage(it.browser, `${url}train.html#${hash}`);
    await train(page);
    const h = await hooked(page);
    const m = 'bn_var_distance';
    const logs = h.logs.pre_ln;
    const i = logs.findIndex((l) => l[m].some((v) => !Number.isFinite(v)));
    assert.ok(i >= 0, 'a logged step with a non-finite distance');
    const r = logs[i][m].findIndex((v) => !Number.isFinite(v));
    logs.forEach((l, k) => l[m].forEach((v, q) => same(h.maps.pre_ln[m][k][q], v, `step ${l.step} row ${q}`)));
    // the cell read by keyboard: from the top left, right to its step, down to its row
    const fig = page.locator(`${sectionOf(m)} .heatmap-figure[data-arch="pre_ln"]`);
    await fig.locator('.heatmap').focus();
    await page.keyboard.press('Home');
    for (let k = 0; k < i; k++) await page.keyboard.press('ArrowRight');
    for (let k = h.rows[m].pre_ln.length - 1; k > r; k--) await page.keyboard.press('ArrowDown');
    const text = await fig.locator('.heatmap-readout').textContent();
    assert.ok(text.includes(`${h.rows[m].pre_ln[r]}, step ${logs[i].step}: `), text);
    assert.ok(text.endsWith(cellText(logs[i][m][r])) && /not finite/.test(text), text);
    // the legend's scale is the finite values' and the keys name the hatching
    assert.ok((await page.locator(`${sectionOf(m)} .heat-ticks`).textContent()).length > 0);
    assert.match(await page.locator(`${sectionOf(m)} .heat-keys`).textContent(), /not finite/);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});

test('the BatchNorm claim at 360 px, light and dark: no text covers another, nothing scrolls sideways', async () => {
  await served({ csp: SITE_CSP }, async (url) => {
    for (const colorScheme of ['light', 'dark']) {
      const page = await openPage(it.browser, `${url}train.html#${BN_HASH}`, {
        viewport: { width: 360, height: 780 },
        colorScheme,
      });
      await train(page);
      await page.locator(sectionOf('bn_mean_distance')).scrollIntoViewIfNeeded();
      await labDrawn(page);
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360, colorScheme);
      assert.deepEqual(await overlaps(page), [], colorScheme);
      for (const m of METRICS) {
        const box = await page
          .locator(`${sectionOf(m)} .heatmap-figure`)
          .first()
          .boundingBox();
        assert.ok(box.x >= 0 && box.x + box.width <= 360, `${m} map inside the page`);
      }
      assert.deepEqual(page.problems, [], colorScheme);
      await page.screenshot({ path: `${SHOTS}/train-batchnorm-360-${colorScheme}.png`, fullPage: true });
      await page.context().close();
    }
  });
});
