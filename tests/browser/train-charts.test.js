// The training lab's two charts of numbers only some runs log, in Debian's Chromium under the site's
// CSP: the largest attention logit (runs with transformer blocks, the engine's max_logit) and the
// composite gain of the stream mixing over depth (Hyper-Connections and mHC runs, hc_gain_fwd and
// hc_gain_bwd). After the QK-norm claim (one seed) and the mHC claim (two seeds: the median and
// the band from the lowest seed to the highest) each chart draws exactly the runs that log its
// number and, at every logged step, the numbers the runs logged, which are those of the numbers
// table and the JSON export; the SVG export draws the same runs; the keyboard moves the readout's
// step from the new charts. An MLP run of Pre-LN and Post-LN has neither chart (no empty figure,
// no canvas, no column, nothing in the SVG); an MLP run of mHC the gain's only. A value that is
// not finite is said over its chart. Screenshots at 1280 and 360 px, light and dark, in
// test-results/train-charts-*.png.
// Run: node scripts/browser-tests.js tests/browser/train-charts.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, SITE_CSP, downloadBytes, labDrawn, openPage, served, useBrowser } from './harness.js';
import { CLAIM_BY_ID } from '../../web/src/claims/lab/index.js';
import { median } from '../../web/src/claims/lab/common.js';
import { fmtPlain } from '../../web/src/shared/format.js';
import { DIVERGES, tiny } from '../node/train/tiny.js';

const it = useBrowser();

const lab = (url, hash) => `${url}train.html#${hash}`;

/** Start, then every run done (and the claim's verdict, for a claim) and drawn. */
async function trainToEnd(page, claim = false) {
  await page.click('#train-start');
  await page.waitForFunction(
    (c) => window.__resnormTrain?.state === 'done' && (!c || window.__resnormTrain.verdict),
    claim,
    {
      timeout: 20 * 60000,
    },
  );
  await labDrawn(page);
}

/** What the page shows: the hook's plotted charts and runs (every seed's logs), the figures shown, the notes. */
const shown = (page) =>
  page.evaluate(() => {
    const h = window.__resnormTrain;
    const figure = (k) => {
      const f = document.getElementById(`train-figure-${k}`);
      return { hidden: f.hidden, visible: f.checkVisibility(), canvases: f.querySelectorAll('canvas').length };
    };
    return {
      plotted: h.plotted,
      runs: Object.fromEntries(
        Object.entries(h.runs).map(([k, r]) => [
          k,
          { arch: r.arch, label: r.label, seeds: r.seeds.map((s) => ({ seed: s.seed, logs: s.logs })) },
        ]),
      ),
      figures: { logit: figure('logit'), gain: figure('gain') },
      notes: {
        logit: document.getElementById('train-logit-note').textContent,
        gain: document.getElementById('train-gain-note').textContent,
      },
      canvases: document.querySelectorAll('.train-chart canvas').length,
    };
  });

/** The numbers table: its second head row's labels, its first head row's run names, and every body row's texts. */
const numbersTable = (page) =>
  page.evaluate(() => {
    const t = document.getElementById('train-data-table');
    const [head1, head2] = t.tHead.rows;
    return {
      groups: [...head1.cells].filter((c) => c.scope === 'colgroup').map((c) => c.textContent),
      labels: [...head2.cells].map((c) => c.textContent),
      lrShared: head1.cells[1]?.textContent === 'learning rate',
      rows: [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent)),
    };
  });

/** The downloaded text of export `kind`. */
async function exported(page, kind) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(`#train-export-${kind}`)]);
  return (await downloadBytes(d)).toString('utf8');
}

/** Object.is, with a message. */
const same = (a, b, what) => assert.ok(Object.is(a, b), `${what}: ${a} != ${b}`);

/**
 * Checks chart `chart` of `h` (shown()) against the runs' logs: it draws `keys` in order, and at
 * every step of its axis each run's `logKeys` values (its seed's own on one seed, the median of its
 * seeds on several, then for a run on several seeds the lowest and highest seed of `logKeys[0]`).
 */
