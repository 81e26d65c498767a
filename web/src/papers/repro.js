// The six reproductions of the papers page, as pure functions of the engine's
// JS API: compute(rn, id, params) runs a panel's simulations and returns plain
// data; summarize(id, result, view) turns that into the measured-vs-claimed
// rows and the verdict the caption states. No DOM: the page's worker, the Node
// tests and the browser test all use this module, and tests/core/test_papers.cpp
// checks the same claims in C++ with the same settings and criteria.
//
// Verdicts: 'holds' (every criterion met), 'partly' (some), 'fails' (none).

export const DEPTHS = [6, 12, 24, 48, 96];

// Each panel's parameters: defaults and the choices its controls offer.
export const PANELS = {
  theorem1: {
    title: 'Xiong et al. (2020), Theorem 1',
    defaults: { seeds: 8, seed0: 0, deepest: 96, width: 64, tokens: 16, heads: 4, causal: false },
    choices: { seeds: [2, 4, 8, 16], deepest: [48, 96, 192] },
  },
  figure3: {
    title: 'Xiong et al. (2020), Figure 3',
    defaults: { width: 512, seeds: 2, seed0: 0, tokens: 32, heads: 4, expansion: 2, causal: false },
    choices: { width: [64, 128, 256, 512], seeds: [1, 2, 4] },
  },
  lemma2: {
    title: 'Xiong et al. (2020), Lemma 2',
    defaults: { depth: 48, seeds: 32, seed0: 0, width: 64, tokens: 16 },
    choices: { depth: [12, 24, 48, 96], seeds: [8, 16, 32, 64] },
  },
  deepnet: {
    title: 'Wang et al. (2022), DeepNet',
    defaults: { depth: 1000, seed: 0, width: 64, tokens: 16, heads: 4, causal: true },
    choices: { depth: [100, 200, 500, 1000] },
  },
  gpt2: {
    title: 'Radford et al. (2019), GPT-2',
    defaults: { seeds: 4, seed0: 0, deepest: 96, width: 64, tokens: 16, heads: 4, causal: true },
    choices: { seeds: [1, 2, 4, 8], deepest: [96, 192] },
  },
  veit: {
    title: 'Veit et al. (2016), Figure 6',
    defaults: { depth: 54, samples: 32, path_seed: 0, seed: 0, width: 64, tokens: 8 },
    choices: { depth: [18, 36, 54], samples: [16, 32, 64] },
  },
};

export const PANEL_IDS = Object.keys(PANELS);

// The weights Figure 3's panel can show; 'all' is the norm of the gradient of
// every weight of the block together.
export const FIG3_WEIGHTS = {
  all: 'all weights of the block',
  w1: 'W₁ (FFN, first)',
  w2: 'W₂ (FFN, second)',
  wq: 'W_Q',
  wk: 'W_K',
  wv: 'W_V',
  wo: 'W_O',
};

// Criteria, shared by the captions and the tests.
export const CRITERIA = {
  theorem1: { post_ln: { claimed: 0, tol: 0.15 }, pre_ln: { claimed: -0.5, tol: 0.15 } },
  figure3: { rising: 1.2, flat: 1.5 }, // Post-LN top/bottom >= 1.2; Pre-LN within 1/1.5..1.5
  lemma2: { slope: 0.5, slopeTol: 0.05, worst: 0.1 },
  deepnet: { small: 2 }, // "within a small factor": max/min over layers <= 2
  gpt2: { near: 1.5, flatSlope: 0.1, preSlope: 0.5, preTol: 0.15 },
  veit: {}, // 95% of the gradient from paths shorter than U/2
};

export function withDefaults(id, params = {}) {
  return { ...PANELS[id].defaults, ...params };
}

// ---------------------------------------------------------------- numbers

