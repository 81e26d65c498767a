// The Markdown of a benchmark report (bench/run.js writes it to latest.md).
import { TARGET_GROUPS, pct } from './targets.js';

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
      `(of which the first simulate() ${ms(med('first_simulate_ms'))} ms), load event ${ms(med('load'))} ms, first chart painted ${ms(b.first_chart.median_ms)} ms, the engine's answer painted ${ms(med('live_paint'))} ms (the first chart is the default scene's result shipped with the page, when the build ships one).`,
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
  parts.push('\n' + deepSection(b.deep));
  parts.push('\n' + papersSection(b.papers));
  parts.push('\n' + poolSection(b.pool));
  parts.push('\n' + sizesTable(b.sizes));
  return parts.join('\n') + '\n';
}

const failed = (x) => `${x?.status ?? 'not run'}: ${x?.reason ?? 'n/a'}`;

function deepSection(d) {
  if (!d) return '';
  if (d.status !== 'ok') return `**Deep scene in the explorer**: ${failed(d)}\n`;
  const g = d.slider.gain;
  const rows = [
    [
      'gain slider input → repaint',
      ms(g.median_ms),
      ms(g.p95_ms),
      ms(g.max_ms),
      `${g.n} steps (${g.timed_out} timed out)`,
    ],
  ];
  const names = { to_worker: '… input → worker', in_worker: '… in the worker', back_and_draw: '… worker → painted' };
  for (const [k, v] of Object.entries(g.split || {}))
    if (names[k]) rows.push([names[k], ms(v.median_ms), ms(v.p95_ms), ms(v.max_ms), '']);
  const c = d.page_config;
  return (
    `**Deep scene in the explorer**, opened at \`index.html${d.link}\` (${c.arch.join(' + ')}, L=${c.depth}, d=${c.width}, T=${c.tokens}; the depth slider ends at 96, so the gain slider is dragged):\n\n` +
    table(['measure', 'median ms', 'p95 ms', 'max ms', 'n'], rows)
  );
}

function papersSection(p) {
  if (!p) return '';
  if (p.status !== 'ok') return `**Papers page, cold loads**: ${failed(p)}\n`;
  const panels = p.rows[0]?.panels ?? [];
  const med = (id) => {
    const v = p.rows.map((r) => r.verdicts[id]?.shown_ms).filter(Number.isFinite);
    return v.length ? v.sort((a, b) => a - b)[Math.floor(v.length / 2)] : null;
  };
  const rows = panels.map((id) => [id, p.rows.map((r) => r.verdicts[id]?.verdict ?? '-').join(', '), ms(med(id))]);
  rows.push([
    '**the article\u2019s six**',
    '',
    `**${ms(p.six_verdicts.median_ms)}** (max ${ms(p.six_verdicts.max_ms)})`,
  ]);
  rows.push([`**all ${panels.length}**`, '', `**${ms(p.all_verdicts.median_ms)}** (max ${ms(p.all_verdicts.max_ms)})`]);
  const c = p.recompute_config;
  return (
    `**Papers page, ${p.loads} cold loads** (a fresh browser context each; a panel's verdict counts once its section's data-verdict is a measured one, drawn at the next frame; ms from navigation, medians):\n\n` +
    table(['panel', 'verdict (each load)', 'verdict shown, ms'], rows) +
    `\n\nThe page's own timing of the transformer scene (${c.arch.join(', ')}; L=${c.depth}, d=${c.width}, T=${c.tokens}, ${c.heads} heads; 15 recomputes after 3 warm-up runs, in its engine worker, run alone after the six panels): median ${ms(p.recompute.median_ms)} ms per recompute (the median of the ${p.loads} loads' medians; each load: ${p.rows.map((r) => ms(r.recompute_median_ms)).join(', ')} ms).\n`
  );
}

