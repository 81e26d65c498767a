// The pure arithmetic of part 8 (bench/lib/lab.js): the ideal time of a claim's runs on the page's
// pool, the ratio to it, the worker's time per update from its answers, and the top functions of a
// CDP CPU profile. No browser here, so tests/node/bench/lab-time.test.js checks it on made-up numbers.

/**
 * The ideal Start-to-verdict time on a pool of `pool` workers: the work of every run x seed done
 * one after another in one worker (`singleMs`), spread evenly over the pool with nothing lost.
 */
export function idealMs(singleMs, pool) {
  if (!Number.isFinite(singleMs) || singleMs < 0 || !Number.isFinite(pool) || pool < 1) return null;
  return singleMs / pool;
}

/** Measured / ideal (1: as fast as the pool can be; > 1: slower), or null when either is unknown. */
export function ratioToIdeal(wallMs, ideal) {
  if (!Number.isFinite(wallMs) || wallMs < 0 || !Number.isFinite(ideal) || ideal <= 0) return null;
  return wallMs / ideal;
}

/**
 * The worker's own ms per update from its trainerStep answers ({ms, steps}: the ms the worker
 * reports for one call and the updates that call asked for): {calls, updates, total_ms,
 * ms_per_update (the total over the updates), median_ms_per_update (of the calls' own ratios)}.
 */
export function perUpdate(answers) {
  const ok = answers.filter((a) => Number.isFinite(a.ms) && a.steps > 0);
  const total = ok.reduce((s, a) => s + a.ms, 0);
  const updates = ok.reduce((s, a) => s + a.steps, 0);
  const each = ok.map((a) => a.ms / a.steps).sort((a, b) => a - b);
  const mid = each.length
    ? each.length % 2
      ? each[(each.length - 1) / 2]
      : (each[each.length / 2 - 1] + each[each.length / 2]) / 2
    : null;
  return {
    calls: ok.length,
    updates,
    total_ms: total,
    ms_per_update: updates ? total / updates : null,
    median_ms_per_update: mid,
  };
}

/**
 * The top `n` functions of a CDP Profiler profile ({nodes: [{id, callFrame, children}], samples,
 * timeDeltas}) by self time: [{name, where, self_ms, share}], share of the busy time (every
 * sample's but the idle ones'); '(program)' (the browser's own work on the thread: style, layout,
 * paint) and '(garbage collector)' are rows of their own, '(idle)' is left out.
 */
export function topFunctions(profile, n = 8) {
  const byNode = new Map(profile.nodes.map((x) => [x.id, x]));
  const self = new Map();
  let total = 0;
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // Each sample's time is the delta to the next sample (the last one's is unknown: left out).
  for (let i = 0; i < samples.length - 1; i++) {
    const dt = Math.max(0, deltas[i + 1] ?? 0) / 1000;
    const node = byNode.get(samples[i]);
    if (!node) continue;
    const cf = node.callFrame;
    const name = cf.functionName || '(anonymous)';
    if (name === '(idle)') continue;
    const file = cf.url ? cf.url.replace(/^.*\//, '').replace(/[?#].*$/, '') : '';
    const where = file ? `${file}:${cf.lineNumber + 1}` : '';
    const key = `${name}\u0000${where}`;
    const row = self.get(key) ?? { name, where, self_ms: 0 };
    row.self_ms += dt;
    self.set(key, row);
    total += dt;
  }
  return [...self.values()]
    .sort((a, b) => b.self_ms - a.self_ms)
    .slice(0, n)
    .map((r) => ({ ...r, self_ms: Math.round(r.self_ms * 10) / 10, share: total ? r.self_ms / total : 0 }));
}
