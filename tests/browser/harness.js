// Browser-test plumbing: Chromium (tests/browser/chromium.js), the static
// server, and a page that records every console message and page error.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { startServer } from '../../scripts/serve.js';
import { poolSize } from '../../web/src/engine/client.js';
import { loadWasm } from '../node/helpers.js';
import { startChromium } from './chromium.js';

export { labDrawn, layoutSettled } from './drawn.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SHOTS = `${ROOT}test-results`;
// The build to test: dist/, or the folder RESNORM_DIST names (a build of one's
// own while another is being rebuilt).
export const DIST = process.env.RESNORM_DIST || `${ROOT}dist`;
// The policy docs/embedding.md gives for the site and the embeds.
export const SITE_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; worker-src 'self'";
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

// How long any wait of a browser test may take before it is called a hang: a guard, never
// what decides a test. Every context the browser makes starts with it, and no test sets a
// shorter one: the longest wait (the papers page computing every verdict) has taken minutes
// on one core shared with other work (npm run test:stress), and only a hang lasts ten.
// RESNORM_GUARD_MS shortens it by hand, to find where a hang waits without waiting ten minutes.
export const GUARD_MS = Number(process.env.RESNORM_GUARD_MS) || 10 * 60 * 1000;

/**
 * The Chromium of this test file: a connection to the runner's one (scripts/browser-tests.js),
 * or one of its own (always with `own`). Closing it closes the contexts it made (and a Chromium
 * of its own).
 */
export async function launch({ own = false } = {}) {
  mkdirSync(SHOTS, { recursive: true });
  const browser = await startChromium({ own });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    context.setDefaultTimeout(GUARD_MS);
    return context;
  };
  browser.newPage = async (options) => (await browser.newContext(options)).newPage();
  return browser;
}

/**
 * Serves dist/ (or the folder `root`) on a free port (or `port`); returns {url, port, close}, close()
 * ending every open connection too, so the site is down once it resolves.
 */
export async function serve({ base = '/', csp = null, root = DIST, port = 0 } = {}) {
  const server = await startServer({ port, root, base, csp });
  const url = `http://127.0.0.1:${server.address().port}${base}`;
  const close = () =>
    new Promise((ok) => {
      server.close(ok);
      server.closeAllConnections?.();
    });
  return { url, port: server.address().port, close };
}

/** Runs fn(url) with dist/ served as serve(options) says, and stops the server after. */
export async function served(options, fn) {
  const server = await serve(options);
  return Promise.resolve()
    .then(() => fn(server.url))
    .finally(() => server.close());
}

/**
 * The test side of engine/pool.js's hold (heldForTest): window.__testHold in every page the
 * harness opens. hold(ops) keeps the answers of those engine ops from then on (a computation
 * that is slow on purpose, whatever the machine's speed), `waiting` counts those kept, `seen`
 * counts every answer by op, pass() hands the kept answers over and goes on holding, release()
 * stops holding and hands them over. With
 * `ops` given, the page holds them from its first request.
 */
export const holdScript = (ops = []) => `(() => {
  let holding = new Set(${JSON.stringify(ops)});
  const kept = [];
  const seen = {};
  window.__testHold = {
    hold(list) { holding = new Set(list); },
    pass() { for (const deliver of kept.splice(0)) deliver(); },
    release() { holding = new Set(); this.pass(); },
    get waiting() { return kept.length; },
    seen,
  };
  window.__resnormTestHold = (op, deliver) => {
    seen[op] = (seen[op] ?? 0) + 1;
    if (!holding.has(op)) return false;
    kept.push(deliver);
    return true;
  };
})();`;

const withHold = new WeakSet();

/** Holds the answers of `ops` in `page` (or a frame) from now on; see holdScript. */
export const hold = (page, ops) => page.evaluate((list) => window.__testHold.hold(list), ops);
/** Waits until the page keeps at least `n` answers back. */
export const waitHeld = (page, n = 1) => page.waitForFunction((k) => window.__testHold.waiting >= k, n);
/**
 * Waits until each of `runs` training runs has its step request out and kept back, as far as the
 * page's engine workers allow: a worker answers one request at a time, and the page runs one
 * worker per core the browser reports (engine/client.js's poolSize), so one core gives one.
 */
