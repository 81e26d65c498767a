// Part 8 of the benchmark (bench/run.js's part `lab`): the training lab in headless Chromium with
// its seeds, its long tasks and a CPU slowed 3x.
//   claims     every lab claim on its five seeds (the lab's default for a claim), Start to the
//              claim's verdict shown (the panel's data-verdict leaves 'pending', then the next
//              frame; the page's own clock), on the page's pool (one worker per core, at most 4);
//              the ideal: the same runs on a pool of one worker (the page's navigator reporting
//              one core), the sum of the worker's own ms over every answer, divided by the pool
//              size; the ratio of the measured time to it;
//   deep       each claim at its deep setting (#preset=<c>&setting=deep) on fewer seeds, when the
//              page takes that setting (the runs' depth shown is the deep one), else said;
//   longtasks  the Warmup claim, 5 seeds x 3 runs, Start to done: every main-thread task over
//              50 ms (PerformanceObserver 'longtask'), at 1x and with the page's CPU slowed 3x
//              (CDP Emulation.setCPUThrottlingRate on the page's target), and the worker's own
//              ms per update in both, which says whether the throttling reached the workers;
//   page       the page targets of part 2 (first chart, slider step, the papers page's six
//              verdicts) at 1x and at 3x, with the top functions of a CPU profile where missed.
// Every figure carries the 1-minute load average when it was taken.
import os from 'node:os';
import { fmtErr } from './procs.js';
import { summarize } from './stats.js';
import { idealMs, longTaskBreakdown, perUpdate, ratioToIdeal, threadBusy, topFunctions } from './lab-time.js';
import { CLAIMS, claimAt, hasDeep } from '../../web/src/claims/lab/index.js';

const load1 = () => Math.round(os.loadavg()[0] * 100) / 100;
const round = (x, k = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** k) / 10 ** k : null);

/** The seeds a claim trains in the lab (its default there). */
export const CLAIM_SEEDS = 5;
/** The seeds of each claim at its deep setting (fewer: a deep run takes minutes). */
export const DEEP_SEEDS = 1;
/** The slowdown of the page's CPU the targets are also measured at. */
export const THROTTLE = 3;
/** A guard against a hang, never the figure: past it the row says it timed out. */
const GUARD_MS = 15 * 60 * 1000;

// Before any page script: the navigator's cores (the pool's size) when `cores` is given; every
// engine answer's own ms, by op (and a trainerStep's updates); the long tasks; when the claim's
// verdict is set and shown, and when the session is done, after window.__benchLab.t0.
function labMarks(cores) {
  if (cores)
    Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => cores, configurable: true });
  const m = (window.__benchLab = { t0: null, workers: 0, answers: [], longtasks: [] });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) m.longtasks.push({ start: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  let hook;
  Object.defineProperty(window, '__resnormTrain', {
    configurable: true,
    get: () => hook,
    set(v) {
      hook = v;
      if (m.t0 !== null && m.done_ms === undefined && v?.state === 'done') m.done_ms = performance.now() - m.t0;
    },
  });
  const look = () => {
    const el = document.querySelector('.paper-verdict');
    const v = el?.dataset.verdict;
    if (m.t0 === null || m.verdict_ms !== undefined || !v || v === 'pending') return;
    m.verdict = v;
    m.verdict_ms = performance.now() - m.t0;
    requestAnimationFrame(() => {
      m.shown_ms = performance.now() - m.t0;
      performance.mark('bench-verdict');
    });
  };
  new MutationObserver(look).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-verdict'] });
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(...args) {
      super(...args);
      const sent = new Map();
      this.__sent = sent;
      this.addEventListener('message', (e) => {
        const s = e.data && sent.get(e.data.id);
        if (!s) return;
        sent.delete(e.data.id);
        // w: the worker's index; post, at: when the job was posted and its answer handled, after t0
        if (m.t0 !== null)
          m.answers.push({
            op: s.op,
            steps: s.steps,
            ms: e.data.ms,
            w: this.__w,
            post: s.post,
            at: performance.now() - m.t0,
          });
      });
    }
    postMessage(msg, ...rest) {
      // An engine worker (one that is asked an op): the pool's size is the count of them.
      if (msg && msg.id !== undefined && msg.op && !this.__engine) {
        this.__engine = true;
        this.__w = m.workers++;
      }
      if (msg && msg.id !== undefined && msg.op)
        this.__sent.set(msg.id, {
          op: msg.op,
          steps: msg.op === 'trainerStep' ? msg.args?.[1] : 0,
          post: m.t0 === null ? null : performance.now() - m.t0,
        });
      return super.postMessage(msg, ...rest);
    }
  };
}

