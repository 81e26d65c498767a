#!/usr/bin/env node
// The searches behind tests/core/test_reproductions.cpp: every point of each
// claim's grid run through `resnorm train --json`, one table row per point and
// seed, so the settings the tests use can be checked against their neighbours.
//   node scripts/search-reproductions.js [he] [xiong] [liu] [veit] [--seeds 0,1,2] [--cli build/native/resnorm]
// With no claim named, all four run (about 20 minutes of CPU on one core).
//
// A row: the point's settings, the seed, then for each run "arch@depth[/wW]"
// (W: warmup steps) its outcome (trained, slow, collapsed, diverged, as the
// trainer names them), held-out loss, held-out accuracy (language tasks) and
// the top stream's mean pairwise cosine (near 1: the output no longer depends
// on the input). veit adds the lesion study: the held-out loss with no block
// removed, and the median, max (with its block) and min over the blocks of
// the loss with one block removed. The point the tests use is marked *.
//
// The grids (see GRIDS below for the exact flags):
//   he     teacher, MLP blocks, d=32, e=1, relu, He init, B=32, 8 held-out
//          batches, SGD momentum 0.9; lr 1e-3, 2e-3, 3e-3, 5e-3; 200 and 300
//          steps; plain@20, plain@56, residual@56, pre_ln@56; also d=16 at 200 steps.
//   veit   the same teacher; lr 3e-3, 200 and 400 steps; plain and pre_ln
//          at depth 20, pre_ln at depth 40.
//   liu    reverse, n=4, V=8, transformer d=16, e=2, 4 heads, Adam, constant
//          lr, no warmup, 200 steps; lr 1e-3, 2e-3, 3e-3, 4e-3, 6e-3;
//          post_ln@6, then post_ln, pre_ln, deepnorm, admin @18; also
//          post_ln@12, and B=8 at lr 4e-3.
//   xiong  the same reverse task; 300 steps; lr 8e-3, 1e-2, 1.2e-2, 1.5e-2;
//          post_ln and pre_ln @6 without warmup, post_ln @6 with 50, 100,
//          150, 200 warmup steps; also post_ln@18 at lr 4e-3 with 50, 100,
//          150 warmup steps (200 steps), and a setting at lr 1e-3 (d=32,
//          e=4, n=8, V=16, B=32, 200 steps, 50 warmup steps) where warmup
//          does not help.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { REVERSE_TASK, TEACHER_TASK } from '../web/src/shared/train-tasks.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// The two tasks as `resnorm train` flags: the lab's claims' (web/src/claims/lab/),
// one definition. The teacher's outputs are scaled to mean square 1 over the held-out set, so
// its size is part of the task: 8 batches here and in the tests.
const asFlags = (config) => Object.fromEntries(Object.entries(config).map(([k, v]) => [k.replaceAll('_', '-'), v]));
const TEACHER = asFlags(TEACHER_TASK);
const REVERSE = asFlags(REVERSE_TASK);

// One point: the flags every run shares, and the runs (architectures, depth, warmup).
function point(label, flags, runs, chosen = false) {
  return { label, flags, runs, chosen };
}

function heGrid() {
  const points = [];
  const runs = [
    { arch: 'plain', depth: 20 },
    { arch: 'plain,residual,pre_ln', depth: 56 },
  ];
  for (const steps of [200, 300])
    for (const lr of [1e-3, 2e-3, 3e-3, 5e-3])
      points.push(point(`lr ${lr} steps ${steps}`, { ...TEACHER, lr, steps }, runs, lr === 3e-3 && steps === 200));
  points.push(point('d 16 lr 3e-3 steps 200', { ...TEACHER, width: 16, lr: 3e-3, steps: 200 }, runs));
  return points;
}

function veitGrid() {
  const points = [];
  for (const steps of [200, 400])
    points.push(
      point(
        `depth 20 steps ${steps}`,
        { ...TEACHER, lr: 3e-3, steps },
        [{ arch: 'plain,pre_ln', depth: 20 }],
        steps === 200,
      ),
    );
  points.push(point('depth 40 steps 200', { ...TEACHER, lr: 3e-3, steps: 200 }, [{ arch: 'pre_ln', depth: 40 }]));
  return points;
}

