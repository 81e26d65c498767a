// resnorm/engine.h: the whole public API of the engine in one call.
//
//   resnorm::Engine<float> engine;
//   resnorm::Results res;
//   resnorm::Status st = engine.simulate(cfg, &res);   // errors as values, never throws
//
// An Engine keeps its weight bank and per-arch workspaces between calls, so a
// slider step that changes only gain or arch regenerates nothing and
// allocates nothing, and a depth, width or tokens step within the sizes seen
// before allocates no workspace (a new width still generates its weights). A
// call whose cost exceeds the budgets of limits.h is refused before anything
// is allocated.
#pragma once

#include <memory>
#include <vector>

#include "resnorm/config.h"
#include "resnorm/model.h"
#include "resnorm/paths.h"
#include "resnorm/results.h"

namespace resnorm {

template <class S>
class Engine {
 public:
  Status simulate(const Config& cfg, Results* out);
  // Path statistics for every arch of cfg (see PathArch). samples in
  // 1..kMaxPathSamples; L P at most kMaxPathUnits. Errors as values.
  Status paths(const Config& cfg, int samples, uint32_t path_seed, PathResults* out);

 private:
  // Sizes the bank and the workspaces for cfg, releasing what other calls
  // left that would take the engine past the memory budget (limits.h).
  void prepare(const Config& cfg);
  Config shape_;  // the last call's config: its block kind is the workspaces'
  WeightBank<S> bank_;
  std::vector<std::unique_ptr<Model<S>>> models_;  // one workspace per slot of config.archs
};

}  // namespace resnorm
