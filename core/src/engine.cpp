#include "resnorm/engine.h"

#include <cmath>
#include <cstdio>

namespace resnorm {

template <class S>
Status Engine<S>::simulate(const Config& cfg, Results* out) {
  Status st = validate(cfg);
  if (!st.ok()) return st;
  bank_.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth);
  while (models_.size() < cfg.archs.size()) models_.push_back(std::make_unique<Model<S>>());
  out->config = cfg;
  out->archs.resize(cfg.archs.size());
  for (size_t i = 0; i < cfg.archs.size(); ++i) {
    Model<S>& m = *models_[i];
    m.configure(cfg, cfg.archs[i], bank_);
    m.forward();
    m.backward();
    out->archs[i] = m.result();
  }
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
    s += ", \"first_nonfinite\": " + (r.first_nonfinite < 0 ? std::string("null") : std::to_string(r.first_nonfinite));
    s += '}';
  }
  s += "}}";
  return s;
}

template class Engine<float>;
template class Engine<double>;

}  // namespace resnorm