/** Least-squares fit y = a + b x: {slope: b, intercept: a}. */
export function fit(x, y) {
  const n = x.length;
  let mx = 0,
    my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  let sxy = 0,
    sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

export function spread(values) {
  let lo = Infinity,
    hi = -Infinity;
  for (const v of values) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return hi / lo; // Infinity when a value is 0
}

const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;
const seedList = (seed0, seeds) => Array.from({ length: seeds }, (_, i) => seed0 + i);
const finalNorm = (arch) => (arch === 'post_ln' || arch === 'deepnorm' ? 'none' : 'layernorm');
const transformer = (p, arch, depth, seed) => ({
  arch: [arch],
  block: 'transformer',
  depth,
  width: p.width,
  tokens: p.tokens,
  heads: p.heads,
  causal: p.causal,
  final_norm: finalNorm(arch),
  seed,
  expansion: p.expansion ?? 1,
});

export function depthsUpTo(deepest) {
  return deepest > 96 ? [...DEPTHS, 192] : DEPTHS.filter((L) => L <= deepest);
}

// ---------------------------------------------------------------- compute

const COMPUTE = {
  // ||dL/dW2|| of the last block against depth; the fit pools every (L, seed).
  theorem1(rn, p) {
    const depths = depthsUpTo(p.deepest);
    const archs = ['post_ln', 'pre_ln'];
    const logs = Object.fromEntries(archs.map((a) => [a, depths.map(() => [])]));
    for (const seed of seedList(p.seed0, p.seeds))
      // one weight bank per seed, grown with L
      depths.forEach((L, i) => {
        for (const arch of archs) {
          const r = rn.simulate(transformer(p, arch, L, seed)).results[arch];
          logs[arch][i].push(Math.log(r.w2_grad_norm[L - 1]));
        }
      });
    const out = { depths, geomean: {}, fit: {} };
    for (const arch of archs) {
      const x = [],
        y = [];
      depths.forEach((L, i) =>
        logs[arch][i].forEach((v) => {
          x.push(Math.log(L));
          y.push(v);
        }),
      );
      out.fit[arch] = fit(x, y);
      out.geomean[arch] = logs[arch].map((v) => Math.exp(mean(v)));
    }
    return out;
  },

  // Per-layer weight-gradient norms of a 6-block model, means over seeds.
  figure3(rn, p) {
    const archs = ['post_ln', 'pre_ln'];
    const keys = ['wq', 'wk', 'wv', 'wo', 'w1', 'w2'];
    const sums = Object.fromEntries(
      archs.map((a) => [a, Object.fromEntries([...keys, 'all'].map((k) => [k, new Array(6).fill(0)]))]),
    );
    const seeds = seedList(p.seed0, p.seeds);
    for (const seed of seeds)
      for (const arch of archs) {
        const r = rn.simulate(transformer(p, arch, 6, seed)).results[arch];
        for (let l = 0; l < 6; l++) {
          let sq = 0;
          for (const k of keys) {
            const v = r[`${k}_grad_norm`][l];
            sums[arch][k][l] += v / seeds.length;
            sq += v * v;
          }
          sums[arch].all[l] += Math.sqrt(sq) / seeds.length;
        }
      }
    return { layers: [1, 2, 3, 4, 5, 6], norms: sums };
  },

  // E||x_l||^2 / d over seeds: the mean of stream_rms[l]^2 (rms^2 = ||h||^2 / (T d)).
  lemma2(rn, p) {
    const L = p.depth;
    const pre = new Array(L + 1).fill(0),
      post = new Array(L + 1).fill(0);
    const seeds = seedList(p.seed0, p.seeds);
    for (const seed of seeds) {
      const r = rn.simulate({
        arch: ['pre_ln', 'post_ln'],
        depth: L,
        width: p.width,
        tokens: p.tokens,
        gain: Math.SQRT1_2,
        seed,
      }).results;
      for (let l = 0; l <= L; l++) {
        pre[l] += r.pre_ln.stream_rms[l] ** 2 / seeds.length;
        post[l] += r.post_ln.stream_rms[l] ** 2 / seeds.length;
      }
    }
    const layers = Array.from({ length: L + 1 }, (_, l) => l);
    return { layers, pre, post, fit: fit(layers, pre) };
  },

  // One decoder-only stack of `depth` transformer blocks, DeepNorm and Post-LN.
  deepnet(rn, p) {
    const N = p.depth;
    const out = rn.simulate({
      arch: ['deepnorm', 'post_ln'],
      block: 'transformer',
      depth: N,
      width: p.width,
      tokens: p.tokens,
      heads: p.heads,
      causal: p.causal,
      final_norm: 'none',
      seed: p.seed,
    });
    const pick = (r) => ({
      grad_norm: Array.from(r.grad_norm),
      stream_rms: Array.from(r.stream_rms),
      update_ratio: Array.from(r.update_ratio),
      first_nonfinite: r.first_nonfinite,
    });
    return {
      alpha: (2 * N) ** 0.25,
      beta: (8 * N) ** -0.25,
      deepnorm: pick(out.results.deepnorm),
      post_ln: pick(out.results.post_ln),
    };
  },

  // Top stream RMS over the input's, for each depth, mean over seeds.
  gpt2(rn, p) {
    const depths = depthsUpTo(p.deepest);
    const archs = ['gpt2', 'pre_ln'];
    const ratio = Object.fromEntries(archs.map((a) => [a, depths.map(() => 0)]));
    const seeds = seedList(p.seed0, p.seeds);
    for (const seed of seeds)
      depths.forEach((L, i) => {
        const r = rn.simulate({ ...transformer(p, 'gpt2', L, seed), arch: archs }).results;
        for (const a of archs) ratio[a][i] += r[a].stream_rms[L] / r[a].stream_rms[0] / seeds.length;
      });
    const lx = depths.map(Math.log);
    return { depths, ratio, fit: Object.fromEntries(archs.map((a) => [a, fit(lx, ratio[a].map(Math.log))])) };
  },

  // Path statistics of a Pre-LN and an unnormalized residual MLP stack.
  veit(rn, p) {
    const out = rn.pathGradients({
      arch: ['pre_ln', 'residual'],
      depth: p.depth,
      width: p.width,
      tokens: p.tokens,
      seed: p.seed,
      samples: p.samples,
      path_seed: p.path_seed,
    });
    const res = {};
    for (const [arch, r] of Object.entries(out.results))
      res[arch] = {
        units: r.units,
        full_norm: r.full_norm,
        count: Array.from(r.count),
        measured: Array.from(r.measured),
        mean_norm: Array.from(r.mean_norm),
        sd_norm: Array.from(r.sd_norm),
        total: Array.from(r.total),
      };
    return res;
  },
};

/** Runs panel `id` with `params` (defaults filled in): {id, params, data, ms}. */
export function compute(rn, id, params = {}) {
  if (!COMPUTE[id]) throw new RangeError(`unknown reproduction: ${id}`);
  const p = withDefaults(id, params);
  const t0 = performance.now();
  const data = COMPUTE[id](rn, p);
  return { id, params: p, data, ms: performance.now() - t0 };
}

// ---------------------------------------------------------------- the transformer recompute budget

export const PERF_CONFIG = {
  arch: ['plain', 'residual', 'post_ln', 'pre_ln'],
  block: 'transformer',
  depth: 96,
  width: 64,
  tokens: 16,
  heads: 4,
};

/** Times `runs` full four-arch recomputes (after `warmup`): {median, p90, min, runs}. */
export function timeRecompute(rn, { runs = 15, warmup = 3 } = {}) {
  for (let i = 0; i < warmup; i++) rn.simulate(PERF_CONFIG);
  const t = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    rn.simulate(PERF_CONFIG);
    t.push(performance.now() - t0);
  }
  const s = [...t].sort((a, b) => a - b);
  return {
    median: s[Math.floor(s.length / 2)],
    p90: s[Math.min(s.length - 1, Math.floor(0.9 * s.length))],
    min: s[0],
    runs: t,
  };
}

