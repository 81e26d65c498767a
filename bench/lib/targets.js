// The targets a benchmark report is judged against (bench/run.js writes them into
// latest.json and latest.md): each {id, group, text, measured, met, note}, met
// true, false, or null when not measured (`measured` then says why).
//   speed     the page and the engine: every figure measured in the same run,
//             the page's in headless Chromium, the ratios from interleaved rounds;
//   training  the training table (bench/lib/train.js);
//   peak      the machine's own limit and the lab claims' training against it (bench/lib/peak.js);
//   lab       the lab with seeds, its long tasks and the page at 1x and 3x CPU (bench/lib/lab.js);
//   earlier   targets of earlier work, still measured and reported.

const fmt = (x, d = 2) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : Number(x).toFixed(d));
const every = (pairs, ok) => {
  const known = pairs.filter(([, x]) => x !== null);
  return known.length ? known.every(([, x]) => ok(x)) : null;
};
// "scalar time / SIMD time: default 5.40x, deep 4.20x", or why nothing was measured.
const perScene = (lead, pairs, d = 2) =>
  pairs.length
    ? `${lead}: ${pairs.map(([s, x]) => `${s} ${fmt(x, d)}x`).join(', ')}`
    : 'not measured: the engine part did not run';
/** A fraction as a percentage with one decimal ('n/a' when not measured). */
export const pct = (x) => (x === null || x === undefined ? 'n/a' : `${fmt(100 * x, 1)}%`);
const notMeasured = (part, what) => `not measured: ${part?.reason || part?.skipped || `${what} did not run`}`;

// Time / WASM SIMD time of contender c on a scene of part 1, or null.
function engineRatio(scenes, scene, c) {
  const x = scenes[scene]?.contenders?.[c];
  return x && !x.skipped && Number.isFinite(x.ratio_to_wasm_simd) ? x.ratio_to_wasm_simd : null;
}

// WASM SIMD time / native time on every scene of part 1, within 1.15x on each.
function wasmVsNative(add, scenes, native, id, text) {
  const w = Object.keys(scenes).map((s) => {
    const r = engineRatio(scenes, s, native);
    return [s, r === null ? null : 1 / r];
  });
  add(
    id,
    text,
    perScene('WASM SIMD time / native time', w),
    every(w, (x) => x <= 1.15),
  );
}

