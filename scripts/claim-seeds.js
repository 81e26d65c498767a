#!/usr/bin/env node
// Every claim of the training lab (web/src/claims/lab/index.js) at its quick and deep settings
// (claimAt) over n seeds, through `resnorm train --json` (scripts/claim-cli.js: one CLI run per
// distinct config of a claim's runs), each seed judged by the claim's own claimVerdict; printed as
// a markdown table: the claim, the setting, on how many seeds it holds, the parts that fail on
// some seed (with those seeds), and the spread of each run's final held-out loss over the seeds.
// Seed i of n is the claim's seed + i, i = 0..n-1 (the lab's default seed when the claim sets none).
//   node scripts/claim-seeds.js [--seeds 5] [--settings quick,deep] [--claims depth,late]
//                               [--cli build/native/resnorm] [--jobs 1] [--numbers FILE]
// --jobs: how many CLI runs at once (each one process). The table goes to stdout; a line per
// claim, setting and seed as it finishes goes to stderr. --numbers: each seed's verdict (whether
// each part holds, what it measured, the verdict's numbers) to FILE, a JSON line each, for the
// figures the table leaves out (the Late layers claim's ratio of every run).
import { execFileSync } from 'node:child_process';
import { hostname, cpus } from 'node:os';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  CLAIMS,
  CLAIM_BY_ID,
  SETTINGS,
  claimAt,
  claimConfig,
  claimVerdict,
  hasDeep,
  summarize,
  prose,
} from '../web/src/claims/lab/index.js';
import { defaultTrainConfig } from '../web/src/shared/train-fields.js';
import { inTurn, trainClaim } from './claim-cli.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const { values: opt } = parseArgs({
  options: {
    seeds: { type: 'string', default: '5' },
    settings: { type: 'string', default: SETTINGS.join(',') },
    claims: { type: 'string', default: CLAIMS.map((c) => c.id).join(',') },
    cli: { type: 'string', default: join(root, 'build/native/resnorm') },
    jobs: { type: 'string', default: '1' },
    numbers: { type: 'string' },
  },
});

const n = Number(opt.seeds);
const jobs = Number(opt.jobs);
const settings = opt.settings.split(',');
const claims = opt.claims.split(',').map((id) => CLAIM_BY_ID[id] ?? fail(`no claim ${id}`));
if (!(Number.isInteger(n) && n >= 1)) fail('--seeds: a whole number from 1');
if (!(Number.isInteger(jobs) && jobs >= 1)) fail('--jobs: a whole number from 1');
for (const s of settings) if (!SETTINGS.includes(s)) fail(`--settings: each of ${SETTINGS.join(', ')}`);
if (!existsSync(opt.cli)) fail(`no CLI at ${opt.cli} (npm run build:native, or --cli)`);
if (opt.numbers) writeFileSync(opt.numbers, '');

function fail(text) {
  console.error(`claim-seeds: ${text}`);
  process.exit(2);
}

/** The seeds of a claim at a setting: its config's seed (the lab's default when it sets none) + 0..n-1. */
const seedsOf = (claim) => {
  const base = claimConfig(claim, defaultTrainConfig()).seed;
  return Array.from({ length: n }, (_, i) => base + i);
};

/** One claim at one setting over the seeds: {claim, setting, seeds, verdicts, runs (per seed), seconds}. */
async function overSeeds(claim, setting) {
  const at = claimAt(claim, setting);
  const seeds = seedsOf(at);
  const t0 = performance.now();
  const results = await inTurn(seeds, 1, async (seed) => {
    const { runs } = await trainClaim(at, { cli: opt.cli, seed, limit: jobs });
    const v = claimVerdict(at, runs);
    console.error(`${claim.id} ${setting} seed ${seed}: ${v ? v.summary : 'no verdict'}`);
    if (opt.numbers) {
      const checks = v?.checks.map(({ claimed, holds, measured }) => ({ claimed, holds, measured })) ?? null;
      const { holds = null, caption = null, numbers = null } = v ?? {};
      const line = { claim: claim.id, setting, seed, holds, checks, caption, numbers };
      appendFileSync(opt.numbers, `${JSON.stringify(line)}\n`);
    }
    return { seed, runs, verdict: v };
  });
  return { claim: at, setting, seeds, results, seconds: (performance.now() - t0) / 1000 };
}

/** A run's final held-out losses over the seeds: "min to max" of the finite ones, and how many were not finite. */
function spread(results, key) {
  const losses = results.map((r) => summarize(r.runs[key])?.loss ?? NaN);
  const finite = losses.filter(Number.isFinite).sort((a, b) => a - b);
  const parts = [];
  if (finite.length)
    parts.push(finite.length === 1 ? prose(finite[0]) : `${prose(finite[0])} to ${prose(finite.at(-1))}`);
  const bad = losses.length - finite.length;
  if (bad) parts.push(`not finite on ${bad}`);
  return parts.join(', ');
}

/** The parts of the claim that fail on some seed, each with the seeds it fails on. */
function failing(results) {
  const by = new Map();
  for (const { seed, verdict } of results)
    for (const c of verdict?.checks ?? []) if (!c.holds) by.set(c.claimed, [...(by.get(c.claimed) ?? []), seed]);
  const none = results.filter((r) => !r.verdict).map((r) => r.seed);
  const out = [...by].map(([claimed, seeds]) => `${claimed} (seed${seeds.length > 1 ? 's' : ''} ${seeds.join(', ')})`);
  if (none.length) out.push(`no verdict (seeds ${none.join(', ')})`);
  return out.length ? out.join('; ') : '\u2014';
}

const cell = (text) => String(text).replaceAll('|', '\\|');

/** The checkout's commit, marked when tracked files differ from it: read before the runs, which import them. */
function commitOf() {
  const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' with local changes' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
const commit = commitOf();

const t0 = performance.now();
const rows = [];
for (const claim of claims)
  for (const setting of settings) {
    if (setting === 'deep' && !hasDeep(claim)) {
      rows.push({ claim, setting, same: true });
      continue;
    }
    rows.push(await overSeeds(claim, setting));
  }
const total = (performance.now() - t0) / 1000;

const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `${n} seed${n > 1 ? 's' : ''} each; host ${hostname()} (${cpus().length} \u00d7 ${cpu}), ` +
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commit}, CLI ${opt.cli}, ` +
    `${jobs} CLI run${jobs > 1 ? 's' : ''} at once; wall time ${Math.round(total)} s.\n`,
);
console.log(
  '| claim | setting | holds on | parts that fail (seeds) | final held-out loss per run, lowest to highest | wall time |',
);
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  if (r.same) {
    console.log(`| ${r.claim.id} | deep | as quick | ${cell(r.claim.deep.setting)} | | |`);
    continue;
  }
  const k = r.results.filter((x) => x.verdict?.holds).length;
  const losses = r.claim.runs.map((run) => `${run.label}: ${spread(r.results, run.key)}`).join('; ');
  console.log(
    `| ${r.claim.id} | ${r.setting}: ${cell(r.claim.setting)} | ${k} of ${r.seeds.length} | ${cell(failing(r.results))} | ${cell(losses)} | ${Math.round(r.seconds)} s |`,
  );
}
