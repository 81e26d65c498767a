// One number, one meaning: at configs whose stream overflows, the numbers
// table, the CSV and JSON downloads and the arrays given to the charts
// (window.__resnorm.plotted) agree layer by layer on what is overflow and on
// every finite value, and no finite value is beyond float32's range.
import test from 'node:test';
import assert from 'node:assert/strict';
import { downloadBytes, openPage, served, useBrowser } from './harness.js';
import { fmtPlain, fmtValue } from '../../web/src/shared/format.js';

const it = useBrowser({ wasm: true });

const FLOAT32_MAX = 3.4028234663852886e38;
const METRICS = [
  ['grad', 'grad_norm', 0],
  ['stream', 'stream_rms', 0],
  ['update', 'update_ratio', 1],
];

async function download(page, kind) {
  await page.locator('#chart-tools details.export-menu > summary').click();
  const [dl] = await Promise.all([
    page.waitForEvent('download'),
    page.locator(`button[data-export="${kind}"]`).click(),
  ]);
  return (await downloadBytes(dl)).toString('utf8');
}

/** {head, rows} of the CSV, the `#` lines left out. */
function parseCsv(text) {
  const rows = text
    .trimEnd()
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .map((line) => line.split(','));
  return { head: rows[0], rows: rows.slice(1) };
}

async function check(hash, { overflowing }) {
  await served({}, async (url) => {
    const page = await openPage(it.browser, `${url}#${hash}`);
    try {
      const L = await page.evaluate(() => window.__resnorm.config.depth);
      await page.waitForFunction((d) => {
        const t = document.getElementById('data-table');
        return t.dataset.depth === String(d) && !t.hasAttribute('aria-busy');
      }, L);
      const shown = await page.evaluate(() => {
        const r = window.__resnorm;
        const rows = [...document.querySelectorAll('#data-table tbody tr')].map((tr) =>
          [...tr.querySelectorAll('td')].map((td) => td.textContent),
        );
        return { archs: r.config.arch, plotted: r.plotted, result: r.result.results, rows };
      });
      const csv = parseCsv(await download(page, 'csv'));
      const json = JSON.parse(await download(page, 'json'));
      assert.equal(shown.rows.length, L + 1);
      assert.equal(csv.rows.length, L + 1);
      const overflowSeen = new Set();
      shown.archs.forEach((arch, a) => {
        for (const [i, [metric, key, offset]] of METRICS.entries()) {
          const col = csv.head.indexOf(`${arch}.${key}`);
          assert.ok(col > 0, `CSV column ${arch}.${key}`);
          const plotted = shown.plotted[metric].series[arch];
          for (let l = offset; l <= L; l++) {
            const at = `${arch} ${key} layer ${l}`;
            const v = plotted[l - offset];
            const cell = shown.rows[l][a * METRICS.length + i];
            const csvText = csv.rows[l][col];
            const jsonValue = json.results[arch][key][l - offset];
            const over = cell === 'overflow';
            if (over) overflowSeen.add(arch);
            assert.equal(!Number.isFinite(v), over, `${at}: plotted ${v}, table ${cell}`);
            assert.equal(!Number.isFinite(Number(csvText)), over, `${at}: CSV ${csvText}, table ${cell}`);
            assert.equal(jsonValue === null, over, `${at}: JSON ${jsonValue}, table ${cell}`);
            if (over) continue;
            assert.ok(Math.abs(v) <= FLOAT32_MAX, `${at}: ${v} is beyond float32`);
            assert.equal(Number(csvText), v, `${at}: CSV`);
            assert.equal(jsonValue, v, `${at}: JSON`);
            assert.equal(cell, fmtPlain(v), `${at}: table`);
          }
        }
        // the arrays neither the charts nor the table show: the same rule
        for (const key of Object.keys(json.results[arch])) {
          if (!Array.isArray(json.results[arch][key])) continue;
          const col = csv.head.indexOf(`${arch}.${key}`);
          json.results[arch][key].forEach((x, i) => {
            const csvText = csv.rows[json.results[arch][key].length === L + 1 ? i : i + 1][col];
            const at = `${arch} ${key}[${i}]`;
            assert.equal(x === null, !Number.isFinite(Number(csvText)), `${at}: JSON ${x}, CSV ${csvText}`);
            if (x !== null) assert.ok(Math.abs(x) <= FLOAT32_MAX, `${at}: ${x} is beyond float32`);
          });
        }
      });
      assert.deepEqual([...overflowSeen].sort(), [...overflowing].sort(), 'the archs that overflow');
      assert.deepEqual(page.problems, []);
    } finally {
      await page.context().close();
    }
  });
}

test('depth 300: the table, the CSV, the JSON and the charts agree on every overflow and every number', () =>
  check('depth=300', { overflowing: ['residual'] }));

test('depth 1024, gain 1.5: the table, the CSV, the JSON and the charts agree on every overflow and every number', () =>
  check('arch=plain,residual,post_ln&depth=1024&gain=1.5', { overflowing: ['plain', 'residual'] }));

// The caption's per-block factor of a plain stack is the geometric mean of the
// per-block stream factors, (rms_L / rms_0)^(1/L), not the last block's alone.
test('depth 96, gain 1.2: the caption gives plain\u2019s per-block factor as (rms_L / rms_0)^(1/L)', () =>
  served({}, async (url) => {
    const page = await openPage(it.browser, `${url}#depth=96&gain=1.2`);
    try {
      const text = await page.evaluate(() => document.querySelector('#caption .caption-plain').textContent);
      const r = it.rn.simulate({ arch: ['plain'], depth: 96, gain: 1.2 }).results.plain;
      const factor = (r.stream_rms[96] / r.stream_rms[0]) ** (1 / 96);
      assert.ok(factor > 1.1 && factor < 1.25, `the stream grows by about 1.17 per block: ${factor}`);
      const m = /each block multiplies the stream RMS by ([^\s]+)× \(the geometric mean over the 96 blocks/.exec(text);
      assert.ok(m, `caption: ${text}`);
      assert.equal(m[1], fmtValue(factor), `caption: ${text}`);
      assert.deepEqual(page.problems, []);
    } finally {
      await page.context().close();
    }
  }));
