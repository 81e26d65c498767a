// resnorm/norms.h: LayerNorm and RMSNorm over the features of each token,
// and Norm<S>, one norm instance of the stack with its parameters.
//
// Forward/backward pairs in the style of llm.c: forward caches mean and rstd
// per token, backward reads them and accumulates (+=) into dx, dgamma, dbeta;
// with dgamma = dbeta = nullptr it computes dx alone (the path expansion runs
// that many times per forward pass and must not touch the parameter gradients).
// Shapes: x, y, dx, dy are (T, d) row-major; gamma, beta, dgamma, dbeta (d);
// mean, rstd (T).
#pragma once

#include <cmath>

#include "resnorm/config.h"
#include "resnorm/tensor.h"

namespace resnorm {

// y = (x - mean) * rstd * gamma + beta,  rstd = 1 / sqrt(var + eps).
template <class S>
void layernorm_forward(S* y, S* mean, S* rstd, const S* x, const S* gamma, const S* beta, int T, int d,
                       double eps = kEps) {
  for (int t = 0; t < T; ++t) {
    const S* xt = x + static_cast<long>(t) * d;
    S m = 0;
    for (int i = 0; i < d; ++i) m += xt[i];
    m /= d;
    S v = 0;
    for (int i = 0; i < d; ++i) {
      S c = xt[i] - m;
      v += c * c;
    }
    v /= d;
    S r = S(1) / std::sqrt(v + S(eps));
    S* yt = y + static_cast<long>(t) * d;
    for (int i = 0; i < d; ++i) yt[i] = (xt[i] - m) * r * gamma[i] + beta[i];
    mean[t] = m;
    rstd[t] = r;
  }
}

// dx += rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dy * gamma.
template <class S>
void layernorm_backward(S* dx, S* dgamma, S* dbeta, const S* dy, const S* x, const S* gamma, const S* mean,
                        const S* rstd, int T, int d) {
  for (int t = 0; t < T; ++t) {
    const S* xt = x + static_cast<long>(t) * d;
    const S* dyt = dy + static_cast<long>(t) * d;
    S* dxt = dx + static_cast<long>(t) * d;
    const S m = mean[t], r = rstd[t];
    S g_mean = 0, gx_mean = 0;
    for (int i = 0; i < d; ++i) {
      S xhat = (xt[i] - m) * r;
      S g = dyt[i] * gamma[i];
      g_mean += g;
      gx_mean += g * xhat;
    }
    g_mean /= d;
    gx_mean /= d;
    for (int i = 0; i < d; ++i) {
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
  for (int t = 0; t < T; ++t) {
    const S* xt = x + static_cast<long>(t) * d;
    S ms = 0;
    for (int i = 0; i < d; ++i) ms += xt[i] * xt[i];
    ms /= d;
    S r = S(1) / std::sqrt(ms + S(eps));
    S* yt = y + static_cast<long>(t) * d;
    for (int i = 0; i < d; ++i) yt[i] = xt[i] * r * gamma[i];
    rstd[t] = r;
  }
}

// dx += rstd * (g - xhat * mean(g * xhat)),  g = dy * gamma.
template <class S>
void rmsnorm_backward(S* dx, S* dgamma, const S* dy, const S* x, const S* gamma, const S* rstd, int T, int d) {
  for (int t = 0; t < T; ++t) {
    const S* xt = x + static_cast<long>(t) * d;
    const S* dyt = dy + static_cast<long>(t) * d;
    S* dxt = dx + static_cast<long>(t) * d;
    const S r = rstd[t];
    S gx_mean = 0;
    for (int i = 0; i < d; ++i) gx_mean += dyt[i] * gamma[i] * xt[i] * r;
    gx_mean /= d;
    for (int i = 0; i < d; ++i) {
      S xhat = xt[i] * r;
      if (dgamma) dgamma[i] += dyt[i] * xhat;
      dxt[i] += r * (dyt[i] * gamma[i] - xhat * gx_mean);
    }
  }
}

// One norm of the stack (a unit's in, out or outer norm, or the final norm):
// its kind, its parameters and their gradients, and the forward cache.
template <class S>
struct Norm {
  NormKind kind = NormKind::none;
  Vecx<S> gamma, beta, dgamma, dbeta;  // (d); beta unused by RMSNorm
  Vecx<S> mean, rstd;                  // (T), written by forward(); mean unused by RMSNorm
  // Sets the kind; for a real norm gamma = 1, beta = 0 and zero gradients.
  void resize(NormKind k, int T, int d);
  void forward(S* y, const S* x, int T, int d);
  // dx += J^T dy; dgamma += ..., dbeta += ... (x: the forward's input).
  void backward(S* dx, const S* dy, const S* x, int T, int d);
  // dx += J^T dy with the arithmetic of backward(), leaving dgamma and dbeta alone.
  void backward_input(S* dx, const S* dy, const S* x, int T, int d) const;
  void zero_grad();
};

}  // namespace resnorm
