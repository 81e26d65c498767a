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

namespace resnorm {

struct Results {
  Config config;
  std::vector<ArchResult> archs;  // in the order of config.archs
};

template <class S>
class Engine {
 public:
  Status simulate(const Config& cfg, Results* out);

 private:
  WeightBank<S> bank_;
  std::vector<std::unique_ptr<Model<S>>> models_;  // one workspace per slot of config.archs
};

// JSON of the CLI and the tests: {"config": {...}, "results": {"<arch>": {...}}},
// non-finite numbers as null. The transformer-only arrays of ArchResult
// (attn_update_ratio ... wo_grad_norm) are printed only when non-empty.
std::string results_json(const Results& res);

}  // namespace resnorm
