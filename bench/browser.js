// Part 2 of the benchmark: the pages in Debian's Chromium (headless, playwright-core),
// served from the build (dist/, or RESNORM_DIST) by scripts/serve.js on localhost.
//  - first chart: navigation to the first painted chart (window.__resnorm.lastPaintMs
//    of the first render, on the page's clock, whose origin is the navigation start),
//    over several cold loads (fresh browser context each);
//  - slider input -> repaint: steps of the depth slider and of the gain slider at
//    the default scene, one at a time: an `input` event at t0, then lastPaintMs of
//    the render it caused, minus t0; the same for the gain slider on the deep scene
//    (deepnorm + post_ln, L = 1000, opened by its link #arch=deepnorm,post_ln&depth=1000;
//    the depth slider ends at 96);
//  - the papers page, cold loads: navigation until every panel shows its measured
//    verdict (data-verdict on its [data-panel] section leaves 'pending' once the
//    engine's result is drawn), and the page's own timing of the transformer scene
//    (#speed-result[data-median], experiments.js timeRecompute);
//  - the pool: engine clients of k workers (web/src/engine/client.js, the built
//    worker) against one worker on the default scene, recomputes per second;
//  - bytes: every file the page requested, gzip -9 with node:zlib, as page
//    (HTML, CSS, fonts, ...), JS and wasm.
// The page's test hook (see tests/browser/harness.js): document.body.dataset.ready
// === '1' once loaded; window.__resnorm = {config, renders, lastPaintMs, ...}.
// Any other numeric *Ms field of the hook (e.g. a compute or draw time) is
// summarized too, so the profile can split a step into its parts.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import { extname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { summarize } from './lib/stats.js';
import { PERF_CONFIG } from '../web/src/engine/experiments.js';
import { ARTICLE_PANELS } from '../web/src/papers/repro.js';
import { cpuSession, startProfile, stopProfile } from './lib/lab.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
// The build to measure, as tests/browser/harness.js chooses it.
const DIST = process.env.RESNORM_DIST || `${ROOT}dist`;
const SRC = `${ROOT}web/src/`;

function category(file) {
  const ext = extname(file);
  if (ext === '.wasm') return 'wasm';
  if (ext === '.js' || ext === '.mjs') return 'js';
  return 'page';
}

/** gzip -9 sizes of files under dist/ (all of them, or the given relative paths). */
export function distSizes(files = null) {
  const list = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (!p.endsWith('.map')) list.push(relative(DIST, p));
    }
  };
  if (files) list.push(...files.filter((f) => existsSync(join(DIST, f))));
  else walk(DIST);
  const out = {
    files: [],
    totals: { page: 0, js: 0, wasm: 0, all: 0 },
    raw_totals: { page: 0, js: 0, wasm: 0, all: 0 },
  };
  for (const f of [...new Set(list)].sort()) {
    const body = readFileSync(join(DIST, f));
    const gz = gzipSync(body, { level: 9 }).length;
    const cat = category(f);
    out.files.push({ file: f, category: cat, bytes: body.length, gzip_bytes: gz });
    out.totals[cat] += gz;
    out.totals.all += gz;
    out.raw_totals[cat] += body.length;
    out.raw_totals.all += body.length;
  }
  return out;
}

// `count` steps of a slider around its current value, one step of the slider's
// `step` each, bouncing between start - 25 and start + 25 steps (or the slider's
// ends): first toward the side with more room. Every step changes the value, so
// every step asks for a new render.
export function stepValues(min, max, step, start, count, amplitude = 25) {
  const decimals = (String(step).split('.')[1] || '').length;
  const lo = Math.max(-amplitude, Math.ceil((min - start) / step - 1e-9));
  const hi = Math.min(amplitude, Math.floor((max - start) / step + 1e-9));
  if (hi - lo < 1) return [];
  let k = 0;
  let dir = hi >= -lo ? 1 : -1;
  const values = [];
  while (values.length < count) {
    if (k + dir > hi || k + dir < lo) dir = -dir;
    k += dir;
    values.push(Number((start + k * step).toFixed(decimals)));
  }
  return values;
}

