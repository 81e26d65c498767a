// resnorm/engine.h: the whole public API of the engine in one call.
//
//   resnorm::Engine<float> engine;
//   resnorm::Results res;
//   resnorm::Status st = engine.simulate(cfg, &res);   // errors as values, never throws
//
// An Engine keeps its weight bank and per-arch workspaces between calls, so a
// slider step that changes only gain or arch regenerates nothing and
// allocates nothing.
#pragma once

#include <memory>
#include <vector>

#include "resnorm/config.h"
#include "resnorm/model.h"
#include "resnorm/results.h"

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
inline constexpr int kMaxPathSamples = 4096;
inline constexpr int kMaxPathUnits = 512;  // C(512, 256) ~ 5e152 still fits a double

template <class S>
class Engine {
 public:
  Status simulate(const Config& cfg, Results* out);
  // Path statistics for every arch of cfg (see PathArch). samples in
  // 1..kMaxPathSamples; L P at most kMaxPathUnits. Errors as values.
  Status paths(const Config& cfg, int samples, uint32_t path_seed, PathResults* out);

 private:
  WeightBank<S> bank_;
  std::vector<std::unique_ptr<Model<S>>> models_;  // one workspace per slot of config.archs
};

}  // namespace resnorm
