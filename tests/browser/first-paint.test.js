// The explorer's first paint: on the default scene the charts are drawn from
// the numbers the build computed (web/build/first-paint.js), before any engine
// worker answers, and those numbers are bit for bit what the engine returns
// for that config; on any other config nothing is drawn until the engine answers.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SILENT_WORKERS, served, useBrowser } from './harness.js';

const it = useBrowser({ wasm: true });

const hex = (v) => {
  const b = new DataView(new ArrayBuffer(8));
  b.setFloat64(0, v);
  return b.getBigUint64(0).toString(16);
};

test('the default scene is drawn from the shipped numbers, which are the engine’s bit for bit', async () => {
  await served({}, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(SILENT_WORKERS);
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    await page.goto(url);
    await page.waitForFunction(() => document.body.dataset.ready === '1');
    const shown = await page.evaluate(() => {
      const r = window.__resnorm;
      const out = {};
      for (const [arch, a] of Object.entries(r.result.results))
        out[arch] = Object.fromEntries(
          Object.entries(a).map(([k, v]) => [k, v && v.length !== undefined ? Array.from(v) : v]),
        );
      return { config: r.config, results: out, canvases: document.querySelectorAll('canvas').length };
    });
    const want = it.rn.simulate(shown.config);
    assert.deepEqual(Object.keys(shown.results), Object.keys(want.results));
    let values = 0;
    for (const [arch, r] of Object.entries(want.results))
      for (const [k, v] of Object.entries(r)) {
        if (!ArrayBuffer.isView(v)) {
          assert.equal(shown.results[arch][k], v, `${arch}.${k}`);
          continue;
        }
        assert.deepEqual(shown.results[arch][k].map(hex), Array.from(v, hex), `${arch}.${k}`);
        values += v.length;
      }
    assert.ok(values > 1000, `${values} values compared`);
    assert.ok(shown.canvases >= 3, 'the charts are drawn');
    assert.deepEqual(problems, []);
    await context.close();
  });
});

test('another config waits for the engine: no shipped numbers are drawn for it', async () => {
  await served({}, async (url) => {
    const context = await it.browser.newContext();
    await context.addInitScript(SILENT_WORKERS);
    const page = await context.newPage();
    await page.goto(`${url}#depth=40`);
    // once the page has asked the engine and drawn two frames since, only an answer could draw it
    await page.waitForFunction(() => window.__posted.includes('simulate'));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.evaluate(() => document.body.dataset.ready ?? null), null);
    assert.equal(await page.evaluate(() => window.__resnorm?.renders ?? 0), 0);
    await context.close();
  });
});