async function waitReady(page) {
  await page.waitForFunction(
    () => document.body && document.body.dataset.ready === '1' && window.__resnorm && window.__resnorm.renders >= 1,
    null,
    { timeout: 30000 },
  );
}

// Runs `count` steps of slider `id` in the page; returns per-step latencies and hook fields.
async function sliderSteps(page, id, count) {
  const spec = await page.evaluate((id) => {
    const el = document.getElementById(id);
    if (!el) return null;
    return { min: Number(el.min), max: Number(el.max), step: Number(el.step) || 1, value: Number(el.value) };
  }, id);
  if (!spec) throw new Error(`no #${id} on the page`);
  const values = stepValues(spec.min, spec.max, spec.step, spec.value, count);
  return page.evaluate(
    async ([id, values]) => {
      const el = document.getElementById(id);
      // The page replaces window.__resnorm on every render: read it afresh each time.
      const hook = () => window.__resnorm;
      const steps = [];
      let failures = 0;
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      for (const v of values) {
        const n = hook().renders;
        const t0 = performance.now();
        el.value = String(v);
        el.dispatchEvent(new Event('input', { bubbles: true }));
        let timedOut = false;
        while (hook().renders === n) {
          await frame();
          if (performance.now() - t0 > 5000) {
            timedOut = true;
            break;
          }
        }
        const seen = performance.now();
        const h = hook();
        const fields = {};
        for (const [k, x] of Object.entries(h))
          if (typeof x === 'number' && /Ms$/.test(k) && k !== 'lastPaintMs') fields[k] = x;
        const paint = typeof h.lastPaintMs === 'number' ? h.lastPaintMs : seen;
        steps.push({
          value: v,
          ms: paint - t0,
          seen_ms: seen - t0,
          timedOut,
          depth: h.config?.depth,
          fields,
          t0_abs: performance.timeOrigin + t0,
          paint_abs: performance.timeOrigin + paint,
        });
        if (timedOut && ++failures >= 3) break; // the page does not answer this slider: stop, say so
        await frame(); // let the page settle between steps, as between two slider events
      }
      return steps;
    },
    [id, values],
  );
}

// The engine worker's side of each step, by wrapping its onmessage and postMessage
// (web/src/engine/worker.js): when the request arrived, when the answer left, and
// the ms the worker itself reports for simulate() (engine + copies out of the heap).
// Times are absolute (timeOrigin + now), so page and worker clocks line up.
async function instrumentWorkers(page) {
  const workers = page.workers();
  for (const w of workers)
    await w.evaluate(() => {
      if (self.__bench) return;
      self.__bench = [];
      const onmessage = self.onmessage;
      self.onmessage = (e) => {
        self.__benchRecv = performance.timeOrigin + performance.now();
        return onmessage.call(self, e);
      };
      const post = self.postMessage.bind(self);
      self.postMessage = (msg, transfer) => {
        self.__bench.push({
          recv: self.__benchRecv,
          send: performance.timeOrigin + performance.now(),
          ms: msg && msg.ms,
        });
        return post(msg, transfer);
      };
    });
  return workers;
}

async function workerRecords(workers) {
  const all = [];
  for (const w of workers) all.push(...(await w.evaluate(() => self.__bench.splice(0))));
  return all.sort((a, b) => a.recv - b.recv);
}

