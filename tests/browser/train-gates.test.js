// The training lab's after-training view of what dwa, layerscale and rezero
// learned (web/src/train/learned.js; the matrix is web/src/shared/dwa-matrix.js),
// and of attn_res beside dwa (Attention Residuals' read weights)
// in Debian's Chromium under the site's CSP: a tiny run of the three, from a
// link, ends with DenseFormer's averaging weights as a matrix and the gates in
// a table; the weights and gates the page holds, the numbers its tables print
// and its captions equal the engine's (the same runs through the wasm API in
// Node); the matrix reads a cell by keyboard; no console message; at 360 px in
// the dark theme nothing scrolls sideways and no text overlaps. Screenshots in
// test-results/.
// Run: node --test --test-concurrency=1 tests/browser/train-gates.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, SITE_CSP, labDrawn, openPage, overlaps, served, useBrowser } from './harness.js';
import { trainFromHash } from '../../web/src/train/link.js';
import { engineSettings } from '../../web/src/shared/train-fields.js';
import { fmtPlain } from '../../web/src/shared/format.js';
import { gatesCaption } from '../../web/src/train/learned.js';
import { dwaCaption } from '../../web/src/shared/dwa-weights.js';
import { attnResCaption } from '../../web/src/shared/attn-res-weights.js';
import { tiny } from '../node/train/tiny.js';

const it = useBrowser({ wasm: true });

const HASH = tiny({ arch: 'rezero,layerscale,dwa', depth: 3, steps: 20, log_every: 5 });

/** The same runs through the wasm API in Node: each arch's averaging weights and gates after its steps. */
function direct() {
  const { config } = trainFromHash(`#${HASH}`);
  const out = {};
  for (const arch of config.arch) {
    const tr = it.rn.trainer({ ...engineSettings(config), arch });
    tr.step(config.steps);
    out[arch] = { dwaWeights: tr.dwaWeights(), gates: tr.gates(), depth: tr.config.depth };
    tr.delete();
  }
  return out;
}

const plain = (v) => JSON.parse(JSON.stringify(v, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x)));

