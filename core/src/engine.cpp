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
  // The engine never holds more than the budget (limits.h). Models of another
  // block kind would start afresh anyway: they go first, so the peak is this
  // call's. Of the same kind, each model keeps its workspaces, sized for the
  // largest tokens, width, hidden width and heads and the deepest depth it has
  // seen (model.h; a change within that capacity allocates nothing), unless
  // keeping them, and the bank's deeper layers, would pass the budget: then
  // they go too, and the call allocates what it needs.
  if (!models_.empty() && cfg.block != shape_.block) models_.clear();
  models_.resize(std::min(models_.size(), cfg.archs.size()));
  const Cost cost = simulate_cost(cfg, sizeof(S));
  const double layer = cfg.weights_per_block() * sizeof(S);
  double kept = std::max(0, bank_.layers_held() - cfg.depth) * layer;
  for (size_t i = 0; i < models_.size(); ++i)
    kept += capacity_bytes(models_[i]->capacity_after(cfg), sizeof(S)) - model_bytes(cfg, cfg.archs[i], sizeof(S));
  if (cost.bytes + kept > kMemoryBudget) {
    models_.clear();
    bank_.trim(cfg.depth);
  }
  shape_ = cfg;
  bank_.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, cfg.block == Block::transformer);
  while (models_.size() < cfg.archs.size()) models_.push_back(std::make_unique<Model<S>>());
}

template class Engine<float>;
template class Engine<double>;

}  // namespace resnorm
