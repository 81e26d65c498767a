// The Markdown table of a benchmark report (bench/run.js writes it to latest.md).

const f = (x, d = 2) => (x === null || x === undefined || !Number.isFinite(Number(x)) ? 'n/a' : Number(x).toFixed(d));
// 3 significant digits for times from 0.01 ms to 100 s.
function ms(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return 'n/a';
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  if (x >= 1) return x.toFixed(2);
  return x.toFixed(3);
}
const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
const mark = (met) => (met === true ? 'met' : met === false ? '**not met**' : 'not measured');

function table(head, rows) {
  const out = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const r of rows) out.push(`| ${r.join(' | ')} |`);
  return out.join('\n');
}

function checkText(c) {
  if (!c) return 'n/a';
  if (c.reference) return 'reference';
  if (c.skipped) return `not checked: ${c.skipped}`;
  if (c.error) return `error: ${c.error}`;
  const rel = c.max_rel === 0 ? 'identical' : `max rel ${c.max_rel.toExponential(1)}`;
  return `${c.ok ? 'ok' : '**MISMATCH**'}, ${rel}${c.nonfinite_mismatches ? `, ${c.nonfinite_mismatches} non-finite mismatches` : ''}`;
}

function engineSection(engine) {
  const parts = [];
  for (const [name, s] of Object.entries(engine.scenes)) {
    parts.push(`### Scene ${name}: ${s.title.replace(/^[a-z]+: /, '')}\n`);
    parts.push(
      `${(s.flops / 1e6).toFixed(1)} MFLOP per recompute; ${s.rounds} interleaved rounds. First call: in a new process (compilers, weight bank, workspaces); in brackets, a new engine object in the warm process (weight bank and workspaces only).\n`,
    );
    const rows = [];
    for (const [c, e] of Object.entries(s.contenders)) {
      if (e.skipped) {
        rows.push([`\`${c}\``, e.label, `skipped: ${e.skipped}`, '', '', '', '', '', '']);
        continue;
      }
      rows.push([
        `\`${c}\``,
        e.isa ? `${e.label} [${e.isa}]` : e.label,
        ms(e.first_ms) + (e.first_ms_warm_code !== undefined ? ` (${ms(e.first_ms_warm_code)})` : ''),
        `**${ms(e.median_ms)}**`,
        `${ms(e.p10_ms)} – ${ms(e.p90_ms)}`,
        String(e.n),
        f(e.gflops, 2),
        c === 'wasm-simd'
          ? '1 (reference)'
          : `${f(e.ratio_to_wasm_simd, 2)}x${e.ratio_round_range ? ` (${f(e.ratio_round_range[0], 2)}–${f(e.ratio_round_range[1], 2)})` : ''}`,
        checkText(e.check),
      ]);
    }
    parts.push(
      table(
        [
          'id',
          'contender',
          'first call ms (warm code)',
          'median ms',
          'p10 – p90 ms',
          'n',
          'GFLOP/s',
          'time / WASM SIMD (per-round range)',
          'same numbers',
        ],
        rows,
      ),
    );
    if (s.wasm_copy_out && !s.wasm_copy_out.skipped)
      parts.push(
        `\nWASM SIMD: the engine call alone ${ms(s.wasm_copy_out.engine_call.median_ms)} ms, simulate() with the copies of the results out of the wasm heap ${ms(s.wasm_copy_out.simulate.median_ms)} ms (medians).`,
      );
    parts.push('');
  }
  const t = engine.tiering;
  const d = engine.scenes.default?.contenders?.['wasm-simd'];
  if (t && d && !d.skipped) {
    parts.push('### WASM SIMD: first call and steady state (default scene, V8 ' + (d.info?.v8 || '') + ')\n');
    const rows = [
      [
        'default (Liftoff, then TurboFan for hot functions)',
        ms(d.load_ms),
        ms(d.first_ms),
        d.warmup_ms.map(ms).join(' / '),
        ms(d.median_ms),
      ],
    ];
    for (const v of Object.values(t)) {
      if (v.skipped) rows.push([v.label, `skipped: ${v.skipped}`, '', '', '']);
      else rows.push([v.label, ms(v.load_ms), ms(v.first_ms), v.warmup_ms.map(ms).join(' / '), ms(v.median_ms)]);
    }
    if (d.first_ms_warm_code !== undefined)
      rows.push([
        'warm code, new engine object (weight bank and workspaces only)',
        '-',
        ms(d.first_ms_warm_code),
        '-',
        '-',
      ]);
    parts.push(table(['V8 tiers', 'instantiate ms', 'first call ms', 'calls 2, 3, ... ms', 'steady median ms'], rows));
    parts.push(
      '\nEvery first call also fills the weight bank (splitmix64 + polar method for every layer) and allocates the workspaces; the last row is that part alone. Node 20 compiles wasm lazily: a function is compiled (by Liftoff) on its first call.\n',
    );
  }
  return parts.join('\n');
}

