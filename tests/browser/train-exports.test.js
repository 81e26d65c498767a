// The training lab's exports and model file in Debian's Chromium under the
// site's CSP: every export is downloaded (Playwright's download event) after a
// short run and holds the page's numbers (window.__resnormTrain holds the
// engine's arrays): the CSV and JSON every logged number, bit for bit (a
// non-finite one as NaN/Infinity in the CSV, null in the JSON), the SVG every
// heatmap cell and the legend's ticks, the PNG an image; a saved model loads
// into a fresh page, with its settings and link, the held-out loss it saved
// and one more step equal to the uninterrupted run's, bit for bit; a damaged,
// truncated or foreign file is named in a notice and the current run is kept;
// the buttons wait for a logged step and the keyboard reaches them; the
// numbers table follows the run. Screenshots in test-results/.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, SITE_CSP, downloadBytes, labDrawn, openPage, served, useBrowser } from './harness.js';
import { trainFromHash, trainToHash } from '../../web/src/train/link.js';
import { engineSettings } from '../../web/src/shared/train-fields.js';
import { decodeModel } from '../../web/src/train/model-file.js';
import { fmtPlain } from '../../web/src/shared/format.js';
import { MAX_ROWS, rowIndices, rowStride } from '../../web/src/train/numbers.js';
import { DIVERGES, tiny as tinyHash } from '../node/train/tiny.js';

const tiny = (over) => tinyHash({ steps: 20, ...over });

const it = useBrowser({ wasm: true });

const lab = (url, hash) => `${url}train.html#${hash}`;
const EXPORTS = ['csv', 'json', 'png', 'svg'];

const waitState = (page, state) => page.waitForFunction((s) => window.__resnormTrain?.state === s, state);

/** The hook's runs with typed arrays as plain arrays (NaN, Infinity and -0 kept by Playwright). */
const hookRuns = (page) =>
  page.evaluate(() => {
    const h = window.__resnormTrain;
    const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
    return {
      state: h.state,
      config: h.config,
      archs: h.archs,
      runs: Object.fromEntries(
        Object.entries(h.runs).map(([arch, r]) => [
          arch,
          {
            stepsDone: r.stepsDone,
            logs: r.logs.map((l) => Object.fromEntries(Object.entries(l).map(([k, v]) => [k, plain(v)]))),
          },
        ]),
      ),
      heatmaps: Object.fromEntries(
        h.archs.map((a) => [
          a,
          Object.fromEntries(Object.entries(h.heatmaps[a] ?? {}).map(([m, c]) => [m, c.columns.map(plain)])),
        ]),
      ),
      legends: h.legends,
    };
  });

/** Clicks export `kind` and returns the download's name and bytes. */
async function download(page, selector) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: d.suggestedFilename(), bytes: await downloadBytes(d) };
}

/** A CSV's rows (no quoted commas in the data rows) and its `#` lines. */
function parseCsv(text) {
  const lines = text.trimEnd().split('\n');
  const meta = lines.filter((l) => l.startsWith('#'));
  const [head, ...rows] = lines.filter((l) => !l.startsWith('#')).map((l) => l.split(','));
  return { meta, head, rows };
}

const csvNumber = (s) => (s === '' ? null : Number(s));
const same = (a, b, label) => assert.ok(Object.is(a, b), `${label}: ${a} != ${b}`);

/** The CSV's cell of `key` (or `key.layerI` / `key.blockI`) of one log, as the page holds it. */
function expectedCell(log, col) {
  const m = /^(.+)\.(layer|block)(\d+)$/.exec(col);
  if (!m) return log[col] ?? null;
  const i = m[2] === 'layer' ? Number(m[3]) : Number(m[3]) - 1;
  return i < log[m[1]].length ? log[m[1]][i] : null;
}

