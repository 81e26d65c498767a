#!/usr/bin/env node
// The README's two pictures, taken from the built site (dist/) in Debian's
// Chromium (never a downloaded browser), 1280 px wide, light theme:
//   docs/img/explorer.png  the explorer's default scene, once the engine has answered:
//                          the header, the settings and the three charts
//   docs/img/lab.png       the training lab after the Warmup claim has trained to its
//                          verdict: the settings, the run bar, the line charts and the verdict
//   npm run build:web && npm run screenshots
// Every wait is on what the page shows (its test hooks and data attributes);
// the timeout is only a guard against a hang.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { LAUNCH_OPTIONS } from '../tests/browser/chromium.js';
import { labDrawn, layoutSettled } from '../tests/browser/drawn.js';
import { startServer } from './serve.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = `${ROOT}docs/img`;
const WIDTH = 1280;
const GUARD_MS = 10 * 60 * 1000;
const MARGIN = 8; // px of the page kept above and below a clip

/** The box from the top of `from` to the bottom of the last element `to` matches (and MARGIN), the page's whole width. */
async function clipBetween(page, from, to) {
  const [top, bottom] = await page.evaluate(
    ([a, b]) => [
      document.querySelector(a).getBoundingClientRect().top + scrollY,
      [...document.querySelectorAll(b)].at(-1).getBoundingClientRect().bottom + scrollY,
    ],
    [from, to],
  );
  const y = Math.max(0, Math.floor(top) - MARGIN);
  return { x: 0, y, width: WIDTH, height: Math.ceil(bottom + MARGIN - y) };
}

async function explorer(context, url) {
  const page = await context.newPage();
  await page.goto(`${url}index.html`);
  // the live answer, not only the first paint shipped with the page: it carries the engine's time
  await page.waitForFunction(
    () => window.__resnorm?.computeMs !== undefined && document.getElementById('status')?.dataset.state === 'ready',
  );
  await layoutSettled(page, '#charts');
  // the site's header, the settings and the three charts (the caption and the text below are left out)
  const clip = await clipBetween(page, 'header', '#charts .chart-figure');
  await page.screenshot({ path: `${OUT}/explorer.png`, clip, fullPage: true });
  await page.close();
}

async function lab(context, url) {
  const page = await context.newPage();
  await page.goto(`${url}train.html#preset=warmup`);
  await page.waitForFunction(() => document.body.dataset.ready === '1' && window.__resnormTrain?.preset === 'warmup');
  await page.locator('#train-start').click();
  await page.waitForFunction(() => window.__resnormTrain?.state === 'done' && window.__resnormTrain.verdict);
  await labDrawn(page);
  await layoutSettled(page, '#lab');
  // the settings, the run bar, the three line charts and the verdict (the heatmaps below are left out)
  const clip = await clipBetween(page, '#lab', '.paper-verdict');
  await page.screenshot({ path: `${OUT}/lab.png`, clip, fullPage: true });
  await page.close();
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const server = await startServer({ port: 0, root: `${ROOT}dist`, base: '/' });
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch(LAUNCH_OPTIONS);
  try {
    const context = await browser.newContext({ viewport: { width: WIDTH, height: 900 }, colorScheme: 'light' });
    context.setDefaultTimeout(GUARD_MS);
    const errors = [];
    context.on('weberror', (e) => errors.push(e.error().message));
    context.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await explorer(context, url);
    await lab(context, url);
    if (errors.length) throw new Error(`the pages logged errors:\n${errors.join('\n')}`);
    console.error(`wrote ${OUT}/explorer.png and ${OUT}/lab.png`);
  } finally {
    await browser.close();
    server.close();
  }
}

await main();