function normsSection(n) {
  const parts = [
    `Each call normalizes T tokens of width d with T d = ${n.elements_per_call} floats; median of ${n.samples} interleaved samples; saving = 1 - RMSNorm time / LayerNorm time.\n`,
  ];
  for (const r of Object.values(n.runtimes)) {
    if (r.skipped) {
      parts.push(`**${r.label}**: skipped: ${r.skipped}\n`);
      continue;
    }
    parts.push(`**${r.label}** (µs per call)\n`);
    const us = (x) => f(x * 1000, 1);
    parts.push(
      table(
        ['d', 'T', 'LN fwd', 'RMS fwd', 'saving fwd', 'LN bwd', 'RMS bwd', 'saving bwd', 'saving fwd+bwd'],
        r.rows.map((row) => [
          row.d,
          row.T,
          us(row.ln_fwd.median_ms),
          us(row.rms_fwd.median_ms),
          `${f(row.saving_pct.fwd, 0)}%`,
          us(row.ln_bwd.median_ms),
          us(row.rms_bwd.median_ms),
          `${f(row.saving_pct.bwd, 0)}%`,
          `**${f(row.saving_pct.fwd_bwd, 0)}%**`,
        ]),
      ),
    );
    parts.push('');
  }
  return parts.join('\n');
}

// "wasm: void ns::f<float>(float const*, ...)" -> "wasm: ns::f<float>(…)".
function shortName(name) {
  const n = name.replace(/\(anonymous namespace\)::/g, '').replace(/^(wasm|js): void /, '$1: ');
  const i = n.indexOf('(', n.indexOf(': ') + 3);
  return (i > 0 ? `${n.slice(0, i)}(…)` : n).slice(0, 90);
}

function cpuProfileSection(engine) {
  const cols = [];
  for (const [scene, s] of Object.entries(engine.scenes))
    for (const [rt, pr] of Object.entries(s.cpuprofile || {}))
      if (pr && !pr.skipped) cols.push({ key: `${scene} ${rt}`, pr });
  if (!cols.length) return '';
  const labels = [...new Set(cols.flatMap((c) => c.pr.buckets.map((b) => b.label)))].filter((l) =>
    cols.some((c) => c.pr.buckets.find((b) => b.label === l)?.share > 0),
  );
  const rows = labels.map((l) => [
    l,
    ...cols.map((c) => {
      const b = c.pr.buckets.find((x) => x.label === l);
      return b && b.share > 0 ? `${f(100 * b.share, 1)}% (${ms(b.ms_per_call)})` : '-';
    }),
  ]);
  rows.push(['**one call**', ...cols.map((c) => `${ms(c.pr.ms_per_call)} ms, ${c.pr.samples} samples`)]);
  const out = [
    "### The shipped WASM build under V8's sampling profiler (Node)\n",
    "Self time of each function during steady-state simulate() calls, wasm functions named from the build's symbol map (--emit-symbol-map); what a function inlines counts as that function. Share of samples (ms per call):\n",
    table(['bucket', ...cols.map((c) => c.key)], rows),
  ];
  const d = cols.find((c) => c.key === 'default wasm-simd');
  if (d)
    out.push(
      '\nTop functions, default scene, WASM SIMD:\n\n' +
        table(
          ['function', 'share', 'ms per call'],
          d.pr.top.slice(0, 10).map((t) => [`\`${shortName(t.name)}\``, `${f(100 * t.share, 1)}%`, ms(t.ms_per_call)]),
        ),
    );
  return out.join('\n') + '\n';
}