function speedTargets(report, add) {
  const e = report.engine?.scenes || {};
  const scenes = Object.keys(e);
  const ratio = (scene, c) => engineRatio(e, scene, c);
  const b = report.browser;
  const ok = b?.status === 'ok';
  const why = notMeasured(b, 'the browser part');
  {
    const s = ok ? b.slider : null;
    const one = (id) => `${id} p95 ${fmt(s[id].p95_ms, 1)} ms, median ${fmt(s[id].median_ms, 1)} ms`;
    add(
      'slider_default',
      'slider step, input to repaint, default scene: p95 <= 16 ms and median <= 8 ms, depth and gain sliders',
      ok ? `${one('depth')}; ${one('gain')}` : why,
      ok ? ['depth', 'gain'].every((id) => s[id].p95_ms <= 16 && s[id].median_ms <= 8) : null,
    );
  }
  {
    const d = b?.deep;
    const dok = ok && d?.status === 'ok';
    const g = dok ? d.slider.gain : null;
    add(
      'slider_deep',
      'deep scene (deepnorm + post_ln, L=1000) in the explorer: slider step p95 <= 50 ms',
      dok
        ? `gain slider at ${d.link}: p95 ${fmt(g.p95_ms, 1)} ms, median ${fmt(g.median_ms, 1)} ms (${g.n} steps)`
        : ok
          ? notMeasured(d, 'the deep scene')
          : why,
      dok ? g.p95_ms <= 50 : null,
      'the depth slider ends at 96: the gain slider, at L=1000',
    );
  }
  {
    const p = b?.papers;
    const pok = ok && p?.status === 'ok';
    const pwhy = ok ? notMeasured(p, 'the papers page') : why;
    add(
      'papers_verdicts',
      "papers page: the article's six panels show their measured verdicts <= 3 s after navigation (cold load)",
      pok
        ? `median ${fmt(p.six_verdicts.median_ms, 0)} ms, max ${fmt(p.six_verdicts.max_ms, 0)} ms over ${p.loads} cold loads`
        : pwhy,
      pok ? p.six_verdicts.median_ms <= 3000 : null,
    );
    add(
      'papers_all_verdicts',
      'papers page: every panel, those that train included, shows its measured verdict (cold load)',
      pok
        ? `median ${fmt(p.all_verdicts.median_ms, 0)} ms, max ${fmt(p.all_verdicts.max_ms, 0)} ms over ${p.loads} cold loads`
        : pwhy,
      pok ? true : null,
      'a reporting target',
    );
    const c = pok ? p.recompute_config : null;
    add(
      'papers_recompute',
      'papers page: transformer-scene recompute (L=96, d=64, T=16, 4 heads, 4 archs) median <= 50 ms in the page',
      pok
        ? `median ${fmt(p.recompute.median_ms, 1)} ms (the page's own figure, median over ${p.loads} loads; ${c.arch.length} archs, L=${c.depth}, d=${c.width}, T=${c.tokens}, ${c.heads} heads)`
        : pwhy,
      pok ? p.recompute.median_ms <= 50 : null,
    );
  }
  add(
    'first_chart',
    'first chart painted after navigation from localhost: median <= 400 ms over 5 cold loads',
    ok
      ? `median ${fmt(b.first_chart.median_ms, 0)} ms, max ${fmt(b.first_chart.max_ms, 0)} ms over ${b.first_chart.loads} cold loads`
      : why,
    ok ? b.first_chart.median_ms <= 400 : null,
  );
  {
    wasmVsNative(
      add,
      e,
      'native-v2-clang',
      'wasm_vs_native_clang',
      'WASM SIMD vs native clang 14 -O3 -march=x86-64-v2: <= 1.15x on every scene',
    );
    const sc = scenes.map((s) => [s, ratio(s, 'wasm-scalar')]);
    add(
      'wasm_vs_scalar',
      'WASM SIMD vs scalar WASM: >= 4.5x on every scene',
      perScene('scalar time / SIMD time', sc),
      every(sc, (x) => x >= 4.5),
    );
  }
  {
    const l = b?.lab;
    const lok = ok && l?.status === 'ok';
    add(
      'lab_long_tasks',
      'training lab: no main-thread task over 50 ms from Start to done (three runs, a logged step per update)',
      lok
        ? `${l.count} over 50 ms in ${l.loads.length} runs of ${l.loads.map((r) => `${r.seconds} s`).join(', ')}${l.count ? `: ${l.loads.map((r) => r.tasks_ms.join(' / ') || 'none').join('; ')} ms` : ''}`
        : ok
          ? notMeasured(l, 'the lab')
          : why,
      lok ? l.count === 0 : null,
    );
  }
  {
    const p = b?.pool;
    const pok = ok && p?.status === 'ok';
    const rows = pok ? p.rows.filter((r) => r.k > 1) : [];
    add(
      'pool',
      'the pool: k workers vs 1 worker, default scene in the page, throughput ratio (ideal k)',
      pok
        ? rows
            .map(
              (r) =>
                `k=${r.k}${r.k === p.page_pool_size ? " (the page's pool here)" : ''}: ${fmt(r.sequential.ratio)}x one request at a time, ${fmt(r.concurrent.ratio)}x with ${p.calls} at once`,
            )
            .join('; ') + ` (${p.cores} cores)`
        : ok
          ? notMeasured(p, 'the pool')
          : why,
      pok ? true : null,
      'a reporting target',
    );
  }
  {
    const g = report.scaling;
    const sw = g?.scaling?.sweeps;
    add(
      'scaling',
      'recompute time against L (24..1000), d (16..512), T (1..64), with fitted exponents (part 5)',
      sw
        ? `exponents: ${Object.entries(sw)
            .map(([k, v]) => `${k} ${fmt(v.exponent)}`)
            .join(', ')}`
        : notMeasured(g, 'part 5'),
      sw ? true : null,
      'a reporting target',
    );
  }
}