// Splits each step at the worker's receive and send times: input -> worker,
// worker (engine call + copies + postMessage), worker -> painted (delivery, chart
// preparation and drawing). A step is matched to the last request that arrived
// in the worker after its input event.
function splitSteps(steps, records) {
  const parts = { to_worker: [], in_worker: [], engine_simulate: [], back_and_draw: [] };
  for (const s of steps) {
    if (s.timedOut) continue;
    const mine = records.filter((r) => r.recv >= s.t0_abs && r.send <= s.paint_abs);
    const r = mine[mine.length - 1];
    if (!r) continue;
    parts.to_worker.push(r.recv - s.t0_abs);
    parts.in_worker.push(r.send - r.recv);
    if (Number.isFinite(r.ms)) parts.engine_simulate.push(r.ms);
    parts.back_and_draw.push(s.paint_abs - r.send);
  }
  return Object.fromEntries(
    Object.entries(parts)
      .filter(([, v]) => v.length)
      .map(([k, v]) => [k, summarize(v)]),
  );
}

function summarizeSteps(steps, records = []) {
  const ok = steps.filter((s) => !s.timedOut);
  if (!ok.length) throw new Error(`no render followed the slider input (${steps.length} tries)`);
  const fields = {};
  for (const s of ok) for (const [k, v] of Object.entries(s.fields)) (fields[k] ||= []).push(v);
  return {
    ...summarize(ok.map((s) => s.ms)),
    timed_out: steps.length - ok.length,
    values: [steps[0]?.value, steps[steps.length - 1]?.value],
    hook_fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, summarize(v)])),
    split: splitSteps(steps, records),
  };
}

// Marks on the page's clock, set before any page script runs: when the first
// engine Worker was created (and its URL, so the bench can start the same built
// worker), its first request and its first answer (with the ms simulate() took).
function markWorkers() {
  const marks = (window.__benchLoad = {});
  // The page replaces its hook on every paint: keep the first paint's time and renders.
  let hook;
  Object.defineProperty(window, '__resnorm', {
    configurable: true,
    get: () => hook,
    set(v) {
      hook = v;
      if (marks.first_paint === undefined && v && typeof v.lastPaintMs === 'number') marks.first_paint = v.lastPaintMs;
    },
  });
  const Base = window.Worker;
  if (!Base) return;
  window.Worker = class extends Base {
    constructor(...args) {
      super(...args);
      if (marks.worker_created === undefined) {
        marks.worker_created = performance.now();
        marks.worker_url = String(new URL(args[0], location.href));
        marks.worker_type = args[1]?.type ?? 'classic';
      }
      this.addEventListener('message', (e) => {
        if (marks.first_answer === undefined) {
          marks.first_answer = performance.now();
          marks.first_simulate_ms = e.data && e.data.ms;
        }
      });
    }
    postMessage(...args) {
      marks.first_request ??= performance.now();
      return super.postMessage(...args);
    }
  };
}

// Until the page has drawn the live engine's answer (not only the shipped first
// paint, which the page draws before its worker has answered).
async function waitLive(page, check = null) {
  await waitReady(page);
  await page.waitForFunction(
    (check) => {
      const m = window.__benchLoad;
      const h = window.__resnorm;
      if (!m || m.first_answer === undefined || !(h.lastPaintMs >= m.first_answer)) return false;
      if (!check) return true;
      const arch = [...h.config.arch].sort().join(',');
      return arch === [...check.arch].sort().join(',') && h.config.depth === check.depth;
    },
    check,
    { timeout: 120000 },
  );
}

