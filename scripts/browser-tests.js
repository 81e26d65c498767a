#!/usr/bin/env node
// `npm run test:browser`: starts one Chromium, then runs the browser test files
// (tests/browser/*.test.js, or the files and node --test options given) with
// `node --test`, each test process connecting to that Chromium instead of
// starting its own. BROWSER_TEST_CONCURRENCY test files run at once (default 2:
// the files share no state but the browser, each makes its own contexts and
// serves the site on a port of its own). Exits with the runner's status.
//   node scripts/browser-tests.js [--test-name-pattern=...] [files...]
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LAUNCH_OPTIONS, SHARED_ENV } from '../tests/browser/chromium.js';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('-'));
const options = args.filter((a) => a.startsWith('-'));
const concurrency = process.env.BROWSER_TEST_CONCURRENCY || '2';
// A hang guard, never what decides: node --test applies it to each test and to
// each file's process as a whole. On one core shared with other work (npm run
// test:stress with builds beside it) a11y.test.js alone took over 20 minutes;
// a wait inside a test has its own ten-minute guard (tests/browser/harness.js).
const TIMEOUT_MS = 60 * 60 * 1000;

const server = await chromium.launchServer(LAUNCH_OPTIONS);
const child = spawn(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${TIMEOUT_MS}`,
    '--test-reporter=spec',
    ...options,
    ...(files.length ? files : ['tests/browser/']),
  ],
  { stdio: 'inherit', env: { ...process.env, [SHARED_ENV]: server.wsEndpoint() } },
);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
const code = await new Promise((done) => child.on('close', (c, signal) => done(c ?? (signal ? 1 : 0))));
await server.close();
process.exit(code);
