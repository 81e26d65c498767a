// Engine::simulate: every arch of a config, forward and backward in lockstep.
// Engine::paths is in paths.cpp.
#include "resnorm/engine.h"

#include <algorithm>
#include <memory>

#include "resnorm/limits.h"

namespace resnorm {

template <class S>
Status Engine<S>::simulate(const Config& cfg, Results* out) {
  Status st = check_simulate(cfg);
  if (!st.ok()) return st;
  prepare(cfg);
  out->config = cfg;
  out->archs.resize(cfg.archs.size());
  const size_t n = cfg.archs.size();
  for (size_t i = 0; i < n; ++i) models_[i]->configure(cfg, cfg.archs[i], bank_);
  // The models in lockstep, unit by unit: each unit's weights (96 kB per
  // transformer block at d = 64, 9 MB for 96 blocks) are read by every arch
  // while in cache. Each model's arithmetic is exactly forward(), backward().
  const int units = models_[0]->units();
  for (size_t i = 0; i < n; ++i) models_[i]->forward_begin();
  for (int k = 1; k <= units; ++k)
    for (size_t i = 0; i < n; ++i) models_[i]->forward_step(k);
  for (size_t i = 0; i < n; ++i) {
    models_[i]->forward_end();
    models_[i]->backward_begin();
  }
  for (int k = units; k >= 1; --k)
    for (size_t i = 0; i < n; ++i) models_[i]->backward_step(k);
  for (size_t i = 0; i < n; ++i) out->archs[i] = models_[i]->result();
  return Status::Ok();
}

template <class S>
void Engine<S>::prepare(const Config& cfg) {
  // What an earlier, different call left beyond this one's needs is released
  // first, so the engine never holds more than the call's cost (limits.h).
  models_.resize(std::min(models_.size(), cfg.archs.size()));
  const double held = std::max(0, bank_.layers_held() - cfg.depth) * cfg.weights_per_block() * sizeof(S);
  if (simulate_cost(cfg, sizeof(S)).bytes + held > kMemoryBudget) bank_.trim(cfg.depth);
  bank_.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, cfg.block == Block::transformer);
  while (models_.size() < cfg.archs.size()) models_.push_back(std::make_unique<Model<S>>());
}

template class Engine<float>;
template class Engine<double>;

}  // namespace resnorm