// Cold loads of the explorer: navigation -> first painted chart; the files requested.
// `rate`: the page's CPU slowed that many times (CDP); `profile`: the top functions of the first
// load under V8's sampling profiler (a pass of its own: its times are not the figure).
async function coldLoads(browser, server, loads, { rate = 1, profile = false } = {}) {
  const firstPaint = [],
    navigation = [];
  const requested = new Set();
  let top = null;
  for (let i = 0; i < loads; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(markWorkers);
    const page = await context.newPage();
    const cdp = await cpuSession(context, page, { rate, profile: profile && i === 0 });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('requestfinished', (req) => {
      const u = new URL(req.url());
      if (u.origin === new URL(server.url).origin)
        requested.add(decodeURIComponent(u.pathname).replace(/^\//, '') || 'index.html');
    });
    await page.goto(server.url);
    try {
      await waitLive(page);
    } catch (e) {
      await context.close();
      return {
        error: `the page never drew the engine's answer (body[data-ready=1], window.__resnorm after the worker's first answer): ${e.message.split('\n')[0]}; page errors: ${errors.join('; ') || 'none'}`,
      };
    }
    const t = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      return {
        paint: window.__benchLoad.first_paint,
        live_paint: window.__resnorm.lastPaintMs,
        dcl: nav?.domContentLoadedEventEnd,
        load: nav?.loadEventEnd,
        fcp: fcp?.startTime,
        ...window.__benchLoad,
      };
    });
    firstPaint.push(t.paint);
    navigation.push(t);
    if (profile && i === 0) top = await stopProfile(cdp);
    await context.close();
  }
  return { firstPaint, navigation, requested, top };
}

// Slider steps on one page opened at `hash`: each slider of `ids`, `steps` steps.
// `rate` and `profile` as coldLoads's (the profile over every slider's steps).
async function sliderScene(
  browser,
  server,
  { hash = '', check = null, ids, steps, log, label, rate = 1, profile = false },
) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await context.addInitScript(markWorkers);
    const page = await context.newPage();
    const cdp = await cpuSession(context, page, { rate, open: profile });
    await page.goto(`${server.url}${hash}`);
    await waitLive(page, check);
    if (profile) await startProfile(cdp);
    const config = await page.evaluate(() => window.__resnorm.config);
    const workers = await instrumentWorkers(page);
    const sliders = {};
    for (const id of ids) {
      // Each slider's steps end where they began.
      const list = await sliderSteps(page, id, steps);
      sliders[id] = summarizeSteps(list, await workerRecords(workers));
      log(`  ${label} ${id} slider: input -> repaint median ${sliders[id].median_ms} ms, p95 ${sliders[id].p95_ms} ms`);
    }
    return { page_config: config, slider: sliders, ...(profile ? { top: await stopProfile(cdp) } : {}) };
  } finally {
    await context.close();
  }
}

// The papers page: every panel's verdict as it is first set to a measured one
// (and the next animation frame, when it is drawn), and the figure of the
// page's own timing of the transformer scene.
function markVerdicts() {
  const marks = (window.__benchPapers = { verdicts: {} });
  const look = () => {
    for (const el of document.querySelectorAll('[data-panel]')) {
      const id = el.dataset.panel;
      const v = el.dataset.verdict;
      if (!v || v === 'pending' || marks.verdicts[id]) continue;
      const mark = (marks.verdicts[id] = { verdict: v, set_ms: performance.now() });
      requestAnimationFrame(() => (mark.shown_ms = performance.now()));
    }
  };
  new MutationObserver(look).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-verdict'] });
}

