// The pool of engine workers in the page (engine/client.js): the explorer runs
// one worker per core (at most 4), spreads a recompute's architectures over
// them, and paints exactly what one engine computes; a dragged slider never
// paints two configs at once; a worker that fails to load leaves the page
// working on the others, with a notice. The training lab's seeds: each seed's
// logs are the same bit for bit over 1, 2 and 3 workers (the pool's size set by the
// cores the page's navigator reports), and those of the engine's trainer on that seed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openPage, served, useBrowser } from './harness.js';
import { TINY } from '../node/train/tiny.js';
import { engineSettings } from '../../web/src/shared/train-fields.js';

const it = useBrowser({ wasm: true });

// Counts the engine workers a page starts (and, with `failSecond`, makes the second one fail to load).
const countWorkers = (failSecond) => `(() => {
  const Real = window.Worker;
  window.__workers = 0;
  window.Worker = class extends Real {
    constructor(url, options) {
      const n = ++window.__workers;
      super(${failSecond} && n === 2 ? 'data:text/javascript,throw new Error("no engine here")' : url, options);
    }
  };
})()`;

const plain = (doc) => JSON.stringify(doc, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x, String) : x));

/** The results painted last, with every array as text (NaN and Infinity kept). */
const painted = (page) =>
  page.evaluate(() => {
    const r = window.__resnorm;
    const out = {};
    for (const [arch, a] of Object.entries(r.result.results))
      out[arch] = Object.fromEntries(
        Object.entries(a).map(([k, v]) => [k, v && v.length !== undefined ? Array.from(v, String) : v]),
      );
    return { config: r.config, results: out, renders: r.renders };
  });

test('the explorer with a pool: as many workers as cores (capped), the numbers of one engine', async () => {
  await served({}, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(countWorkers(false));
    const page = await context.newPage();
    page.problems = [];
    page.on('console', (m) => m.type() === 'error' && page.problems.push(m.text()));
    await page.goto(`${url}#arch=plain,residual,post_ln,pre_ln,deepnorm,admin&depth=48&gain=1.1`);
    await page.waitForFunction(() => document.body.dataset.ready === '1');
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const shown = await painted(page);
    const want = it.rn.simulate(shown.config);
    assert.equal(JSON.stringify(shown.results), plain(want.results));
    assert.equal(await page.evaluate(() => window.__workers), Math.max(1, Math.min(cores, 4)));
    assert.deepEqual(page.problems, []);
    await context.close();
  });
});

