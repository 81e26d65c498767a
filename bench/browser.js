// Part 2 of the benchmark: the page in Debian's Chromium (headless, playwright-core),
// served from dist/ by scripts/serve.js on localhost.
//  - first chart: navigation to the first painted chart (window.__resnorm.lastPaintMs
//    of the first render, on the page's clock, whose origin is the navigation start),
//    over several cold loads (fresh browser context each);
//  - slider input -> repaint: 100 steps of the depth slider and 100 of the gain
//    slider at the default scene, one at a time: an `input` event at t0, then
//    lastPaintMs of the render it caused, minus t0;
//  - bytes: every file the page requested, gzip -9 with node:zlib, as page
//    (HTML, CSS, fonts, ...), JS and wasm.
// The page's test hook (see tests/browser/harness.js): document.body.dataset.ready
// === '1' once loaded; window.__resnorm = {config, renders, lastPaintMs, ...}.
// Any other numeric *Ms field of the hook (e.g. a compute or draw time) is
// summarized too, so the profile can split a step into its parts.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { summarize } from './lib/stats.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = `${ROOT}dist`;

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

/**
 * Runs part 2. Returns {status: 'ok', ...} or {status: 'skipped', reason}.
 * options: {loads, steps, log}
 */
export async function runBrowser({ loads = 5, steps = 100, log = () => {} } = {}) {
  if (!existsSync(`${DIST}/index.html`))
    return { status: 'skipped', reason: 'dist/index.html does not exist: the page is not built (npm run build:web)' };
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
    // Cold loads: navigation -> first painted chart; requested files.
    const firstPaint = [],
      navigation = [];
    const requested = new Set();
    const probe = await (async () => {
      for (let i = 0; i < loads; i++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        // Marks of the first load on the page's clock: the engine Worker created,
        // its first request sent, its first answer (with the ms simulate() took).
        await context.addInitScript(() => {
          const marks = (window.__benchLoad = {});
          const Base = window.Worker;
          if (!Base) return;
          window.Worker = class extends Base {
            constructor(...args) {
              super(...args);
              marks.worker_created ??= performance.now();
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
        });
        const page = await context.newPage();
        const errors = [];
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('requestfinished', (req) => {
          const u = new URL(req.url());
          if (u.origin === new URL(server.url).origin)
            requested.add(decodeURIComponent(u.pathname).replace(/^\//, '') || 'index.html');
        });
        await page.goto(server.url);
        try {
          await waitReady(page);
        } catch (e) {
          await context.close();
          return {
            error: `the page never became ready (body[data-ready=1] and window.__resnorm.renders >= 1): ${e.message.split('\n')[0]}; page errors: ${errors.join('; ') || 'none'}`,
          };
        }
        const t = await page.evaluate(() => {
          const nav = performance.getEntriesByType('navigation')[0];
          const fcp = performance.getEntriesByName('first-contentful-paint')[0];
          return {
            paint: window.__resnorm.lastPaintMs,
            renders: window.__resnorm.renders,
            dcl: nav?.domContentLoadedEventEnd,
            load: nav?.loadEventEnd,
            fcp: fcp?.startTime,
            ...window.__benchLoad,
          };
        });
        // Only the first render counts; if the page rendered twice already, lastPaintMs is late (an upper bound).
        firstPaint.push(t.paint);
        navigation.push(t);
        await context.close();
      }
      return null;
    })();
    if (probe?.error) return { status: 'failed', reason: probe.error, chromium: version, sizes: distSizes() };
    const files = [...requested].map((p) => (p.endsWith('/') ? `${p}index.html` : p));
    const sizes = distSizes(files.length ? files : null);
    log(`  first chart painted after ${summarize(firstPaint).median_ms} ms (median of ${loads} cold loads)`);

    // Slider steps on one page.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(server.url);
    await waitReady(page);
    const config = await page.evaluate(() => window.__resnorm.config);
    const workers = await instrumentWorkers(page);
    const sliders = {};
    for (const id of ['depth', 'gain']) {
      // Each slider's steps end where they began, at the default scene.
      const list = await sliderSteps(page, id, steps);
      sliders[id] = summarizeSteps(list, await workerRecords(workers));
      log(`  ${id} slider: input -> repaint median ${sliders[id].median_ms} ms, p95 ${sliders[id].p95_ms} ms`);
    }
    await context.close();
    return {
      status: 'ok',
      chromium: version,
      headless: true,
      page_config: config,
      first_chart: { ...summarize(firstPaint), loads, navigation },
      slider: sliders,
      sizes,
    };
  } finally {
    await server.close();
    await browser.close();
  }
}