function checkCsv(text, h) {
  const { meta, head, rows } = parseCsv(text);
  assert.ok(meta.some((l) => l === `# lr,${h.config.lr}`));
  assert.ok(meta.some((l) => l.startsWith('# link,')));
  assert.equal(head[0], 'arch');
  let n = 0;
  for (const arch of h.archs) {
    const mine = rows.filter((r) => r[0] === arch);
    const logs = h.runs[arch].logs;
    assert.equal(mine.length, logs.length, `${arch}: rows`);
    mine.forEach((row, i) => {
      head.slice(1).forEach((col, j) => {
        same(csvNumber(row[j + 1]), expectedCell(logs[i], col), `${arch} ${col} step ${logs[i].step}`);
        n++;
      });
    });
  }
  return n;
}

function checkJson(text, h) {
  const j = JSON.parse(text);
  assert.equal(j.format, 'resnorm-train-export');
  assert.deepEqual(j.config, h.config);
  assert.deepEqual(
    j.runs.map((r) => r.arch),
    h.archs,
  );
  const nul = (v) => (Number.isFinite(v) ? v : null);
  for (const r of j.runs) {
    const logs = h.runs[r.arch].logs;
    assert.equal(r.logs.length, logs.length);
    r.logs.forEach((l, i) => {
      for (const [k, v] of Object.entries(logs[i])) {
        if (Array.isArray(v)) v.forEach((x, q) => same(l[k][q], nul(x), `${r.arch} ${k}[${q}] step ${logs[i].step}`));
        else same(l[k], typeof v === 'number' ? nul(v) : v, `${r.arch} ${k} step ${logs[i].step}`);
      }
    });
  }
}

/** The SVG's heatmap cells: {arch: {metric: [[value per row] per step]}}, and its legend tick labels. */
function svgCells(svg) {
  const out = {};
  const groups = svg.matchAll(/<g class="heatmap heatmap-(\w+)" data-arch="(\w+)">([\s\S]*?)<\/g>/g);
  for (const [, metric, arch, body] of groups) {
    const cols = [];
    for (const [, step, row, v] of body.matchAll(/data-step="(\d+)" data-row="(\d+)" data-v="([^"]+)"/g)) {
      const i =
        cols.length && cols.at(-1).step === Number(step)
          ? cols.length - 1
          : cols.push({ step: Number(step), v: [] }) - 1;
      cols[i].v[Number(row) - (metric === 'update_ratio' ? 1 : 0)] = v === 'none' ? undefined : Number(v);
    }
    (out[arch] ??= {})[metric] = cols;
  }
  const ticks = [...svg.matchAll(/class="heat-tick">([^<]+)</g)].map((m) => m[1]);
  return { cells: out, ticks };
}