// `rate` and `profile` as coldLoads's (the profile of the first load).
async function papersColdLoads(browser, server, loads, log, { rate = 1, profile = false } = {}) {
  const rows = [];
  let top = null;
  for (let i = 0; i < loads; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      await context.addInitScript(markVerdicts);
      const page = await context.newPage();
      const cdp = await cpuSession(context, page, { rate, profile: profile && i === 0 });
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${server.url}papers.html`);
      const panels = await page.evaluate(() =>
        [...document.querySelectorAll('[data-panel]')].map((e) => e.dataset.panel),
      );
      try {
        await page.waitForFunction(
          (n) => {
            const v = Object.values(window.__benchPapers.verdicts);
            return v.length === n && v.every((m) => m.shown_ms !== undefined);
          },
          panels.length,
          { timeout: 180000 },
        );
      } catch (e) {
        throw new Error(
          `not every panel showed a verdict within 180 s: ${e.message.split('\n')[0]}; page errors: ${errors.join('; ') || 'none'}`,
        );
      }
      await page.waitForFunction(() => document.getElementById('speed-result')?.dataset.median !== undefined, null, {
        timeout: 120000,
      });
      const r = await page.evaluate(() => ({
        verdicts: window.__benchPapers.verdicts,
        perf: window.__papers?.perf ?? null,
        median_shown: Number(document.getElementById('speed-result').dataset.median),
        status: document.getElementById('status')?.textContent ?? '',
      }));
      const shown = Object.values(r.verdicts).map((m) => m.shown_ms);
      const six = ARTICLE_PANELS.map((id) => r.verdicts[id]?.shown_ms ?? Infinity);
      rows.push({
        panels,
        six_verdicts_ms: Math.max(...six),
        all_verdicts_ms: Math.max(...shown),
        verdicts: r.verdicts,
        recompute_median_ms: r.median_shown,
        recompute: r.perf && { median: r.perf.median, p90: r.perf.p90, min: r.perf.min, runs: r.perf.runs },
        status: r.status,
      });
      if (profile && i === 0) top = await stopProfile(cdp);
      log(
        `  papers load ${i + 1}: the article's six verdicts after ${Math.round(Math.max(...six))} ms, all ${panels.length} after ${Math.round(Math.max(...shown))} ms, transformer recompute ${r.median_shown.toFixed(1)} ms`,
      );
    } finally {
      await context.close();
    }
  }
  return {
    status: 'ok',
    loads,
    six_verdicts: summarize(rows.map((r) => r.six_verdicts_ms)),
    all_verdicts: summarize(rows.map((r) => r.all_verdicts_ms)),
    recompute: summarize(rows.map((r) => r.recompute_median_ms)),
    recompute_config: PERF_CONFIG,
    rows,
    ...(top ? { top } : {}),
  };
}

/**
 * A page on the served site's origin from which the bench's scripts can import
 * web/src/ (a route serves it under __bench/, so `import('./engine/client.js')`
 * is the client as it is in the source) and start the built engine worker (its
 * URL as the explorer starts it). Returns {page, worker: {url, type}, close}.
 */
export async function benchPage(browser, server) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await context.addInitScript(markWorkers);
    const probe = await context.newPage();
    await probe.goto(server.url);
    await probe.waitForFunction(() => window.__benchLoad?.worker_url !== undefined, null, { timeout: 30000 });
    const worker = await probe.evaluate(() => ({
      url: window.__benchLoad.worker_url,
      type: window.__benchLoad.worker_type,
    }));
    await probe.close();
    const prefix = `${server.url}__bench/`;
    await context.route(`${prefix}**`, (route) => {
      const rel = decodeURIComponent(new URL(route.request().url()).pathname).slice(new URL(prefix).pathname.length);
      if (rel === 'page.html')
        return route.fulfill({
          contentType: 'text/html; charset=utf-8',
          body: '<!doctype html><meta charset="utf-8"><title>bench</title>',
        });
      const file = normalize(join(SRC, rel));
      if (!file.startsWith(SRC) || !existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
      return route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: readFileSync(file, 'utf8') });
    });
    const page = await context.newPage();
    await page.goto(`${prefix}page.html`);
    return { page, worker, close: () => context.close() };
  } catch (e) {
    await context.close();
    throw e;
  }
}

/** launch() + serve() + benchPage(), for fn({page, worker}); everything closed after. */
export async function withBenchPage(fn) {
  if (!existsSync(`${DIST}/index.html`)) throw new Error(`${DIST}/index.html does not exist: the site is not built`);
  const { launch, serve } = await import('../tests/browser/harness.js');
  const browser = await launch();
  const server = await serve();
  try {
    const bp = await benchPage(browser, server);
    try {
      return await fn(bp);
    } finally {
      await bp.close();
    }
  } finally {
    await server.close();
    await browser.close();
  }
}

