// How the browser tests start Debian's Chromium (never a downloaded browser):
// shared by each test file's launch() (tests/browser/harness.js) and by the
// runner that starts one Chromium for every file (scripts/browser-tests.js).
import { chromium } from 'playwright-core';

export const LAUNCH_OPTIONS = {
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
};

// The runner's Chromium, which every test process connects to; unset when a
// test file runs on its own (`node --test tests/browser/x.test.js`).
export const SHARED_ENV = 'RESNORM_CHROMIUM_WS';

/**
 * The shared Chromium when the runner started one, else (or with `own`) a Chromium of this
 * process's own: a test that traces needs one, since a trace records every page of its browser.
 */
export const startChromium = ({ own = false } = {}) =>
  process.env[SHARED_ENV] && !own ? chromium.connect(process.env[SHARED_ENV]) : chromium.launch(LAUNCH_OPTIONS);
