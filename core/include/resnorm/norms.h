// resnorm/norms.h: LayerNorm and RMSNorm over the features of each token,
// BatchNorm over the rows of a training pass, DyT entry by entry, and
// Norm<S>, one norm instance of the stack with its parameters.
//
// Forward/backward pairs in the style of llm.c: forward caches mean and rstd
// per token, backward reads them and accumulates (+=) into dx, dgamma, dbeta;
// with dgamma = dbeta = nullptr it computes dx alone (the path expansion runs
// that many times per forward pass and must not touch the parameter gradients).
// Shapes: x, y, dx, dy are (T, d) row-major; gamma, beta, dgamma, dbeta (d);
// mean, rstd (T).
#pragma once

#include <cmath>
#include <memory>

#include "resnorm/config.h"
#include "resnorm/kernels.h"
#include "resnorm/sublayer.h"
#include "resnorm/tensor.h"

namespace resnorm {

// Every loop over the d features runs in vectors of W = 16 bytes / sizeof(S)
// lanes (kernels.h: SSE natively, f32x4 / f64x2 in wasm) with a scalar tail.
// A sum over features has one fixed order whatever the ISA: lane j adds the
// features i = j mod W of the vector part in order, the lanes are combined by
// hsum(), then the tail features are added one by one. So results are
// deterministic and the same natively and in WebAssembly.
namespace norm_detail {

template <class S>
using V = typename kernels::Vec<S>::type;
template <class S>
constexpr int W = kernels::Vec<S>::lanes;

// The vector part of the features: [0, body(d)).
template <class S>
inline int body(int d) {
  return d - d % W<S>;
}

}  // namespace norm_detail

// y = (x - mean) * rstd * gamma + beta,  rstd = 1 / sqrt(var + eps).
template <class S>
void layernorm_forward(S* y, S* mean, S* rstd, const S* x, const S* gamma, const S* beta, int T, int d,
                       double eps = kEps) {
  using namespace norm_detail;
  using kernels::load, kernels::store, kernels::splat, kernels::hsum;
  const int n = body<S>(d);
  for (int t = 0; t < T; ++t) {
    const S* xt = x + static_cast<long>(t) * d;
    V<S> acc = {};
    for (int i = 0; i < n; i += W<S>) acc += load(xt + i);
    S m = hsum(acc);
    for (int i = n; i < d; ++i) m += xt[i];
    m /= d;
    const V<S> mv = splat(m);
    acc = V<S>{};
    for (int i = 0; i < n; i += W<S>) {
      const V<S> c = load(xt + i) - mv;
      acc += c * c;
    }
    S v = hsum(acc);
    for (int i = n; i < d; ++i) {
      S c = xt[i] - m;
      v += c * c;
    }
    v /= d;
    S r = S(1) / std::sqrt(v + S(eps));
    const V<S> rv = splat(r);
    S* yt = y + static_cast<long>(t) * d;
    for (int i = 0; i < n; i += W<S>) store(yt + i, (load(xt + i) - mv) * rv * load(gamma + i) + load(beta + i));
    for (int i = n; i < d; ++i) yt[i] = (xt[i] - m) * r * gamma[i] + beta[i];
    mean[t] = m;
    rstd[t] = r;
  }
}

// dx += rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dy * gamma.
template <class S>
void layernorm_backward(S* dx, S* dgamma, S* dbeta, const S* dy, const S* x, const S* gamma, const S* mean,
                        const S* rstd, int T, int d) {
  using namespace norm_detail;
  using kernels::load, kernels::store, kernels::splat, kernels::hsum;
  const int n = body<S>(d);
  for (int t = 0; t < T; ++t) {
    const S* xt = x + static_cast<long>(t) * d;
    const S* dyt = dy + static_cast<long>(t) * d;
    S* dxt = dx + static_cast<long>(t) * d;
    const S m = mean[t], r = rstd[t];
    const V<S> mv = splat(m), rv = splat(r);
    V<S> gs = {}, gxs = {};
    for (int i = 0; i < n; i += W<S>) {
      const V<S> xhat = (load(xt + i) - mv) * rv;
      const V<S> g = load(dyt + i) * load(gamma + i);
      gs += g;
      gxs += g * xhat;
    }
    S g_mean = hsum(gs), gx_mean = hsum(gxs);
    for (int i = n; i < d; ++i) {
      S xhat = (xt[i] - m) * r;
      S g = dyt[i] * gamma[i];
      g_mean += g;
      gx_mean += g * xhat;
    }
    g_mean /= d;
    gx_mean /= d;
    const V<S> gm = splat(g_mean), gxm = splat(gx_mean);
    for (int i = 0; i < n; i += W<S>) {
      const V<S> xhat = (load(xt + i) - mv) * rv;
      const V<S> dyv = load(dyt + i);
      const V<S> g = dyv * load(gamma + i);
      if (dbeta) store(dbeta + i, load(dbeta + i) + dyv);
      if (dgamma) store(dgamma + i, load(dgamma + i) + dyv * xhat);
      store(dxt + i, load(dxt + i) + rv * (g - gm - xhat * gxm));
    }
    for (int i = n; i < d; ++i) {
      S xhat = (xt[i] - m) * r;
      S g = dyt[i] * gamma[i];
      if (dbeta) dbeta[i] += dyt[i];
      if (dgamma) dgamma[i] += dyt[i] * xhat;
      dxt[i] += r * (g - g_mean - xhat * gx_mean);
    }
  }
}

// y = x * rstd * gamma,  rstd = 1 / sqrt(mean(x^2) + eps).  No mean, no beta.
template <class S>
void rmsnorm_forward(S* y, S* rstd, const S* x, const S* gamma, int T, int d, double eps = kEps) {
  using namespace norm_detail;
  using kernels::load, kernels::store, kernels::splat, kernels::hsum;
  const int n = body<S>(d);
  for (int t = 0; t < T; ++t) {
    const S* xt = x + static_cast<long>(t) * d;
    V<S> acc = {};
    for (int i = 0; i < n; i += W<S>) {
      const V<S> v = load(xt + i);
      acc += v * v;
    }
    S ms = hsum(acc);
    for (int i = n; i < d; ++i) ms += xt[i] * xt[i];
    ms /= d;
    S r = S(1) / std::sqrt(ms + S(eps));
    const V<S> rv = splat(r);
    S* yt = y + static_cast<long>(t) * d;
    for (int i = 0; i < n; i += W<S>) store(yt + i, load(xt + i) * rv * load(gamma + i));
    for (int i = n; i < d; ++i) yt[i] = xt[i] * r * gamma[i];
    rstd[t] = r;
  }
}

// dx += rstd * (g - xhat * mean(g * xhat)),  g = dy * gamma.
template <class S>
void rmsnorm_backward(S* dx, S* dgamma, const S* dy, const S* x, const S* gamma, const S* rstd, int T, int d) {
  using namespace norm_detail;
  using kernels::load, kernels::store, kernels::splat, kernels::hsum;
  const int n = body<S>(d);
  for (int t = 0; t < T; ++t) {
    const S* xt = x + static_cast<long>(t) * d;
    const S* dyt = dy + static_cast<long>(t) * d;
    S* dxt = dx + static_cast<long>(t) * d;
    const S r = rstd[t];
    const V<S> rv = splat(r);
    V<S> acc = {};
    for (int i = 0; i < n; i += W<S>) acc += load(dyt + i) * load(gamma + i) * load(xt + i) * rv;
    S gx_mean = hsum(acc);
    for (int i = n; i < d; ++i) gx_mean += dyt[i] * gamma[i] * xt[i] * r;
    gx_mean /= d;
    const V<S> gxm = splat(gx_mean);
    for (int i = 0; i < n; i += W<S>) {
      const V<S> xhat = load(xt + i) * rv;
      const V<S> dyv = load(dyt + i);
      if (dgamma) store(dgamma + i, load(dgamma + i) + dyv * xhat);
      store(dxt + i, load(dxt + i) + rv * (dyv * load(gamma + i) - xhat * gxm));
    }
    for (int i = n; i < d; ++i) {
      S xhat = xt[i] * r;
      if (dgamma) dgamma[i] += dyt[i] * xhat;
      dxt[i] += r * (dyt[i] * gamma[i] - xhat * gx_mean);
    }
  }
}

// BatchNorm per feature i over the rows r of a pass (rows, d), the statistics
// over the counted rows C (counted[r] != 0; every row when `counted` is null):
//   mu_i = sum_{r in C} x_ri / n,  var_i = sum_{r in C} (x_ri - mu_i)^2 / n,  n = |C|
//   y_ri = (x_ri - mu_i) rstd_i gamma_i + beta_i,  rstd_i = 1 / sqrt(var_i + eps)
// for every row (a row outside C is normalized with C's statistics and moves
// none of them). Sums in double, rows in order. mean, rstd, var: (d) out.
template <class S>
void batchnorm_forward(S* y, S* mean, S* rstd, double* var, const S* x, const S* gamma, const S* beta,
                       const uint8_t* counted, int rows, int d, double eps = kEps);
// With fixed statistics (eval mode: the running ones): y = (x - mean) rstd gamma + beta.
template <class S>
void batchnorm_apply(S* y, const S* x, const S* mean, const S* rstd, const S* gamma, const S* beta, int rows, int d);
// The exact backward through the batch statistics (+= into dx, dgamma, dbeta;
// dgamma = dbeta = nullptr leaves them alone), g = dy gamma, sums over every row:
//   dx_ri += rstd_i (g_ri - [r in C] (sum_s g_si + xhat_ri sum_s g_si xhat_si) / n)
// A row outside C gets rstd g only; `batch` false (eval mode's fixed
// statistics): every row does.
template <class S>
void batchnorm_backward(S* dx, S* dgamma, S* dbeta, const S* dy, const S* x, const S* gamma, const S* mean,
                        const S* rstd, const uint8_t* counted, bool batch, int rows, int d);

// DyT, Dynamic Tanh (Zhu et al. 2025, "Transformers without Normalization"),
// entry by entry with no statistics (core/src/dyt.cpp):
//   y_ti = gamma_i tanh(alpha x_ti) + beta_i,  alpha a learnable scalar.
// Its backward, u = tanh(alpha x), s = 1 - u^2, g = dy gamma (+= into each;
// dgamma = dbeta = dalpha = nullptr leaves them alone; dalpha summed in double):
//   dx += alpha s g,  dgamma_i += sum_t dy u,  dbeta_i += sum_t dy,  dalpha += sum x s g
// tanh is portable::tanh_of (the same bits natively and in WebAssembly for float).
template <class S>
void dyt_forward(S* y, const S* x, S alpha, const S* gamma, const S* beta, int T, int d);
template <class S>
void dyt_backward(S* dx, S* dgamma, S* dbeta, S* dalpha, const S* dy, const S* x, S alpha, const S* gamma, int T,
                  int d);

// BatchNorm's own state beside its parameters: the pass's rows and mode
// (set by the model), the running statistics (mean 0, variance 1 at init;
// train_update moves them by the momentum, the variance the unbiased
// n / (n - 1) one) and PowerNorm's distances of the last train_update batch
// from the running statistics before it moved them.
template <class S>
struct BatchNormState {
  const PassRows* rows = nullptr;
  VecWorkspace<S> running_mean, running_var;  // (d)
  bool batch_stats = true;                    // the last forward used the batch's statistics
  double mean_distance = 0;                   // (1/d) ||mu_B - mu_running||
  double var_distance = 0;                    // (1/d) ||sigma_B^2 - sigma_running^2||
};

// One norm of the stack (a unit's in, out or outer norm, or the final norm):
// its kind, its parameters and their gradients, and the forward cache.
template <class S>
struct Norm {
  NormKind kind = NormKind::none;
  VecWorkspace<S> gamma, beta, dgamma, dbeta;  // (d); beta unused by RMSNorm
  VecWorkspace<S> alpha, dalpha;               // (1) DyT's alpha and its gradient; empty for the others
  // (T), written by forward(); mean unused by RMSNorm. BatchNorm: (d), the statistics the last forward used.
  VecWorkspace<S> mean, rstd;
  std::unique_ptr<BatchNormState<S>> bn;  // BatchNorm only
  // Sets the kind; for a real norm gamma = 1, beta = 0 and zero gradients,
  // in the storage it already has where that is large enough; DyT's alpha = alpha0.
  void resize(NormKind k, int T, int d, double alpha0 = kDytAlpha);
  void forward(S* y, const S* x, int T, int d);
  // dx += J^T dy; dgamma += ..., dbeta += ..., dalpha += ... (x: the forward's input).
  void backward(S* dx, const S* dy, const S* x, int T, int d);
  // dx += J^T dy with the arithmetic of backward(), leaving dgamma, dbeta and dalpha alone.
  void backward_input(S* dx, const S* dy, const S* x, int T, int d) const;
  void zero_grad();

 private:
  void batchnorm(S* y, const S* x, int T, int d);
  const uint8_t* counted_rows() const;  // the pass's counted rows, or nullptr for all
};

}  // namespace resnorm