function trainingTargets(report, add) {
  const t = report.training;
  const c = t?.contenders;
  const get = (n) => (c?.[n] && !c[n].skipped ? c[n] : null);
  const native = get('native-v2-clang'),
    node = get('wasm-simd'),
    page = get('wasm-simd-page'),
    tfjs = get('tfjs');
  const why = (n, label = n) =>
    `${label}: not measured: ${c?.[n]?.skipped ?? t?.reason ?? 'the training part did not run'}`;
  const wasm = [
    ['Node', node, 'wasm-simd'],
    ['page', page, 'wasm-simd-page'],
  ];
  // "Node 1.05x, page 1.10x", a contender not measured saying why.
  const each = (value, unit) =>
    wasm.map(([w, x, n]) => [w, x ? value(x) : null, x ? `${w} ${unit(value(x))}` : why(n, w)]);
  {
    const pairs = native
      ? each(
          (x) => x.median_ms / native.median_ms,
          (r) => `${fmt(r)}x`,
        )
      : [];
    add(
      'train_vs_native',
      'training: WASM SIMD within 1.2x of native (clang 14, -march=x86-64-v2)',
      native ? `WASM SIMD time / native time: ${pairs.map((p) => p[2]).join(', ')}` : why('native-v2-clang', 'native'),
      every(pairs, (x) => x <= 1.2),
    );
  }
  {
    const r = node && tfjs ? tfjs.median_ms / node.median_ms : null;
    add(
      'train_vs_tfjs',
      'training: WASM SIMD at least 10x TF.js (wasm backend, the same model and batch, Node)',
      r !== null
        ? `TF.js time / WASM SIMD time: ${fmt(r, 1)}x`
        : [node ? null : why('wasm-simd', 'Node'), tfjs ? null : why('tfjs', 'TF.js')].filter(Boolean).join('; '),
      r === null ? null : r >= 10,
    );
  }
  {
    const pairs = each(
      (x) => x.tokens_per_s,
      (v) => `${Math.round(v).toLocaleString('en-US')} tokens/s`,
    );
    add(
      'train_tokens',
      'training: at least 10,000 training tokens/s per worker (WASM SIMD, one trainer in one worker)',
      pairs.map((p) => p[2]).join(', '),
      every(pairs, (x) => x >= 10000),
    );
  }
  {
    const m = t?.memory;
    const mb = (b) => (Number.isFinite(b) ? `${fmt(b / 2 ** 20, 0)} MB` : 'n/a');
    const heap = m?.config?.heap_bytes;
    const big = m?.largest;
    const parts = [];
    parts.push(
      heap
        ? `this config ${mb(heap.after_steps ?? heap.trainer)} (core's estimate ${mb(m.config.estimate?.bytes)})`
        : why('wasm-simd', 'this config'),
    );
    parts.push(
      big?.heap_bytes
        ? `the largest allowed config ${mb(big.heap_bytes.after_steps)} (estimate ${mb(big.estimate_bytes)})`
        : `the largest allowed config: not measured: ${big?.skipped ?? 'n/a'}`,
    );
    add(
      'train_memory',
      'training: wasm heap for this config and for the largest allowed training config',
      parts.join('; '),
      heap || big?.heap_bytes ? true : null,
      'a reporting target',
    );
  }
}

