// The per-layer metrics of a model and the JSON and table they are written as (see results.h).
#include "resnorm/results.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <initializer_list>
#include <limits>
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

// The overflow rule (docs/model.md, "Per-layer results"). A value is overflow when it
// is not finite or larger than the largest S (float32 in every shipped build):
// the norms are summed in double, so the norm of finite floats can exceed
// float32's range, and a float engine could not have carried it. Overflow is
// written as +Infinity, and so is every value that depends on an overflowed one:
//   - the stream from its first overflowed layer k on, and the block ratios
//     (update, attention, MLP) of every block from the first whose ratio
//     overflows, or from block max(k, 1), whose output overflowed;
//   - every gradient below an overflowed one (backprop runs top down), and,
//     when the stream overflows anywhere, every gradient below the top (the
//     loss is read off an overflowed stream); the top keeps its own value;
//   - block l's weight-gradient norms when the gradient at h_l or the stream
//     at h_{l-1} is overflow (dW is built from both).
// So a value is either a finite number of float range or +Infinity, and the
// charts, the table and every export read the same thing off the arrays.
// first_nonfinite is the smallest layer with an overflow after this rule.
template <class S>
void apply_overflow_rule(ArchResult& r) {
  const double max = std::numeric_limits<S>::max();
  const double inf = std::numeric_limits<double>::infinity();
  auto over = [max](double v) { return !(std::fabs(v) <= max); };  // NaN too
  const int L = static_cast<int>(r.update_ratio.size());
  auto forward = [&r](auto&& fn) {  // the block ratios, read off the forward pass
    fn(r.update_ratio);
    if (!r.attn_update_ratio.empty()) fn(r.attn_update_ratio);
    if (!r.mlp_update_ratio.empty()) fn(r.mlp_update_ratio);
  };
  auto weights = [&r](auto&& fn) {
    fn(r.w1_grad_norm);
    fn(r.w2_grad_norm);
    for (std::vector<double>* v : {&r.wq_grad_norm, &r.wk_grad_norm, &r.wv_grad_norm, &r.wo_grad_norm})
      if (!v->empty()) fn(*v);
  };
  auto clamp = [&](std::vector<double>& v) {
    for (double& x : v)
      if (over(x)) x = inf;
  };
  clamp(r.grad_norm);
  clamp(r.stream_rms);
  forward(clamp);
  weights(clamp);

  int k = L + 1;  // the first overflowed stream layer; L + 1 if none
  for (int l = 0; l <= L && k > L; ++l)
    if (over(r.stream_rms[l])) k = l;
  for (int l = k; l <= L; ++l) r.stream_rms[l] = inf;
  int from = k <= L ? std::max(k, 1) : L + 1;  // the first overflowed block
  forward([&](std::vector<double>& v) {
    for (int b = 1; b < from; ++b)
      if (over(v[b - 1])) from = b;
  });
  forward([&](std::vector<double>& v) {
    for (int b = from; b <= L; ++b) v[b - 1] = inf;
  });

  int g = -1;  // the highest overflowed gradient; every one below it is overflow
  for (int l = L; l >= 0 && g < 0; --l)
    if (over(r.grad_norm[l])) g = l;
  if (k <= L) g = std::max(g, L - 1);
  for (int l = 0; l <= g; ++l) r.grad_norm[l] = inf;
  weights([&](std::vector<double>& v) {
    for (int b = 1; b <= L; ++b)
      if (over(r.grad_norm[b]) || over(r.stream_rms[b - 1])) v[b - 1] = inf;
  });

  r.first_nonfinite = -1;
  for (int l = 0; l <= L && r.first_nonfinite < 0; ++l) {
    bool bad = over(r.grad_norm[l]) || over(r.stream_rms[l]);
    if (l >= 1) {
      forward([&](std::vector<double>& v) { bad = bad || over(v[l - 1]); });
      weights([&](std::vector<double>& v) { bad = bad || over(v[l - 1]); });
    }
    if (bad) r.first_nonfinite = l;
  }
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
  apply_overflow_rule<S>(r);
  return r;
}

template ArchResult Model<float>::result() const;
template ArchResult Model<double>::result() const;

std::vector<NamedArray> named_arrays(const ArchResult& r) {
  std::vector<NamedArray> a = {{"grad_norm", &r.grad_norm},
                               {"stream_rms", &r.stream_rms},
                               {"update_ratio", &r.update_ratio},
                               {"w1_grad_norm", &r.w1_grad_norm},
                               {"w2_grad_norm", &r.w2_grad_norm}};
  for (const auto& [key, v] : transformer_arrays(r))
    if (!v->empty()) a.push_back({key, v});
  return a;
}

namespace {

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
  Json j;
  j.begin_object().key("config").raw(config_json(res.config)).key("results").begin_object();
  for (const ArchResult& r : res.archs) {
    j.key(name(r.arch)).begin_object().arrays(named_arrays(r));
    j.key("first_nonfinite").integer_or_null(r.first_nonfinite).end_object();
  }
  return j.end_object().end_object().str();
}

std::string results_table(const Results& res) {
  std::string s;
  const Config& c = res.config;
  appendf(s, "resnorm: L=%d d=%d T=%d e=%d gain=%g %s %s final_norm=%s seed=%u", c.depth, c.width, c.tokens,
          c.expansion, c.gain, name(c.activation), name(c.init), name(c.final_norm), c.seed);
  if (c.block == Block::transformer)  // MLP stacks print no block fields
    appendf(s, " block=transformer heads=%d causal=%s", c.heads, c.causal ? "true" : "false");
  if (c.block == Block::transformer && c.qk_norm != QkNorm::none) appendf(s, " qk_norm=%s", name(c.qk_norm));
  if (has_arch(c, Arch::mix_ln)) appendf(s, " mix_fraction=%g", c.mix_fraction);  // only mix_ln reads it
  if (has_arch(c, Arch::dyt)) appendf(s, " dyt_alpha=%g", c.dyt_alpha);           // only dyt reads it
  if (has_arch(c, Arch::hyper) || has_arch(c, Arch::mhc)) appendf(s, " hc_streams=%d", c.hc_streams);
  if (has_arch(c, Arch::attn_res) && c.attn_res_blocks != 0) appendf(s, " attn_res_blocks=%d", c.attn_res_blocks);
  if (has_arch(c, Arch::mhc)) appendf(s, " sinkhorn_iters=%d", c.sinkhorn_iters);
  if (has_arch(c, Arch::ngpt)) appendf(s, " ngpt_alpha=%g", c.ngpt_alpha);  // only ngpt reads it
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
