#!/usr/bin/env node
// `npm test` and `npm run check`: runs the npm scripts below in order, streams
// their output, then prints a table (per stage: tests passed and failed, wall
// and user+sys CPU seconds) and, last, one line "N passed, N failed" summing
// every runner. Exits non-zero when anything failed.
//   node scripts/test.js            every stage (`npm test`, CI)
//   node scripts/test.js --check    the edit-test loop (`npm run check`)
//   node scripts/test.js lint test:node   the stages named, in this order
// A failed setup, format check, lint or build stops the run (what follows
// needs it); a failed test stage does not, so every count is known.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { closingLine, printTable, runStage, wasInterrupted } from './stages.js';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));

// The Node tests that fill the wasm module's memory budget again and again (the
// heap soak, trainers at the largest allowed configs, save and load beside a full
// worker): a third of the Node suite's time. `npm test` runs them; the quick loop
// of `npm run check` leaves them out.
const MEMORY_TESTS = [
  'tests/node/wasm/soak.test.js',
  'tests/node/wasm/train-memory.test.js',
  'tests/node/train/engine-memory.test.js',
];
const quickNodeFiles = () =>
  readdirSync('tests/node', { recursive: true })
    .map((f) => `tests/node/${f}`)
    .filter((f) => f.endsWith('.test.js') && !MEMORY_TESTS.includes(f))
    .sort();

// parser: how the stage reports its tests (scripts/stages.js); none: a gate.
const STAGES = {
  setup: {},
  'format:check': {},
  lint: {},
  build: {},
  'build:native': {},
  'build:wasm': {},
  'test:native': { parser: 'ctest' },
  'test:sanitize': { parser: 'ctest' },
  'test:fuzz': { parser: 'fuzz' },
  'test:node': { parser: 'node' },
  'test:node:quick': {
    parser: 'node',
    command: () => `node --test --test-concurrency=2 --test-reporter=spec ${quickNodeFiles().join(' ')}`,
  },
  'test:browser': { parser: 'node' },
};
const ALL = [
  'setup',
  'format:check',
  'lint',
  'build',
  'test:native',
  'test:sanitize',
  'test:fuzz',
  'test:node',
  'test:browser',
];
// The Node tests load the CLI (build/native) and the wasm module (wasm/dist),
// so the check builds both; with nothing changed each build is a no-op.
const CHECK = ['format:check', 'lint', 'build:native', 'build:wasm', 'test:native', 'test:node:quick'];

const args = process.argv.slice(2);
let plan = ALL;
if (args[0] === '--check') plan = CHECK;
else if (args.length) plan = args;
const unknown = plan.filter((s) => !(s in STAGES));
if (unknown.length) {
  console.error(`test: unknown stage ${unknown.join(', ')}; known: ${Object.keys(STAGES).join(', ')}`);
  process.exit(2);
}

const results = [];
let stopped = null;
for (const name of plan) {
  const { parser, command } = STAGES[name];
  const r = await runStage({ name, command: command ? command() : `npm run ${name}`, parser });
  results.push(r);
  if (wasInterrupted()) {
    stopped = `interrupted (${wasInterrupted()}) during ${name}`;
    break;
  }
  if (r.code !== 0 && !parser) {
    stopped = `stage ${name} failed (exit ${r.code}); the stages after it did not run`;
    break;
  }
}

const total = printTable(results);
const failedStages = results.filter((r) => r.code !== 0).map((r) => r.name);
if (stopped) console.log(`test: ${stopped}`);
else if (failedStages.length) console.log(`test: failed: ${failedStages.join(', ')}`);
closingLine(total);
process.exitCode = wasInterrupted() ? 130 : total.failed || failedStages.length ? 1 : 0;