function checkChart(h, chart, keys, logKeys) {
  const p = h.plotted[chart];
  assert.ok(p, `${chart}: drawn`);
  assert.deepEqual(p.runs, keys, `${chart}: the runs that log ${logKeys[0]}`);
  const seeded = keys.filter((k) => h.runs[k].seeds.length > 1);
  assert.equal(p.raw.length, keys.length * logKeys.length + 2 * seeded.length, `${chart}: its series`);
  const at = (k, step, key) =>
    h.runs[k].seeds.map((s) => s.logs.find((l) => l.step === step)?.[key]).filter((v) => v !== undefined);
  let checked = 0;
  p.x.forEach((step, i) => {
    keys.forEach((k, r) =>
      logKeys.forEach((key, j) => {
        const values = at(k, step, key);
        // one seed: its value as logged; several: their median, as series.js's seedsRun takes it
        const want = values.length > 1 ? median(values) : values[0];
        same(p.raw[r * logKeys.length + j][i], want, `${chart} ${k} ${key} at step ${step}`);
        checked++;
      }),
    );
    seeded.forEach((k, b) => {
      const values = at(k, step, logKeys[0]).filter(Number.isFinite);
      const base = keys.length * logKeys.length + 2 * b;
      same(p.raw[base][i], values.length ? Math.min(...values) : NaN, `${chart} ${k} lowest seed at step ${step}`);
      same(p.raw[base + 1][i], values.length ? Math.max(...values) : NaN, `${chart} ${k} highest seed at step ${step}`);
    });
  });
  assert.ok(checked >= keys.length * logKeys.length * 30, `${chart}: ${checked} values checked`);
}

/**
 * The numbers table's column `label` of every run and seed against the logs: its text at each row's
 * step is the logged value's (fmtPlain), '—' in the groups of runs `none` (which log no such number).
 */
function checkColumn(table, h, label, key, none = []) {
  const per = table.labels.length / table.groups.length;
  const col = table.labels.indexOf(label);
  assert.ok(col >= 0, `the numbers table has a ${label} column: ${table.labels}`);
  // the groups in the session's order: each run key's seeds, first seed first
  const groups = Object.entries(h.runs).flatMap(([k, r]) => r.seeds.map((s) => ({ k, logs: s.logs })));
  assert.equal(groups.length, table.groups.length, 'a column group per run and seed');
  const lead = table.lrShared ? 2 : 1;
  for (const row of table.rows) {
    const step = Number(row[0]);
    groups.forEach((g, n) => {
      const text = row[lead + n * per + col];
      const log = g.logs.find((l) => l.step === step);
      const want = none.includes(g.k) || !log ? '\u2014' : fmtPlain(log[key]);
      assert.equal(text, want, `numbers table ${g.k} ${label} at step ${step}`);
    });
  }
}

/** The JSON export's `key` of every run and seed against the logs: null where a value is not finite. */
function checkJson(text, h, key) {
  const json = JSON.parse(text);
  for (const r of json.runs) {
    const k = r.key ?? r.arch;
    const seed = h.runs[k].seeds.find((s) => r.seed === undefined || s.seed === r.seed);
    assert.equal(r.logs.length, seed.logs.length, `JSON ${k}: its logs`);
    r.logs.forEach((l, j) => {
      const v = seed.logs[j][key];
      if (Number.isFinite(v)) same(l[key], v, `JSON ${k} seed ${seed.seed} ${key} at step ${l.step}`);
      else assert.equal(l[key], null, `JSON ${k} ${key} at step ${l.step}: not finite, null`);
    });
  }
}