// The pool in the page: a client of k workers against a client of one, on the
// default scene, interleaved in rounds: recomputes per second with one request
// at a time (as a dragged slider asks) and with `calls` requests at once.
async function pool(bp, { config, rounds, calls }) {
  return bp.page.evaluate(
    async ({ worker, config, rounds, calls }) => {
      const { createEngineClient, poolSize } = await import('./engine/client.js');
      const page = poolSize();
      const ks = [...new Set([1, 2, 4, page])].sort((a, b) => a - b);
      const startWorker = () => new Worker(worker.url, { type: worker.type });
      const clients = Object.fromEntries(ks.map((k) => [k, createEngineClient({ workers: k, startWorker })]));
      const at = (i) => [{ ...config, gain: 1 + (i % 2) * 1e-3 }];
      try {
        // Every worker of every client past V8's tier-up; the answers of k workers against one worker's.
        const first = {};
        for (const k of ks) for (let i = 0; i < 15; i++) first[k] = await clients[k].call('simulate', at(0));
        const same = Object.fromEntries(ks.map((k) => [k, JSON.stringify(first[k]) === JSON.stringify(first[1])]));
        const sequential = Object.fromEntries(ks.map((k) => [k, []]));
        const concurrent = Object.fromEntries(ks.map((k) => [k, []]));
        for (let r = 0; r < rounds; r++)
          for (let j = 0; j < ks.length; j++) {
            const k = ks[(j + r) % ks.length];
            let t0 = performance.now();
            for (let i = 0; i < calls; i++) await clients[k].call('simulate', at(i));
            sequential[k].push((calls * 1000) / (performance.now() - t0));
            t0 = performance.now();
            await Promise.all(Array.from({ length: calls }, (_, i) => clients[k].call('simulate', at(i))));
            concurrent[k].push((calls * 1000) / (performance.now() - t0));
          }
        return { ks, page_pool_size: page, cores: navigator.hardwareConcurrency, same, sequential, concurrent };
      } finally {
        for (const c of Object.values(clients)) c.terminate();
      }
    },
    { worker: bp.worker, config, rounds, calls },
  );
}

function summarizePool(raw, { rounds, calls }) {
  const med = (v) => {
    const s = [...v].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const r2 = (x) => Math.round(x * 100) / 100;
  const rows = raw.ks.map((k) => {
    const row = { k, same_numbers: raw.same[k] };
    for (const mode of ['sequential', 'concurrent']) {
      const per = raw[mode][k].map((x, i) => x / raw[mode][1][i]);
      row[mode] = {
        per_s: r2(med(raw[mode][k])),
        ratio: r2(med(raw[mode][k]) / med(raw[mode][1])),
        ratio_round_range: [r2(Math.min(...per)), r2(Math.max(...per))],
      };
    }
    return row;
  });
  return {
    status: 'ok',
    rounds,
    calls,
    cores: raw.cores,
    page_pool_size: raw.page_pool_size,
    rows,
  };
}

/** The part of the run that fails alone: {status: 'failed', reason} instead of the whole part. */
// The training lab while it trains: three runs (plain, Post-LN, Pre-LN) on the
// page's pool, a logged step per update, so most frames draw a new column of
// every heatmap. Every main-thread task of over 50 ms (the Long Tasks API) from
// Start until the run is done, per load.
export const LAB_HASH =
  'task=copy&seq=2&vocab=4&depth=6&width=32&heads=2&batch=4&log_every=1&steps=240&arch=plain,post_ln,pre_ln';

async function labLongTasks(browser, server, loads) {
  const out = [];
  for (let i = 0; i < loads; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}train.html#${LAB_HASH}`);
      await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 30000 });
      await page.evaluate(() => {
        window.__benchTasks = [];
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) window.__benchTasks.push(Math.round(e.duration));
        }).observe({ type: 'longtask' });
        window.__benchStart = performance.now();
      });
      await page.click('#train-start');
      await page.waitForFunction(() => window.__resnormTrain?.state === 'done', null, { timeout: 180000 });
      out.push(
        await page.evaluate(() => ({
          seconds: Math.round(performance.now() - window.__benchStart) / 1000,
          tasks_ms: window.__benchTasks,
        })),
      );
    } finally {
      await context.close();
    }
  }
  const all = out.flatMap((r) => r.tasks_ms);
  return {
    status: 'ok',
    link: `#${LAB_HASH}`,
    loads: out,
    max_ms: all.length ? Math.max(...all) : 0,
    count: all.length,
  };
}

