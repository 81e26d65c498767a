// The engine's architectures, as the pages show them: a label, a group
// (the article's four are on the first row, the rest under "more", named
// there by `short` or the label; the five answers to the article's open
// question, how to keep the highway and make late layers count, come next
// there, in the order the explorer's "late layers" starting point lists them,
// then DyT, every norm replaced by a learned tanh, then Hyper-Connections
// and mHC, n residual streams with learned read, write and mixing, and Attention Residuals,
// and mHC, n residual streams with learned read, write and mixing, Attention Residuals,
// each sublayer reading a softmax over depth of h_0 and the earlier outputs, HybridNorm, and nGPT, every hidden
// state and weight vector on the unit sphere), a dash pattern so lines
// differ without colour, and a one-line description of the block.
// Colours live in theme.css (--arch-<key>), per theme; theme.js reads them.
// tests/node/shared/fields.test.js checks that the keys are exactly the
// engine's architectures.

export const ARCHS = [
  { key: 'plain', label: 'plain', group: 'article', dash: [], block: 'h ← f(h)' },
  { key: 'residual', label: 'residual, no norm', group: 'article', dash: [9, 4], block: 'h ← h + f(h)' },
  { key: 'post_ln', label: 'Post-LN', group: 'article', dash: [2, 3], block: 'h ← LN(h + f(h))' },
  { key: 'pre_ln', label: 'Pre-LN', group: 'article', dash: [12, 3, 2, 3], block: 'h ← h + f(LN(h))' },
  { key: 'post_rms', label: 'Post-RMSNorm', short: 'RMSNorm', group: 'more', dash: [5, 5], block: 'h ← RMS(h + f(h))' },
  {
    key: 'pre_rms',
    label: 'Pre-RMSNorm',
    short: 'RMSNorm',
    group: 'more',
    dash: [14, 3, 3, 3, 3, 3],
    block: 'h ← h + f(RMS(h))',
  },
  {
    key: 'sandwich',
    label: 'sandwich (Gemma 2)',
    short: 'sandwich',
    group: 'more',
    dash: [7, 2, 2, 2],
    block: 'h ← h + RMS(f(RMS(h)))',
  },
  {
    key: 'deepnorm',
    label: 'DeepNorm (DeepNet)',
    short: 'DeepNet',
    group: 'more',
    dash: [1, 3],
    block: 'h ← LN(αh + f(h)), α = (2L)^¼',
  },
  { key: 'gpt2', label: 'GPT-2 init', group: 'more', dash: [16, 5], block: 'Pre-LN with W₂ × 1/√L' },
  { key: 'admin', label: 'Admin', group: 'more', dash: [4, 2, 10, 2], block: 'h ← LN(ωh + f(h)), ω profiled at init' },
  { key: 'rezero', label: 'ReZero', group: 'more', dash: [10, 2, 2, 2, 2, 2], block: 'h ← h + α f(h), α = 0 at init' },
  {
    key: 'layerscale',
    label: 'LayerScale (CaiT)',
    short: 'LayerScale',
    group: 'more',
    dash: [3, 6],
    block: 'h ← h + diag(λ) f(LN(h)), λ = ε at init',
  },
  {
    key: 'lns',
    label: 'LayerNorm Scaling',
    short: 'LNS',
    group: 'more',
    dash: [8, 3, 8, 3, 2, 3],
    block: 'h ← h + f(LN(h) / √l) in block l',
  },
  {
    key: 'mix_ln',
    label: 'Mix-LN',
    group: 'more',
    dash: [18, 4, 4, 4],
    block: 'Post-LN in the first ¼ of the blocks, Pre-LN above',
  },
  {
    key: 'dwa',
    label: 'DenseFormer (DWA)',
    short: 'DenseFormer',
    group: 'more',
    dash: [2, 2, 2, 6],
    block: 'Pre-LN, h_l ← Σ_j w_lj y_j over h_0 and every block output',
  },
  {
    key: 'dyt',
    label: 'DyT (Zhu et al. 2025)',
    short: 'DyT',
    group: 'more',
    dash: [6, 2, 1, 2, 1, 2],
    block: 'h ← h + f(γ tanh(αh) + β), α learned',
  },
  {
    key: 'hyper',
    label: 'Hyper-Connections (Zhu et al. 2025)',
    short: 'HC',
    group: 'more',
    dash: [11, 2, 1, 2],
    block: 'n streams H: x = aᵀH, H ← MH + b f(LN(x)), a, M, b learned',
  },
  {
    key: 'mhc',
    label: 'mHC (Xie et al. 2025)',
    short: 'mHC',
    group: 'more',
    dash: [4, 3, 1, 3, 1, 3],
    block: 'HC with M = Sinkhorn(e^R) doubly stochastic',
  },
  {
    key: 'attn_res',
    label: 'AttnRes (Kimi 2026)',
    short: 'AttnRes',
    group: 'more',
    dash: [20, 3, 2, 3, 2, 3],
    block: 'h_l ← Σ_i softmax(w_l·RMS(v_i)) v_i',
  },
  {
    key: 'hybrid',
    label: 'HybridNorm (Zhuo et al. 2025)',
    short: 'HybridNorm',
    group: 'more',
    dash: [2, 2, 8, 2],
    block: 'h ← LN(h) + f(LN(h)), QKV-norm in attention',
  },
  {
    key: 'ngpt',
    label: 'nGPT (Loshchilov et al. 2025)',
    short: 'nGPT',
    group: 'more',
    dash: [3, 3, 3, 3, 12, 3],
    block: 'h ← Norm(h + α(Norm(f(h)) − h)), unit-norm weights',
  },
];

/** The grey 1/sqrt(l) line of the update chart: a dash no arch uses. */
export const REFERENCE_LINE = { dash: [6, 5] };

export const ARCH_BY_KEY = Object.fromEntries(ARCHS.map((a) => [a.key, a]));

export const archLabel = (key) => ARCH_BY_KEY[key]?.label ?? key;

/** Architectures by their labels in one line, "; " between them: a label may hold a comma ("residual, no norm"). */
export const archNames = (keys) => keys.map(archLabel).join('; ');

/** The engine's order of the architectures: results and charts follow it, whatever order they were toggled in. */
export const sortArchs = (keys) => ARCHS.map((a) => a.key).filter((k) => keys.includes(k));