/** The runs the SVG export's chart `chart` draws (its series' data-run, in order, once each), or null: no such chart. */
function svgRuns(svg, chart) {
  const start = svg.indexOf(`<g class="chart chart-${chart}">`);
  if (start < 0) return null;
  const next = svg.indexOf('<g class="chart ', start + 1);
  const part = svg.slice(start, next < 0 ? undefined : next);
  return [...new Set([...part.matchAll(/data-run="([^"]+)"/g)].map((m) => m[1]))];
}

test('the QK-norm claim: the largest-logit chart draws every run\u2019s logged logit, as the numbers table and the exports do; no gain chart', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const claim = CLAIM_BY_ID.qknorm;
    const page = await openPage(it.browser, lab(url, 'preset=qknorm&seeds=1'));
    await page.waitForFunction(() => window.__resnormTrain?.preset === 'qknorm');
    await trainToEnd(page, true);
    const h = await shown(page);
    const keys = claim.runs.map((r) => r.key);
    checkChart(h, 'logit', keys, ['max_logit']);
    assert.equal(h.plotted.gain, null, 'no run mixes streams: no gain chart');
    assert.deepEqual(h.figures.gain, { hidden: true, visible: false, canvases: 0 });
    assert.equal(h.figures.logit.visible, true);
    assert.equal(h.canvases, 4, 'the loss, gradient norm, learning rate and largest logit');
    // every run's largest logit in the claim's verdict is the largest the chart draws
    keys.forEach((k, r) => {
      const drawn = h.plotted.logit.raw[r];
      const peak = drawn.every(Number.isFinite) ? Math.max(...drawn) : NaN;
      same(peak, claim.peakLogit({ logs: h.runs[k].seeds[0].logs }), `${k}: the peak`);
    });
    // a value that is not finite is said over the chart, run by run; none: nothing said
    const nonfinite = keys.filter((k) => h.runs[k].seeds[0].logs.some((l) => !Number.isFinite(l.max_logit)));
    for (const k of nonfinite)
      assert.ok(h.notes.logit.includes(`${h.runs[k].label}: not finite at step`), h.notes.logit);
    if (!nonfinite.length) assert.equal(h.notes.logit, '');

    const table = await numbersTable(page);
    checkColumn(table, h, 'largest logit', 'max_logit');
    assert.ok(!table.labels.includes('forward gain'), 'no gain column');
    checkJson(await exported(page, 'json'), h, 'max_logit');
    const svg = await exported(page, 'svg');
    assert.deepEqual(svgRuns(svg, 'logit'), keys, 'the SVG\u2019s logit chart draws every run');
    assert.equal(svgRuns(svg, 'gain'), null, 'no gain chart in the SVG');
    assert.match(svg, /Largest attention logit/);
    assert.deepEqual(page.problems, [], page.problems.join('\n'));
    await page.context().close();
  }));

test('the mHC claim on two seeds: the gain chart draws HC\u2019s and mHC\u2019s median and band, as logged; the logit chart every run; keyboard; screenshots', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, 'preset=hc&seeds=2'));
    await page.waitForFunction(() => window.__resnormTrain?.preset === 'hc');
    await trainToEnd(page, true);
    const h = await shown(page);
    assert.deepEqual(
      Object.values(h.runs).map((r) => r.seeds.length),
      [2, 2, 2],
    );
    checkChart(h, 'gain', ['hyper', 'mhc'], ['hc_gain_fwd', 'hc_gain_bwd']);
    checkChart(h, 'logit', ['pre_ln', 'hyper', 'mhc'], ['max_logit']);
    assert.equal(h.figures.gain.visible, true);
    assert.equal(h.canvases, 5);
    const table = await numbersTable(page);
    checkColumn(table, h, 'forward gain', 'hc_gain_fwd', ['pre_ln']);
    checkColumn(table, h, 'backward gain', 'hc_gain_bwd', ['pre_ln']);
    checkColumn(table, h, 'largest logit', 'max_logit');
    const json = await exported(page, 'json');
    checkJson(json, h, 'hc_gain_fwd');
    checkJson(json, h, 'hc_gain_bwd');
    const svg = await exported(page, 'svg');
    assert.deepEqual(svgRuns(svg, 'gain'), ['hyper', 'mhc'], 'the SVG\u2019s gain chart: HC and mHC');
    assert.match(svg, /gain 1/, 'the SVG\u2019s line at a gain of 1');

    // the keyboard: the gain chart moves the readout's step as the others do
    await page.focus('#train-chart-gain');
    await page.keyboard.press('Home');
    await page.waitForFunction(() => /^Step 10\b/.test(document.querySelector('.train-readout-head').textContent));
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => /^Step 20\b/.test(document.querySelector('.train-readout-head').textContent));
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => /\(the latest\)/.test(document.querySelector('.train-readout-head').textContent));

    for (const [width, scheme] of [
      [1280, 'light'],
      [1280, 'dark'],
      [360, 'light'],
      [360, 'dark'],
    ]) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForFunction((s) => document.documentElement.dataset.theme === s, scheme);
      await labDrawn(page);
      await page.locator('.train-chart-row').screenshot({ path: `${SHOTS}/train-charts-hc-${width}-${scheme}.png` });
      // the charts fit the page's width: no sideways scroll
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), `${width} px`);
    }
    assert.deepEqual(page.problems, [], page.problems.join('\n'));
    await page.context().close();
  }));