/**
 * A CDP session on `page` (null when nothing needs one: rate 1, no profile, not `open`): its CPU
 * slowed `rate` times (Emulation.setCPUThrottlingRate, the page's target), V8's sampling profiler
 * started when `profile`.
 */
export async function cpuSession(context, page, { rate = 1, profile = false, open = false } = {}) {
  if (rate === 1 && !profile && !open) return null;
  const cdp = await context.newCDPSession(page);
  if (rate !== 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  if (profile) await startProfile(cdp);
  return cdp;
}

/** V8's sampling profiler on the session's page, a sample every 0.5 ms. */
export async function startProfile(cdp) {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  await cdp.send('Profiler.start');
}

/** The top functions by self time of the profile the session has been taking. */
export async function stopProfile(cdp) {
  const { profile } = await cdp.send('Profiler.stop');
  return topFunctions(profile, 8);
}

// The ms a fixed loop takes on the page's main thread and in a worker it starts, the fastest of
// `times` (a neighbour's load only adds time): what a throttle does to each, measured rather than
// assumed.
async function loopMs(page, times = 5) {
  return page.evaluate(async (times) => {
    const body = `let x = 0; const t = performance.now(); for (let i = 0; i < 1e7; i++) x = (x + i * 7) % 1000003; return [performance.now() - t, x];`;
    let main = Infinity;
    for (let i = 0; i < times; i++) main = Math.min(main, new Function(body)()[0]);
    const src = `onmessage = () => { const r = (() => { ${body} })(); postMessage(r[0]); };`;
    const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    let worker = Infinity;
    for (let i = 0; i < times; i++)
      worker = Math.min(
        worker,
        await new Promise((res) => {
          w.onmessage = (e) => res(e.data);
          w.postMessage(0);
        }),
      );
    w.terminate();
    return { main_ms: main, worker_ms: worker };
  }, times);
}

/**
 * One claim's runs in the lab: open train.html#`hash` with the pool of `cores` workers (the page's
 * own when null) and the CPU slowed `rate` times, press Start, wait for the verdict (or, with no
 * claim, the session's end). Returns the times on the page's clock, the worker's answers, the long
 * tasks after Start and what the page took from the link (depth, seeds, runs); with `trace`, the long
 * tasks' parts from a Chromium trace of Start to the end (a pass of its own: tracing costs time); with
 * `threads`, each thread's busy and idle time from Start to the verdict shown (threadBusy) and every
 * answer with its worker and times (bench/lab-profile.js; `answers` alone: the answers).
 */
// The trace categories of a traced run: the top-level tasks and what the timeline names inside them.
const TRACE_CATEGORIES = ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute'];
// The categories of a pass that says where each thread's time went (threadBusy): the tasks and the marks.
const THREAD_CATEGORIES = ['toplevel', 'blink.user_timing'];

export async function labRun(
  browser,
  server,
  { hash, cores = null, rate = 1, claim = true, loop = false, trace = false, threads = false, answers = threads },
) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const load_start = load1();
  try {
    await context.addInitScript(labMarks, cores);
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const cdp = await cpuSession(context, page, { rate });
    await page.goto(`${server.url}train.html#${hash}`);
    await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
    const loops = loop ? await loopMs(page) : null;
    const shown = await page.evaluate(() => ({
      depth: Number(document.getElementById('train-depth')?.value),
      seeds: Number(document.getElementById('train-seeds')?.value),
    }));
    if (trace) await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    else if (threads) await browser.startTracing(page, { categories: THREAD_CATEGORIES });
    await page.evaluate(() => {
      performance.mark('bench-start');
      window.__benchLab.t0 = performance.now();
      document.getElementById('train-start').click();
    });
    try {
      await page.waitForFunction(
        (claim) => {
          const m = window.__benchLab;
          return claim ? m.shown_ms !== undefined && m.done_ms !== undefined : m.done_ms !== undefined;
        },
        claim,
        { timeout: GUARD_MS, polling: 250 },
      );
    } catch (e) {
      throw new Error(
        `no ${claim ? 'verdict' : 'end'} within ${GUARD_MS / 60000} minutes (${e.message.split('\n')[0]}); page errors: ${errors.join('; ') || 'none'}`,
      );
    }
    const m = await page.evaluate(() => {
      const t = window.__resnormTrain;
      return {
        ...window.__benchLab,
        runs: Object.fromEntries(Object.entries(t.runs).map(([k, r]) => [k, r.seeds.length])),
        depth: t.config.depth,
        steps: t.config.steps,
        held: document.querySelector('.paper-verdict')?.dataset.held ?? null,
      };
    });
    const breakdown = trace ? longTaskBreakdown(JSON.parse(String(await browser.stopTracing()))) : null;
    const busy = !trace && threads ? threadBusy(JSON.parse(String(await browser.stopTracing()))) : null;
    await cdp?.detach();
    const after = m.answers;
    const steps = perUpdate(after.filter((a) => a.op === 'trainerStep'));
    return {
      hash,
      rate,
      pool: m.workers,
      depth_shown: shown.depth,
      seeds: shown.seeds,
      runs: m.runs,
      trainers: Object.values(m.runs).reduce((s, n) => s + n, 0),
      depth: m.depth,
      verdict: m.verdict ?? null,
      held: m.held === null ? null : Number(m.held),
      verdict_ms: round(m.verdict_ms, 1),
      shown_ms: round(m.shown_ms, 1),
      done_ms: round(m.done_ms, 1),
      worker_ms: round(
        after.reduce((s, a) => s + (Number.isFinite(a.ms) ? a.ms : 0), 0),
        1,
      ),
      worker_step: {
        calls: steps.calls,
        updates: steps.updates,
        ms_per_update: round(steps.ms_per_update, 4),
        median_ms_per_update: round(steps.median_ms_per_update, 4),
      },
      longtasks_ms: m.longtasks.filter((t) => t.start >= m.t0 - 1).map((t) => Math.round(t.ms)),
      loop: loops && { main_ms: round(loops.main_ms, 1), worker_ms: round(loops.worker_ms, 1) },
      ...(breakdown ? { breakdown } : {}),
      ...(threads ? { threads: busy } : {}),
      ...(answers ? { answers: after } : {}),
      page_errors: errors,
      loadavg: [load_start, load1()],
    };
  } finally {
    await context.close();
  }
}

