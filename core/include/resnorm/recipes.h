// resnorm/recipes.h: every architecture's wiring and init rule, in one place.
//
// A unit of the stack (model.h) wraps a sublayer f:
//   normed_in = c Nin(h);  branch = G (Nout(f(normed_in)));  sum = alpha h + branch  (or branch without skip;
//   alpha normed_in + branch when the skip reads the normed input, HybridNorm's FFN);
//   h' = Nouter(sum)
// with c the input scale (LNS's 1/sqrt(l)) and G a learnable gate (ReZero's
// scalar, LayerScale's diag(lambda)). An architecture is a Recipe: which of the
// three norms exist, the skip and its alpha, the gate, the multipliers of the
// init (DeepNet's beta, GPT-2's 1/sqrt(N)), and what differs by block: Mix-LN's
// early blocks, LNS's depth-scaled input, DenseFormer's averaging of the
// block outputs (model.h).
// weight_scales() turns a recipe and a config into the scales of the base
// weights, and Admin's omegas are profiled here too.
#pragma once

#include "resnorm/config.h"
#include "resnorm/hyper.h"

namespace resnorm {

// A learnable gate on the branch output, G(b) = gate * b: none, one scalar per
// unit (ReZero's alpha), or one entry per channel, gate (d) scaling column i of
// b (T, d) (LayerScale's diag(lambda)). Every entry is gate_init at init; the
// training stack learns it (network.h), a simulation keeps it at init.
enum class Gate : uint8_t { none, scalar, channel };

struct Wrapping {
  bool skip = true;                 // identity path present
  double alpha = 1.0;               // skip scale (DeepNet's alpha; Admin's omega, set per unit)
  NormKind in = NormKind::none;     // on the branch input
  NormKind out = NormKind::none;    // on the branch output
  NormKind outer = NormKind::none;  // on the sum
  double in_scale = 1.0;            // multiplies Nin's output (LNS: 1 / sqrt(l)), a constant; unused without Nin
  Gate gate = Gate::none;
  double gate_init = 0.0;
  // The skip carries normed_in instead of h: sum = alpha normed_in + branch
  // (HybridNorm's FFN, h' = N(h) + f(N(h))); needs Nin.
  bool skip_normed = false;
  // nGPT (ngpt.h): h' = Norm(a + alpha (Norm(f(a)) - a)), a = Norm(h), alpha
  // learned per channel; the unit has no other norm, gate or skip scale.
  bool sphere = false;
};
struct BranchScale {
  double w1 = 1.0, w2 = 1.0;                      // multiply W1, W2 at init, on top of fan-in and gain
  double wq = 1.0, wk = 1.0, wv = 1.0, wo = 1.0;  // multiply W_Q, W_K, W_V, W_O likewise
  // nGPT (ngpt.h): every weight s = 1 / sqrt(d) instead, so each vector along
  // the embedding dimension (d Gaussian entries) has norm 1 in expectation.
  bool unit_vectors = false;
};
struct Recipe {
  Wrapping wrap;
  BranchScale scale;
  // Admin: each unit's alpha (the paper's omega_i) is profiled by a forward
  // pass at init (profile_admin_omegas(), run by Model::configure), replacing wrap.alpha.
  bool profile_alpha = false;
  // Mix-LN: blocks 1..early_blocks are wrapped by `early` instead of `wrap`.
  int early_blocks = 0;
  Wrapping early;
  // LNS: block l's in_scale is 1 / sqrt(l) (l 1-based, both units of a transformer block).
  bool depth_scaled_in = false;
  // DenseFormer: the stream after block l is a learned weighted average of h_0
  // and the outputs of blocks 1..l (model.h).
  bool dense_average = false;
  // Hyper-Connections and mHC: n streams with learned read, write and mix
  // around every unit (hyper.h); the units themselves are Pre-LN branches without a skip.
  HyperKind hyper = HyperKind::none;
  // Attention Residuals: unit k's input is a softmax-weighted sum of h_0 and
  // the outputs of units 1..k - 1, weighted by a learned query per unit
  // (attn_res.h); the units have no skip.
  bool attn_res = false;
  // HybridNorm: in transformer blocks the attention unit is wrapped by `attn`
  // instead of `wrap` (MLP blocks have no attention unit and use `wrap`), and
  // attention normalizes its values as well as its queries and keys (attention.h).
  bool split_attention = false;
  Wrapping attn;
  bool qkv_norm = false;
  // nGPT: queries and keys on the sphere times s_qk, scores times sqrt(dh)
  // (attention.h); the MLP's activation input times s_v sqrt(d) (mlp.h).
  bool ngpt = false;
};
// Block l's (1-based) wrapping: the early blocks' or the others', with LNS's scale.
Wrapping block_wrapping(const Recipe& r, int l);
// The wrapping of block l's unit: attention (a transformer block's first
// unit) gets `attn` under split_attention, every other unit block_wrapping().
Wrapping unit_wrapping(const Recipe& r, int l, bool attention);
// LayerScale's init of lambda (CaiT, Touvron et al. 2021, Section 2): 0.1 up
// to 18 blocks, 1e-5 up to 24, 1e-6 deeper.
double layerscale_epsilon(int blocks);
// Mix-LN's Post-LN blocks: floor(fraction L).
int mix_ln_early_blocks(int blocks, double fraction);
// blocks: L. sublayers_per_block: 1 for MLP blocks, 2 for transformer blocks.
// What "N" is differs by architecture and is each paper's own (see recipes.cpp):
// DeepNet counts blocks (N = L), GPT-2 counts residual sublayers (N = 2L in
// transformer blocks). For MLP blocks both are L, as in a simulation.
// mix_fraction: Mix-LN's share of Post-LN blocks (Config::mix_fraction).
Recipe recipe(Arch arch, int blocks, int sublayers_per_block = 1, double mix_fraction = kMixLnFraction);

// The multipliers s of the base weights B (weights.h), W = s B:
//   W1: sqrt(c / d), c = 2 for relu and gelu, 1 for tanh and linear;  W2: g / sqrt(m);
//   W_Q, W_K, W_V: 1 / sqrt(d);  W_O: g / sqrt(d);
// each times the recipe's BranchScale (g = cfg.gain); all 1 / sqrt(d) with unit_vectors.
struct WeightScales {
  double w1, w2, wq, wk, wv, wo;
};
WeightScales weight_scales(const Config& cfg, const BranchScale& scale);

template <class S>
class Model;
// Admin's omegas: sets every unit's wrap.alpha by one forward pass from h_0
// (see recipes.cpp for the rule). The model must be configured otherwise.
template <class S>
void profile_admin_omegas(Model<S>& model);

}  // namespace resnorm