function liuGrid() {
  const points = [];
  const runs = [
    { arch: 'post_ln', depth: 6 },
    { arch: 'post_ln,pre_ln,deepnorm,admin', depth: 18 },
  ];
  for (const lr of [1e-3, 2e-3, 3e-3, 4e-3, 6e-3])
    points.push(point(`lr ${lr}`, { ...REVERSE, lr, steps: 200, warmup: 0 }, runs, lr === 4e-3));
  points.push(point('lr 4e-3 B 8', { ...REVERSE, batch: 8, lr: 4e-3, steps: 200, warmup: 0 }, runs));
  points.push(point('lr 4e-3 depth 12', { ...REVERSE, lr: 4e-3, steps: 200 }, [{ arch: 'post_ln', depth: 12 }]));
  return points;
}

function xiongGrid() {
  const points = [];
  for (const lr of [8e-3, 1e-2, 1.2e-2, 1.5e-2]) {
    const runs = [{ arch: 'post_ln,pre_ln', depth: 6, warmup: 0 }];
    for (const warmup of [50, 100, 150, 200]) runs.push({ arch: 'post_ln', depth: 6, warmup });
    points.push(point(`lr ${lr}`, { ...REVERSE, lr, steps: 300 }, runs, lr === 1.2e-2));
  }
  points.push(
    point(
      'depth 18 lr 4e-3 steps 200',
      { ...REVERSE, lr: 4e-3, steps: 200 },
      [50, 100, 150].map((warmup) => ({ arch: 'post_ln', depth: 18, warmup })),
    ),
  );
  points.push(
    point(
      'd 32 n 8 V 16 lr 1e-3 steps 200',
      { ...REVERSE, width: 32, expansion: 4, seq: 8, vocab: 16, batch: 32, lr: 1e-3, steps: 200 },
      [
        { arch: 'post_ln,pre_ln', depth: 6, warmup: 0 },
        { arch: 'post_ln', depth: 6, warmup: 50 },
      ],
    ),
  );
  return points;
}

const GRIDS = { he: heGrid, xiong: xiongGrid, liu: liuGrid, veit: veitGrid };

function parseArgs(argv) {
  const opts = { claims: [], seeds: [0, 1, 2], cli: join(root, 'build/native/resnorm') };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--seeds') opts.seeds = argv[++i].split(',').map(Number);
    else if (a === '--cli') opts.cli = argv[++i];
    else if (a in GRIDS) opts.claims.push(a);
    else {
      console.error(`search-reproductions: unknown argument '${a}' (claims: ${Object.keys(GRIDS).join(', ')})`);
      process.exit(2);
    }
  }
  if (opts.claims.length === 0) opts.claims = Object.keys(GRIDS);
  return opts;
}

// One `resnorm train` run: the summary line and each arch's last logged step.
function train(cli, flags) {
  const args = ['train', '--json'];
  for (const [k, v] of Object.entries(flags)) args.push(`--${k}`, String(v));
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`resnorm ${args.join(' ')}: ${r.stderr || r.error}`);
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const summary = lines.pop();
  const last = {};
  for (const l of lines) last[l.arch] = l;
  return { summary, last };
}

const num = (x) => (x === null || x === undefined ? 'nan' : x.toFixed(3));

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function describe(arch, s, last, lesion) {
  let cell = `${arch} ${s.outcome} ${num(s.heldout_loss)}`;
  if (s.heldout_accuracy !== null) cell += ` acc ${num(s.heldout_accuracy)}`;
  cell += ` cos ${num(last?.top_cosine)}`;
  const loss = s.lesion.loss;
  if (lesion && loss.every((x) => x !== null)) {
    const max = Math.max(...loss);
    cell += ` lesion base ${num(s.lesion.base)} med ${num(median(loss))} max ${num(max)} (block ${loss.indexOf(max) + 1})`;
    cell += ` min ${num(Math.min(...loss))}`;
  }
  return cell;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  for (const claim of opts.claims) {
    console.log(`\n## ${claim}\n`);
    console.log('| setting | seed | runs | s |');
    console.log('| --- | --- | --- | --- |');
    for (const p of GRIDS[claim]())
      for (const seed of opts.seeds) {
        const t0 = Date.now();
        const cells = [];
        let chance = null;
        for (const run of p.runs) {
          const { summary, last } = train(opts.cli, { ...p.flags, ...run, seed, 'log-every': p.flags.steps });
          chance = summary.chance_loss;
          const at = `@${run.depth}${run.warmup ? `/w${run.warmup}` : ''}`;
          for (const [arch, s] of Object.entries(summary.summary))
            cells.push(describe(arch + at, s, last[arch], claim === 'veit'));
        }
        const secs = ((Date.now() - t0) / 1000).toFixed(1);
        console.log(
          `| ${p.chosen ? '*' : ''}${p.label} (chance ${num(chance)}) | ${seed} | ${cells.join('; ')} | ${secs} |`,
        );
      }
  }
}

main();