test('MLP runs: no largest-logit chart; the gain chart only with a run that mixes streams', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, tiny({ block: 'mlp', steps: 8 })));
    await trainToEnd(page);
    let h = await shown(page);
    assert.equal(h.plotted.logit, null);
    assert.equal(h.plotted.gain, null);
    assert.deepEqual(h.figures.logit, { hidden: true, visible: false, canvases: 0 });
    assert.deepEqual(h.figures.gain, { hidden: true, visible: false, canvases: 0 });
    assert.equal(h.canvases, 3, 'the loss, gradient norm and learning rate only');
    let table = await numbersTable(page);
    assert.ok(!table.labels.some((l) => /logit|gain/.test(l)), String(table.labels));
    const svg = await exported(page, 'svg');
    assert.equal(svgRuns(svg, 'logit'), null);
    assert.equal(svgRuns(svg, 'gain'), null);
    assert.doesNotMatch(svg, /Largest attention logit|Composite gain/);

    // mHC with MLP blocks: its gain, no logit
    await page.goto(lab(url, tiny({ block: 'mlp', steps: 8, arch: 'pre_ln,mhc' })));
    await trainToEnd(page);
    h = await shown(page);
    assert.equal(h.plotted.logit, null);
    assert.deepEqual(h.plotted.gain.runs, ['mhc']);
    checkLogged(h, 'gain', 'hc_gain_fwd', 2);
    table = await numbersTable(page);
    assert.ok(!table.labels.includes('largest logit'));
    checkColumn(table, h, 'forward gain', 'hc_gain_fwd', ['pre_ln']);
    assert.deepEqual(page.problems, [], page.problems.join('\n'));
    await page.context().close();
  }));

/**
 * A one-seed run's chart `chart`: each run it draws, its logged `key` at every step it logged (NaN as
 * NaN), the run's first of its `per` series.
 */
function checkLogged(h, chart, key, per = 1) {
  const p = h.plotted[chart];
  assert.ok(p, `${chart}: drawn`);
  p.runs.forEach((k, r) =>
    h.runs[k].seeds[0].logs.forEach((l) => same(p.raw[per * r][p.x.indexOf(l.step)], l[key], `${k} at ${l.step}`)),
  );
}

test('a run that diverges: the largest logit it logged not finite is said over the chart, which draws the rest', () =>
  served({ csp: SITE_CSP }, async (url) => {
    const page = await openPage(it.browser, lab(url, DIVERGES));
    await trainToEnd(page);
    const h = await shown(page);
    const bad = Object.entries(h.runs).filter(([, r]) => r.seeds[0].logs.some((l) => !Number.isFinite(l.max_logit)));
    assert.ok(bad.length, 'a run whose largest logit is not finite at a logged step');
    for (const [k, r] of bad) {
      const logs = r.seeds[0].logs;
      const first = logs.find((l) => !Number.isFinite(l.max_logit));
      assert.ok(h.notes.logit.includes(`${r.label}: not finite at step ${first.step}`), `${k}: ${h.notes.logit}`);
    }
    checkLogged(h, 'logit', 'max_logit');
    assert.deepEqual(page.problems, [], page.problems.join('\n'));
    await page.context().close();
  }));
