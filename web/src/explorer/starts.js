// Named starting points. Each is a whole config (unlisted fields take their
// defaults), so a starting point always shows the same picture whatever came before.
// A starting point may have a `caption`: what its picture shows at initialization,
// in words, shown under the row while it is on screen (starts-ui.js). Every sentence
// of a caption is checked against the engine's numbers for its config by
// tests/node/shared/starts.test.js.
import { defaultConfig } from '../shared/state.js';

const ARTICLE = ['plain', 'residual', 'post_ln', 'pre_ln'];

export const STARTS = [
  // Depth 50, not the engine's default 96: the article works its example at
  // fifty layers (0.9^50 ≈ 0.005, 1.1^50 ≈ 117) and then says "push the
  // slider to 96", so its figure starts below 96. Gain 1.0 is the knife's edge.
  { key: 'article', label: 'Article figure', config: { arch: ARTICLE, depth: 50, gain: 1.0 } },
  { key: 'vanishing', label: 'Vanishing (g=0.8)', config: { arch: ARTICLE, depth: 50, gain: 0.8 } },
  { key: 'exploding', label: 'Exploding (g=1.2)', config: { arch: ARTICLE, depth: 50, gain: 1.2 } },
  { key: 'deep96', label: '96 layers', config: { arch: ARTICLE, depth: 96, gain: 1.0 } },
  // Llama-style: Pre-RMSNorm blocks, a final RMSNorm before the readout, a wider
  // MLP; Pre-LN rides along so the RMSNorm-vs-LayerNorm difference is visible.
  {
    key: 'modern',
    label: 'Modern LLM',
    config: { arch: ['pre_ln', 'pre_rms'], depth: 80, expansion: 4, activation: 'gelu', final_norm: 'rmsnorm' },
  },
  {
    key: 'deepnet',
    label: 'DeepNet at 1000 layers',
    config: { arch: ['post_ln', 'deepnorm'], depth: 1000, gain: 1.0 },
  },
  // Attention then MLP in every block, each wrapped by the placement: Post-LN
  // and Admin (Post-LN with a profiled shortcut) against Pre-LN, at the depth
  // of a mid-sized model.
  {
    key: 'transformer',
    label: 'Transformer blocks',
    config: { arch: ['post_ln', 'pre_ln', 'admin'], block: 'transformer', heads: 4, depth: 24 },
  },
  // The article's open question, how to keep Pre-LN's highway and still make
  // layer 80 count, and the answers published since, at the depth it names.
  {
    key: 'late',
    label: 'Make layer 80 count',
    config: { arch: ['pre_ln', 'rezero', 'layerscale', 'lns', 'mix_ln', 'dwa'], depth: 80, gain: 1.0 },
  },
  // Transformers without Normalization (Zhu et al. 2025): Pre-LN with every
  // LayerNorm replaced by DyT, a learned tanh, beside Pre-LN itself.
  {
    key: 'dyt',
    label: 'DyT vs. Pre-LN',
    config: { arch: ['pre_ln', 'dyt'], block: 'transformer', heads: 4, depth: 24 },
    caption:
      'DyT\u2019s tanh(\u03b1x) with \u03b1\u2080 = 0.5 does not rescale what a block reads as LayerNorm does: ' +
      'the first block\u2019s update ratio is 0.46 against Pre-LN\u2019s 1.1, the stream grows more slowly (an RMS ' +
      'of 3.8 at the top against 6.1), and the gradient at the bottom is about Pre-LN\u2019s (7.8 against 7.9).',
  },
  // Attention Residuals (Kimi Team 2026): each sublayer reads a softmax over
  // depth of h_0 and the earlier outputs, beside Pre-RMSNorm, whose norm it
  // keeps on each sublayer's input; a final RMSNorm under both, as the paper's.
  {
    key: 'attn_res',
    label: 'AttnRes vs. Pre-RMSNorm',
    config: { arch: ['pre_rms', 'attn_res'], block: 'transformer', heads: 4, depth: 24, final_norm: 'rmsnorm' },
    caption:
      'At initialization every read weight of AttnRes is 1/(k + 1): each sublayer reads the mean of h\u2080 and ' +
      'the outputs below it, where Pre-RMSNorm adds them up. So the stream it reads shrinks, to an RMS of 0.13 ' +
      'at the top, where Pre-RMSNorm\u2019s grows to 6.3.',
  },
  // Hyper-Connections (Zhu et al. 2025) at their init: n = 4 streams, each unit reading one stream,
  // mixing by the identity and writing its output to every stream: Pre-LN, unrolled.
  {
    key: 'hc',
    label: 'HC vs. Pre-LN',
    config: { arch: ['pre_ln', 'hyper'], block: 'transformer', heads: 4, depth: 24 },
    caption:
      'At initialization Hyper-Connections with 4 streams are Pre-LN: each unit reads one stream, mixes them ' +
      'by the identity and adds its output to every stream, so every stream is Pre-LN\u2019s. The two draw one ' +
      'curve: the stream RMS and update ratios bit for bit, the gradient norm (summed over the streams) within ' +
      '10\u207b\u2077.',
  },
  // mHC (Xie et al. 2025) beside HC and Pre-LN: its init is near theirs, not equal.
  {
    key: 'mhc',
    label: 'mHC vs. HC',
    config: { arch: ['pre_ln', 'hyper', 'mhc'], block: 'transformer', heads: 4, depth: 24 },
    caption:
      'mHC\u2019s read weights at initialization are sigmoid(\u00b18): 0.99966 on one stream and 3.4\u00d710\u207b\u2074 ' +
      'on each other, 1.00067 in all, so each unit reads the stream 0.067% larger than HC and Pre-LN do and ' +
      'its update ratio is 0.067% smaller; its stream RMS and gradient norm are theirs within 2\u00d710\u207b\u2076. ' +
      'The three curves lie on one another.',
  },
  // HybridNorm (Zhuo et al. 2025): QKV-norm in the attention, Post-Norm in the FFN, between Post-LN and Pre-LN.
  {
    key: 'hybrid',
    label: 'HybridNorm',
    config: { arch: ['post_ln', 'pre_ln', 'hybrid'], block: 'transformer', heads: 4, depth: 24 },
    caption:
      'HybridNorm normalizes the stream once per block, after the attention\u2019s sum: its stream RMS stays ' +
      'between 0.95 and 1.6, where Pre-LN\u2019s grows to 6.1 (Post-LN\u2019s is 1 after every block), and its ' +
      'gradient norm at the bottom is 2.7 times the top\u2019s, against Post-LN\u2019s 4.2 and Pre-LN\u2019s 7.9.',
  },
  // nGPT (Loshchilov et al. 2025): every hidden state on the unit sphere,
  // each sublayer moving it a learned step alpha towards its normalized
  // output, beside Pre-LN, whose stream grows with depth.
  {
    key: 'ngpt',
    label: 'nGPT vs. Pre-LN',
    config: { arch: ['pre_ln', 'ngpt'], block: 'transformer', heads: 4, depth: 24 },
  },
  // Not on the main row: linked from the explanation of GPT-2's init.
  {
    key: 'gpt2',
    label: 'GPT-2 init vs. residual',
    config: { arch: ['residual', 'pre_ln', 'gpt2'], depth: 96, gain: 1.0 },
    hidden: true,
  },
];

export const START_BY_KEY = Object.fromEntries(STARTS.map((p) => [p.key, p]));

export const startConfig = (key) => ({ ...defaultConfig(), ...START_BY_KEY[key].config });