/** The quick setting of every claim on its seeds, on the page's pool and on one worker, with the ratio to the ideal. */
export async function labClaims(browser, server, { quick, log, only = null }) {
  const rows = [];
  for (const c of CLAIMS) {
    if (only && !only.includes(c.id)) continue;
    const seeds = quick ? 1 : CLAIM_SEEDS;
    const hash = `preset=${c.id}&seeds=${seeds}`;
    try {
      const one = await labRun(browser, server, { hash, cores: 1 });
      const pool = await labRun(browser, server, { hash });
      const ideal = idealMs(one.worker_ms, pool.pool);
      const ratio = ratioToIdeal(pool.shown_ms, ideal);
      rows.push({
        claim: c.id,
        seeds: pool.seeds,
        trainers: pool.trainers,
        pool: pool.pool,
        verdict: pool.verdict,
        held: pool.held,
        start_to_verdict_ms: pool.shown_ms,
        single_worker_ms: one.worker_ms,
        one_worker_wall_ms: one.shown_ms,
        ideal_ms: round(ideal, 1),
        ratio: round(ratio, 3),
        loadavg: [...pool.loadavg, ...one.loadavg],
        runs: { pool, one },
      });
      log(
        `  lab ${c.id}: ${pool.trainers} trainers, Start to verdict ${(pool.shown_ms / 1000).toFixed(2)} s on ${pool.pool} workers, ideal ${(ideal / 1000).toFixed(2)} s (one worker's own ${(one.worker_ms / 1000).toFixed(2)} s / ${pool.pool}): ${ratio?.toFixed(2)}x (load ${load1()})`,
      );
    } catch (e) {
      rows.push({ claim: c.id, skipped: fmtErr(e), loadavg: [load1()] });
      log(`  lab ${c.id}: failed: ${fmtErr(e)}`);
    }
  }
  return rows;
}