function peakTargets(report, add) {
  const p = report.peak;
  const c = report.claims;
  const load = (l) => `load ${l.map((x) => fmt(x, 1)).join(' → ')}`;
  const where = (x, name) =>
    x && !x.skipped
      ? `${name} ${fmt(x.peak_gflops, 1)} GFLOP/s (${x.best_chains} chains; ${load(x.loadavg)})`
      : `${name}: not measured: ${x?.skipped ?? 'n/a'}`;
  const loopOk = p?.loop && !p.loop.skipped ? Object.values(p.loop).every((l) => l.ok) : null;
  add(
    'peak',
    'peak f32x4 mul + add rate of one core in WASM SIMD (no FMA in WASM SIMD 128), best of 4, 8, 12, 16 chains',
    p?.status === 'ok'
      ? `${where(p.node, 'Node')}; ${where(p.page, 'page')}; loop ${
          loopOk === null
            ? `not checked: ${p.loop.skipped}`
            : loopOk
              ? 'f32x4.mul + f32x4.add (wasm-objdump)'
              : '**not the vector loop**'
        }`
      : notMeasured(p, 'the peak part'),
    p?.status === 'ok' && p.node && !p.node.skipped ? loopOk !== false : null,
    'a reporting target',
  );
  const claims = c?.claims ?? [];
  const frac = (r) => `${r.claim} ${pct(r.fraction_of_peak)} (fastest ${pct(r.fraction_of_peak_fastest)})`;
  const tf = claims.filter((r) => r.transformer);
  const pairs = tf.map((r) => [r.claim, r.fraction_of_peak]);
  const loads = (c?.runs ?? []).map((r) => r.loadavg);
  const span = loads.length ? `; load ${fmt(Math.min(...loads), 1)}–${fmt(Math.max(...loads), 1)}` : '';
  add(
    'claims_peak',
    `training at each transformer claim's shapes (WASM SIMD, Node, one trainer) >= ${100 * (c?.target_fraction ?? 0.5)}% of the Node peak`,
    tf.length ? `${tf.map(frac).join(', ')}${span}` : notMeasured(c, 'the claims part'),
    tf.length ? every(pairs, (x) => x >= (c.target_fraction ?? 0.5)) : null,
  );
  const mlp = claims.filter((r) => !r.transformer);
  add(
    'claims_peak_mlp',
    "training at each MLP claim's shapes (teacher task), as a fraction of the Node peak",
    mlp.length ? mlp.map(frac).join(', ') : notMeasured(c, 'the claims part'),
    mlp.length ? true : null,
    'a reporting target',
  );
}

/** The lab's ratio target: Start to verdict on the page's pool within this factor of the ideal. */
export const LAB_IDEAL_TARGET = 1.25;

const loadText = (l) => (l?.length ? `load ${fmt(Math.min(...l), 1)}–${fmt(Math.max(...l), 1)}` : 'load n/a');
const secs = (ms) => `${fmt(ms / 1000, 1)} s`;

// "top: (program) 41%, draw (chart.js:12) 9%": a profile's first functions.
const topText = (top) =>
  Array.isArray(top) && top.length
    ? `top: ${top
        .slice(0, 3)
        .map((t) => `${t.name}${t.where ? ` (${t.where})` : ''} ${fmt(100 * t.share, 0)}%`)
        .join(', ')}`
    : '';

