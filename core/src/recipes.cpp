// Every architecture's wiring and init rule (see recipes.h).
#include "resnorm/recipes.h"

#include <algorithm>
#include <cmath>

#include "resnorm/model.h"

namespace resnorm {

// N differs by architecture, each as its paper defines it:
//  - deepnorm: DeepNet (Wang et al. 2022), Table 1, decoder-only: alpha = (2N)^(1/4),
//    beta = (8N)^(-1/4) with N the number of layers, i.e. blocks (a DeepNet layer
//    is attention + FFN). So N = L for MLP and transformer blocks alike. beta
//    multiplies the FFN's W1, W2 and attention's W_V, W_O (not W_Q, W_K).
//  - gpt2: GPT-2 scales "the weights of residual layers" by 1/sqrt(N), N the
//    number of residual layers: 2 per transformer block (nanoGPT: 0.02/sqrt(2
//    n_layer) on every c_proj). So N = L P, P sublayers per block: 2L for
//    transformer blocks, L for MLP blocks. It multiplies W2 and W_O.
//  - admin: Post-LN with alpha per unit, profiled by profile_admin_omegas().
// The architectures of learnable or depth-dependent residual scales:
//  - rezero: ReZero (Bachlechner et al. 2020), x_{i+1} = x_i + alpha_i F(x_i),
//    alpha_i a learnable scalar initialized to 0, no norm: at init every unit
//    is the identity. One alpha per unit (the paper's per residual sublayer;
//    its reference transformer code shares one between a layer's attention
//    and FFN, which we do not).
//  - layerscale: LayerScale (CaiT, Touvron et al. 2021), x' = x + diag(lambda)
//    F(LN(x)), a learnable lambda (d) per unit, every entry layerscale_epsilon(L).
//  - lns: LayerNorm Scaling (Sun et al. 2025, "The Curse of Depth in Large
//    Language Models"), Pre-LN with each LayerNorm's output scaled by 1 /
//    sqrt(l) in block l, a constant.
//  - mix_ln: Mix-LN (Li et al. 2024), Post-LN in the first floor(f L) blocks,
//    Pre-LN in the rest, f = mix_fraction (the paper's 0.25 by default).
//  - dwa: DenseFormer (Pagliardini et al. 2024), Pre-LN blocks with
//    depth-weighted averaging after every block (model.h).
//  - dyt: Dynamic Tanh (Zhu et al. 2025, "Transformers without Normalization"),
//    Pre-LN with every LayerNorm replaced by DyT(x) = gamma tanh(alpha x) + beta,
//    alpha a learnable scalar per layer starting at Config::dyt_alpha (norms.h);
//    the final norm too under final_norm=auto (train_config.h).
//  - hyper: Hyper-Connections (Zhu et al., ICLR 2025), static; mhc: their
//    manifold-constrained form (Xie et al. 2025). Each unit is a Pre-LN branch
//    f(LN(x)) without a skip; the n streams around it, what it reads and where
//    its output goes are hyper.h's.
//  - attn_res: Attention Residuals (Kimi Team 2026), RMSNorm on each unit's
//    input and no skip: unit k reads the softmax over depth of h_0 and the
//    outputs of units 1..k - 1 (attn_res.h), the stack's output is that of
//    all of them, under the final norm (RMSNorm under final_norm=auto).
//  - hybrid: HybridNorm (Zhuo et al. 2025, "HybridNorm: Towards Stable and
//    Efficient Transformer Training via Hybrid Normalization"): no norm around
//    attention, h <- h + attn(h), with LayerNorm on each head's Q, K and V
//    (gains only, shared by the heads, as the reference code's q_norm,
//    k_norm, v_norm over d_model / n_heads features); the FFN Post-Norm as the
//    reference code wires it (ffn_residual_after_norm): h <- N(h) + f(N(h)),
//    the skip taken after the norm. The paper allows LayerNorm or RMSNorm and
//    trains with RMSNorm; we use LayerNorm, as post_ln and pre_ln do. MLP
//    blocks (no attention) get the FFN rule. The final norm under auto is
//    LayerNorm (the reference model's ln_f). HybridNorm*, whose first block is
//    Pre-Norm, is not one of ours.
//  - ngpt: nGPT (Loshchilov et al., ICLR 2025), every unit on the unit
//    sphere, h <- Norm(h + alpha (Norm(f(h)) - h)), no norm layer, queries,
//    keys, the MLP and the logits scaled as ngpt.h says.
Recipe recipe(Arch arch, int blocks, int sublayers_per_block, double mix_fraction) {
  const int N = blocks;
  Recipe r;
  Wrapping& w = r.wrap;
  switch (arch) {
    case Arch::plain: w.skip = false; break;
    case Arch::residual: break;
    case Arch::post_ln: w.outer = NormKind::layernorm; break;
    case Arch::post_rms: w.outer = NormKind::rmsnorm; break;
    case Arch::pre_ln: w.in = NormKind::layernorm; break;
    case Arch::pre_rms: w.in = NormKind::rmsnorm; break;
    case Arch::sandwich:
      w.in = NormKind::rmsnorm;
      w.out = NormKind::rmsnorm;
      break;
    case Arch::deepnorm:
      w.outer = NormKind::layernorm;
      w.alpha = std::pow(2.0 * N, 0.25);
      r.scale.w1 = r.scale.w2 = std::pow(8.0 * N, -0.25);
      r.scale.wv = r.scale.wo = r.scale.w1;
      break;
    case Arch::gpt2:
      w.in = NormKind::layernorm;
      r.scale.w2 = 1.0 / std::sqrt(double(N * sublayers_per_block));
      r.scale.wo = r.scale.w2;
      break;
    case Arch::admin:
      w.outer = NormKind::layernorm;
      r.profile_alpha = true;
      break;
    case Arch::rezero:
      w.gate = Gate::scalar;
      w.gate_init = 0.0;
      break;
    case Arch::layerscale:
      w.in = NormKind::layernorm;
      w.gate = Gate::channel;
      w.gate_init = layerscale_epsilon(N);
      break;
    case Arch::lns:
      w.in = NormKind::layernorm;
      r.depth_scaled_in = true;
      break;
    case Arch::mix_ln:
      w.in = NormKind::layernorm;
      r.early.outer = NormKind::layernorm;
      r.early_blocks = mix_ln_early_blocks(N, mix_fraction);
      break;
    case Arch::dwa:
      w.in = NormKind::layernorm;
      r.dense_average = true;
      break;
    case Arch::dyt: w.in = NormKind::dyt; break;
    case Arch::hyper:
    case Arch::mhc:
      w.in = NormKind::layernorm;
      w.skip = false;
      r.hyper = arch == Arch::hyper ? HyperKind::hc : HyperKind::mhc;
      break;
    case Arch::attn_res:
      w.in = NormKind::rmsnorm;
      w.skip = false;
      r.attn_res = true;
      break;
    case Arch::hybrid:
      w.in = NormKind::layernorm;
      w.skip_normed = true;
      r.split_attention = true;
      r.attn = Wrapping{};
      r.qkv_norm = true;
      break;
    case Arch::ngpt:
      w.sphere = true;
      r.ngpt = true;
      r.scale.unit_vectors = true;
      break;
  }
  return r;
}

Wrapping block_wrapping(const Recipe& r, int l) {
  Wrapping w = l <= r.early_blocks ? r.early : r.wrap;
  if (r.depth_scaled_in) w.in_scale = 1.0 / std::sqrt(double(l));
  return w;
}

Wrapping unit_wrapping(const Recipe& r, int l, bool attention) {
  return attention && r.split_attention ? r.attn : block_wrapping(r, l);
}

double layerscale_epsilon(int blocks) { return blocks <= 18 ? 0.1 : blocks <= 24 ? 1e-5 : 1e-6; }

// The 1e-9 keeps a product like 0.29 * 100 = 28.999999999999996 at 29.
int mix_ln_early_blocks(int blocks, double fraction) {
  return std::min(blocks, static_cast<int>(std::floor(fraction * blocks + 1e-9)));
}

WeightScales weight_scales(const Config& cfg, const BranchScale& scale) {
  const int d = cfg.width, m = cfg.hidden();
  const double c = (cfg.activation == Activation::relu || cfg.activation == Activation::gelu) ? 2.0 : 1.0;
  WeightScales s;
  if (scale.unit_vectors) {  // nGPT: every weight 1 / sqrt(d), whatever the gain and activation
    s.w1 = s.w2 = s.wq = s.wk = s.wv = s.wo = 1.0 / std::sqrt(double(d));
    return s;
  }
  s.w1 = std::sqrt(c / d) * scale.w1;
  s.w2 = cfg.gain / std::sqrt(double(m)) * scale.w2;
  // Attention: W_Q, W_K, W_V, W_O entries N(0, 1/d); the gain multiplies W_O as it does W2.
  const double fan = 1.0 / std::sqrt(double(d));
  s.wq = fan * scale.wq;
  s.wk = fan * scale.wk;
  s.wv = fan * scale.wv;
  s.wo = cfg.gain * fan * scale.wo;
  return s;
}

// Admin (Liu et al. 2020, "Understanding the Difficulty of Training
// Transformers"): Post-LN, h' = LN(omega_i h + f_i(h)), omega_i set by one
// profiling forward pass at init. The paper writes omega_i =
// sqrt(sum_{j<i} Var[f_j(x_{j-1})]); its code (Transformer-Clinic,
// fairseq/modules/transformer_layer.py, init_type "adaptive-profiling") runs
//   ratio = 1                                    (global encoder_ratio = 1.0)
//   for each residual sublayer i, in order:      (attention, FFN, attention, ...)
//     omega_i = ratio; run the sublayer with it
//     ratio = sqrt(Var[omega_i x_{i-1}] + Var[f_i(x_{i-1})])
// with Var the variance over all entries (np.var of the flattened tensor) and
// x_{i-1} the sublayer's input stream. Since x_{i-1} is a LayerNorm output for
// i > 1 (variance ~1), omega_i^2 ~ Var[x_0] + sum_{j<i} Var[f_j]: the paper's
// sum plus a term for the input, which keeps the first shortcut at omega_1 = 1
// (the paper's empty sum would make it 0). We follow the code, exactly:
// omega_1 = 1, the recursion above over every unit of the stack (two per
// transformer block), variances in double over the T d entries of h_{i-1} and
// of the branch output, the later units seeing the omegas already set.
// The omegas are then constants of the model (forward and backward treat them
// as fixed, like DeepNet's alpha), depend only on what precedes unit i (never
// on L), and are recomputed by every configure().
template <class S>
void profile_admin_omegas(Model<S>& model) {
  const long n = model.input().size();
  auto variance = [n](const S* x) {
    double mean = 0;
    for (long i = 0; i < n; ++i) mean += double(x[i]);
    mean /= double(n);
    double v = 0;
    for (long i = 0; i < n; ++i) v += (double(x[i]) - mean) * (double(x[i]) - mean);
    return v / double(n);
  };
  model.forward_begin();
  double ratio = 1.0;
  for (int k = 1; k <= model.units(); ++k) {
    Unit<S>& u = model.unit_at(k);
    u.wrap.alpha = ratio;
    model.forward_step(k);
    ratio = std::sqrt(ratio * ratio * variance(model.stream(k - 1)) + variance(u.branch_output()));
  }
}

template void profile_admin_omegas(Model<float>&);
template void profile_admin_omegas(Model<double>&);

}  // namespace resnorm