async function part(fn) {
  try {
    return await fn();
  } catch (e) {
    return { status: 'failed', reason: String(e && e.message ? e.message : e).split('\n')[0] };
  }
}

/**
 * Runs part 2. Returns {status: 'ok', ...} or {status: 'skipped', reason}.
 * options: {loads, steps, deepSteps, papersLoads, poolRounds, labLoads, log, defaultConfig, deepConfig}
 * (the configs: bench/lib/scenes.js's default and deep scenes).
 */
export async function runBrowser({
  loads = 5,
  steps = 100,
  deepSteps = 40,
  papersLoads = 3,
  poolRounds = 5,
  labLoads = 3,
  defaultConfig,
  deepConfig,
  log = () => {},
} = {}) {
  if (!existsSync(`${DIST}/index.html`))
    return {
      status: 'skipped',
      reason: `${DIST}/index.html does not exist: the page is not built (npm run build:web)`,
    };
  if (!existsSync(process.env.CHROMIUM || '/usr/bin/chromium'))
    return {
      status: 'skipped',
      reason: '/usr/bin/chromium is not installed (npm run setup installs it)',
      sizes: distSizes(),
    };
  const { launch, serve } = await import('../tests/browser/harness.js');
  const browser = await launch();
  const server = await serve();
  try {
    const version = browser.version();
    const cold = await coldLoads(browser, server, loads);
    if (cold.error) return { status: 'failed', reason: cold.error, chromium: version, sizes: distSizes() };
    const files = [...cold.requested].map((p) => (p.endsWith('/') ? `${p}index.html` : p));
    const sizes = distSizes(files.length ? files : null);
    log(`  first chart painted after ${summarize(cold.firstPaint).median_ms} ms (median of ${loads} cold loads)`);

    const scene = await sliderScene(browser, server, { ids: ['depth', 'gain'], steps, log, label: 'default scene' });
    const deepHash = `#arch=${deepConfig.arch.join(',')}&depth=${deepConfig.depth}`;
    const deep = await part(async () => ({
      status: 'ok',
      link: deepHash,
      ...(await sliderScene(browser, server, {
        hash: deepHash,
        check: { arch: deepConfig.arch, depth: deepConfig.depth },
        ids: ['gain'],
        steps: deepSteps,
        log,
        label: 'deep scene',
      })),
    }));
    const papers = await part(() => papersColdLoads(browser, server, papersLoads, log));
    const poolPlan = { rounds: poolRounds, calls: 20 };
    const pooled = await part(async () => {
      const bp = await benchPage(browser, server);
      try {
        return summarizePool(await pool(bp, { config: defaultConfig, ...poolPlan }), poolPlan);
      } finally {
        await bp.close();
      }
    });
    if (pooled.rows)
      log(`  pool: ${pooled.rows.map((r) => `k=${r.k} ${r.sequential.ratio}x`).join(', ')} (one request at a time)`);
    const lab = await part(() => labLongTasks(browser, server, labLoads));
    if (lab.status === 'ok') log(`  lab: ${lab.count} main-thread tasks over 50 ms, the longest ${lab.max_ms} ms`);
    return {
      status: 'ok',
      chromium: version,
      headless: true,
      page_config: scene.page_config,
      first_chart: { ...summarize(cold.firstPaint), loads, navigation: cold.navigation },
      slider: scene.slider,
      deep,
      papers,
      pool: pooled,
      lab,
      sizes,
    };
  } finally {
    await server.close();
    await browser.close();
  }
}

