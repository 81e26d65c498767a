// The scenes of issue #5 and the FLOP count every contender is credited with.

export const SCENES = {
  default: {
    title: 'default: plain, residual, post_ln, pre_ln; L=96, d=64, T=8, e=1',
    config: { arch: ['plain', 'residual', 'post_ln', 'pre_ln'], depth: 96, width: 64, tokens: 8, expansion: 1 },
  },
  deep: {
    title: 'deep: deepnorm, post_ln; L=1000, d=64, T=8, e=1',
    config: { arch: ['deepnorm', 'post_ln'], depth: 1000, width: 64, tokens: 8, expansion: 1 },
  },
  wide: {
    title: 'wide: pre_ln; L=96, d=256, T=16, e=4',
    config: { arch: ['pre_ln'], depth: 96, width: 256, tokens: 16, expansion: 4 },
  },
};

// --quick (the Node test): the same scenes, shrunk so everything runs in seconds.
export const QUICK_SCENES = {
  default: { ...SCENES.default, config: { ...SCENES.default.config, depth: 6 } },
  deep: { ...SCENES.deep, config: { ...SCENES.deep.config, depth: 12 } },
  wide: { ...SCENES.wide, config: { ...SCENES.wide.config, depth: 3, width: 32, tokens: 4, expansion: 2 } },
};

/**
 * FLOPs of one recompute, counting the matrix products only (a multiply and an
 * add = 2): per layer, forward x W1 and a W2 and backward dy W2^T and dp W1^T,
 * 2 T d m each, plus the four (T, T) Gram products of the weight-gradient norms,
 * 2 T^2 (m + d + d + m). Norms, activations and the per-layer metrics (O(T d)
 * or O(T m) per layer) are not counted.
 */
export function flops(config) {
  const { arch, depth: L, width: d, tokens: T, expansion: e } = config;
  const m = d * e;
  return arch.length * L * (8 * T * d * m + 4 * T * T * (d + m));
}

export const FLOP_FORMULA =
  'archs x L x (8 T d m + 4 T^2 (d + m)): the four T x d x m products of forward and backward plus the four (T, T) ' +
  'Gram products of the weight-gradient norms; norms, activations and metrics not counted';
