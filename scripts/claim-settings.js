#!/usr/bin/env node
// The training claims' settings as tests/core/test_reproductions.cpp reads them,
// from the one place they are written: the lab's claims, one module each
// (web/src/claims/lab/<id>.js, listed by claims/lab/index.js, over the tasks of shared/train-tasks.js).
// CMake runs it when it builds the tests. A line per run of each claim:
//   <claim> <run> <end|trained> <resnorm train flags>
// "trained": the run may stop once it is trained (the claim's stopWhenTrained).
// The flags are the claim's settings and the run's overrides only; every other
// field keeps its default, as in the lab.
//   node scripts/claim-settings.js OUT
import { writeFileSync } from 'node:fs';
import { CLAIMS } from '../web/src/claims/lab/index.js';
import { flags } from './claim-cli.js';

const lines = CLAIMS.flatMap((p) =>
  p.runs.map((r) => {
    const config = { ...p.config, ...(r.overrides ?? {}), arch: r.arch };
    return `${p.id} ${r.key} ${r.stopWhenTrained ? 'trained' : 'end'} ${flags(config).join(' ')}`;
  }),
);
const out = process.argv[2];
if (!out) {
  console.error('claim-settings: give the file to write');
  process.exit(2);
}
writeFileSync(out, `${lines.join('\n')}\n`);
