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

// The label of a trace event in a breakdown: a script call named by its function and file.
function traceLabel(e) {
  const d = e.args?.data ?? {};
  if ((e.name === 'FunctionCall' || e.name === 'EvaluateScript') && (d.functionName || d.url)) {
    const file = d.url ? d.url.replace(/^.*\//, '').replace(/[?#].*$/, '') : '';
    // the trace's line and column are 1-based
    return `${e.name} ${d.functionName || '(anonymous)'}${file ? ` (${file}:${d.lineNumber ?? 0}:${d.columnNumber ?? 0})` : ''}`;
  }
  return e.name;
}

/**
 * The main thread's tasks over `minMs` in a Chromium trace (the JSON of browser.stopTracing(), with
 * the 'toplevel' and 'devtools.timeline' categories): the page's renderer main thread is the
 * CrRendererMain thread with the most script calls. Each task: its wall ms, its thread (CPU) ms where
 * the trace has it (a task long on the wall but short on the CPU waited for a core), and its parts
 * by self time; `top`: the parts summed over every long task. {tasks, top, wall_ms, cpu_ms}.
 */
export function longTaskBreakdown(trace, { minMs = 50, n = 6 } = {}) {
  const events = Array.isArray(trace) ? trace : (trace.traceEvents ?? []);
  const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const key = (e) => `${e.pid}:${e.tid}`;
  const calls = new Map();
  for (const e of events) if (e.name === 'FunctionCall') calls.set(key(e), (calls.get(key(e)) ?? 0) + 1);
  const main = mains.map(key).sort((a, b) => (calls.get(b) ?? 0) - (calls.get(a) ?? 0))[0];
  if (!main) return { tasks: [], top: [], wall_ms: 0, cpu_ms: null };
  const mine = events
    .filter((e) => key(e) === main && e.ph === 'X' && Number.isFinite(e.dur))
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const isTask = (e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask';
  const tasks = [];
  const top = new Map();
  let taskEnd = -Infinity; // a task event nested in another (RunTask inside ThreadControllerImpl::RunTask) is the same task
  for (let i = 0; i < mine.length; i++) {
    const t = mine[i];
    if (!isTask(t) || t.ts < taskEnd) continue;
    taskEnd = t.ts + t.dur;
    if (t.dur < minMs * 1000) continue;
    const end = t.ts + t.dur;
    // the events inside the task, nested by time: each one's self time is its own less its children's
    const inside = [];
    for (let j = i + 1; j < mine.length && mine[j].ts < end; j++)
      if (mine[j].ts + mine[j].dur <= end) inside.push(mine[j]);
    const self = new Map();
    const stack = [{ e: t, child: 0 }];
    const close = (upTo) => {
      while (stack.length > 1 && stack[stack.length - 1].e.ts + stack[stack.length - 1].e.dur <= upTo) {
        const s = stack.pop();
        const label = traceLabel(s.e);
        self.set(label, (self.get(label) ?? 0) + s.e.dur - s.child);
        stack[stack.length - 1].child += s.e.dur;
      }
    };
    for (const e of inside) {
      if (isTask(e)) continue;
      close(e.ts);
      stack.push({ e, child: 0 });
    }
    close(Infinity);
    self.set('(task, unattributed)', t.dur - stack[0].child);
    const parts = [...self.entries()]
      .map(([name, us]) => ({ name, ms: us / 1000 }))
      .filter((p) => p.ms > 0)
      .sort((a, b) => b.ms - a.ms);
    for (const p of parts) top.set(p.name, (top.get(p.name) ?? 0) + p.ms);
    tasks.push({
      wall_ms: t.dur / 1000,
      cpu_ms: Number.isFinite(t.tdur) ? t.tdur / 1000 : null,
      parts: parts.slice(0, n),
    });
  }
  const wall = tasks.reduce((s, t) => s + t.wall_ms, 0);
  const cpu = tasks.every((t) => t.cpu_ms !== null) ? tasks.reduce((s, t) => s + t.cpu_ms, 0) : null;
  return {
    tasks,
    top: [...top.entries()]
      .map(([name, ms]) => ({ name, ms, share: wall ? ms / wall : 0 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, n),
    wall_ms: wall,
    cpu_ms: cpu,
  };
}

/**
 * Where each thread of the page spent a traced run (the JSON of browser.stopTracing(), with the
 * 'toplevel' and 'blink.user_timing' categories): between the user-timing marks `from` and `to`
 * (the page's performance.mark), for the renderer's main thread (the CrRendererMain thread with the
 * most tasks) and each dedicated worker thread with a task in that window: its busy ms (the top-level
 * tasks clipped to the window, on the wall), its CPU ms where the trace has it, the ms before its first
 * task and after its last one, and its idle ms between tasks split into gaps under 1 ms, 1-10 ms
 * and over 10 ms. {window_ms, main, workers: [...]}, or null when a mark is missing.
 */
export function threadBusy(trace, { from = 'bench-start', to = 'bench-verdict' } = {}) {
  const events = Array.isArray(trace) ? trace : (trace.traceEvents ?? []);
  const markTs = (name) => {
    const e = events.find((x) => x.name === name && Number.isFinite(x.ts) && /user_timing/.test(x.cat ?? ''));
    return e ? e.ts : null;
  };
  const t0 = markTs(from);
  const t1 = markTs(to);
  if (t0 === null || t1 === null || t1 <= t0) return null;
  const key = (e) => `${e.pid}:${e.tid}`;
  const names = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(key(e), e.args?.name ?? '');
  const isTask = (e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask';
  const byThread = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || !Number.isFinite(e.dur) || !isTask(e)) continue;
    const k = key(e);
    if (!byThread.has(k)) byThread.set(k, []);
    byThread.get(k).push(e);
  }
  const summary = (tasks) => {
    tasks.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    let busy = 0;
    let cpu = 0;
    let cpuKnown = true;
    let end = -Infinity;
    let first = null;
    let last = null;
    const gaps = { under_1ms: 0, ms_1_to_10: 0, over_10ms: 0, count_over_10ms: 0 };
    for (const t of tasks) {
      if (t.ts < end) continue; // nested in the task before
      const a = Math.max(t.ts, t0);
      const b = Math.min(t.ts + t.dur, t1);
      end = t.ts + t.dur;
      if (b <= a) continue;
      if (last !== null) {
        const gap = (a - last) / 1000;
        if (gap < 1) gaps.under_1ms += gap;
        else if (gap <= 10) gaps.ms_1_to_10 += gap;
        else {
          gaps.over_10ms += gap;
          gaps.count_over_10ms++;
        }
      }
      first ??= a;
      last = b;
      busy += b - a;
      if (Number.isFinite(t.tdur)) cpu += (t.tdur * (b - a)) / t.dur;
      else cpuKnown = false;
    }
    const r = (x) => Math.round(x * 10) / 10;
    return {
      tasks: tasks.length,
      busy_ms: r(busy / 1000),
      cpu_ms: cpuKnown ? r(cpu / 1000) : null,
      before_ms: first === null ? null : r((first - t0) / 1000),
      after_ms: last === null ? null : r((t1 - last) / 1000),
      gaps_ms: Object.fromEntries(Object.entries(gaps).map(([k, v]) => [k, k.startsWith('count') ? v : r(v)])),
    };
  };
  const inWindow = (tasks) => tasks.some((t) => t.ts < t1 && t.ts + t.dur > t0);
  const mains = [...byThread.keys()].filter((k) => names.get(k) === 'CrRendererMain' && inWindow(byThread.get(k)));
  const main = mains.sort((a, b) => byThread.get(b).length - byThread.get(a).length)[0];
  const workers = [...byThread.keys()].filter(
    (k) => /DedicatedWorker/.test(names.get(k) ?? '') && inWindow(byThread.get(k)),
  );
  return {
    window_ms: Math.round((t1 - t0) / 100) / 10,
    main: main ? summary(byThread.get(main)) : null,
    workers: workers.map((k) => summary(byThread.get(k))).sort((a, b) => b.busy_ms - a.busy_ms),
  };
}
