// The per-layer metrics of a model and the JSON and table they are written as (see results.h).
#include "resnorm/results.h"

#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>

#include "resnorm/model.h"

namespace resnorm {
namespace {

// The transformer-only arrays of r (const or not) with their JSON keys, in the
// order they are written.
template <class R>
auto transformer_arrays(R& r) {
  using Array = std::conditional_t<std::is_const_v<R>, const std::vector<double>, std::vector<double>>;
  return std::array<std::pair<const char*, Array*>, 6>{{{"attn_update_ratio", &r.attn_update_ratio},
                                                        {"mlp_update_ratio", &r.mlp_update_ratio},
                                                        {"wq_grad_norm", &r.wq_grad_norm},
                                                        {"wk_grad_norm", &r.wk_grad_norm},
                                                        {"wv_grad_norm", &r.wv_grad_norm},
                                                        {"wo_grad_norm", &r.wo_grad_norm}}};
}

}  // namespace

template <class S>
ArchResult Model<S>::result() const {
  ArchResult r;
  r.arch = arch_;
  const int L = depth_, P = sublayers_per_block_;
  const long n = static_cast<long>(T_) * d_;
  const bool transformer = block_ == Block::transformer;
  r.grad_norm.resize(L + 1);
  r.stream_rms.resize(L + 1);
  r.update_ratio.resize(L);
  r.w1_grad_norm.resize(L);
  r.w2_grad_norm.resize(L);
  if (transformer)
    for (const auto& [key, v] : transformer_arrays(r)) v->resize(L);
  for (int l = 0; l <= L; ++l) {
    const long at = static_cast<long>(l) * P * n;  // block boundary l = unit boundary l P
    r.grad_norm[l] = std::sqrt(sq_norm(dstreams_.data() + at, n));
    r.stream_rms[l] = std::sqrt(sq_norm(streams_.data() + at, n) / double(n));
  }
  for (int l = 1; l <= L; ++l) {
    const Unit<S>& um = units_[(l - 1) * P + P - 1];  // the block's MLP unit
    const Mlp<S>& f = static_cast<const Mlp<S>&>(*um.f);
    r.w1_grad_norm[l - 1] = std::sqrt(f.w1_grad_sq);
    r.w2_grad_norm[l - 1] = std::sqrt(f.w2_grad_sq);
    if (!transformer) {
      r.update_ratio[l - 1] = um.update_ratio;
      continue;
    }
    const Unit<S>& ua = units_[(l - 1) * P];
    const Attention<S>& a = static_cast<const Attention<S>&>(*ua.f);
    // See ArchResult: root-sum-square of the two units' ratios.
    r.update_ratio[l - 1] = std::sqrt(ua.update_ratio * ua.update_ratio + um.update_ratio * um.update_ratio);
    r.attn_update_ratio[l - 1] = ua.update_ratio;
    r.mlp_update_ratio[l - 1] = um.update_ratio;
    r.wq_grad_norm[l - 1] = std::sqrt(a.wq_grad_sq);
    r.wk_grad_norm[l - 1] = std::sqrt(a.wk_grad_sq);
    r.wv_grad_norm[l - 1] = std::sqrt(a.wv_grad_sq);
    r.wo_grad_norm[l - 1] = std::sqrt(a.wo_grad_sq);
  }
  for (int l = 0; l <= L && r.first_nonfinite < 0; ++l) {
    bool finite = std::isfinite(r.grad_norm[l]) && std::isfinite(r.stream_rms[l]);
    if (l >= 1) {
      finite = finite && std::isfinite(r.update_ratio[l - 1]) && std::isfinite(r.w1_grad_norm[l - 1]) &&
               std::isfinite(r.w2_grad_norm[l - 1]);
      if (transformer)
        for (const auto& [key, v] : transformer_arrays(r)) finite = finite && std::isfinite((*v)[l - 1]);
    }
    if (!finite) r.first_nonfinite = l;
  }
  return r;
}

template ArchResult Model<float>::result() const;
template ArchResult Model<double>::result() const;

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

// printf onto the end of s.
void appendf(std::string& s, const char* fmt, ...) {
  va_list args, again;
  va_start(args, fmt);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  if (n > 0) {
    const size_t at = s.size();
    s.resize(at + n + 1);
    std::vsnprintf(&s[at], n + 1, fmt, again);
    s.resize(at + n);
  }
  va_end(again);
}

std::string sci(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : "overflow";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
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
    // Transformer-only arrays: absent (not empty) for MLP blocks.
    for (const auto& [key, v] : transformer_arrays(r)) {
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

std::string results_table(const Results& res) {
  std::string s;
  const Config& c = res.config;
  appendf(s, "resnorm: L=%d d=%d T=%d e=%d gain=%g %s %s final_norm=%s seed=%u", c.depth, c.width, c.tokens,
          c.expansion, c.gain, name(c.activation), name(c.init), name(c.final_norm), c.seed);
  if (c.block == Block::transformer)  // MLP stacks print no block fields
    appendf(s, " block=transformer heads=%d causal=%s", c.heads, c.causal ? "true" : "false");
  appendf(s, "\n\n");
  appendf(s, "%6s", "layer");
  for (const ArchResult& r : res.archs) appendf(s, "  %-21s", name(r.arch));
  appendf(s, "\n%6s", "");
  for (size_t i = 0; i < res.archs.size(); ++i) appendf(s, "  %-10s %-10s", "grad", "stream");
  appendf(s, "\n");
  const int L = c.depth;
  const int step = L <= 24 ? 1 : (L + 23) / 24;
  for (int l = 0; l <= L; ++l) {
    if (l % step != 0 && l != L) continue;
    appendf(s, "%6d", l);
    for (const ArchResult& r : res.archs)
      appendf(s, "  %-10s %-10s", sci(r.grad_norm[l]).c_str(), sci(r.stream_rms[l]).c_str());
    appendf(s, "\n");
  }
  appendf(s, "\n%-10s %14s %14s %14s %10s\n", "arch", "grad[0]/top", "stream top", "update[L]", "nonfinite");
  for (const ArchResult& r : res.archs) {
    std::string nf = r.first_nonfinite < 0 ? "none" : "layer " + std::to_string(r.first_nonfinite);
    appendf(s, "%-10s %14s %14s %14s %10s\n", name(r.arch), sci(r.grad_norm[0] / r.grad_norm[L]).c_str(),
            sci(r.stream_rms[L]).c_str(), sci(r.update_ratio[L - 1]).c_str(), nf.c_str());
  }
  return s;
}

}  // namespace resnorm