function profileSection(p) {
  const rows = [];
  for (const [scene, e] of Object.entries(p.scenes))
    for (const [rt, v] of Object.entries(e)) {
      if (v.skipped) {
        rows.push([scene, rt, `skipped: ${v.skipped}`, '', '', '', '', '', '']);
        continue;
      }
      const rest = v.forward_ms + v.backward_ms + v.result_ms - v.kernels_ms - v.norms_ms;
      const pct = (x) => `${ms(x)} (${f((100 * x) / v.total_ms, 0)}%)`;
      rows.push([
        scene,
        rt,
        ms(v.total_ms),
        pct(v.kernels_ms),
        pct(v.norms_ms),
        pct(Math.max(0, rest - v.result_ms)),
        pct(v.result_ms),
        ms(v.forward_ms),
        ms(v.backward_ms),
      ]);
    }
  return (
    table(
      [
        'scene',
        'runtime',
        'recompute ms',
        'GEMM kernels',
        'norms',
        'elementwise + glue',
        'metrics (result)',
        'forward ms',
        'backward ms',
      ],
      rows,
    ) +
    '\n\nGEMM kernels and norms are replays of exactly the calls of one recompute (bench/phases.h); elementwise + glue = forward + backward − kernels − norms (activations, skip sums, update-ratio norms, zeroing); metrics = Model::result() (per-layer norms in double).\n'
  );
}

function browserSection(b) {
  if (!b) return '';
  if (b.status !== 'ok') {
    const lines = [`${b.status}: ${b.reason}`];
    if (b.sizes) lines.push('', sizesTable(b.sizes));
    return lines.join('\n') + '\n';
  }
  const parts = [
    `${b.chromium}, headless, served by scripts/serve.js from localhost (no compression on the wire; sizes below are gzip -9 of the files the page requested).\n`,
  ];
  const rows = [
    [
      'navigation → first painted chart',
      ms(b.first_chart.median_ms),
      ms(b.first_chart.p95_ms),
      ms(b.first_chart.max_ms),
      `${b.first_chart.loads} cold loads`,
    ],
  ];
  for (const [id, s] of Object.entries(b.slider))
    rows.push([
      `${id} slider input → repaint`,
      ms(s.median_ms),
      ms(s.p95_ms),
      ms(s.max_ms),
      `${s.n} steps (${s.timed_out} timed out)`,
    ]);
  parts.push(table(['measure', 'median ms', 'p95 ms', 'max ms', 'n'], rows));
  const nav = b.first_chart.navigation || [];
  const med = (k) => {
    const v = nav
      .map((x) => x[k])
      .filter(Number.isFinite)
      .sort((a, c) => a - c);
    return v.length ? v[Math.floor(v.length / 2)] : null;
  };
  parts.push(
    `\nCold loads, medians on the page's clock (0 = navigation start): first contentful paint ${ms(med('fcp'))} ms, DOMContentLoaded ${ms(med('dcl'))} ms, ` +
      `engine worker created ${ms(med('worker_created'))} ms, first request posted ${ms(med('first_request'))} ms, first answer ${ms(med('first_answer'))} ms ` +
      `(of which the first simulate() ${ms(med('first_simulate_ms'))} ms), load event ${ms(med('load'))} ms, first chart painted ${ms(b.first_chart.median_ms)} ms.`,
  );
  const names = {
    to_worker: 'input event → request in the engine worker',
    in_worker: 'in the worker (simulate + postMessage)',
    engine_simulate: '… of which simulate() as the worker times it',
    back_and_draw: 'worker → charts painted (delivery, preparation, uPlot drawing)',
  };
  const split = Object.entries(b.slider).flatMap(([id, s]) =>
    Object.entries(s.split || {}).map(([k, v]) => [id, names[k] || k, ms(v.median_ms), ms(v.p95_ms)]),
  );
  if (split.length)
    parts.push(
      '\nOne slider step, split at the engine worker (its onmessage and postMessage wrapped by the bench):\n\n' +
        table(['slider', 'part', 'median ms', 'p95 ms'], split),
    );
  const fields = Object.entries(b.slider).flatMap(([id, s]) =>
    Object.entries(s.hook_fields || {}).map(([k, v]) => [id, k, ms(v.median_ms), ms(v.p95_ms)]),
  );
  if (fields.length)
    parts.push(
      "\nThe page's own timings (window.__resnorm), per step:\n\n" +
        table(['slider', 'field', 'median ms', 'p95 ms'], fields),
    );
  parts.push('\n' + sizesTable(b.sizes));
  return parts.join('\n') + '\n';
}

