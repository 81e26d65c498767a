// The papers' reproductions as pure functions of the engine's JS API (`rn`):
// reproduce(rn, id, params) runs one experiment's simulations and returns plain
// data; timeRecompute(rn) times the explorer's transformer scene. No DOM and no
// view code: the engine worker runs them, the Node tests call them directly,
// and web/src/papers/ turns their data into charts, tables and captions.
// tests/core/test_papers.cpp checks the same settings in C++; DenseFormer's
// panel trains, through the engine's trainer, the training lab's run of it.
import { REVERSE_TASK } from '../shared/train-tasks.js';
import { CLAIM_BY_ID, runConfigs } from '../claims/lab/index.js';

const DEPTHS = [6, 12, 24, 48, 96];

// Each experiment's parameters when a request leaves them out.
export const DEFAULTS = {
  theorem1: { seeds: 8, seed0: 0, deepest: 96, width: 64, tokens: 16, heads: 4, causal: false },
  figure3: { width: 512, seeds: 2, seed0: 0, tokens: 32, heads: 4, expansion: 2, causal: false },
  lemma2: { depth: 48, seeds: 32, seed0: 0, width: 64, tokens: 16 },
  deepnet: { depth: 1000, seed: 0, width: 64, tokens: 16, heads: 4, causal: true },
  gpt2: { seeds: 4, seed0: 0, deepest: 96, width: 64, tokens: 16, heads: 4, causal: true },
  veit: { depth: 54, samples: 32, path_seed: 0, seed: 0, width: 64, tokens: 8 },
  rezero: { depth: 96, seed: 0, width: 64, tokens: 16, heads: 4, causal: true },
  lns: { seeds: 4, seed0: 0, deepest: 96, width: 64, tokens: 16, heads: 4, causal: true },
  mixln: { depth: 24, seeds: 4, seed0: 0, width: 64, tokens: 16, heads: 4, causal: true },
  layerscale: { depth: 12, seed: 0, width: 64, tokens: 16, heads: 4, causal: true },
  dwa: { depth: 8, seed: 0 },
};

/**
 * What DenseFormer's panel trains: the training lab's Late layers preset (shared/train-presets.js), reverse 4
 * of 8 symbols with transformer blocks d = 16, Adam at 2e-3 for 300 steps, at the panel's depth and seed.
 */
export const DWA_TRAIN = { ...REVERSE_TASK, lr: 2e-3, warmup: 0, steps: 300, log_every: 10 };

/**
 * The stack a trainer of the sequence task `c` (a train config: reverse, copy or sort) builds, as a
 * simulate config without its arch (train_config.cpp's stack_config): T = 2n tokens, a causal mask,
 * and the final LayerNorm DenseFormer and Pre-LN both train with.
 */
export const dwaStack = (c) => ({
  block: c.block,
  depth: c.depth,
  width: c.width,
  tokens: 2 * c.seq,
  expansion: c.expansion,
  heads: c.heads,
  gain: c.gain,
  activation: c.activation,
  init: c.init,
  causal: true,
  final_norm: 'layernorm',
  seed: c.seed,
});

/**
 * Trains the runs of the training lab's preset `id` (shared/train-presets.js) whose keys are in `keys`, each
 * with the config the lab gives it (the preset's settings over the engine's defaults, the run's
 * overrides) for all its steps, as the lab's session does; none of these runs stops once trained.
 * {key: {key, arch, label, config, logs, task, gates, lesion}} (gates: ReZero's and LayerScale's at
 * the end, else null; lesion: the trainer's, for a preset the lab lesions, else null), each in the
 * shape shared/train-verdicts.js judges. Every trainer is deleted.
 */
export function trainPresetRuns(rn, id, keys = null) {
  // Training is deterministic and these runs depend on nothing a panel's controls change, so
  // each engine trains them once: a new depth or seed on the panel recomputes only what it moves.
  const memo = trainedMemo.get(rn) ?? new Map();
  trainedMemo.set(rn, memo);
  const memoKey = `${id}|${keys ?? ''}`;
  if (!memo.has(memoKey)) memo.set(memoKey, trainPresetRunsOnce(rn, id, keys));
  return memo.get(memoKey);
}

/** Per engine: the runs trainPresetRuns has trained, by preset and keys (callers read them, never write). */
const trainedMemo = new WeakMap();

function trainPresetRunsOnce(rn, id, keys) {
  const preset = CLAIM_BY_ID[id];
  const configs = runConfigs(preset, preset.config);
  const out = {};
  preset.runs.forEach((run, i) => {
    if (keys && !keys.includes(run.key)) return;
    const tr = rn.trainer(configs[i]);
    try {
      const logs = tr.step(configs[i].steps);
      out[run.key] = {
        key: run.key,
        arch: run.arch,
        label: run.label,
        config: tr.config,
        logs,
        task: tr.task,
        gates: tr.gates(),
        lesion: preset.needsLesion ? tr.lesion() : null,
      };
    } finally {
      tr.delete();
    }
  });
  return out;
}