/** What the page shows: the hook's learned arrays, the tables' cells and the captions. */
const shown = (page) =>
  page.evaluate(() => {
    const h = window.__resnormTrain;
    const texts = (sel) => [...document.querySelectorAll(sel)].map((e) => e.textContent);
    return {
      state: h.state,
      learned: JSON.parse(JSON.stringify(h.learned, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x))),
      legend: h.learnedLegend,
      dwaCells: [...document.querySelectorAll('.learned-dwa-table tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => td.textContent),
      ),
      gateCells: [...document.querySelectorAll('#train-learned-gates tbody tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => td.textContent),
      ),
      gateUnits: texts('#train-learned-gates tbody th'),
      dwaCaption: texts('#train-learned-dwa-caption li'),
      gatesCaption: texts('#train-learned-gates-caption li'),
      matrices: document.querySelectorAll('.learned-matrix canvas').length,
      visible: !document.querySelector('#train-learned').hidden,
    };
  });

async function trainAndCheck(page, want) {
  await page.click('#train-start');
  await page.waitForFunction(() => window.__resnormTrain?.state === 'done' && window.__resnormTrain.learned);
  const h = await shown(page);
  assert.equal(h.visible, true);
  assert.deepEqual(Object.keys(h.learned).sort(), ['dwa', 'layerscale', 'rezero']);
  for (const arch of Object.keys(want)) {
    assert.deepEqual(h.learned[arch].dwaWeights, plain(want[arch].dwaWeights), `${arch}: the engine's weights`);
    assert.deepEqual(h.learned[arch].gates, plain(want[arch].gates), `${arch}: the engine's gates`);
  }
  // the weights table: row l - 1 holds w_{l,0..l}, then blanks
  const L = want.dwa.depth;
  assert.equal(h.matrices, 1);
  assert.deepEqual(
    h.dwaCells,
    want.dwa.dwaWeights.map((row) => Array.from({ length: L + 1 }, (_, j) => (j < row.length ? fmtPlain(row[j]) : ''))),
  );
  // the gates table: per unit, each gated run's |init| and trained magnitude (rezero then layerscale, the runs' order)
  const g = [want.rezero.gates, want.layerscale.gates];
  assert.deepEqual(
    h.gateCells,
    Array.from({ length: g[0].units }, (_, k) =>
      g.flatMap((x) => [fmtPlain(Math.abs(x.init[k])), fmtPlain(x.magnitude[k])]),
    ),
  );
  assert.equal(h.gateUnits[0], 'block 1 attention');
  assert.equal(h.gateUnits[1], 'block 1 MLP');
  // the captions, written from the engine's numbers
  assert.equal(h.dwaCaption.length, 1);
  assert.ok(h.dwaCaption[0].endsWith(dwaCaption('', want.dwa.dwaWeights).slice(2)), h.dwaCaption[0]);
  for (const [i, arch] of ['rezero', 'layerscale'].entries())
    assert.ok(
      h.gatesCaption[i].endsWith(gatesCaption('', want[arch].gates, L).slice(2)),
      `${arch}: ${h.gatesCaption[i]}`,
    );
  assert.match(h.gatesCaption[0], /from 0 at initialization to a median/);
  assert.equal(h.legend.length, 3);
  return h;
}

test('dwa, layerscale and rezero: the matrix, the gates, their tables and captions are the engine\u2019s', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const want = direct();
    const page = await openPage(it.browser, `${url}train.html#${HASH}`);
    const h = await trainAndCheck(page, want);
    console.log(`${h.dwaCaption.join('\n')}\n${h.gatesCaption.join('\n')}`);
    // the keyboard reads the matrix: the last block's own weight first
    await page.focus('.learned-matrix');
    await page.keyboard.press('End');
    const L = want.dwa.depth;
    const own = want.dwa.dwaWeights[L - 1][L];
    const read = await page.textContent('#train-learned-dwa .heatmap-readout');
    assert.match(read, new RegExp(`block ${L} takes .* of its own output`));
    assert.ok(Math.abs(own) > 0);
    await page.keyboard.press('Home');
    assert.match(await page.textContent('#train-learned-dwa .heatmap-readout'), /of the embedding h₀/);
    await page.locator('#train-learned').screenshot({ path: `${SHOTS}/train-gates-desktop.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('360 px in the dark theme: the learned weights and gates fit, no text overlaps', () =>
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
    await page.locator('#train-learned').screenshot({ path: `${SHOTS}/train-gates-phone-360-dark.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

const ATTN_HASH = tiny({ arch: 'dwa,attn_res', depth: 2, steps: 20, log_every: 5 });

test('attn_res beside dwa: Attention Residuals\u2019 read weights are the engine\u2019s, as a matrix, a table and a caption', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const { config } = trainFromHash(`#${ATTN_HASH}`);
    const tr = it.rn.trainer({ ...engineSettings(config), arch: 'attn_res' });
    tr.step(config.steps);
    const want = tr.attnResWeights();
    const depth = tr.config.depth;
    tr.delete();
    const page = await openPage(it.browser, `${url}train.html#${ATTN_HASH}`);
    await page.click('#train-start');
    await page.waitForFunction(() => window.__resnormTrain?.state === 'done' && window.__resnormTrain.learned);
    const h = await page.evaluate(() => {
      const l = window.__resnormTrain.learned;
      const rows = (sel) =>
        [...document.querySelectorAll(sel)].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
      return {
        learned: JSON.parse(JSON.stringify(l, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x))),
        shown: !document.querySelector('#train-learned-attn-res').hidden,
        dwaShown: !document.querySelector('#train-learned-dwa').hidden,
        cells: rows('#train-learned-attn-res .learned-dwa-table tbody tr'),
        head: document.querySelector('#train-learned-attn-res .learned-dwa-table th')?.textContent,
        caption: [...document.querySelectorAll('#train-learned-attn-res-caption li')].map((e) => e.textContent),
      };
    });
    assert.equal(h.shown, true);
    assert.equal(h.dwaShown, true, 'DenseFormer\u2019s matrix beside it');
    assert.deepEqual(h.learned.attn_res.attnResWeights, plain(want));
    const K = want.length;
    assert.equal(K, 2 * depth, 'a row per unit: attention and MLP of each block');
    assert.equal(h.head, 'unit');
    assert.deepEqual(
      h.cells,
      want.map((row) => Array.from({ length: K + 1 }, (_, j) => (j < row.length ? fmtPlain(row[j]) : ''))),
    );
    assert.equal(h.caption.length, 1);
    assert.ok(h.caption[0].endsWith(attnResCaption('', want, depth).slice(2)), h.caption[0]);
    // the keyboard reads the final norm's row, starting at the last unit's output
    await page.focus('#train-learned-attn-res .learned-matrix');
    await page.keyboard.press('End');
    assert.match(
      await page.textContent('#train-learned-attn-res .heatmap-readout'),
      new RegExp(`the final norm takes .* of block ${depth} MLP's output`),
    );
    await page.locator('#train-learned').screenshot({ path: `${SHOTS}/train-attn-res-desktop.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

const BLOCK_HASH = tiny({ arch: 'attn_res', depth: 2, attn_res_blocks: 2, steps: 20, log_every: 5 });

test('Block AttnRes (attn_res_blocks 2): the read weights over h\u2080 and the groups, columns g1 and g2, the box in the form', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const { config } = trainFromHash(`#${BLOCK_HASH}`);
    assert.equal(config.attn_res_blocks, 2);
    const tr = it.rn.trainer({ ...engineSettings(config), arch: 'attn_res' });
    tr.step(config.steps);
    const want = tr.attnResWeights();
    const depth = tr.config.depth;
    tr.delete();
    // 4 units in 2 groups: rows of 2, 2, 3 and 3 weights
    assert.deepEqual(
      want.map((row) => row.length),
      [2, 2, 3, 3],
    );
    const page = await openPage(it.browser, `${url}train.html#${BLOCK_HASH}`);
    assert.equal(await page.locator('#train-attn-res-blocks').inputValue(), '2', 'the lab\u2019s box shows N');
    await page.click('#train-start');
    await page.waitForFunction(() => window.__resnormTrain?.state === 'done' && window.__resnormTrain.learned);
    const h = await page.evaluate(() => {
      const rows = (sel) =>
        [...document.querySelectorAll(sel)].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
      return {
        cells: rows('#train-learned-attn-res .learned-dwa-table tbody tr'),
        head: [...document.querySelectorAll('#train-learned-attn-res .learned-dwa-table thead th')].map(
          (e) => e.textContent,
        ),
        caption: [...document.querySelectorAll('#train-learned-attn-res-caption li')].map((e) => e.textContent),
      };
    });
    assert.deepEqual(h.head, ['unit', 'h\u2080', 'g1', 'g2']);
    assert.deepEqual(
      h.cells,
      want.map((row) => Array.from({ length: 3 }, (_, j) => (j < row.length ? fmtPlain(row[j]) : ''))),
    );
    assert.ok(h.caption[0].endsWith(attnResCaption('', want, depth).slice(2)), h.caption[0]);
    assert.match(h.caption[0], /each of its 3 sources \(Block AttnRes: the 4 units in 2 groups/);
    await page.focus('#train-learned-attn-res .learned-matrix');
    await page.keyboard.press('End');
    assert.match(
      await page.textContent('#train-learned-attn-res .heatmap-readout'),
      /the final norm takes .* of group 2, the summed outputs of block 2 attention to block 2 MLP/,
    );
    await page.locator('#train-learned').screenshot({ path: `${SHOTS}/train-attn-res-blocks-desktop.png` });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));