function sizesTable(sz) {
  return table(
    ['part', 'files', 'bytes', 'gzip -9'],
    ['page', 'js', 'wasm']
      .map((c) => {
        const files = sz.files.filter((x) => x.category === c);
        return [c, files.map((x) => `\`${x.file}\``).join(', ') || '-', kb(sz.raw_totals[c]), kb(sz.totals[c])];
      })
      .concat([['**all**', String(sz.files.length), kb(sz.raw_totals.all), `**${kb(sz.totals.all)}**`]]),
  );
}

function growthSection(g) {
  if (g.status === 'failed') return `Not measured: ${g.reason}\n`;
  const out = [];
  const s = g.scaling;
  const base = Object.entries(s.base)
    .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(',') : v}`)
    .join(', ');
  out.push(`### Recompute time against size (WASM SIMD, Node; one field at a time from ${base})\n`);
  for (const [field, sw] of Object.entries(s.sweeps)) {
    out.push(
      table(
        [field, ...sw.points.map((p) => String(p.value)), 'fitted exponent'],
        [['ms (median)', ...sw.points.map((p) => ms(p.ms)), f(sw.exponent)]],
      ),
    );
    out.push('');
  }
  out.push('### The slowest configs the budgets allow (core/src/limits.cpp)\n');
  out.push(
    'Each shape at the largest depth its refusal at depth 1024 names. Native: the CLI, one process per call (weights generated, every buffer allocated), median of 3; WASM: a fresh Node worker, median of the first and two more calls.\n',
  );
  out.push(
    table(
      ['shape', 'depth', 'native ms', 'WASM SIMD ms', `native <= ${g.limits.native_limit_ms / 1000} s`],
      g.limits.rows.map((r) => [
        r.name,
        String(r.config.depth),
        ms(r.native_ms),
        ms(r.wasm_ms),
        mark(r.native_ms === null ? null : r.native_ms <= g.limits.native_limit_ms),
      ]),
    ),
  );
  return out.join('\n') + '\n';
}

export function renderMarkdown(r) {
  const m = r.machine;
  const out = [];
  out.push(`# resnorm benchmark${r.quick ? ' (QUICK RUN: tiny scenes, not representative)' : ''}\n`);
  out.push(
    `${r.date}, ${r.duration_s} s. Written by \`npm run bench\` (bench/run.js); the raw numbers are in latest.json.\n`,
  );
  out.push(
    table(
      ['machine', ''],
      [
        [
          'CPU',
          `${m.cpu}, ${m.cores} cores (shared: load average ${m.loadavg_start.join(' ')} at start, ${m.loadavg_end?.join(' ')} at end)`,
        ],
        ['memory, OS', `${m.memory_gb} GB, ${m.os}`],
        ['Node / V8', `${m.node} / ${m.v8}`],
        ['compilers', `${m.gcc}; ${m.emcc}`],
        ['browser', m.chromium || 'n/a'],
        ['TF.js', `tfjs-core ${m.tfjs}, tfjs-backend-wasm ${m.tfjs_backend_wasm}`],
        ['source', m.git || 'n/a'],
      ],
    ),
  );
  out.push('');
  if (r.targets) {
    out.push('## Targets\n');
    out.push(
      table(
        ['target', 'measured', 'status'],
        r.targets.map((t) => [t.text, t.measured, mark(t.met) + (t.note ? ` (${t.note})` : '')]),
      ),
    );
    out.push('');
  }
  if (r.engine) {
    out.push('## 1. Engine throughput\n');
    out.push(
      `One recompute = forward, backward and every per-layer metric (grad_norm, stream_rms, update_ratio, w1/w2_grad_norm) of every arch in the scene. GFLOP/s from ${r.method.flops}. Ratios: ${r.method.ratio}. Same numbers: ${r.method.check}.\n`,
    );
    out.push(engineSection(r.engine));
  }
  if (r.browser) {
    out.push('## 2. In the browser\n');
    out.push(browserSection(r.browser));
  }
  if (r.norms) {
    out.push('## 3. LayerNorm against RMSNorm (core/include/resnorm/norms.h, float)\n');
    out.push(normsSection(r.norms));
  }
  if (r.profile || r.engine) {
    out.push('## 4. Where a recompute spends its time\n');
    if (r.engine) out.push(cpuProfileSection(r.engine));
    if (r.profile) out.push('### Phases and replays (bench/phases.h)\n\n' + profileSection(r.profile));
  }
  if (r.scaling) {
    out.push('## 5. The cost of growth\n');
    out.push(growthSection(r.scaling));
  }
  return out.join('\n') + '\n';
}