/**
 * Each claim at its deep setting on DEEP_SEEDS seeds, on the page's pool, when the page takes the
 * setting: the runs' depth shown must be the deep config's, else the row says the lab has no deep
 * choice in this build (and nothing is timed). A claim whose deep setting is its quick one is said so.
 */
export async function labDeep(browser, server, { quick, log, only = null }) {
  const rows = [];
  for (const c of CLAIMS) {
    if (only && !only.includes(c.id)) continue;
    if (!hasDeep(c)) {
      rows.push({ claim: c.id, same_as_quick: true, note: 'its quick setting is already at the paper’s depth' });
      continue;
    }
    const deep = claimAt(c, 'deep');
    const seeds = DEEP_SEEDS;
    const hash = `preset=${c.id}&setting=deep&seeds=${seeds}`;
    // The page's reading of the link, before anything trains.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    let took;
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}train.html#${hash}`);
      await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
      took = await page.evaluate(() => Number(document.getElementById('train-depth')?.value));
    } finally {
      await context.close();
    }
    if (took !== deep.config.depth) {
      rows.push({
        claim: c.id,
        measured: false,
        depth_wanted: deep.config.depth,
        depth_shown: took,
        note: 'deep: not measured, the lab has no deep choice in this build',
      });
      log(`  lab ${c.id} deep: not measured, the lab has no deep choice in this build (depth shown ${took})`);
      continue;
    }
    if (quick) {
      rows.push({ claim: c.id, measured: false, note: '--quick: the deep settings run in the full benchmark only' });
      continue;
    }
    try {
      const r = await labRun(browser, server, { hash });
      rows.push({
        claim: c.id,
        measured: true,
        seeds: r.seeds,
        depth: r.depth,
        trainers: r.trainers,
        pool: r.pool,
        verdict: r.verdict,
        start_to_verdict_ms: r.shown_ms,
        loadavg: r.loadavg,
      });
      log(`  lab ${c.id} deep (L=${r.depth}, ${r.seeds} seed): ${(r.shown_ms / 1000).toFixed(1)} s (load ${load1()})`);
    } catch (e) {
      rows.push({ claim: c.id, measured: false, note: `deep: failed: ${fmtErr(e)}` });
    }
  }
  return rows;
}