test('each export holds the page\u2019s numbers; the buttons wait for a logged step and the keyboard reaches them', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, tiny()));
    for (const k of EXPORTS)
      assert.equal(await page.getAttribute(`#train-export-${k}`, 'aria-disabled'), 'true', `${k} before a run`);
    assert.equal(await page.getAttribute('#train-save-model', 'aria-disabled'), 'true');
    // a click on an unavailable export downloads nothing
    let downloads = 0;
    page.on('download', () => downloads++);
    await page.click('#train-export-csv', { force: true });
    await page.click('#train-start');
    await waitState(page, 'done');
    assert.equal(downloads, 0);
    for (const k of EXPORTS) assert.equal(await page.getAttribute(`#train-export-${k}`, 'aria-disabled'), 'false');
    const h = await hookRuns(page);

    const csv = await download(page, '#train-export-csv');
    assert.match(csv.name, /^resnorm-train-copy-d2-s0-step20\.csv$/);
    assert.ok(checkCsv(csv.bytes.toString('utf8'), h) > 100);
    const json = await download(page, '#train-export-json');
    assert.equal(json.name, 'resnorm-train-copy-d2-s0-step20.json');
    checkJson(json.bytes.toString('utf8'), h);
    const png = await download(page, '#train-export-png');
    assert.equal(png.name, 'resnorm-train-copy-d2-s0-step20.png');
    assert.deepEqual([...png.bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);
    const [w, hgt] = [png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)];
    assert.ok(w > 600 && hgt > 1200, `${w} x ${hgt}`);
    const svg = await download(page, '#train-export-svg');
    const text = svg.bytes.toString('utf8');
    assert.match(text, /^<\?xml[^>]*>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const { cells, ticks } = svgCells(text);
    for (const arch of h.archs)
      for (const [metric, columns] of Object.entries(h.heatmaps[arch])) {
        const got = cells[arch][metric];
        assert.equal(got.length, columns.length, `${arch} ${metric}: columns`);
        columns.forEach((col, i) => col.forEach((v, r) => same(got[i].v[r], v, `${arch} ${metric} [${i}][${r}]`)));
      }
    // the legend's ticks: the page's, or (the SVG being wider) a superset of them
    for (const t of h.legends.grad_norm) assert.ok(ticks.includes(t), `tick ${t} in ${ticks}`);
    // one path or dot per series per chart: 2 loss series, 1 gradient series and (transformer blocks) 1
    // largest-logit series per arch, and the learning rate
    assert.equal(h.config.block, 'transformer');
    assert.equal((text.match(/data-series="1"/g) ?? []).length, 4 * h.archs.length + 1);

    // the keyboard: Tab from Reset reaches the exports, Enter downloads
    await page.focus('#train-reset');
    let focused = '';
    for (let i = 0; i < 4 && focused !== 'train-export-csv'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement.id);
    }
    assert.equal(focused, 'train-export-csv');
    const [d] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    assert.match(d.suggestedFilename(), /\.csv$/);
    assert.match(await page.locator('.lab-tools-status').textContent(), /Saved resnorm-train-copy-d2-s0-step20\.csv/);

    // the numbers: one row per logged step, the page's values
    const rows = await page.locator('#train-data-table tbody tr').count();
    assert.equal(rows, 10);
    const last = await page.locator('#train-data-table tbody tr').last().locator('th, td').allTextContents();
    assert.equal(last[0], '20');
    await page.click('#train-show-numbers');
    assert.equal(await page.locator('#train-numbers').isVisible(), true);
    await page.screenshot({ path: `${SHOTS}/train-exports-desktop.png`, fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a run that diverges exports its non-finite values as the explorer does: NaN/Infinity in the CSV, null in the JSON', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, DIVERGES));
    await page.click('#train-start');
    await waitState(page, 'done');
    const h = await hookRuns(page);
    const bad = h.runs.post_ln.logs.at(-1);
    assert.notEqual(bad.first_nonfinite, null, 'Post-LN diverged');
    const csv = (await download(page, '#train-export-csv')).bytes.toString('utf8');
    checkCsv(csv, h);
    assert.match(csv, /(NaN|Infinity)/);
    checkJson((await download(page, '#train-export-json')).bytes.toString('utf8'), h);
    const svg = (await download(page, '#train-export-svg')).bytes.toString('utf8');
    assert.match(svg, /fill="url\(#hatch\)"/);
    await download(page, '#train-export-png');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

/** The same run through the wasm API in Node: every log of every architecture. */
function direct(hash) {
  const { config } = trainFromHash(`#${hash}`);
  const out = {};
  for (const arch of config.arch) {
    const tr = it.rn.trainer({ ...engineSettings(config), arch });
    out[arch] = tr.step(config.steps);
    tr.delete();
  }
  return out;
}

function sameLog(actual, expected, label) {
  for (const [k, v] of Object.entries(expected)) {
    if (ArrayBuffer.isView(v)) {
      assert.equal(actual[k].length, v.length, `${label} ${k}`);
      v.forEach((x, i) => same(actual[k][i], x, `${label} ${k}[${i}]`));
    } else same(actual[k], v, `${label} ${k}`);
  }
}

test('a long run\u2019s numbers table holds one logged step in k and the latest, each row the engine\u2019s numbers', () =>
  served({ csp: SITE_CSP }, async (url) => {
    // 250 logged steps: more than the table's 100 rows, so one in 5 (steps 1, 6, 11, ...) and step 250
    const page = await openPage(it.browser, lab(url, tiny({ steps: 250, log_every: 1 })));
    await page.click('#train-start');
    await waitState(page, 'done');
    const h = await hookRuns(page);
    const n = h.runs.post_ln.logs.length;
    assert.equal(n, 250);
    const k = rowStride(n);
    assert.equal(k, 5);
    const rows = await page.$$eval('#train-data-table tbody tr', (trs) =>
      trs.map((tr) => Array.from(tr.cells, (c) => c.textContent)),
    );
    const want = rowIndices(n);
    assert.equal(rows.length, want.length);
    assert.ok(rows.length <= MAX_ROWS + 1);
    // transformer blocks: each run's largest attention logit after its gradient norm
    assert.equal(h.config.block, 'transformer');
    const keys = ['heldout_loss', 'train_loss', 'heldout_accuracy', 'grad_norm_global', 'max_logit'];
    rows.forEach((cells, p) => {
      const i = want[p];
      const log = h.runs.post_ln.logs[i];
      const other = h.runs.pre_ln.logs[i];
      assert.deepEqual(
        cells,
        [
          String(log.step),
          fmtPlain(log.lr),
          ...keys.map((c) => fmtPlain(log[c])),
          ...keys.map((c) => fmtPlain(other[c])),
        ],
        `row ${p} (logged step ${i})`,
      );
    });
    assert.equal(rows.at(-1)[0], '250');
    assert.match(
      await page.locator('#train-data-table caption').textContent(),
      /One logged step in 5 of every run, and the latest \(the CSV export has all 250\)/,
    );
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));

test('a saved model loads into a fresh page: settings, link and held-out loss restored, the next step bit for bit; a damaged file is refused and the run kept', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const hash = tiny();
    const whole = direct(hash);
    const page = await openPage(it.browser, lab(url, hash));
    for (let i = 0; i < 5; i++) {
      await page.click('#train-step');
      await page.waitForFunction((n) => window.__resnormTrain.runs.pre_ln?.logs.length === n, i + 1);
      await waitState(page, 'paused');
      await page.waitForFunction((n) => document.querySelectorAll('#train-data-table tbody tr').length === n, i + 1);
      // the numbers table keeps the rows it has written: the first one is the same element after every step
      if (i === 0) await page.$eval('#train-data-table tbody tr', (tr) => (tr.dataset.first = '1'));
      assert.equal(await page.locator('#train-data-table tbody tr[data-first="1"]').count(), 1);
    }
    const firstRow = await page.locator('#train-data-table tbody tr').first().locator('th, td').allTextContents();
    assert.equal(firstRow[0], '2');
    const saved = await hookRuns(page);
    // the table's first row: step, learning rate, then per arch held-out loss, training loss, accuracy, grad norm
    const l0 = saved.runs.post_ln.logs[0];
    assert.deepEqual(firstRow.slice(0, 6), [
      '2',
      fmtPlain(l0.lr),
      ...['heldout_loss', 'train_loss', 'heldout_accuracy', 'grad_norm_global'].map((k) => fmtPlain(l0[k])),
    ]);
    const file = await download(page, '#train-save-model');
    assert.equal(file.name, 'resnorm-train-copy-d2-s0-step10.rnmodel');
    // the file: the settings and, per run, the logs and a state that gives the saved held-out loss again
    const model = decodeModel(new Uint8Array(file.bytes));
    assert.deepEqual(model.config, saved.config);
    for (const r of model.runs) {
      const tr = it.rn.trainer({ ...engineSettings(model.config), arch: r.arch });
      tr.load(r.state);
      assert.equal(tr.stepsDone, 10);
      const fresh = it.rn.trainer({ ...engineSettings(model.config), arch: r.arch });
      fresh.step(10);
      same(tr.lesion().base, fresh.lesion().base, `${r.arch}: held-out loss of the loaded state`);
      tr.delete();
      fresh.delete();
    }
    await page.context().close();

    // a fresh page with other settings: the file brings the run back
    const other = await openPage(it.browser, lab(url, tiny({ depth: 3, seed: 7 })));
    await other.setInputFiles('#train-model-file', {
      name: file.name,
      mimeType: 'application/octet-stream',
      buffer: file.bytes,
    });
    await waitState(other, 'paused');
    await other.waitForFunction((h) => location.hash === h, trainToHash(saved.config));
    assert.equal(await other.inputValue('#train-depth'), '2');
    const loaded = await hookRuns(other);
    assert.deepEqual(loaded.config, saved.config);
    for (const arch of saved.archs) {
      assert.equal(loaded.runs[arch].stepsDone, 10);
      assert.equal(loaded.runs[arch].logs.length, 5);
      loaded.runs[arch].logs.forEach((l, i) => {
        for (const [k, v] of Object.entries(saved.runs[arch].logs[i]))
          if (Array.isArray(v)) v.forEach((x, q) => same(l[k][q], x, `${arch} ${k}`));
          else same(l[k], v, `${arch} ${k}`);
      });
      same(loaded.runs[arch].logs.at(-1).heldout_loss, saved.runs[arch].logs.at(-1).heldout_loss, `${arch} held-out`);
    }
    assert.match(await other.locator('.lab-tools-status').textContent(), /Loaded .*Post-LN at step 10/);

    // damaged files: each named, the loaded run kept
    const bytes = new Uint8Array(file.bytes);
    const flip = (at) => {
      const b = bytes.slice();
      b[at] ^= 0x40;
      return b;
    };
    const damaged = [
      ['state', flip(bytes.length - 100), /checksum mismatch: the state is damaged/],
      ['truncated', bytes.slice(0, bytes.length - 7), /truncated/],
      ['foreign', new TextEncoder().encode('# resnorm training lab\narch,step\n'), /not a model file/],
      ['header', flip(40), /header is damaged/],
      ['empty', new Uint8Array(0), /empty/],
    ];
    for (const [label, b, reason] of damaged) {
      await other.setInputFiles('#train-model-file', {
        name: `${label}.rnmodel`,
        mimeType: 'application/octet-stream',
        buffer: Buffer.from(b),
      });
      await other.waitForFunction(
        (l) => document.querySelector('.lab-tools-error:not([hidden])')?.textContent.includes(`${l}.rnmodel`),
        label,
      );
      const notice = await other.locator('.lab-tools-error').textContent();
      assert.match(notice, reason, `${label}: ${notice}`);
      assert.match(notice, /The current run is kept\./);
      const kept = await hookRuns(other);
      assert.equal(kept.state, 'paused');
      for (const arch of saved.archs) assert.equal(kept.runs[arch].logs.length, 5, `${label}: ${arch} kept`);
    }

    // one more step equals the uninterrupted run's, bit for bit
    await other.click('#train-step');
    await other.waitForFunction(() => window.__resnormTrain.runs.pre_ln?.logs.length === 6);
    await waitState(other, 'paused');
    const next = await hookRuns(other);
    for (const arch of saved.archs) {
      assert.equal(next.runs[arch].logs[5].step, 12);
      sameLog(next.runs[arch].logs[5], whole[arch][5], `${arch} step 12`);
    }
    assert.deepEqual(other.problems, []);
    await other.context().close();
  }));

test('360 px in the dark theme: the exports and the model buttons wrap, nothing scrolls sideways', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, tiny()), {
      viewport: { width: 360, height: 780 },
      colorScheme: 'dark',
    });
    await page.click('#train-start');
    await waitState(page, 'done');
    await page.click('#train-show-numbers');
    await labDrawn(page);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 360);
    const boxes = await page.$$eval('.lab-tools button', (bs) => bs.map((b) => b.getBoundingClientRect().toJSON()));
    for (let i = 0; i < boxes.length; i++) {
      assert.ok(boxes[i].right <= 360, `button ${i} inside`);
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i];
        const b = boxes[j];
        const overlap =
          Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
          Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
        assert.ok(!overlap, `buttons ${i} and ${j} overlap`);
      }
    }
    await page.locator('.lab-tools').screenshot({ path: `${SHOTS}/train-exports-360-dark.png` });
    await page.screenshot({ path: `${SHOTS}/train-exports-phone-360-dark.png`, fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.context().close();
  }));