function labTargets(report, add) {
  const l = report.lab;
  const ok = l?.status === 'ok';
  const why = notMeasured(l, 'the lab part');
  const claims = ok && Array.isArray(l.claims) ? l.claims : [];
  const done = claims.filter((c) => !c.skipped && c.ratio !== null);
  const skipped = claims.filter((c) => c.skipped).map((c) => `${c.claim}: not measured: ${c.skipped}`);
  const loads = done.flatMap((c) => c.loadavg);
  const cwhy = ok ? (Array.isArray(l.claims) ? 'no claim ran' : notMeasured(l.claims, 'the claims')) : why;
  add(
    'lab_claims_ideal',
    `each lab claim on its ${done[0]?.seeds ?? 5} seeds, Start to verdict in the page (its pool): <= ${LAB_IDEAL_TARGET}x the ideal (one worker's own time for every run x seed / the pool's size)`,
    done.length
      ? `${done.map((c) => `${c.claim} ${fmt(c.ratio)}x`).join(', ')} (pool of ${done[0].pool}; ${loadText(loads)})${skipped.length ? `; ${skipped.join('; ')}` : ''}`
      : cwhy,
    done.length ? done.every((c) => c.ratio <= LAB_IDEAL_TARGET) && !skipped.length : null,
  );
  add(
    'lab_claims_seconds',
    'each lab claim on its seeds, quick setting: Start to verdict in seconds (the ideal in brackets)',
    done.length
      ? `${done.map((c) => `${c.claim} ${secs(c.start_to_verdict_ms)} (${secs(c.ideal_ms)})`).join(', ')}; ${loadText(loads)}`
      : cwhy,
    done.length ? true : null,
    'a reporting target',
  );
  {
    const deep = ok && Array.isArray(l.deep) ? l.deep : [];
    const measured = deep.filter((d) => d.measured);
    const absent = deep.filter((d) => d.measured === false && /no deep choice/.test(d.note ?? ''));
    const text = !deep.length
      ? ok
        ? notMeasured(l.deep, 'the deep settings')
        : why
      : absent.length === deep.filter((d) => !d.same_as_quick).length
        ? 'deep: not measured, the lab has no deep choice in this build'
        : deep
            .map((d) =>
              d.measured
                ? `${d.claim} ${secs(d.start_to_verdict_ms)} (L=${d.depth}, ${d.seeds} seed${d.seeds === 1 ? '' : 's'}, load ${fmt(d.loadavg?.[1], 1)})`
                : d.same_as_quick
                  ? `${d.claim}: the quick setting (already the paper's depth)`
                  : `${d.claim}: ${d.note}`,
            )
            .join(', ');
    add(
      'lab_claims_deep',
      'each lab claim at its deep setting (#preset=<claim>&setting=deep): Start to verdict in seconds, on fewer seeds',
      text,
      measured.length ? true : null,
      'a reporting target',
    );
  }
  {
    const t = ok ? l.longtasks : null;
    const tok = t?.status === 'ok';
    const rate = t?.rate ?? 3;
    for (const key of ['x1', `x${rate}`]) {
      const r = tok ? t.runs[key] : null;
      const slow = key !== 'x1';
      const through =
        slow && r
          ? `; the ${t.rate}x throttle slowed a fixed loop ${fmt(t.main_slowdown)}x on the main thread and ${fmt(t.worker_loop_slowdown)}x in a worker, the trainers' ms per update ${fmt(t.worker_step_slowdown)}x`
          : '';
      const tr = tok ? t.traced?.[key] : null;
      const traced = tr?.tasks
        ? `; traced again: ${tr.count} over 50 ms, ${fmt(tr.wall_ms, 0)} ms on the wall and ${fmt(tr.cpu_ms, 0)} ms on the main thread's CPU, the most in ${tr.top
            .slice(0, 3)
            .map((x) => `${x.name} ${fmt(100 * x.share, 0)}%`)
            .join(', ')}`
        : '';
      add(
        `lab_long_tasks_${key}`,
        `training lab, the Warmup claim on ${t?.seeds ?? 5} seeds x 3 runs, Start to done${slow ? `, the page's CPU slowed ${rate}x (CDP)` : ''}: no main-thread task over 50 ms`,
        r
          ? `${r.longtasks_ms.length} over 50 ms in ${secs(r.done_ms)}${r.longtasks_ms.length ? ` (longest ${Math.max(...r.longtasks_ms)} ms)` : ''}${through}${traced}; ${loadText(r.loadavg)}`
          : ok
            ? notMeasured(t, 'the long tasks')
            : why,
        r ? r.longtasks_ms.length === 0 : null,
      );
    }
  }
  {
    const p = ok ? l.page : null;
    const pok = p?.status === 'ok';
    for (const rate of pok ? p.rates : [1, 3]) {
      const at = pok ? p[`x${rate}`] : null;
      const cpu = rate === 1 ? 'at 1x' : `with the page's CPU slowed ${rate}x`;
      const load = at ? `; load ${fmt(at.loadavg, 1)}` : '';
      const miss = (k) => (at?.met[k] === false ? `; ${topText(at.profile?.[k])}` : '');
      const gone = (x, what) => (pok ? notMeasured(x, what) : ok ? notMeasured(p, 'the page rows') : why);
      const s = at?.slider;
      add(
        `lab_page_slider_x${rate}`,
        `slider step, input to repaint, default scene, ${cpu}: p95 <= ${p?.targets?.slider_p95_ms ?? 16} ms (depth and gain)`,
        s?.status === 'ok'
          ? `depth p95 ${fmt(s.depth.p95_ms, 1)} ms, gain p95 ${fmt(s.gain.p95_ms, 1)} ms (${s.depth.n} steps each)${miss('slider')}${load}`
          : gone(s, 'the slider'),
        at ? at.met.slider : null,
      );
      const c = at?.first_chart;
      add(
        `lab_page_first_chart_x${rate}`,
        `first chart painted after navigation, ${cpu}: median <= ${p?.targets?.first_chart_ms ?? 400} ms`,
        c?.status === 'ok'
          ? `median ${fmt(c.median_ms, 0)} ms over ${c.n} cold loads${miss('first_chart')}${load}`
          : gone(c, 'the first chart'),
        at ? at.met.first_chart : null,
      );
      const pp = at?.papers;
      add(
        `lab_page_papers_x${rate}`,
        `papers page, the article's six verdicts after navigation, ${cpu}: median <= ${fmt((p?.targets?.papers_six_ms ?? 3000) / 1000, 0)} s`,
        pp?.status === 'ok'
          ? `median ${fmt(pp.six_verdicts.median_ms, 0)} ms over ${pp.loads} cold loads${miss('papers')}${load}`
          : gone(pp, 'the papers page'),
        at ? at.met.papers : null,
      );
    }
  }
}

