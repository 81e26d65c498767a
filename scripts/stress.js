#!/usr/bin/env node
// `npm run test:stress`: the browser suite (`npm run test:browser`) three times,
// on a starved machine and a normal one, to catch tests that only pass when the
// CPU is idle:
//   one-core  pinned to CPU 0 (taskset), the browser and the tests share one core
//   busy      a busy loop on every core beside the suite
//   plain     as `npm test` runs it
// Then the per-mode table and "N passed, N failed"; non-zero exit if any failed.
// It tests the built site: run `npm run build` first.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closingLine, printTable, runStage, wasInterrupted } from './stages.js';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));
const dist = resolve(process.env.RESNORM_DIST || 'dist');
if (!existsSync(`${dist}/index.html`)) {
  console.error(`stress: no built site in ${dist}; run \`npm run build\` first`);
  process.exit(1);
}

// Each loop checks every few million iterations that its parent is still this
// process, so even a killed runner leaves no loop spinning.
const LOOP = 'const p = process.ppid; for (let i = 1; ; i++) if (i % 4e6 === 0 && process.ppid !== p) break;';
let loops = [];
const stopLoops = () => {
  for (const c of loops) c.kill('SIGKILL');
  loops = [];
};
process.on('exit', stopLoops);

const MODES = [
  { name: 'one-core', command: 'taskset -c 0 npm run test:browser' },
  {
    name: 'busy',
    command: 'npm run test:browser',
    before() {
      loops = Array.from({ length: availableParallelism() }, () =>
        spawn(process.execPath, ['-e', LOOP], { stdio: 'ignore' }),
      );
    },
  },
  { name: 'plain', command: 'npm run test:browser' },
];

const results = [];
try {
  for (const mode of MODES) {
    console.log(`\nstress: ${mode.name}: ${mode.command}${mode.before ? ' (busy loop on every core)' : ''}`);
    mode.before?.();
    results.push(await runStage({ name: mode.name, command: mode.command, parser: 'node' }));
    stopLoops();
    if (wasInterrupted()) break;
  }
} finally {
  stopLoops();
}
const total = printTable(results, 'mode');
if (wasInterrupted()) console.log(`stress: interrupted (${wasInterrupted()})`);
closingLine(total);
process.exitCode = wasInterrupted() ? 130 : total.failed ? 1 : 0;
