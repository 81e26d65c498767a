// resnorm/recipes.h: every preset's wiring and init rule, in one place.
//
// A unit of the stack (model.h) wraps a sublayer f:
//   normed_in = Nin(h);  branch = Nout(f(normed_in));  sum = alpha h + branch  (or branch without skip);
//   h' = Nouter(sum)
// A preset is a Recipe: which of the three norms exist, the skip and its
// alpha, and the multipliers of the init (DeepNet's beta, GPT-2's 1/sqrt(N)).
// weight_scales() turns a recipe and a config into the scales of the base
// weights, and Admin's omegas are profiled here too.
#pragma once

#include "resnorm/config.h"

namespace resnorm {

struct Wrapping {
  bool skip = true;                 // identity path present
  double alpha = 1.0;               // skip scale (DeepNet's alpha; Admin's omega, set per unit)
  NormKind in = NormKind::none;     // on the branch input
  NormKind out = NormKind::none;    // on the branch output
  NormKind outer = NormKind::none;  // on the sum
};
struct BranchScale {
  double w1 = 1.0, w2 = 1.0;                      // multiply W1, W2 at init, on top of fan-in and gain
  double wq = 1.0, wk = 1.0, wv = 1.0, wo = 1.0;  // multiply W_Q, W_K, W_V, W_O likewise
};
struct Recipe {
  Wrapping wrap;
  BranchScale scale;
  // Admin: each unit's alpha (the paper's omega_i) is profiled by a forward
  // pass at init (profile_admin_omegas(), run by Model::configure), replacing wrap.alpha.
  bool profile_alpha = false;
};
// blocks: L. sublayers_per_block: 1 for MLP blocks, 2 for transformer blocks.
// What "N" is differs by preset and is each paper's own (see recipes.cpp):
// DeepNet counts blocks (N = L), GPT-2 counts residual sublayers (N = 2L in
// transformer blocks). For MLP blocks both are L, as in spec v1.
Recipe recipe(Arch arch, int blocks, int sublayers_per_block = 1);

// The multipliers s of the base weights B (weights.h), W = s B:
//   W1: sqrt(c / d), c = 2 for relu and gelu, 1 for tanh and linear;  W2: g / sqrt(m);
//   W_Q, W_K, W_V: 1 / sqrt(d);  W_O: g / sqrt(d);
// each times the recipe's BranchScale (g = cfg.gain).
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
