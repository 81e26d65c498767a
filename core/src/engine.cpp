#include "resnorm/engine.h"

#include <cmath>
#include <cstdio>
#include <utility>

namespace resnorm {

template <class S>
Status Engine<S>::simulate(const Config& cfg, Results* out) {
  Status st = validate(cfg);
  if (!st.ok()) return st;
  bank_.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, cfg.block == Block::transformer);
  while (models_.size() < cfg.archs.size()) models_.push_back(std::make_unique<Model<S>>());
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

namespace {
void append_array(std::string& s, const std::vector<double>& v) {
  s += '[';
  char buf[32];
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    if (std::isfinite(v[i])) {
      std::snprintf(buf, sizeof buf, "%.9g", v[i]);
      s += buf;
    } else {
      s += "null";
    }
  }
  s += ']';
}
}  // namespace

std::string results_json(const Results& res) {
  std::string s = "{\"config\": " + config_json(res.config) + ", \"results\": {";
  for (size_t i = 0; i < res.archs.size(); ++i) {
    const ArchResult& r = res.archs[i];
    s += (i ? ", \"" : "\"") + std::string(name(r.arch)) + "\": {\"grad_norm\": ";
    append_array(s, r.grad_norm);
    s += ", \"stream_rms\": ";
    append_array(s, r.stream_rms);
    s += ", \"update_ratio\": ";
    append_array(s, r.update_ratio);
    s += ", \"w1_grad_norm\": ";
    append_array(s, r.w1_grad_norm);
    s += ", \"w2_grad_norm\": ";
    append_array(s, r.w2_grad_norm);
    // Transformer-only arrays: absent (not empty) for MLP blocks, so their JSON is unchanged.
    const std::pair<const char*, const std::vector<double>*> extra[] = {
        {"attn_update_ratio", &r.attn_update_ratio}, {"mlp_update_ratio", &r.mlp_update_ratio},
        {"wq_grad_norm", &r.wq_grad_norm},           {"wk_grad_norm", &r.wk_grad_norm},
        {"wv_grad_norm", &r.wv_grad_norm},           {"wo_grad_norm", &r.wo_grad_norm}};
    for (const auto& [key, v] : extra) {
      if (v->empty()) continue;
      s += std::string(", \"") + key + "\": ";
      append_array(s, *v);
    }
    s += ", \"first_nonfinite\": " + (r.first_nonfinite < 0 ? std::string("null") : std::to_string(r.first_nonfinite));
    s += '}';
  }
  s += "}}";
  return s;
}

template class Engine<float>;
template class Engine<double>;

}  // namespace resnorm
