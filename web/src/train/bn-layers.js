// The BatchNorm layers of a training run, in the order the engine logs their
// batch-vs-running distances (bn_mean_distance, bn_var_distance): unit by
// unit (each block's attention, then its MLP, for a transformer block), in
// each unit its norm before the sublayer, after it, then after the residual
// sum, whichever the architecture has; then the final norm before the
// readout. With `norm: 'batchnorm'` every norm of the stack is BatchNorm, and
// the final one when the architecture's own final norm is kept (final_norm
// auto). core/src/recipes.cpp, core/src/network.cpp (batchnorms()) and
// core/src/train_config.cpp (final_norm_of) are the engine's side. Pure
// functions, no DOM.

/** Where each architecture puts its norms in a unit: before the sublayer ('in'), after it ('out'), after the sum ('outer'). */
const SITES = {
  plain: [],
  residual: [],
  rezero: [],
  post_ln: ['outer'],
  post_rms: ['outer'],
  deepnorm: ['outer'],
  admin: ['outer'],
  pre_ln: ['in'],
  pre_rms: ['in'],
  gpt2: ['in'],
  layerscale: ['in'],
  lns: ['in'],
  dwa: ['in'],
  dyt: ['in'],
  hyper: ['in'],
  mhc: ['in'],
  // Attention Residuals' key normalization is part of its softmax over depth, never BatchNorm
  attn_res: ['in'],
  // HybridNorm: a norm before the MLP (its skip taken after it), none around attention
  hybrid: ['in'],
  // nGPT: no norm layer (its unit-norm steps are not norms BatchNorm could replace)
  ngpt: [],
  sandwich: ['in', 'out'],
  // Post-LN in the first floor(f L) blocks, Pre-LN in the rest
  mix_ln: ['in'],
};

/** The architectures whose own final norm (final_norm auto) is there: a BatchNorm run's becomes BatchNorm. */
const FINAL = new Set([
  'pre_ln',
  'pre_rms',
  'gpt2',
  'layerscale',
  'lns',
  'mix_ln',
  'dwa',
  'dyt',
  'hyper',
  'mhc',
  'sandwich',
  'attn_res',
  'hybrid',
]);

const SITE_TEXT = {
  in: 'norm before the sublayer',
  out: 'norm after the sublayer',
  outer: 'norm after the residual sum',
};
const SITE_SHORT = { in: 'in', out: 'out', outer: 'sum' };

/** Mix-LN's Post-LN blocks: floor(f L), at most L (the 1e-9 as the engine's mix_ln_early_blocks). */
const earlyBlocks = (L, f) => Math.min(L, Math.floor((f ?? 0.25) * L + 1e-9));

/** Whether a run's config makes its norms BatchNorm. */
export const usesBatchnorm = (config) => config?.norm === 'batchnorm';

/**
 * The BatchNorm layers of a run of `config` ({arch, norm, block, depth, final_norm, mix_fraction}),
 * in the engine's order: [{short, long}], short for an axis ("2 MLP", "final"), long for a
 * sentence ("block 2 MLP, norm before the sublayer"); [] for a run without BatchNorm.
 */
export function bnLayers(config) {
  if (!usesBatchnorm(config)) return [];
  const sites = SITES[config.arch] ?? [];
  const L = config.depth;
  const subs = config.block === 'mlp' ? [null] : ['attention', 'MLP'];
  const early = config.arch === 'mix_ln' ? earlyBlocks(L, config.mix_fraction) : 0;
  const out = [];
  for (let l = 1; l <= L; l++) {
    const here = l <= early ? ['outer'] : sites;
    for (const sub of subs)
      for (const site of config.arch === 'hybrid' && sub === 'attention' ? [] : here) {
        const unit = sub ? `${l} ${sub === 'attention' ? 'attn' : sub}` : `${l}`;
        out.push({
          short: here.length > 1 ? `${unit} ${SITE_SHORT[site]}` : unit,
          long: `block ${l}${sub ? ` ${sub}` : ''}, ${SITE_TEXT[site]}`,
        });
      }
  }
  if ((config.final_norm ?? 'auto') === 'auto' && FINAL.has(config.arch))
    out.push({ short: 'final', long: 'final norm, before the readout' });
  return out;
}

/**
 * The row labels of a run's BatchNorm map: bnLayers(config) when it has as many layers as the
 * logs' arrays (`count`), else "BatchNorm 1".."BatchNorm n" (a layout this module does not know
 * must not be named wrongly).
 */
export function bnRowLabels(config, count) {
  const named = bnLayers(config);
  if (named.length === count) return named;
  return Array.from({ length: count }, (_, i) => ({ short: `${i + 1}`, long: `BatchNorm ${i + 1}` }));
}

/** How many BatchNorm layers a run logged (its longest distance array), or 0. */
export function loggedBnCount(run) {
  let n = 0;
  for (const l of run?.logs ?? []) n = Math.max(n, l.bn_mean_distance?.length ?? 0);
  return n;
}

/** How many rows a run's BatchNorm map has: the layers its config names, or more if it logged more. */
export const bnCount = (run) => Math.max(loggedBnCount(run), bnLayers(run?.config).length);

/** Whether a run has BatchNorm layers (its config's, or any it logged). */
export const hasBatchnorm = (run) => bnCount(run) > 0;

/** Why run `run` (named `label`) has no map of BatchNorm's distances, by its config. */
export function noBnMapText(run, label) {
  const sites = SITES[run?.config?.arch];
  if (usesBatchnorm(run?.config) || (sites && !sites.length))
    return `${label} has no norm in its stack, so no BatchNorm layer: nothing to draw.`;
  return `${label} normalizes each token with its own features, not with batch statistics: nothing to draw.`;
}