/** The Warmup claim on five seeds, Start to done, at 1x and at THROTTLE x: long tasks and the workers' pace. */
export async function labLongTasks(browser, server, { quick, log }) {
  const seeds = quick ? 1 : CLAIM_SEEDS;
  const out = {};
  for (const rate of [1, THROTTLE]) {
    const r = await labRun(browser, server, { hash: `preset=warmup&seeds=${seeds}`, rate, loop: true });
    out[`x${rate}`] = r;
    log(
      `  lab long tasks at ${rate}x: ${r.longtasks_ms.length} over 50 ms${r.longtasks_ms.length ? ` (longest ${Math.max(...r.longtasks_ms)} ms)` : ''} in ${(r.done_ms / 1000).toFixed(1)} s; worker ${r.worker_step.median_ms_per_update} ms an update; loop main ${r.loop.main_ms} ms, worker ${r.loop.worker_ms} ms (load ${load1()})`,
    );
  }
  const a = out.x1,
    b = out[`x${THROTTLE}`];
  // What runs long: a traced pass at each rate that had a task over 50 ms.
  const traced = {};
  for (const [k, r] of Object.entries(out)) {
    if (!r.longtasks_ms.length) continue;
    try {
      const t = await labRun(browser, server, { hash: r.hash, rate: r.rate, trace: true });
      traced[k] = {
        ...t.breakdown,
        tasks: t.breakdown.tasks.slice(0, 20),
        count: t.breakdown.tasks.length,
        loadavg: t.loadavg,
      };
      log(
        `  lab long tasks at ${r.rate}x, traced: ${t.breakdown.tasks.length} over 50 ms, ${Math.round(t.breakdown.wall_ms)} ms on the wall, ${t.breakdown.cpu_ms === null ? 'n/a' : Math.round(t.breakdown.cpu_ms)} ms on the CPU; ${t.breakdown.top.map((x) => `${x.name} ${Math.round(x.ms)} ms`).join(', ')}`,
      );
    } catch (e) {
      traced[k] = { skipped: fmtErr(e) };
    }
  }
  return {
    status: 'ok',
    seeds,
    rate: THROTTLE,
    runs: out,
    traced,
    // What the throttle did to each thread: the loop's ratio and the trainer's ms per update.
    main_slowdown: round(b.loop.main_ms / a.loop.main_ms, 2),
    worker_loop_slowdown: round(b.loop.worker_ms / a.loop.worker_ms, 2),
    worker_step_slowdown: round(b.worker_step.median_ms_per_update / a.worker_step.median_ms_per_update, 2),
  };
}

/** The pieces of part 8, in the order they run. */
export const LAB_PIECES = ['claims', 'deep', 'longtasks', 'page'];

/**
 * Part 8, in one browser: {status, claims, deep, longtasks, page}. `pieces`: the ones to run (all of
 * LAB_PIECES unless said); each other one is {status: 'skipped', reason}.
 */
export async function labPart({ quick, log, runPage, pieces = LAB_PIECES }) {
  const { launch, serve } = await import('../../tests/browser/harness.js');
  const browser = await launch();
  const server = await serve();
  const t = {};
  const timed = async (name, fn) => {
    if (!pieces.includes(name)) return { status: 'skipped', reason: `not asked (--lab-pieces ${pieces.join(',')})` };
    const t0 = Date.now();
    try {
      return await fn();
    } catch (e) {
      return { status: 'failed', reason: fmtErr(e) };
    } finally {
      t[name] = Math.round((Date.now() - t0) / 100) / 10;
    }
  };
  try {
    const only = quick ? ['warmup'] : null;
    const claims = await timed('claims', () => labClaims(browser, server, { quick, log, only }));
    const deep = await timed('deep', () => labDeep(browser, server, { quick, log, only }));
    const longtasks = await timed('longtasks', () => labLongTasks(browser, server, { quick, log }));
    const page = await timed('page', () => runPage(browser, server, { rate: THROTTLE }));
    return {
      status: 'ok',
      chromium: browser.version(),
      cores: os.cpus().length,
      claims,
      deep,
      longtasks,
      page,
      seconds: t,
      summary:
        Array.isArray(claims) && claims.length ? summarize(claims.filter((c) => c.ratio).map((c) => c.ratio)) : null,
    };
  } finally {
    await server.close();
    await browser.close();
  }
}