function poolSection(p) {
  if (!p) return '';
  if (p.status !== 'ok') return `**The worker pool**: ${failed(p)}\n`;
  const rows = p.rows.map((r) => [
    `${r.k}${r.k === p.page_pool_size ? " (the page's pool)" : ''}`,
    f(r.sequential.per_s, 1),
    `${f(r.sequential.ratio)}x (${f(r.sequential.ratio_round_range[0])}–${f(r.sequential.ratio_round_range[1])})`,
    f(r.concurrent.per_s, 1),
    `${f(r.concurrent.ratio)}x (${f(r.concurrent.ratio_round_range[0])}–${f(r.concurrent.ratio_round_range[1])})`,
    r.same_numbers ? 'identical' : '**differ**',
  ]);
  return (
    `**The worker pool** (web/src/engine/client.js createEngineClient({workers: k}) with the built engine worker, default scene, ${p.rounds} interleaved rounds of ${p.calls} recomputes per client and mode; the machine reports ${p.cores} cores; ideal ratio: k up to the cores):\n\n` +
    table(
      [
        'workers k',
        'recomputes/s, one at a time',
        'vs 1 worker (per-round range)',
        `recomputes/s, ${p.calls} at once`,
        'vs 1 worker (per-round range)',
        'numbers vs 1 worker',
      ],
      rows,
    )
  );
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

function trainingSection(t) {
  if (t.status === 'failed') return `Not measured: ${t.reason}\n`;
  const c = t.config;
  const out = [
    `${c.depth} ${c.block} blocks (${c.arch}), d=${c.width}, ${c.heads} heads, MLP ${c.expansion}d (${c.activation}), ${c.positions} positions; task ${c.task}, seq ${c.seq}, vocab ${c.vocab}, batch ${c.batch}; ${c.optimizer}, lr ${c.lr}. One update = one training step on a batch: ${t.tokens_per_step} training tokens (batch x context); no update is logged (a logged one also evaluates the held-out set). ${t.plan.rounds} interleaved rounds; the first update of each contender is timed apart, then ${t.plan.warmup} warm-up update (JS side) outside the samples.\n`,
  ];
  const rows = Object.entries(t.contenders).map(([id, e]) => {
    if (e.skipped) return [`\`${id}\``, e.label, `not measured: ${e.skipped}`, '', '', '', '', '', ''];
    const check = e.check?.reference
      ? 'reference'
      : e.check?.skipped
        ? `not compared: ${e.check.skipped}`
        : e.check?.error
          ? `error: ${e.check.error}`
          : `${e.check.ok ? 'ok' : '**MISMATCH**'}, ${e.check.max_rel === 0 ? 'identical' : `max rel ${e.check.max_rel?.toExponential(1)}`}`;
    return [
      `\`${id}\``,
      e.isa ? `${e.label} [${e.isa}]` : e.label,
      Number.isFinite(e.tokens_per_s) ? `**${e.tokens_per_s.toLocaleString('en-US')}**` : 'n/a',
      ms(e.median_ms),
      `${ms(e.p10_ms)} – ${ms(e.p90_ms)}`,
      String(e.n),
      ms(e.first_ms),
      id === 'wasm-simd'
        ? '1 (reference)'
        : Number.isFinite(e.ratio_to_wasm_simd)
          ? `${f(e.ratio_to_wasm_simd)}x${e.ratio_round_range ? ` (${f(e.ratio_round_range[0])}–${f(e.ratio_round_range[1])})` : ''}`
          : 'n/a',
      check,
    ];
  });
  out.push(
    table(
      [
        'id',
        'contender',
        'training tokens/s',
        'ms per update (median)',
        'p10 – p90 ms',
        'n',
        'first update ms',
        'time / WASM SIMD in Node (per-round range)',
        `same numbers (train loss of a new trainer's first ${t.plan.check_steps} updates)`,
      ],
      rows,
    ),
  );
  const tf = t.contenders.tfjs;
  out.push(
    `\nTF.js (bench/tfjs/train.js) trains the same architecture on the same batch shape: token embedding (a one-hot product: the wasm backend has no gradient kernel for a gather) plus learned positions, pre-LN blocks with causal ${c.heads}-head attention and a GELU MLP of ${c.expansion}d, no biases, final LayerNorm, unembedding, softmax cross-entropy over every position but the last; tf.variableGrads + tf.train.adam. What differs: the ${c.batch} sequences go through as one batched pass (the core runs one pass per sequence and adds the gradients); its own init (the core's scales) and its own data (a random bigram chain like the markov task's, drawn in JS), so its losses are not compared` +
      (tf?.train_loss
        ? `; its train loss went from ${f(tf.train_loss[0], 3)} to ${f(tf.train_loss[1], 3)} over the timed updates (chance ln ${c.vocab} = ${f(Math.log(c.vocab), 3)}).`
        : '.'),
  );
  const m = t.memory;
  const mb = (b) => (Number.isFinite(b) ? `${f(b / 2 ** 20, 1)} MB` : 'n/a');
  const heapRow = (name, cfg, heap, estimate, extra = '') => [
    name,
    cfg,
    heap ? mb(heap.loaded) : 'n/a',
    heap ? mb(heap.trainer) : 'n/a',
    heap ? mb(heap.after_steps) : 'n/a',
    mb(estimate),
    extra,
  ];
  const rows2 = [];
  const h = m?.config?.heap_bytes;
  rows2.push(
    heapRow(
      'this config',
      `${c.arch}, L=${c.depth}, d=${c.width}, seq ${c.seq}, vocab ${c.vocab}, batch ${c.batch}`,
      h,
      m?.config?.estimate?.bytes,
      !h
        ? `not measured: ${t.contenders['wasm-simd']?.skipped ?? 'n/a'}`
        : h.after_steps === h.loaded
          ? 'the heap did not grow: the trainer fits in the memory the module starts with'
          : '',
    ),
  );
  const big = m?.largest;
  if (big?.config) {
    const b = big.config;
    rows2.push(
      heapRow(
        'the largest allowed',
        `task ${b.task}, ${b.arch}, L=${b.depth}, d=${b.width}, e=${b.expansion}, ${b.heads} heads, seq ${b.seq}, vocab ${b.vocab}, batch ${b.batch}, eval_batches ${b.eval_batches}`,
        big.heap_bytes,
        big.estimate_bytes,
        big.heap_bytes ? `one update: ${ms(big.first_update_ms)} ms` : `not measured: ${big.skipped}`,
      ),
    );
  } else rows2.push(['the largest allowed', '', '', '', '', '', `not measured: ${big?.skipped ?? 'n/a'}`]);
  out.push(
    "\n**The wasm heap** (WebAssembly.Memory of the shipped build in Node, a fresh process each; it only grows, so the last column is the high-water mark; the estimate is the core's train_cost(), which the budget of core/src/limits.cpp is checked against; the largest allowed config is the one train_cost() gives the most bytes among the configs check_train() allows, searched by bench/train_bench.cpp --largest: every size field at its maximum, each task, batch 1 to 256 in powers of two, the deepest depth that fits):\n",
  );
  out.push(
    table(
      ['config', '', 'heap, module loaded', 'after the trainer is made', 'after its updates', "core's estimate", ''],
      rows2,
    ),
  );
  return out.join('\n') + '\n';
}

// One sentence: where an update of the claim's profiled run spends its time.
function claimCost(p) {
  if (!p) return 'not profiled';
  if (p.skipped) return `not profiled: ${p.skipped}`;
  const fn = p.top_functions[0];
  return `${p.top_bucket.label}: ${f(100 * p.top_bucket.share, 0)}% of an update of ${p.run} (${ms(p.ms_per_update)} ms); the top function ${fn.name.replace(/^wasm: /, '').slice(0, 60)} ${f(100 * fn.share, 0)}%`;
}

function peakSection(p, c) {
  const out = [];
  if (p) {
    if (p.status !== 'ok') out.push(`Peak: not measured: ${p.reason}\n`);
    else {
      out.push(
        `Peak: \`bench/peak_simd.cpp\`, independent chains acc = acc * b + c of f32x4 (one core, WASM SIMD, -O3 -msimd128); FMA: ${p.fma}. GFLOP/s = ${p.flops_per_pair} flops per mul + add pair (4 lanes) x pairs / time, the median of the timed calls (and the fastest call); the peak is the best chain count's median. The figures move with the machine's load (given per runtime, before → after).\n`,
      );
      const cell = (x, N) =>
        x && !x.skipped ? `${f(x.chains[N].median_gflops, 1)} (${f(x.chains[N].max_gflops, 1)})` : 'n/a';
      const loop = (N) => {
        const l = p.loop?.[N];
        if (!l || p.loop.skipped) return `not checked: ${p.loop?.skipped ?? 'n/a'}`;
        if (l.error) return `**${l.error}**`;
        return `${l.mul} f32x4.mul, ${l.add} f32x4.add, ${l.scalar} scalar, ${l.memory} v128 loads/stores${l.ok ? '' : ' **not the vector loop**'}`;
      };
      out.push(
        table(
          ['chains', 'Node GFLOP/s median (fastest)', 'page GFLOP/s median (fastest)', 'the loop (wasm-objdump -d)'],
          Object.keys(p.node?.chains ?? p.page?.chains ?? {}).map((N) => [
            N,
            cell(p.node, N),
            cell(p.page, N),
            loop(N),
          ]),
        ),
      );
      const side = (x, name) =>
        x && !x.skipped
          ? `${name}: **${f(x.peak_gflops, 1)} GFLOP/s** with ${x.best_chains} chains (load ${x.loadavg.map((v) => f(v, 2)).join(' → ')})`
          : `${name}: not measured: ${x?.skipped ?? 'n/a'}`;
      out.push('', `${side(p.node, 'Node')}; ${side(p.page, 'page (headless Chromium)')}.\n`);
    }
  }
  if (c) {
    if (c.status === 'failed') out.push(`Lab claims: not measured: ${c.reason}\n`);
    else {
      out.push(
        `Lab claims (web/src/claims/lab/, each run's config as the lab trains it): one trainer at a time (\`rn.trainer\`, WASM SIMD, Node), ${c.plan.warmup} updates of warm-up, then ${c.plan.samples} batches of ${c.plan.per} updates; ms per update is the batches' median. GFLOP/s from the GEMM flops of an update, forward and backward (\`trainFlops\` in bench/lib/peak.js: 3 B [L (8 T d² + 2 d T (T+1) + 4 T d m) + 2 T d V], the attention terms for transformer blocks only), against the Node peak (${f(c.peak_gflops, 1)} GFLOP/s). Target: the transformer claims at >= ${100 * c.target_fraction}% of the peak. "Fastest": the fastest batch of each run against the fastest peak call (${f(c.peak_fastest_gflops, 1)} GFLOP/s), the estimate a neighbour's load disturbs least; the target is judged on the medians.\n`,
      );
      out.push(
        table(
          [
            'claim',
            'block',
            'GFLOP/s (its runs together)',
            'of the peak (fastest)',
            'target',
            'the largest cost (V8 profiler, self time)',
          ],
          c.claims.map((r) => [
            r.claim,
            r.transformer ? 'transformer' : 'MLP',
            f(r.gflops, 2),
            `${pct(r.fraction_of_peak)} (${pct(r.fraction_of_peak_fastest)})`,
            r.transformer
              ? r.fraction_of_peak === null
                ? 'not measured'
                : r.fraction_of_peak >= c.target_fraction
                  ? 'met'
                  : '**not met**'
              : 'reporting',
            claimCost(r.profile),
          ]),
        ),
        '',
      );
      out.push(
        table(
          [
            'claim',
            'run',
            'L',
            'd',
            'block',
            'task',
            'B',
            'T',
            'MFLOP / update',
            'ms / update (fastest)',
            'GFLOP/s',
            'of the peak (fastest)',
            'load',
          ],
          c.runs.map((r) => {
            const k = r.config;
            return [
              r.claim,
              r.key,
              k.depth,
              k.width,
              k.block,
              k.task,
              k.batch,
              r.context,
              f(r.flops_per_update / 1e6, 2),
              r.skipped ? `not measured: ${r.skipped}` : `${ms(r.median_ms)} (${ms(r.fastest_ms)})`,
              f(r.gflops, 2),
              `${pct(r.fraction_of_peak)} (${pct(r.fraction_of_peak_fastest)})`,
              f(r.loadavg, 2),
            ];
          }),
        ),
        '',
      );
    }
  }
  return out.join('\n') + '\n';
}

export function renderMarkdown(r) {
  const m = r.machine;
  const out = [];
  out.push(`# resnorm benchmark${r.quick ? ' (QUICK RUN: tiny scenes, not representative)' : ''}\n`);
  out.push(
    `${r.date}, ${r.duration_s} s${
      r.part_durations_s
        ? ` (${Object.entries(r.part_durations_s)
            .map(([k, v]) => `${k} ${v} s`)
            .join(', ')})`
        : ''
    }. Written by \`npm run bench\` (bench/run.js); the raw numbers are in latest.json.\n`,
  );
  if (r.merged) {
    // The kept parts grouped by the run each comes from (older reports name one run for all).
    const runs = new Map();
    for (const part of r.merged.parts) {
      const src = r.merged.from?.[part] ?? r.merged;
      const key = `${src.date} (at ${src.git ?? 'n/a'}, load ${src.loadavg_start?.join(' ') ?? 'n/a'} at its start)`;
      runs.set(key, [...(runs.get(key) ?? []), part]);
    }
    const kept = [...runs].map(([run, parts]) => `${parts.join(', ')} from the run of ${run}`).join('; ');
    out.push(`Merged (\`--merge\`): ${kept}; the other parts from this run (at ${r.machine.git ?? 'n/a'}).\n`);
  }
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
    for (const [group, title] of Object.entries(TARGET_GROUPS)) {
      const rows = r.targets.filter((t) => (t.group ?? 'speed') === group);
      if (!rows.length) continue;
      out.push(`### ${title}\n`);
      out.push(
        table(
          ['target', 'measured', 'status'],
          rows.map((t) => [t.text, t.measured, mark(t.met) + (t.note ? ` (${t.note})` : '')]),
        ),
      );
      out.push('');
    }
  }
  if (r.engine) {
    out.push('## 1. Engine throughput\n');
    out.push(
      `One recompute = forward, backward and every per-layer metric (grad_norm, stream_rms, update_ratio, w1/w2_grad_norm) of every arch in the scene. GFLOP/s from ${r.method.flops}. Ratios: ${r.method.ratio}. Same numbers: ${r.method.check}.\n`,
    );
    out.push(engineSection(r.engine));
  }
  const section = (key, title, render) => {
    if (r[key]) out.push(`## ${title}\n`, render(r[key]));
  };
  section('browser', '2. In the browser', browserSection);
  section('norms', '3. LayerNorm against RMSNorm (core/include/resnorm/norms.h, float)', normsSection);
  if (r.profile || r.engine) {
    out.push('## 4. Where a recompute spends its time\n');
    if (r.engine) out.push(cpuProfileSection(r.engine));
    if (r.profile) out.push('### Phases and replays (bench/phases.h)\n\n' + profileSection(r.profile));
  }
  section('scaling', '5. The cost of growth', growthSection);
  section('training', '6. Training', trainingSection);
  if (r.peak || r.claims) out.push("## 7. The machine's own limit\n", peakSection(r.peak, r.claims));
  return out.join('\n') + '\n';
}
