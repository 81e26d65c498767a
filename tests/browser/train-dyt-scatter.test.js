// The DyT claim's after-training scatter (web/src/train/norm-scatter.js) in Debian's Chromium under
// the site's CSP: the claim on one seed trains in the page; its panel then shows the Pre-LN run's
// LayerNorm input against output for the first, a middle and the last branch-input norm, whose
// plotted points are exactly the engine's normSamples() of the same run (the wasm API in Node: the
// finite pairs, sorted by input), whose dashed curve is the tanh fit of those points, and whose
// sentences give that fit's R^2 and the line's (web/src/shared/tanh-fit.js); saved as a model file
// and loaded into a fresh page, the run shows the same scatter again; no console message;
// at 360 px in the dark theme nothing scrolls sideways and no text overlaps. Screenshots in
// test-results/.
// Run: node scripts/browser-tests.js tests/browser/train-dyt-scatter.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, SITE_CSP, downloadBytes, labDrawn, openPage, overlaps, served, useBrowser } from './harness.js';
import { trainFromHash } from '../../web/src/train/link.js';
import { CLAIM_BY_ID, runConfigs } from '../../web/src/claims/lab/index.js';
import { fitTanh } from '../../web/src/shared/tanh-fit.js';
import { fitSentence, pickNorms, scatterColumns } from '../../web/src/train/norm-scatter.js';
import { unitName } from '../../web/src/shared/attn-res-weights.js';

const it = useBrowser({ wasm: true });

const HASH = 'preset=dyt&seeds=1';

/** The claim's Pre-LN run through the wasm API in Node, on the link's seed: its norms on held-out batch 0. */
function direct() {
  const { config } = trainFromHash(`#${HASH}`);
  const claim = CLAIM_BY_ID.dyt;
  const i = claim.runs.findIndex((r) => r.normSamples);
  const c = runConfigs(claim, config)[i];
  const tr = it.rn.trainer(c);
  tr.step(c.steps);
  const s = tr.normSamples();
  tr.delete();
  return { samples: s, config: c };
}

/** What the page shows: the hook's scatter (uPlot's columns as plain arrays), the sentences, the intro. */
const shown = (page) =>
  page.evaluate(() => {
    const h = window.__resnormTrain;
    const s = h.normScatter;
    const texts = (sel) => [...document.querySelectorAll(sel)].map((e) => e.textContent);
    return {
      state: h.state,
      scatter: s && {
        key: s.key,
        seed: s.seed,
        units: s.units,
        layers: s.layers,
        data: s.data.map((cols) => cols && cols.map((c) => Array.from(c))),
      },
      sentences: texts('#train-norm-scatter-caption li'),
      intro: document.querySelector('#train-norm-scatter-intro')?.textContent ?? '',
      charts: document.querySelectorAll('#train-norm-scatter .norm-scatter-chart canvas').length,
      visible: !document.querySelector('#train-norm-scatter').hidden,
    };
  });

async function trainAndCheck(page, want) {
  await page.click('#train-start');
  await page.waitForFunction(() => window.__resnormTrain?.state === 'done' && window.__resnormTrain.normScatter);
  const h = await shown(page);
  assert.equal(h.visible, true);
  const s = want.samples;
  const sc = h.scatter;
  assert.equal(sc.key, 'pre_ln');
  assert.equal(sc.seed, want.config.seed);
  assert.deepEqual(sc.units, s.units);
  // the branch-input norms are units 1..2L (a transformer block: attention, MLP); the final norm after them
  const L = want.config.depth;
  assert.deepEqual(s.units, [...Array.from({ length: 2 * L }, (_, k) => k + 1), 2 * L + 1]);
  const picked = pickNorms(2 * L);
  assert.deepEqual(
    sc.layers.map((l) => l.unit),
    picked.map((i) => s.units[i]),
  );
  assert.equal(h.charts, picked.length);
  picked.forEach((i, j) => {
    const [x, y] = scatterColumns(s.input[i], s.output[i]);
    const [px, py, pfit] = sc.data[j];
    assert.deepEqual(px, Array.from(x), `norm ${s.units[i]}: the inputs plotted are the engine's`);
    assert.deepEqual(py, Array.from(y), `norm ${s.units[i]}: the outputs plotted are the engine's`);
    assert.equal(px.length, s.rows * s.width - sc.layers[j].fit.dropped);
    // the caption's R^2 are the fit of the engine's points (the page's fit, bit for bit the same in Node)
    const f = fitTanh(s.input[i], s.output[i]);
    assert.deepEqual(sc.layers[j].fit, JSON.parse(JSON.stringify(f)));
    assert.equal(h.sentences[j], fitSentence(unitName(s.units[i], 2 * L, L), f));
    // and of the points plotted: the same pairs in another order, so the same sums up to rounding
    const g = fitTanh(px, py);
    const near = (a, b) => Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b));
    assert.ok(near(g.r2, f.r2) && near(g.line.r2, f.line.r2), `${g.r2} ${f.r2}; ${g.line.r2} ${f.line.r2}`);
    assert.equal(fitSentence('x', g), fitSentence('x', f));
    // the dashed curve is that fit at the plotted inputs
    pfit.forEach((v, k) => assert.ok(Math.abs(v - (f.a * Math.tanh(f.b * px[k]) + f.c)) < 1e-12));
  });
  assert.match(h.intro, new RegExp(`seed ${want.config.seed} \\(the first seed\\)`));
  assert.match(h.intro, new RegExp(`${s.rows} rows \u00d7 ${s.width} features`));
  return h;
}

test('DyT claim: the scatter\u2019s points are the engine\u2019s normSamples of the Pre-LN run, its captions their fits', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const want = direct();
    const page = await openPage(it.browser, `${url}train.html#${HASH}`);
    const h = await trainAndCheck(page, want);
    console.log(`${h.intro}\n${h.sentences.join('\n')}`);
    await page.locator('#train-norm-scatter').screenshot({ path: `${SHOTS}/train-dyt-scatter-desktop.png` });
    const [d] = await Promise.all([page.waitForEvent('download'), page.click('#train-save-model')]);
    const bytes = Buffer.from(await downloadBytes(d));
    assert.deepEqual(page.problems, []);
    await page.context().close();

    // the model file keeps which run samples its norms: loaded into a fresh page, the same scatter
    const fresh = await openPage(it.browser, `${url}train.html`);
    await fresh.setInputFiles('#train-model-file', {
      name: 'dyt.rnmodel',
      mimeType: 'application/octet-stream',
      buffer: bytes,
    });
    await fresh.waitForFunction(() => window.__resnormTrain?.state === 'done');
    await labDrawn(fresh);
    const again = await shown(fresh);
    assert.ok(again.scatter, 'the loaded run has its scatter');
    assert.equal(again.visible, true);
    assert.deepEqual(again.scatter, h.scatter);
    assert.deepEqual(again.sentences, h.sentences);
    assert.equal(again.intro, h.intro);
    assert.deepEqual(fresh.problems, []);
    await fresh.context().close();
  }));

test('DyT claim at 360 px in the dark theme: the scatter fits, no text overlaps', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const want = direct();
    const page = await openPage(it.browser, `${url}train.html#${HASH}`, {
      viewport: { width: 360, height: 780 },
      colorScheme: 'dark',
    });
    await trainAndCheck(page, want);
    await labDrawn(page);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360);
    assert.deepEqual(await overlaps(page), []);
    await page.locator('#train-norm-scatter').screenshot({ path: `${SHOTS}/train-dyt-scatter-phone-360-dark.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));
