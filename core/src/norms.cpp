// Norm<S>: one norm of the stack over the LayerNorm, RMSNorm, BatchNorm and
// DyT kernels of norms.h; BatchNorm's kernels are here (DyT's in dyt.cpp).
#include "resnorm/norms.h"

#include <vector>

namespace resnorm {

template <class S>
void batchnorm_forward(S* y, S* mean, S* rstd, double* var, const S* x, const S* gamma, const S* beta,
                       const uint8_t* counted, int rows, int d, double eps) {
  std::vector<double> sum(d, 0.0), sq(d, 0.0);
  long n = 0;
  for (int r = 0; r < rows; ++r) {
    if (counted && !counted[r]) continue;
    ++n;
    const S* xr = x + static_cast<long>(r) * d;
    for (int i = 0; i < d; ++i) sum[i] += double(xr[i]);
  }
  const double inv = n > 0 ? 1.0 / double(n) : 0.0;
  for (int i = 0; i < d; ++i) sum[i] *= inv;  // mu
  for (int r = 0; r < rows; ++r) {
    if (counted && !counted[r]) continue;
    const S* xr = x + static_cast<long>(r) * d;
    for (int i = 0; i < d; ++i) {
      const double c = double(xr[i]) - sum[i];
      sq[i] += c * c;
    }
  }
  for (int i = 0; i < d; ++i) {
    var[i] = sq[i] * inv;
    mean[i] = S(sum[i]);
    rstd[i] = S(1.0 / std::sqrt(var[i] + eps));
  }
  batchnorm_apply(y, x, mean, rstd, gamma, beta, rows, d);
}

template <class S>
void batchnorm_apply(S* y, const S* x, const S* mean, const S* rstd, const S* gamma, const S* beta, int rows, int d) {
  for (int r = 0; r < rows; ++r) {
    const S* xr = x + static_cast<long>(r) * d;
    S* yr = y + static_cast<long>(r) * d;
    for (int i = 0; i < d; ++i) yr[i] = (xr[i] - mean[i]) * rstd[i] * gamma[i] + beta[i];
  }
}

template <class S>
void batchnorm_backward(S* dx, S* dgamma, S* dbeta, const S* dy, const S* x, const S* gamma, const S* mean,
                        const S* rstd, const uint8_t* counted, bool batch, int rows, int d) {
  std::vector<double> sg(d, 0.0), sgx(d, 0.0), sdy(d, 0.0), sdyx(d, 0.0);
  long n = 0;
  for (int r = 0; r < rows; ++r) {
    n += (!counted || counted[r]) ? 1 : 0;
    const S* xr = x + static_cast<long>(r) * d;
    const S* dyr = dy + static_cast<long>(r) * d;
    for (int i = 0; i < d; ++i) {
      const double xhat = (double(xr[i]) - double(mean[i])) * double(rstd[i]);
      const double g = double(dyr[i]) * double(gamma[i]);
      sg[i] += g;
      sgx[i] += g * xhat;
      sdy[i] += double(dyr[i]);
      sdyx[i] += double(dyr[i]) * xhat;
    }
  }
  const double inv = batch && n > 0 ? 1.0 / double(n) : 0.0;
  for (int r = 0; r < rows; ++r) {
    const bool in_stats = batch && (!counted || counted[r]);
    const S* xr = x + static_cast<long>(r) * d;
    const S* dyr = dy + static_cast<long>(r) * d;
    S* dxr = dx + static_cast<long>(r) * d;
    for (int i = 0; i < d; ++i) {
      const double g = double(dyr[i]) * double(gamma[i]);
      double v = g;
      if (in_stats) {
        const double xhat = (double(xr[i]) - double(mean[i])) * double(rstd[i]);
        v -= (sg[i] + xhat * sgx[i]) * inv;
      }
      dxr[i] += S(double(rstd[i]) * v);
    }
  }
  for (int i = 0; i < d; ++i) {
    if (dgamma) dgamma[i] += S(sdyx[i]);
    if (dbeta) dbeta[i] += S(sdy[i]);
  }
}

template <class S>
void Norm<S>::resize(NormKind k, int T, int d, double alpha0) {
  kind = k;
  alpha.resize(k == NormKind::dyt ? 1 : 0);
  dalpha.resize(alpha.size());
  if (k == NormKind::dyt) {
    alpha(0) = S(alpha0);
    dalpha(0) = S(0);
  }
  if (k == NormKind::none) return;
  for (VecWorkspace<S>* v : {&gamma, &beta, &dgamma, &dbeta}) v->resize(d);
  gamma.setOnes();
  beta.setZero();
  dgamma.setZero();
  dbeta.setZero();
  const int stats = k == NormKind::batchnorm ? d : T;
  mean.resize(stats);
  rstd.resize(stats);
  if (k != NormKind::batchnorm) return;
  if (!bn) bn = std::make_unique<BatchNormState<S>>();
  bn->running_mean.resize(d);
  bn->running_var.resize(d);
  bn->running_mean.setZero();
  bn->running_var.setOnes();
}

// The batch's statistics (train, train_update) or the running ones (eval) into mean and rstd, then y.
template <class S>
void Norm<S>::batchnorm(S* y, const S* x, int T, int d) {
  const PassRows* rows = bn->rows;
  const BnMode mode = rows ? rows->mode : BnMode::train;
  bn->batch_stats = mode != BnMode::eval;
  VecWorkspace<S>&running_mean = bn->running_mean, &running_var = bn->running_var;
  if (!bn->batch_stats) {
    for (int i = 0; i < d; ++i) {
      mean(i) = running_mean(i);
      rstd(i) = S(1.0 / std::sqrt(double(running_var(i)) + kEps));
    }
    batchnorm_apply(y, x, mean.data(), rstd.data(), gamma.data(), beta.data(), T, d);
    return;
  }
  const uint8_t* counted = counted_rows();
  std::vector<double> var(d);
  if (mode == BnMode::sequence && rows->segment > 0) {
    // Each segment with its own statistics (the caches keep the last segment's).
    const int seg = rows->segment;
    for (int g = 0; g < T / seg; ++g) {
      const long at = static_cast<long>(g) * seg;
      batchnorm_forward(y + at * d, mean.data(), rstd.data(), var.data(), x + at * d, gamma.data(), beta.data(),
                        counted ? counted + at : nullptr, seg, d);
    }
    return;
  }
  batchnorm_forward(y, mean.data(), rstd.data(), var.data(), x, gamma.data(), beta.data(), counted, T, d);
  if (mode != BnMode::train_update) return;
  long n = 0;
  for (int r = 0; r < T; ++r) n += (!counted || counted[r]) ? 1 : 0;
  const double m = rows->momentum, unbiased = n > 1 ? double(n) / double(n - 1) : 1.0;
  double dm = 0, dv = 0;
  for (int i = 0; i < d; ++i) {
    const double a = double(mean(i)) - double(running_mean(i)), b = var[i] - double(running_var(i));
    dm += a * a;
    dv += b * b;
    running_mean(i) = S((1 - m) * double(running_mean(i)) + m * double(mean(i)));
    running_var(i) = S((1 - m) * double(running_var(i)) + m * var[i] * unbiased);
  }
  bn->mean_distance = std::sqrt(dm) / d;
  bn->var_distance = std::sqrt(dv) / d;
}

template <class S>
void Norm<S>::forward(S* y, const S* x, int T, int d) {
  if (kind == NormKind::layernorm)
    layernorm_forward(y, mean.data(), rstd.data(), x, gamma.data(), beta.data(), T, d);
  else if (kind == NormKind::dyt)
    dyt_forward(y, x, alpha(0), gamma.data(), beta.data(), T, d);
  else if (kind == NormKind::batchnorm)
    batchnorm(y, x, T, d);
  else
    rmsnorm_forward(y, rstd.data(), x, gamma.data(), T, d);
}

template <class S>
void Norm<S>::backward(S* dx, const S* dy, const S* x, int T, int d) {
  if (kind == NormKind::layernorm)
    layernorm_backward(dx, dgamma.data(), dbeta.data(), dy, x, gamma.data(), mean.data(), rstd.data(), T, d);
  else if (kind == NormKind::dyt)
    dyt_backward(dx, dgamma.data(), dbeta.data(), dalpha.data(), dy, x, alpha(0), gamma.data(), T, d);
  else if (kind == NormKind::batchnorm)
    batchnorm_backward(dx, dgamma.data(), dbeta.data(), dy, x, gamma.data(), mean.data(), rstd.data(), counted_rows(),
                       bn->batch_stats, T, d);
  else
    rmsnorm_backward(dx, dgamma.data(), dy, x, gamma.data(), rstd.data(), T, d);
}

template <class S>
void Norm<S>::backward_input(S* dx, const S* dy, const S* x, int T, int d) const {
  if (kind == NormKind::layernorm)
    layernorm_backward<S>(dx, nullptr, nullptr, dy, x, gamma.data(), mean.data(), rstd.data(), T, d);
  else if (kind == NormKind::dyt)
    dyt_backward<S>(dx, nullptr, nullptr, nullptr, dy, x, alpha(0), gamma.data(), T, d);
  else if (kind == NormKind::batchnorm)
    batchnorm_backward<S>(dx, nullptr, nullptr, dy, x, gamma.data(), mean.data(), rstd.data(), counted_rows(),
                          bn->batch_stats, T, d);
  else
    rmsnorm_backward<S>(dx, nullptr, dy, x, gamma.data(), rstd.data(), T, d);
}

template <class S>
const uint8_t* Norm<S>::counted_rows() const {
  return bn && bn->rows && !bn->rows->counted.empty() ? bn->rows->counted.data() : nullptr;
}

template <class S>
void Norm<S>::zero_grad() {
  if (kind == NormKind::none) return;
  dgamma.setZero();
  dbeta.setZero();
  dalpha.setZero();
}

template struct Norm<float>;
template struct Norm<double>;

}  // namespace resnorm