/** The Late layers runs the Mix-LN panel trains (their blocks' gradient spread after training) and LayerScale's. */
export const MIXLN_TRAINED = ['post_ln_warmup', 'pre_ln', 'mix_ln'];
export const LAYERSCALE_TRAINED = ['layerscale'];

function withDefaults(id, params = {}) {
  return { ...DEFAULTS[id], ...params };
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

const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;
const seedList = (seed0, seeds) => Array.from({ length: seeds }, (_, i) => seed0 + i);
// The stacks whose last block ends in a LayerNorm (Post-LN's) or that have no
// norm at all (ReZero's) get no final norm; the pre-norm ones end in one.
const finalNorm = (arch) => (['post_ln', 'deepnorm', 'rezero'].includes(arch) ? 'none' : 'layernorm');
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

function depthsUpTo(deepest, from = DEPTHS[0]) {
  return (deepest > 96 ? [...DEPTHS, 192] : DEPTHS.filter((L) => L <= deepest)).filter((L) => L >= from);
}

/** LayerScale's lambda at init (CaiT, Touvron et al. 2021): 0.1 up to 18 blocks, 1e-5 up to 24, 1e-6 deeper. */
export const layerscaleEpsilon = (blocks) => (blocks <= 18 ? 0.1 : blocks <= 24 ? 1e-5 : 1e-6);

// The norm of the gradient of all of block l's weights together, l = 1..L.
const WEIGHTS = ['wq', 'wk', 'wv', 'wo', 'w1', 'w2'];
const blockGradNorms = (r) =>
  r.w2_grad_norm.map((_, l) => Math.sqrt(WEIGHTS.reduce((s, k) => s + r[`${k}_grad_norm`][l] ** 2, 0)));

/**
 * The largest |a[i] - b[i]| over pairs [a, b] of arrays, and how many numbers were compared:
 * {max, count}. Two equal values differ by 0 (two NaNs too, and the same infinity); a NaN beside a
 * number, or arrays of different lengths, make max NaN.
 */
export function largestDifference(pairs) {
  let max = 0,
    count = 0;
  for (const [a, b] of pairs) {
    if (a.length !== b.length) return { max: NaN, count };
    for (let i = 0; i < a.length; i++) {
      const same = a[i] === b[i] || (Number.isNaN(a[i]) && Number.isNaN(b[i]));
      max = Math.max(max, same ? 0 : Math.abs(a[i] - b[i]));
      count++;
    }
  }
  return { max, count };
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
    const keys = WEIGHTS;
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

  // One stack of ReZero and of Pre-LN, no final norm: the gradient at every
  // layer over the top's, and the stream. Then the training lab's ReZero preset, trained.
  rezero(rn, p) {
    const L = p.depth;
    const out = rn.simulate({ ...transformer(p, 'rezero', L, p.seed), arch: ['rezero', 'pre_ln'] }).results;
    const pick = (r) => ({
      grad_norm: Array.from(r.grad_norm),
      rel_grad: Array.from(r.grad_norm, (g) => g / r.grad_norm[L]),
      stream_rms: Array.from(r.stream_rms),
    });
    return { rezero: pick(out.rezero), pre_ln: pick(out.pre_ln), trained: trainPresetRuns(rn, 'rezero') };
  },

  // The top stream's variance over the input's, Var(h_L) / Var(h_0) =
  // (RMS h_L / RMS h_0)^2, for each depth from 12 up, mean over seeds.
  lns(rn, p) {
    const depths = depthsUpTo(p.deepest, 12);
    const archs = ['pre_ln', 'lns'];
    const variance = Object.fromEntries(archs.map((a) => [a, depths.map(() => 0)]));
    const seeds = seedList(p.seed0, p.seeds);
    for (const seed of seeds)
      depths.forEach((L, i) => {
        const r = rn.simulate({ ...transformer(p, 'lns', L, seed), arch: archs }).results;
        for (const a of archs) variance[a][i] += (r[a].stream_rms[L] / r[a].stream_rms[0]) ** 2 / seeds.length;
      });
    const lx = depths.map(Math.log);
    return {
      depths,
      variance,
      fit: Object.fromEntries(archs.map((a) => [a, fit(lx, variance[a].map(Math.log))])),
    };
  },

  // Per-block weight-gradient norms (all six matrices), mean over seeds, of
  // Post-LN, Pre-LN and Mix-LN, each with its own final norm. Then those three of the training
  // lab's Late layers runs, trained.
  mixln(rn, p) {
    const L = p.depth;
    const archs = ['post_ln', 'pre_ln', 'mix_ln'];
    const norms = Object.fromEntries(archs.map((a) => [a, new Array(L).fill(0)]));
    const seeds = seedList(p.seed0, p.seeds);
    let fraction = null; // Mix-LN's share of Post-LN blocks, as the engine ran it
    for (const seed of seeds)
      for (const arch of archs) {
        const out = rn.simulate(transformer(p, arch, L, seed));
        blockGradNorms(out.results[arch]).forEach((v, l) => (norms[arch][l] += v / seeds.length));
        if (arch === 'mix_ln') fraction = out.config.mix_fraction;
      }
    // early: the Post-LN blocks, counted as the core's mix_ln_early_blocks counts them
    const early = Math.min(L, Math.floor(fraction * L + 1e-9));
    return {
      blocks: Array.from({ length: L }, (_, l) => l + 1),
      early,
      fraction,
      norms,
      trained: trainPresetRuns(rn, 'late', MIXLN_TRAINED),
    };
  },

  // Each block's update ratio ||u_l|| / ||h_{l-1}|| of LayerScale and Pre-LN, on one weight bank.
  // Then the training lab's Late layers run of LayerScale, trained: its gates and update ratios.
  layerscale(rn, p) {
    const L = p.depth;
    const out = rn.simulate({ ...transformer(p, 'layerscale', L, p.seed), arch: ['layerscale', 'pre_ln'] }).results;
    const pick = (r) => ({
      update_ratio: Array.from(r.update_ratio),
      attn_update_ratio: Array.from(r.attn_update_ratio),
      mlp_update_ratio: Array.from(r.mlp_update_ratio),
    });
    return {
      epsilon: layerscaleEpsilon(L),
      layerscale: pick(out.layerscale),
      pre_ln: pick(out.pre_ln),
      trained: trainPresetRuns(rn, 'late', LAYERSCALE_TRAINED),
    };
  },

  // DenseFormer against Pre-LN at initialization, then DenseFormer trained. At initialization: spec
  // v1's per-layer numbers of the stack the trainer builds (train_config.cpp's stack_config: T = 2n
  // tokens, causal, the final LayerNorm both train with), and the first training step of each
  // (its loss and per-layer numbers, the gradients at the initial weights on the same batch).
  // Then DenseFormer's run of DWA_TRAIN and its learned averaging weights. Every trainer made here
  // is deleted before it returns.
  dwa(rn, p) {
    const train = { ...DWA_TRAIN, depth: p.depth, seed: p.seed };
    const firsts = {};
    for (const arch of ['dwa', 'pre_ln']) {
      const tr = rn.trainer({ ...train, arch, log_every: 1 });
      try {
        firsts[arch] = { config: tr.config, log: tr.step(1)[0] };
      } finally {
        tr.delete();
      }
    }
    const sim = rn.simulate({ ...dwaStack(firsts.dwa.config), arch: ['dwa', 'pre_ln'] });
    const simPairs = Object.keys(sim.results.dwa)
      .filter((k) => ArrayBuffer.isView(sim.results.dwa[k]))
      .map((k) => [sim.results.dwa[k], sim.results.pre_ln[k]]);
    const a = firsts.dwa.log,
      b = firsts.pre_ln.log;
    const stepPairs = [
      [[a.train_loss], [b.train_loss]],
      ...Object.keys(a)
        .filter((k) => ArrayBuffer.isView(a[k]))
        .map((k) => [a[k], b[k]]),
    ];
    const tr = rn.trainer({ ...train, arch: 'dwa' });
    let trained;
    try {
      const logs = tr.step(train.steps);
      const last = logs[logs.length - 1];
      trained = {
        config: tr.config,
        steps: tr.stepsDone,
        outcome: tr.outcome(),
        chance: tr.task.chance,
        optimal: tr.task.optimal,
        heldout_loss: last.heldout_loss,
        heldout_accuracy: last.heldout_accuracy,
        weights: tr.dwaWeights().map((row) => Array.from(row)),
      };
    } finally {
      tr.delete();
    }
    const pick = (r) => ({ grad_norm: Array.from(r.grad_norm), stream_rms: Array.from(r.stream_rms) });
    return {
      init: {
        config: sim.config,
        dwa: pick(sim.results.dwa),
        pre_ln: pick(sim.results.pre_ln),
        simulate: largestDifference(simPairs),
        firstStep: largestDifference(stepPairs),
        // the global gradient norms, over every parameter: DenseFormer's has its averaging weights too
        gradGlobal: { dwa: a.grad_norm_global, pre_ln: b.grad_norm_global },
        mixGrad: Math.sqrt(Math.max(0, a.grad_norm_global ** 2 - b.grad_norm_global ** 2)),
      },
      trained,
    };
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

/** Runs reproduction `id` with `params` (defaults filled in): {id, params, data, ms}. */
export function reproduce(rn, id, params = {}) {
  if (!Object.prototype.hasOwnProperty.call(COMPUTE, id)) throw new RangeError(`unknown reproduction: ${id}`);
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