test('dragging the depth slider with a pool: every paint is one config, never a mix of two', async () => {
  await served({}, async (url) => {
    const page = await openPage(it.browser, `${url}#arch=plain,residual,post_ln,pre_ln&depth=96`);
    // Record every paint: each architecture's arrays with the config it claims.
    await page.evaluate(() => {
      window.__paints = [];
      let last = window.__resnorm.renders;
      const tick = () => {
        const r = window.__resnorm;
        if (r.renders !== last) {
          last = r.renders;
          window.__paintsSeen = last;
          window.__paints.push({
            depth: r.config.depth,
            lengths: Object.values(r.result.results).map((a) => a.grad_norm.length),
            archs: Object.keys(r.result.results),
          });
        }
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const renders = () => page.evaluate(() => window.__resnorm.renders);
    const slider = page.locator('#depth');
    await slider.scrollIntoViewIfNeeded(); // the pointer drags it where it is on screen
    const box = await slider.boundingBox();
    await page.mouse.move(box.x + 2, box.y + box.height / 2);
    await page.mouse.down();
    // Bursts of ten moves, each burst then waiting for a paint: requests overlap within a burst
    // (the mix this test looks for) and at least four paints come, however fast the machine.
    let burst = await renders();
    for (let i = 0; i <= 40; i++) {
      await page.mouse.move(box.x + 2 + (i * (box.width - 4)) / 40, box.y + box.height / 2);
      if (i % 10 !== 9) continue;
      await page.waitForFunction((n) => window.__resnorm.renders > n, burst);
      burst = await renders();
    }
    await page.mouse.up();
    await page.waitForFunction(() => {
      const t = document.getElementById('data-table');
      return t && !t.hasAttribute('aria-busy') && String(window.__resnorm.config.depth) === t.dataset.depth;
    });
    await page.waitForFunction(() => window.__paintsSeen === window.__resnorm.renders);
    const paints = await page.evaluate(() => window.__paints);
    assert.ok(paints.length >= 3, `${paints.length} paints`);
    for (const p of paints) {
      assert.deepEqual(p.archs, ['plain', 'residual', 'post_ln', 'pre_ln']);
      assert.ok(
        p.lengths.every((n) => n === p.depth + 1),
        `a paint of depth ${p.depth} had arrays ${p.lengths}`,
      );
    }
    assert.deepEqual(page.problems, []);
  });
});

test('a worker that fails to load: the page computes on the others and says so', async () => {
  await served({}, async (url) => {
    const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(countWorkers(true));
    const page = await context.newPage();
    await page.goto(`${url}#arch=plain,residual,post_ln,pre_ln&depth=24`);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    if (Math.min(cores, 4) < 2) {
      test.skip?.('one core: no pool to lose a worker from');
      await context.close();
      return;
    }
    await page.waitForFunction(() => document.body.dataset.ready === '1');
    await page.waitForSelector('.worker-lost');
    const text = await page.locator('.worker-lost').textContent();
    assert.match(text, /engine worker failed/);
    assert.match(text, /goes on with \d engine worker/);
    const shown = await painted(page);
    assert.equal(JSON.stringify(shown.results), plain(it.rn.simulate(shown.config).results));
    // And the next change computes normally.
    await page.locator('#depth').fill('30');
    await page.waitForFunction(
      () => window.__resnorm.config.depth === 30 && window.__resnorm.result.config.depth === 30,
    );
    await context.close();
  });
});

/** A page whose navigator reports `cores` cores (poolSize() reads it): the lab's pool of that many workers. */
const withCores = (cores) => `(() => {
  Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => ${cores}, configurable: true });
})()`;

/** Every seed's logs of every run of the lab's hook, each number as its exact text: equal strings are equal bits. */
const seedLogs = (page) =>
  page.evaluate(() => {
    const text = (v) => JSON.stringify(v, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x, String) : x));
    const out = {};
    for (const [key, r] of Object.entries(window.__resnormTrain.runs))
      for (const s of r.seeds) out[`${key} seed ${s.seed}`] = text(s.logs.map((l) => ({ ...l })));
    return out;
  });

test('the lab\u2019s seeds over 1, 2 and 3 workers: each seed\u2019s logs bit for bit the same, and a fresh trainer\u2019s on that seed', async () => {
  const config = { ...TINY, steps: 6, seed: 11, seeds: 3 };
  const hash = new URLSearchParams(config).toString().replaceAll('%2C', ',');
  const by = {};
  for (const cores of [1, 2, 3]) {
    await served({}, async (url) => {
      const context = await it.browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript(withCores(cores));
      await context.addInitScript(countWorkers(false));
      const page = await context.newPage();
      page.problems = [];
      page.on('console', (m) => m.type() === 'error' && page.problems.push(m.text()));
      await page.goto(`${url}train.html#${hash}`);
      await page.waitForFunction(() => document.body.dataset.ready === '1');
      await page.click('#train-start');
      await page.waitForFunction(() => window.__resnormTrain?.state === 'done');
      by[cores] = await seedLogs(page);
      // 2 runs x 3 seeds = 6 trainers, spread over every worker of the pool
      assert.equal(await page.evaluate(() => window.__workers), cores, `${cores} workers`);
      assert.deepEqual(page.problems, []);
      await context.close();
    });
  }
  const names = Object.keys(by[1]);
  assert.deepEqual(names, [
    'post_ln seed 11',
    'post_ln seed 12',
    'post_ln seed 13',
    'pre_ln seed 11',
    'pre_ln seed 12',
    'pre_ln seed 13',
  ]);
  for (const cores of [2, 3]) assert.deepEqual(by[cores], by[1], `${cores} workers against 1`);
  // each seed is the run of its own seed: the engine's trainer on it, stepped alone in Node
  const text = (v) => JSON.stringify(v, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x, String) : x));
  for (const arch of ['post_ln', 'pre_ln'])
    for (const seed of [11, 12, 13]) {
      const tr = it.rn.trainer({ ...engineSettings(config), arch, seed });
      const logs = [];
      while (tr.stepsDone < config.steps) logs.push(...tr.step(config.log_every));
      tr.delete();
      assert.equal(by[1][`${arch} seed ${seed}`], text(logs.map((l) => ({ ...l }))), `${arch} seed ${seed}`);
    }
  // the seeds differ from one another (a run on one seed copied to all would pass the rest)
  assert.notEqual(by[1]['pre_ln seed 11'], by[1]['pre_ln seed 12']);
});