/** The page targets part 8 measures at each CPU rate (ids as bench/lib/targets.js's rows). */
export const PAGE_TARGETS = { slider_p95_ms: 16, first_chart_ms: 400, papers_six_ms: 3000 };

/**
 * Part 8's page rows: the first chart (cold loads), the slider steps of the default scene (depth and
 * gain) and the papers page's six verdicts (cold loads), at each rate of `rates` (the page's CPU
 * slowed that many times through CDP); where a target is missed at a rate, a pass of its own under
 * V8's sampling profiler gives the top functions (its times are not the figure).
 */
export async function pageTargets(browser, server, { rates = [1, 3], loads = 3, steps = 50, papersLoads = 2, log }) {
  const out = {};
  for (const rate of rates) {
    const at = {};
    const cold = await part(async () => {
      const c = await coldLoads(browser, server, loads, { rate });
      if (c.error) throw new Error(c.error);
      return { status: 'ok', ...summarize(c.firstPaint) };
    });
    at.first_chart = cold;
    const scene = await part(async () => ({
      status: 'ok',
      ...(await sliderScene(browser, server, {
        ids: ['depth', 'gain'],
        steps,
        log,
        label: `${rate}x default scene`,
        rate,
      })),
    }));
    at.slider =
      scene.status === 'ok'
        ? {
            status: 'ok',
            ...Object.fromEntries(
              Object.entries(scene.slider).map(([id, s]) => [id, { n: s.n, median_ms: s.median_ms, p95_ms: s.p95_ms }]),
            ),
          }
        : scene;
    const papers = await part(() => papersColdLoads(browser, server, papersLoads, log, { rate }));
    at.papers =
      papers.status === 'ok' ? { status: 'ok', loads: papers.loads, six_verdicts: papers.six_verdicts } : papers;
    at.met = {
      first_chart: cold.status === 'ok' ? cold.median_ms <= PAGE_TARGETS.first_chart_ms : null,
      slider:
        at.slider.status === 'ok'
          ? ['depth', 'gain'].every((id) => at.slider[id].p95_ms <= PAGE_TARGETS.slider_p95_ms)
          : null,
      papers: at.papers.status === 'ok' ? at.papers.six_verdicts.median_ms <= PAGE_TARGETS.papers_six_ms : null,
    };
    // Where the time goes when a target is missed.
    at.profile = {};
    if (at.met.first_chart === false)
      at.profile.first_chart = await part(
        async () => (await coldLoads(browser, server, 1, { rate, profile: true })).top,
      );
    if (at.met.slider === false)
      at.profile.slider = await part(
        async () =>
          (
            await sliderScene(browser, server, {
              ids: ['depth'],
              steps: Math.min(steps, 30),
              log: () => {},
              label: 'profile',
              rate,
              profile: true,
            })
          ).top,
      );
    if (at.met.papers === false)
      at.profile.papers = await part(
        async () => (await papersColdLoads(browser, server, 1, () => {}, { rate, profile: true })).top,
      );
    at.loadavg = os.loadavg()[0];
    log(
      `  page at ${rate}x: first chart ${cold.median_ms ?? 'n/a'} ms, slider p95 ${at.slider.depth?.p95_ms ?? 'n/a'} / ${at.slider.gain?.p95_ms ?? 'n/a'} ms, papers six verdicts ${at.papers.six_verdicts?.median_ms ?? 'n/a'} ms (load ${at.loadavg.toFixed(2)})`,
    );
    out[`x${rate}`] = at;
  }
  return { status: 'ok', rates, loads, steps, papers_loads: papersLoads, targets: PAGE_TARGETS, ...out };
}
