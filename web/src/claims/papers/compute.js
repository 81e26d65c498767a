// What the papers' claims compute with (each claim's compute(rn, params), ./<id>.js): the stacks
// they simulate (transformer(), the depths and seeds they sweep), the numbers they derive (a
// least-squares fit, a block's weight gradient, the largest difference of two runs), and the training
// lab's runs some of them train (trainLabRuns, memoized per engine; DenseFormer's run, DWA_TRAIN).
// Pure functions of the engine's JS API (`rn`): no DOM, run in the engine worker and by the Node tests.
import { REVERSE_TASK } from '../../shared/train-tasks.js';
import { CLAIM_BY_ID, runConfigs } from '../lab/index.js';

/** The depths the claims over L sweep (depthsUpTo). */
export const DEPTHS = [6, 12, 24, 48, 96];

/**
 * What DenseFormer's panel trains: the training lab's Late layers claim (../lab/late.js), reverse 4
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
 * Trains the runs of the training lab's claim `id` (../lab/<id>.js) whose keys are in `keys`, each
 * with the config the lab gives it (the claim's settings over the engine's defaults, the run's
 * overrides) for all its steps, as the lab's session does; none of these runs stops once trained.
 * {key: {key, arch, label, config, logs, task, gates, lesion}} (gates: ReZero's and LayerScale's at
 * the end, else null; lesion: the trainer's, for a claim the lab lesions, else null), each in the
 * shape the lab claims' judges (../lab/) read. Every trainer is deleted.
 */
export function trainLabRuns(rn, id, keys = null) {
  // Training is deterministic and these runs depend on nothing a panel's controls change, so
  // each engine trains them once: a new depth or seed on the panel recomputes only what it moves.
  const memo = trainedMemo.get(rn) ?? new Map();
  trainedMemo.set(rn, memo);
  const memoKey = `${id}|${keys ?? ''}`;
  if (!memo.has(memoKey)) memo.set(memoKey, trainLabRunsOnce(rn, id, keys));
  return memo.get(memoKey);
}

/** Per engine: the runs trainLabRuns has trained, by claim and keys (callers read them, never write). */
const trainedMemo = new WeakMap();

function trainLabRunsOnce(rn, id, keys) {
  const claim = CLAIM_BY_ID[id];
  const configs = runConfigs(claim, claim.config);
  const out = {};
  claim.runs.forEach((run, i) => {
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
        lesion: claim.needsLesion ? tr.lesion() : null,
      };
    } finally {
      tr.delete();
    }
  });
  return out;
}

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

export const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;
export const seedList = (seed0, seeds) => Array.from({ length: seeds }, (_, i) => seed0 + i);
// The stacks whose last block ends in a LayerNorm (Post-LN's) or that have no
// norm at all (ReZero's) get no final norm; the pre-norm ones end in one.
export const finalNorm = (arch) => (['post_ln', 'deepnorm', 'rezero'].includes(arch) ? 'none' : 'layernorm');
/** A panel's transformer blocks as config fields (its width, tokens, heads, mask and expansion), without arch or depth. */
export const transformerFields = (p) => ({
  block: 'transformer',
  width: p.width,
  tokens: p.tokens,
  heads: p.heads,
  causal: p.causal,
  expansion: p.expansion ?? 1,
});
/** The simulate config of one `arch` stack of `depth` of a panel's transformer blocks, with its final norm. */
export const transformer = (p, arch, depth, seed) => ({
  ...transformerFields(p),
  arch: [arch],
  depth,
  final_norm: finalNorm(arch),
  seed,
});

export function depthsUpTo(deepest, from = DEPTHS[0]) {
  return (deepest > 96 ? [...DEPTHS, 192] : DEPTHS.filter((L) => L <= deepest)).filter((L) => L >= from);
}

/** LayerScale's lambda at init (CaiT, Touvron et al. 2021): 0.1 up to 18 blocks, 1e-5 up to 24, 1e-6 deeper. */
export const layerscaleEpsilon = (blocks) => (blocks <= 18 ? 0.1 : blocks <= 24 ? 1e-5 : 1e-6);

// The norm of the gradient of all of block l's weights together, l = 1..L.
export const WEIGHTS = ['wq', 'wk', 'wv', 'wo', 'w1', 'w2'];
export const blockGradNorms = (r) =>
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