// ---------------------------------------------------------------- verdicts

/** Path-length quantiles of a distribution over k = 0..U: the first k where the cumulative share reaches q. */
export function quantileLength(weights, q) {
  const sum = weights.reduce((s, v) => s + v, 0);
  let cum = 0;
  for (let k = 0; k < weights.length; k++) {
    cum += weights[k];
    if (cum >= q * sum) return k;
  }
  return weights.length - 1;
}

export function pathSummary(r) {
  const U = r.units;
  let peak = 0;
  for (let k = 0; k <= U; k++) if (r.total[k] > r.total[peak]) peak = k;
  const sum = r.total.reduce((s, v) => s + v, 0);
  const shorter = r.total.reduce((s, v, k) => (k < U / 2 ? s + v : s), 0) / sum;
  return {
    k05: quantileLength(r.total, 0.05),
    k95: quantileLength(r.total, 0.95),
    peak,
    shorter,
    count05: quantileLength(r.count, 0.05),
    count95: quantileLength(r.count, 0.95),
  };
}

const verdictOf = (oks) => (oks.every(Boolean) ? 'holds' : oks.some(Boolean) ? 'partly' : 'fails');

/**
 * The rows of the measured-vs-claimed table and the verdict:
 * {rows: [{key, label, measured, claimed, criterion, ok, value}], verdict, facts}.
 * `value` is the raw number (for tests); `measured`/`claimed` are display text.
 * `facts` holds the numbers the caption quotes. `view` picks what a panel shows
 * (Figure 3: which weight).
 */