export async function waitStepsHeld(page, runs) {
  const nav = await page.evaluate(() => ({
    hardwareConcurrency: navigator.hardwareConcurrency,
    deviceMemory: navigator.deviceMemory,
  }));
  await waitHeld(page, Math.min(runs, poolSize(nav)));
}
/** Hands the kept answers to the page and goes on holding. */
export const pass = (page) => page.evaluate(() => window.__testHold.pass());
/** Stops holding and hands the kept answers to the page. */
export const release = (page) => page.evaluate(() => window.__testHold.release());

/** Records the Content-Security-Policy violations of every page of `context` in its window.__csp. */
export const recordCsp = (context) =>
  context.addInitScript(() => {
    window.__csp = [];
    window.addEventListener(
      'securitypolicyviolation',
      (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
      true,
    );
  });

/**
 * A new page of `context` at `url`, whose console errors, warnings and page
 * errors are collected in .problems; with `ready`, once it has drawn
 * (document.body.dataset.ready).
 */
export async function pageIn(context, url, { ready = true, held = [] } = {}) {
  if (held.length) await context.addInitScript(holdScript(held));
  else if (!withHold.has(context)) await context.addInitScript(holdScript());
  withHold.add(context);
  const page = await context.newPage();
  page.problems = [];
  page.lastMessages = []; // the last console messages of any kind, for a failure's message
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') page.problems.push(`${m.type()}: ${m.text()}`);
    page.lastMessages.push(`${m.type()}: ${m.text().slice(0, 200)}`);
    if (page.lastMessages.length > 20) page.lastMessages.shift();
  });
  page.on('worker', (w) => page.lastMessages.push(`worker started: ${w.url().split('/').pop()}`));
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  await page.goto(url);
  if (ready) await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: GUARD_MS });
  return page;
}

/** pageIn() in a context of its own (1280 x 900 unless `options` say otherwise). */
export async function openPage(browser, url, { held, ready, ...options } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  return pageIn(context, url, { held, ready });
}

/**
 * The browser (and, with `wasm`, the engine in Node) for a test file: set up
 * before its tests, closed after them. Returns an object whose .browser and
 * .rn are filled in by then.
 */
export function useBrowser({ wasm = false, own = false } = {}) {
  const it = { browser: null, rn: null };
  before(async () => {
    it.browser = await launch({ own });
    if (wasm) it.rn = await loadWasm();
  });
  after(async () => {
    await it.browser?.close();
  });
  return it;
}

/** Waits until the charts have been redrawn for a config matching `partial`. */
export async function waitForRender(page, partial, afterRenders = 0) {
  const rendered = (timeout) =>
    page.waitForFunction(
      ([p, n]) => {
        const r = window.__resnorm;
        if (!r || r.renders <= n) return false;
        return Object.entries(p).every(([k, v]) => JSON.stringify(r.config[k]) === JSON.stringify(v));
      },
      [partial, afterRenders],
      { timeout },
    );
  // Long enough for a machine loaded by other work (speed is the benchmark's to judge, not a
  // test's); a wait of over 10 s is printed, so a slow machine shows in the log.
  const t0 = Date.now();
  try {
    await rendered(GUARD_MS);
    const ms = Date.now() - t0;
    if (ms > 10000)
      console.log(`a render of ${JSON.stringify(partial)} came after ${ms} ms (load average ${loadText()})`);
  } catch (e) {
    // A new error, so that its stack (which the test reporter prints) carries what the page
    // showed instead and whether the render came late or never: a lost request or a slow one.
    const seen = await page
      .evaluate(() => ({
        renders: window.__resnorm?.renders,
        config: window.__resnorm?.config,
        status: document.getElementById('status')?.textContent,
        state: document.getElementById('status')?.dataset.state,
        pending: document.querySelector('.pending:not([hidden])')?.textContent ?? null,
        notice: document.getElementById('notice')?.textContent,
        url: location.href,
      }))
      .catch((err) => ({ unreadable: err.message }));
    const t1 = Date.now();
    const late = await rendered(15000).then(
      () => `it came ${Date.now() - t1} ms later`,
      () => 'nor in 15 s more',
    );
    throw new Error(
      [
        `${e.message}`,
        `wanted ${JSON.stringify(partial)} after render ${afterRenders}; ${late}`,
        `the page then: ${JSON.stringify(seen)}`,
        `problems: ${JSON.stringify(page.problems ?? [])}`,
        `last console messages: ${JSON.stringify(page.lastMessages ?? [])}`,
        `load average ${loadText()}; busiest processes:`,
        ...busiest(),
      ].join('\n'),
      { cause: e },
    );
  }
  return page.evaluate(() => window.__resnorm.renders);
}

