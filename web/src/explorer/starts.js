// Named starting points. Each is a whole config (unlisted fields take their
// defaults), so a starting point always shows the same picture whatever came before.
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
  },
  // Attention Residuals (Kimi Team 2026): each sublayer reads a softmax over
  // depth of h_0 and the earlier outputs, beside Pre-RMSNorm, whose norm it
  // keeps on each sublayer's input; a final RMSNorm under both, as the paper's.
  {
    key: 'attn_res',
    label: 'AttnRes vs. Pre-RMSNorm',
    config: { arch: ['pre_rms', 'attn_res'], block: 'transformer', heads: 4, depth: 24, final_norm: 'rmsnorm' },
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