export function summarize(id, result, view = {}) {
  const d = result.data;
  const p = result.params;
  const C = CRITERIA[id];
  const rows = [];
  switch (id) {
    case 'theorem1': {
      for (const arch of ['post_ln', 'pre_ln']) {
        const s = d.fit[arch].slope;
        const { claimed, tol } = C[arch];
        rows.push({
          key: `${arch}_slope`,
          label: `${arch === 'post_ln' ? 'Post-LN' : 'Pre-LN'}: slope of log ‖∂L/∂W₂‖ over log L`,
          value: s,
          measured: fmt(s, 2),
          claimed: `${claimed === 0 ? '0' : fmt(claimed, 1)} ± ${tol}`,
          ok: Math.abs(s - claimed) <= tol,
        });
      }
      break;
    }
    case 'figure3': {
      const w = view.weight ?? 'all';
      const post = d.norms.post_ln[w],
        pre = d.norms.pre_ln[w];
      const rPost = post[5] / post[0],
        rPre = pre[5] / pre[0];
      rows.push({
        key: 'post_ratio',
        label: 'Post-LN: layer 6 / layer 1',
        value: rPost,
        measured: `${fmt(rPost, 2)}×`,
        claimed: `rises (≥ ${C.rising}×)`,
        ok: rPost >= C.rising,
      });
      rows.push({
        key: 'pre_ratio',
        label: 'Pre-LN: layer 6 / layer 1',
        value: rPre,
        measured: `${fmt(rPre, 2)}×`,
        claimed: `roughly flat (${fmt(1 / C.flat, 2)}–${C.flat}×)`,
        ok: rPre >= 1 / C.flat && rPre <= C.flat,
      });
      break;
    }
    case 'lemma2': {
      const worst = d.pre.reduce((m, v, l) => Math.max(m, Math.abs(v / (1 + l / 2) - 1)), 0);
      rows.push({
        key: 'slope',
        label: 'Pre-LN: fitted slope of E‖x_l‖²/d over l',
        value: d.fit.slope,
        measured: fmt(d.fit.slope, 3),
        claimed: `0.5 ± ${C.slopeTol}`,
        ok: Math.abs(d.fit.slope - C.slope) <= C.slopeTol,
      });
      rows.push({
        key: 'worst',
        label: 'Pre-LN: largest deviation from 1 + l/2',
        value: worst,
        measured: pct(worst),
        claimed: `0 (≤ ${pct(C.worst)})`,
        ok: worst <= C.worst,
      });
      break;
    }
    case 'deepnet': {
      for (const arch of ['deepnorm', 'post_ln']) {
        const name = arch === 'deepnorm' ? 'DeepNorm' : 'Post-LN';
        const want = arch === 'deepnorm'; // DeepNorm within the factor, Post-LN not
        for (const [metric, label] of [
          ['grad_norm', 'gradient'],
          ['stream_rms', 'stream RMS'],
        ]) {
          const s = spread(d[arch][metric]);
          rows.push({
            key: `${arch}_${metric}`,
            label: `${name}: ${label}, max/min over layers`,
            value: s,
            measured: ratioText(s),
            claimed: want ? `≤ ${C.small}×` : `> ${C.small}×`,
            ok: want ? s <= C.small : s > C.small,
          });
        }
      }
      break;
    }
    case 'gpt2': {
      const worst = Math.max(...d.ratio.gpt2.map((r) => Math.max(r, 1 / r)));
      const sG = d.fit.gpt2.slope,
        sP = d.fit.pre_ln.slope;
      rows.push({
        key: 'gpt2_worst',
        label: 'GPT-2 init: top RMS / input RMS, farthest from 1',
        value: worst,
        measured: `${fmt(worst, 2)}×`,
        claimed: `near 1 (≤ ${C.near}×)`,
        ok: worst <= C.near,
      });
      rows.push({
        key: 'gpt2_slope',
        label: 'GPT-2 init: slope of log(top/input) over log L',
        value: sG,
        measured: fmt(sG, 2),
        claimed: `0 ± ${C.flatSlope}`,
        ok: Math.abs(sG) <= C.flatSlope,
      });
      rows.push({
        key: 'pre_slope',
        label: 'Pre-LN: slope of log(top/input) over log L',
        value: sP,
        measured: fmt(sP, 2),
        claimed: `0.5 ± ${C.preTol}`,
        ok: Math.abs(sP - C.preSlope) <= C.preTol,
      });
      break;
    }
    case 'veit': {
      const pre = pathSummary(d.pre_ln),
        res = pathSummary(d.residual);
      const U = d.pre_ln.units;
      rows.push({
        key: 'pre_k95',
        label: 'Pre-LN: 95% of the gradient from paths of length ≤',
        value: pre.k95,
        measured: String(pre.k95),
        claimed: `< ${U / 2} (the mean path length)`,
        ok: pre.k95 < U / 2,
      });
      rows.push({
        key: 'pre_range',
        label: 'Pre-LN: lengths carrying the central 90%',
        value: pre.k05,
        measured: `${pre.k05}–${pre.k95}`,
        claimed:
          U === 54
            ? '5–17 (of 54)'
            : `5–17 of 54, i.e. ${Math.round((5 * U) / 54)}–${Math.round((17 * U) / 54)} of ${U}`,
        ok: null,
      });
      rows.push({
        key: 'paths_range',
        label: 'Paths: lengths of the central 90% of all paths',
        value: pre.count05,
        measured: `${pre.count05}–${pre.count95}`,
        claimed: 'binomial, centred on U/2',
        ok: null,
      });
      rows.push({
        key: 'res_k95',
        label: 'Unnormalized residual (contrast): 95% of the gradient from paths ≤',
        value: res.k95,
        measured: String(res.k95),
        claimed: '— (not the paper\u2019s setting)',
        ok: null,
      });
      return { rows, verdict: pre.k95 < U / 2 ? 'holds' : 'fails', facts: { pre, res, U } };
    }
    default:
      throw new RangeError(`unknown reproduction: ${id}`);
  }
  return { rows, verdict: verdictOf(rows.filter((r) => r.ok !== null).map((r) => r.ok)), facts: { params: p } };
}

// ---------------------------------------------------------------- text

export function fmt(v, digits) {
  if (!Number.isFinite(v)) return v > 0 ? '∞' : 'not a number';
  const s = v.toFixed(digits);
  return (s.startsWith('-') ? '−' + s.slice(1) : s).replace(/^−(0\.0+)$/, '$1');
}

function pct(v) {
  return `${(100 * v).toFixed(v < 0.1 ? 1 : 0)}%`;
}

/** "1.03×", "3.9×10⁵×", "3.2×10⁻⁴×", "∞ (a value is 0)". */
export function ratioText(r) {
  if (!Number.isFinite(r)) return '∞ (a value is 0)';
  if (r === 0) return '0×';
  if (r >= 0.01 && r < 100) return `${r.toFixed(r < 10 ? 2 : 1)}×`;
  const e = Math.floor(Math.log10(r));
  const m = r / 10 ** e;
  const sup = String(e).replace(/[-0-9]/g, (c) => '⁻⁰¹²³⁴⁵⁶⁷⁸⁹'['-0123456789'.indexOf(c)]);
  return `${m.toFixed(1)}×10${sup}×`;
}
