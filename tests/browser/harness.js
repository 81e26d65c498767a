// Browser-test plumbing: Debian's Chromium through playwright-core (never a
// downloaded browser), the static server, and a page that records every
// console message and page error.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { startServer } from '../../scripts/serve.js';
import { loadWasm } from '../node/helpers.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SHOTS = `${ROOT}test-results`;
// The build to test: dist/, or the folder RESNORM_DIST names (a build of one's
// own while another is being rebuilt).
export const DIST = process.env.RESNORM_DIST || `${ROOT}dist`;
// The policy the README gives for the site and both embeds.
export const SITE_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; worker-src 'self'";
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

export async function launch() {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** Serves dist/ on a free port; returns {url, close}. */
export async function serve({ base = '/', csp = null } = {}) {
  const server = await startServer({ port: 0, root: DIST, base, csp });
  const url = `http://127.0.0.1:${server.address().port}${base}`;
  return { url, close: () => new Promise((ok) => server.close(ok)) };
}

/** Runs fn(url) with dist/ served as serve(options) says, and stops the server after. */
export async function served(options, fn) {
  const server = await serve(options);
  return Promise.resolve()
    .then(() => fn(server.url))
    .finally(() => server.close());
}

/**
 * A new page of `context` at `url`, whose console errors, warnings and page
 * errors are collected in .problems; with `ready`, once it has drawn
 * (document.body.dataset.ready).
 */
export async function pageIn(context, url, { ready = true } = {}) {
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') page.problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  await page.goto(url);
  if (ready) await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 20000 });
  return page;
}

/** pageIn() in a context of its own (1280 x 900 unless `options` say otherwise). */
export async function openPage(browser, url, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  return pageIn(context, url);
}

/**
 * The browser (and, with `wasm`, the engine in Node) for a test file: set up
 * before its tests, closed after them. Returns an object whose .browser and
 * .rn are filled in by then.
 */
export function useBrowser({ wasm = false } = {}) {
  const it = { browser: null, rn: null };
  before(async () => {
    it.browser = await launch();
    if (wasm) it.rn = await loadWasm();
  });
  after(async () => {
    await it.browser?.close();
  });
  return it;
}

/** Waits until the charts have been redrawn for a config matching `partial`. */
export async function waitForRender(page, partial, afterRenders = 0) {
  await page.waitForFunction(
    ([p, n]) => {
      const r = window.__resnorm;
      if (!r || r.renders <= n) return false;
      return Object.entries(p).every(([k, v]) => JSON.stringify(r.config[k]) === JSON.stringify(v));
    },
    [partial, afterRenders],
    { timeout: 20000 },
  );
  return page.evaluate(() => window.__resnorm.renders);
}

/** An init script (context.addInitScript) for Workers that load and never answer: whatever a page then draws, no engine computed it. */
export const SILENT_WORKERS = `window.Worker = class { postMessage() {} terminate() {} addEventListener() {} };`;
