// resnorm/paths.h: the path expansion of the backward pass (Veit et al. 2016,
// "Residual Networks Behave Like Ensembles of Relatively Shallow Networks").
//
// A unit's backward is dh_in = J_in^T (alpha I + B)^T J_outer^T dh_out with B
// the branch Jacobian (Nin, f, Nout) and J_outer that of the norm on the sum
// (identity without one), so the gradient at h_0 expands over the 2^U
// subsets of the U units into a sum of "path" terms: at a unit in the subset
// the gradient goes through the branch only, elsewhere through the skip only
// (alpha times; a unit without a skip makes the term 0). For an unnormalized
// residual stack that is the expansion of prod (I + J_i); a pre-norm's
// Jacobian is part of B, a post-norm's is a factor of both. The sum of the
// terms over all subsets is exactly dstream(0) of Model::backward() (up to the
// round-off of adding them).
//
// Model::backward_path() (model.h) computes one term; Engine::paths()
// (engine.h) measures the terms length by length. Both are defined in paths.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "resnorm/config.h"
#include "resnorm/json.h"

namespace resnorm {

// The unrolled view of a residual stack (Veit et al. 2016, "Residual Networks
// Behave Like Ensembles of Relatively Shallow Networks", Section 5 and Fig. 6):
// the backward pass expands into 2^U paths over the U = L P units (Model::
// backward_path()), C(U, k) of them of length k (through k branches). For each
// length k the engine measures the norm of the gradient at h_0 carried by one
// path, ||d loss / d h_0 along the path||_F, the way the paper does: forward
// once, then backward along paths of k units chosen uniformly among the
// C(U, k) subsets (partial Fisher-Yates, splitmix64 keyed by (path_seed, U,
// k), so each length's draws depend on nothing else), `samples` of them per
// length; where C(U, k) <= samples every path of that length is run once
// instead, so those lengths are exact.
struct PathArch {
  Arch arch = Arch::plain;
  int units = 0;                  // U = L P
  std::vector<double> count;      // U+1: C(U, k), the number of paths of length k
  std::vector<double> measured;   // U+1: how many paths of length k were run
  std::vector<double> mean_norm;  // U+1: their mean gradient norm at h_0
  std::vector<double> sd_norm;    // U+1: the sample standard deviation (0 for one path)
  std::vector<double> total;      // U+1: count * mean_norm, the magnitude all paths of length k carry (Veit's Fig. 6c)
  double full_norm = 0;           // ||d loss / d h_0|| of the whole backward pass (the sum of all paths)
};
struct PathResults {
  Config config;
  int samples = 0;
  uint32_t path_seed = 0;
  std::vector<PathArch> archs;  // in the order of config.archs
};
// A PathArch's arrays with their keys: count, measured, mean_norm, sd_norm, total.
std::vector<NamedArray> named_arrays(const PathArch& a);

inline constexpr int kMaxPathSamples = 4096;
inline constexpr int kMaxPathUnits = 512;  // C(512, 256) ~ 5e152 still fits a double

}  // namespace resnorm
