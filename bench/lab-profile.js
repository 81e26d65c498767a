// Where a lab claim's time above the ideal goes (bench/PROFILE.md, "The lab's seeds on a pool"): each
// claim named, on its five seeds, on one worker (the ideal's pass, as bench/lib/lab.js measures it)
// and on the page's pool with a trace of its threads (bench/lib/lab-time.js's threadBusy): the
// ratio to the ideal, the main thread's busy time, each worker's busy time, its wait before its
// first task and after its last, its gaps between tasks, and the worker's own ms by op. With two
// builds (--dist A,B) the passes alternate A, B, A, B ... in the same conditions, round by round.
//   node bench/lab-profile.js [--claims lesion,batchnorm] [--rounds 2] [--dist dist,/tmp/other-dist] [--json FILE]
import os from 'node:os';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { labRun, CLAIM_SEEDS } from './lib/lab.js';
import { idealMs, ratioToIdeal } from './lib/lab-time.js';

const { values } = parseArgs({
  options: {
    claims: { type: 'string', default: 'lesion,batchnorm,warmup' },
    rounds: { type: 'string', default: '1' },
    dist: { type: 'string', default: '' },
    json: { type: 'string', default: '' },
    seeds: { type: 'string', default: String(CLAIM_SEEDS) },
  },
});
const load1 = () => Math.round(os.loadavg()[0] * 100) / 100;
const claims = values.claims.split(',').filter(Boolean);
const dists = values.dist ? values.dist.split(',') : [null];
const rounds = Math.max(1, Number(values.rounds) || 1);

const { launch, serve } = await import('../tests/browser/harness.js');
const browser = await launch();
const servers = await Promise.all(dists.map((root) => serve(root ? { root } : {})));
const rows = [];

/** The worker's own ms summed by op, per worker. */
function byOp(answers) {
  const out = {};
  for (const a of answers) {
    const w = (out[`w${a.w}`] ??= {});
    w[a.op] = Math.round(((w[a.op] ?? 0) + (Number.isFinite(a.ms) ? a.ms : 0)) * 10) / 10;
  }
  return out;
}

try {
  for (let round = 0; round < rounds; round++)
    for (const claim of claims)
      for (const [i, server] of servers.entries()) {
        const hash = `preset=${claim}&seeds=${values.seeds}`;
        const one = await labRun(browser, server, { hash, cores: 1, answers: true });
        const pool = await labRun(browser, server, { hash, threads: true });
        const ideal = idealMs(one.worker_ms, pool.pool);
        const ratio = ratioToIdeal(pool.shown_ms, ideal);
        const t = pool.threads;
        const row = {
          round,
          build: dists[i] ?? 'dist',
          claim,
          trainers: pool.trainers,
          pool: pool.pool,
          verdict: pool.verdict,
          held: pool.held,
          shown_ms: pool.shown_ms,
          one_worker_ms: one.worker_ms,
          pool_worker_ms: pool.worker_ms,
          ideal_ms: Math.round(ideal),
          ratio: Math.round(ratio * 1000) / 1000,
          // the ratio is contention / utilization: the pool's workers' own ms against one worker's
          // (> 1: each job took longer with the others running), and the share of the pool's time
          // from Start to the verdict its workers spent computing
          contention: Math.round((pool.worker_ms / one.worker_ms) * 1000) / 1000,
          utilization: Math.round((pool.worker_ms / (pool.pool * pool.shown_ms)) * 1000) / 1000,
          threads: t,
          by_op: byOp(pool.answers),
          one_by_op: byOp(one.answers),
          loadavg: [...one.loadavg, ...pool.loadavg],
        };
        rows.push(row);
        const w = (t?.workers ?? [])
          .map(
            (x) =>
              `busy ${Math.round(x.busy_ms)} before ${Math.round(x.before_ms)} after ${Math.round(x.after_ms)} gaps <1 ${Math.round(x.gaps_ms.under_1ms)} 1-10 ${Math.round(x.gaps_ms.ms_1_to_10)} >10 ${Math.round(x.gaps_ms.over_10ms)} (${x.gaps_ms.count_over_10ms})`,
          )
          .join(' | ');
        console.log(
          `${row.build} ${claim} r${round}: ${(pool.shown_ms / 1000).toFixed(2)} s, ideal ${(ideal / 1000).toFixed(2)} s, ${ratio.toFixed(2)}x; ` +
            `pool workers' own ${(pool.worker_ms / 1000).toFixed(2)} s vs one ${(one.worker_ms / 1000).toFixed(2)} s ` +
            `(contention ${row.contention}, utilization ${row.utilization}); ` +
            `window ${t?.window_ms} main busy ${t?.main?.busy_ms} cpu ${t?.main?.cpu_ms}; ${w} (load ${load1()})`,
        );
      }
} finally {
  await Promise.all(servers.map((s) => s.close()));
  await browser.close();
}
if (values.json) writeFileSync(values.json, JSON.stringify(rows, null, 1));