const loadText = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** The five processes using the most CPU, a line each (ps), for a failure's message. */
function busiest() {
  try {
    return execFileSync('ps', ['-eo', 'pcpu,etime,args', '--sort=-pcpu'], { encoding: 'utf8' })
      .split('\n')
      .slice(1, 6)
      .map((line) => `  ${line.trim().slice(0, 160)}`);
  } catch (err) {
    return [`  (ps: ${err.message})`];
  }
}

/**
 * An init script (context.addInitScript) for Workers that load and never answer: whatever a page
 * then draws, no engine computed it. window.__posted lists the ops the page asked them for.
 */
export const SILENT_WORKERS = `window.__posted = [];
window.Worker = class { postMessage(m) { window.__posted.push(m?.op); } terminate() {} addEventListener() {} };`;

/**
 * A context of `browser` (1280 x 900 unless `options` say otherwise) whose every frame records the
 * Content-Security-Policy violations it meets from the start; cspViolations(page) reads them from
 * every frame of a page.
 */
export async function cspContext(browser, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  await context.addInitScript(() => {
    window.__csp = [];
    addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return context;
}

/** The CSP violations every frame of `page` recorded (a context of cspContext's). */
export async function cspViolations(page) {
  const out = [];
  for (const f of page.frames()) out.push(...(await f.evaluate(() => window.__csp ?? []).catch(() => [])));
  return out;
}

/**
 * Pairs of text boxes on screen that overlap by more than a pixel each way (visually hidden text
 * left out), in the page's body or, with `host`, in the shadow root of the element it selects;
 * with host '*', in the body and every open shadow root in it, together (a page of several
 * embeds). Two pieces of one formula (a fraction's numerator and denominator, whose glyph boxes
 * the math layout stacks close) are not a pair.
 */
export const overlaps = (page, host = null) =>
  page.evaluate((sel) => {
    const boxes = [];
    const roots = [sel && sel !== '*' ? document.querySelector(sel).shadowRoot : document.body];
    if (sel === '*') for (const e of document.body.querySelectorAll('*')) if (e.shadowRoot) roots.push(e.shadowRoot);
    for (const root of roots) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n.textContent.trim();
        const parent = n.parentElement;
        if (!text || !parent || parent.closest('.visually-hidden, [hidden], option, script, style, template')) continue;
        // a closed <details> lays out only its summary
        const shut = parent.closest('details:not([open])');
        if (shut && !parent.closest('summary')) continue;
        const range = document.createRange();
        range.selectNodeContents(n);
        for (const r of range.getClientRects())
          if (r.width > 1 && r.height > 1)
            boxes.push({ text: text.slice(0, 30), r, node: n, math: parent.closest('math') });
      }
    }
    const out = [];
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r;
        const b = boxes[j].r;
        if (boxes[i].node === boxes[j].node) continue;
        if (boxes[i].math && boxes[i].math === boxes[j].math) continue;
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 1) out.push(`${boxes[i].text} / ${boxes[j].text}`);
      }
    return out;
  }, host);

/** Waits (within the guard) until the page's service worker is active; resolves to its scope. */
export async function swReady(page) {
  // each poll asks for the registration and reads what the poll before it learned (a predicate
  // must answer at once: a promise would count as true)
  const handle = await page.waitForFunction(() => {
    navigator.serviceWorker.getRegistration().then((r) => (window.__swScope = r?.active ? r.scope : null));
    return window.__swScope ?? false;
  });
  return handle.jsonValue();
}

/** A download's bytes, read through the browser connection (a shared Chromium has no local path). */
export async function downloadBytes(download) {
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  return Buffer.concat(chunks);
}