function earlierTargets(report, add) {
  const e = report.engine?.scenes || {};
  const scenes = Object.keys(e);
  const ratio = (scene, c) => engineRatio(e, scene, c);
  wasmVsNative(
    add,
    e,
    'native-v2',
    'wasm_vs_native_v2',
    "WASM SIMD within 1.15x of native g++ 12 -O3 -march=x86-64-v2 (the project's native compiler)",
  );
  for (const [c, k, id, name] of [
    ['js', 10, 'wasm_vs_js', 'plain JS'],
    ['tfjs', 30, 'wasm_vs_tfjs', 'TF.js'],
  ]) {
    const r = ratio('default', c);
    add(
      id,
      `WASM SIMD at least ${k}x faster than ${name} on the default scene`,
      perScene(
        `${name} time / SIMD time`,
        scenes.map((s) => [s, ratio(s, c)]),
        1,
      ),
      r === null ? null : r >= k,
    );
  }
  {
    const d = e.default?.contenders?.['wasm-simd'];
    const ti = report.engine?.tiering;
    const ok = d && !d.skipped;
    add(
      'tiering',
      'first call and steady state reported separately (V8: Liftoff first, TurboFan later)',
      ok
        ? `default scene: instantiate ${fmt(d.load_ms, 1)} ms, first call ${fmt(d.first_ms, 1)} ms, calls 2-${1 + d.warmup_ms.length} ` +
            `${d.warmup_ms.map((x) => fmt(x, 1)).join(' / ')} ms, steady ${fmt(d.median_ms)} ms; Liftoff only ${fmt(ti?.liftoff_only?.median_ms)} ms, ` +
            `TurboFan only ${fmt(ti?.turbofan_only?.median_ms)} ms`
        : 'not measured: the engine part did not run',
      ok ? true : null,
      'a reporting target',
    );
  }
  {
    const sz = report.browser?.sizes;
    add(
      'bytes',
      'page, wasm and JS under 350 KB gzip together',
      sz
        ? `${fmt(sz.totals.all / 1024, 1)} KB (page ${fmt(sz.totals.page / 1024, 1)}, JS ${fmt(sz.totals.js / 1024, 1)}, wasm ${fmt(sz.totals.wasm / 1024, 1)})`
        : notMeasured(report.browser, 'the browser part'),
      sz ? sz.totals.all < 350 * 1024 : null,
    );
  }
  {
    const d = e.deep?.contenders?.['wasm-simd'];
    const ok = d && !d.skipped;
    add(
      'deep_100ms',
      'deep scene (deepnorm + post_ln, L=1000) under 100 ms in WASM SIMD (Node)',
      ok
        ? `median ${fmt(d.median_ms, 1)} ms (p90 ${fmt(d.p90_ms, 1)} ms)`
        : 'not measured: the engine part did not run',
      ok ? d.median_ms < 100 : null,
    );
  }
}

export const TARGET_GROUPS = {
  speed: 'Speed: the page and the engine',
  training: 'Training',
  peak: "The machine's own limit: the peak and the lab claims against it",
  lab: 'The lab with seeds, long tasks and the CPU slowed 3x (part 8)',
  earlier: 'Earlier targets, still measured',
};

export function targets(report) {
  const t = [];
  for (const [group, fn] of [
    ['speed', speedTargets],
    ['training', trainingTargets],
    ['peak', peakTargets],
    ['lab', labTargets],
    ['earlier', earlierTargets],
  ])
    fn(report, (id, text, measured, met, note = '') => t.push({ id, group, text, measured, met, note }));
  return t;
}
