#include "resnorm/normlab.h"

#include <cmath>
#include <string>
#include <string_view>

#include "resnorm/norms.h"

namespace resnorm {
namespace {

bool all_finite(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

Status bad(const char* field, const std::string& what) { return {field, std::string(field) + ": " + what}; }

}  // namespace

Status norm_token(NormKind kind, const std::vector<double>& x, const std::vector<double>& gamma,
                  const std::vector<double>& beta, TokenNorm* out) {
  const int d = static_cast<int>(x.size());
  if (d < 1 || d > kMaxTokenFeatures)
    return bad("x",
               std::to_string(d) + " features is out of range (allowed 1.." + std::to_string(kMaxTokenFeatures) + ")");
  if (gamma.size() != x.size()) return bad("gamma", "must have as many entries as x");
  if (kind == NormKind::layernorm && beta.size() != x.size()) return bad("beta", "must have as many entries as x");
  if (kind == NormKind::none) return bad("kind", "must be layernorm or rmsnorm");
  if (!all_finite(x)) return bad("x", "every entry must be a finite number");
  if (!all_finite(gamma) || !all_finite(beta)) return bad("gamma", "gamma and beta must be finite numbers");
  out->y.assign(d, 0.0);
  if (kind == NormKind::layernorm) {
    layernorm_forward(out->y.data(), &out->mean, &out->rstd, x.data(), gamma.data(), beta.data(), 1, d);
  } else {
    rmsnorm_forward(out->y.data(), &out->rstd, x.data(), gamma.data(), 1, d);
    out->mean = 0;
  }
  out->var = 1.0 / (out->rstd * out->rstd) - kEps;
  if (!std::isfinite(out->mean) || !std::isfinite(out->var) || !all_finite(out->y))
    return bad("x", "the entries are too large: their statistics overflow a double (keep |x| below 1e150)");
  return Status::Ok();
}

Status batch_vs_layer_norm(const std::vector<double>& x, int B, int T, int d, const std::vector<int>& lengths,
                           bool count_padding, BatchNormResult* out) {
  auto range = [](int v, int hi) {
    return std::to_string(v) + " is out of range (allowed 1.." + std::to_string(hi) + ")";
  };
  if (B < 1 || B > kMaxBatch) return bad("batch", range(B, kMaxBatch));
  if (T < 1 || T > kMaxLength) return bad("length", range(T, kMaxLength));
  if (d < 1 || d > kMaxNormWidth) return bad("width", range(d, kMaxNormWidth));
  if (static_cast<long>(x.size()) != static_cast<long>(B) * T * d)
    return bad("x", "must hold batch * length * width values");
  if (static_cast<int>(lengths.size()) != B) return bad("lengths", "must have one entry per sequence");
  for (int len : lengths)
    if (len < 0 || len > T) return bad("lengths", std::to_string(len) + " is out of range (allowed 0..length)");
  if (!all_finite(x)) return bad("x", "every entry must be a finite number");
  out->mean.assign(d, 0.0);
  out->var.assign(d, 0.0);
  out->batchnorm.assign(x.size(), 0.0);
  out->layernorm.assign(x.size(), 0.0);
  auto counted = [&](int b, int t) { return count_padding || t < lengths[b]; };
  long n = 0;
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      if (counted(b, t)) {
        ++n;
        for (int i = 0; i < d; ++i) out->mean[i] += x[(static_cast<long>(b) * T + t) * d + i];
      }
  if (n == 0) return bad("lengths", "BatchNorm needs at least one real token in the batch");
  for (int i = 0; i < d; ++i) out->mean[i] /= n;
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      if (counted(b, t))
        for (int i = 0; i < d; ++i) {
          const double c = x[(static_cast<long>(b) * T + t) * d + i] - out->mean[i];
          out->var[i] += c * c;
        }
  for (int i = 0; i < d; ++i) out->var[i] /= n;
  for (long p = 0; p < static_cast<long>(B) * T; ++p)
    for (int i = 0; i < d; ++i)
      out->batchnorm[p * d + i] = (x[p * d + i] - out->mean[i]) / std::sqrt(out->var[i] + kEps);
  std::vector<double> gamma(d, 1.0), beta(d, 0.0), mean(static_cast<size_t>(B) * T), rstd(static_cast<size_t>(B) * T);
  layernorm_forward(out->layernorm.data(), mean.data(), rstd.data(), x.data(), gamma.data(), beta.data(), B * T, d);
  if (!all_finite(out->mean) || !all_finite(out->var) || !all_finite(out->batchnorm) || !all_finite(out->layernorm))
    return bad("x", "the entries are too large: their statistics overflow a double (keep |x| below 1e150)");
  return Status::Ok();
}

Status norm_token(std::string_view kind, const std::vector<double>& x, const std::vector<double>& gamma,
                  const std::vector<double>& beta, TokenNorm* out) {
  const NormKind k = kind == "layernorm" ? NormKind::layernorm : kind == "rmsnorm" ? NormKind::rmsnorm : NormKind::none;
  return norm_token(k, x, gamma, beta, out);
}

Status batch_vs_layer_norm(const std::vector<double>& x, double B, double T, double d,
                           const std::vector<double>& lengths, bool count_padding, BatchNormResult* out) {
  Status st = check_whole("batch", B, 1, kMaxBatch);
  if (st.ok()) st = check_whole("length", T, 1, kMaxLength);
  if (st.ok()) st = check_whole("width", d, 1, kMaxNormWidth);
  if (!st.ok()) return st;
  std::vector<int> lens;
  for (double len : lengths) {
    st = check_whole("lengths", len, 0, T);
    if (!st.ok()) return st;
    lens.push_back(static_cast<int>(len));
  }
  return batch_vs_layer_norm(x, static_cast<int>(B), static_cast<int>(T), static_cast<int>(d), lens, count_padding,
                             out);
}

}  // namespace resnorm
