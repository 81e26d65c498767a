// The MLP sublayer and its activations, forward next to backward (see mlp.h).
#include "resnorm/mlp.h"

#include <algorithm>
#include <cmath>

#include "resnorm/kernels.h"

namespace resnorm {
namespace {

template <class S>
inline S gelu(S x) {
  return S(0.5) * x * (S(1) + std::erf(x * S(0.70710678118654752440)));
}
template <class S>
inline S gelu_grad(S x) {
  const S cdf = S(0.5) * (S(1) + std::erf(x * S(0.70710678118654752440)));
  const S pdf = S(0.39894228040143267794) * std::exp(S(-0.5) * x * x);
  return cdf + x * pdf;
}

}  // namespace

template <class S>
void activation_forward(S* a, const S* p, long n, Activation act) {
  switch (act) {
    case Activation::relu:
      for (long i = 0; i < n; ++i) a[i] = (p[i] > S(0) || p[i] != p[i]) ? p[i] : S(0);
      break;
    case Activation::gelu:
      for (long i = 0; i < n; ++i) a[i] = gelu(p[i]);
      break;
    case Activation::tanh:
      for (long i = 0; i < n; ++i) a[i] = std::tanh(p[i]);
      break;
    case Activation::linear:
      for (long i = 0; i < n; ++i) a[i] = p[i];
      break;
  }
}

template <class S>
void activation_backward(S* dp, const S* da, const S* p, const S* a, long n, Activation act) {
  switch (act) {
    case Activation::relu:
      for (long i = 0; i < n; ++i) dp[i] = da[i] * ((p[i] > S(0) || p[i] != p[i]) ? S(1) : S(0));
      break;
    case Activation::gelu:
      for (long i = 0; i < n; ++i) dp[i] = da[i] * gelu_grad(p[i]);
      break;
    case Activation::tanh:
      for (long i = 0; i < n; ++i) dp[i] = da[i] * (S(1) - a[i] * a[i]);
      break;
    case Activation::linear:
      if (dp != da) std::copy(da, da + n, dp);
      break;
  }
}

template <class S>
Mlp<S>::Mlp(int T, int d, int m) {
  reshape(T, d, m);
}

template <class S>
void Mlp<S>::reshape(int T, int d, int m) {
  T_ = T;
  d_ = d;
  m_ = m;
  for (Workspace<S>* b : {&pre, &hidden, &dpre}) b->resize(T, m);
  gram.resize(T, d + m);
}

template <class S>
void Mlp<S>::forward(S* y, const S* x) {
  kernels::gemm_nn(x, weights.base->B1.data(), pre.data(), T_, d_, m_, weights.s1);  // (T, m)
  activation_forward(hidden.data(), pre.data(), static_cast<long>(T_) * m_, activation);
  kernels::gemm_nn(hidden.data(), weights.base->B2.data(), y, T_, m_, d_, weights.s2);  // (T, d)
}

template <class S>
void Mlp<S>::backward_input(S* dx, const S* dy, const S*) {
  kernels::gemm_nt(dy, weights.base->B2.data(), dpre.data(), T_, d_, m_, weights.s2);  // dhidden (T, m)
  activation_backward(dpre.data(), dpre.data(), pre.data(), hidden.data(), static_cast<long>(T_) * m_, activation);
  kernels::gemm_nt(dpre.data(), weights.base->B1.data(), dx, T_, m_, d_, weights.s1);  // (T, d)
}

// ||dW2||_F^2 = <hidden hidden^T, dy dy^T>, ||dW1||_F^2 = <x x^T, dpre dpre^T>:
// (T, T) Gram matrices instead of the (m, d) gradients themselves.
template <class S>
void Mlp<S>::backward(S* dx, const S* dy, const S* x, bool materialize) {
  backward_input(dx, dy, x);
  w2_grad_sq = grad_sq(hidden.data(), m_, dy, d_, T_, gram);
  w1_grad_sq = grad_sq(x, d_, dpre.data(), m_, T_, gram);

  if (materialize) {
    Eigen::Map<const Mat<S>> X(x, T_, d_), DY(dy, T_, d_);
    dW1.resize(d_, m_);
    dW2.resize(m_, d_);
    dW1.noalias() = X.transpose() * dpre.map();
    dW2.noalias() = hidden.map().transpose() * DY;
  }
}

template void activation_forward(float*, const float*, long, Activation);
template void activation_forward(double*, const double*, long, Activation);
template void activation_backward(float*, const float*, const float*, const float*, long, Activation);
template void activation_backward(double*, const double*, const double*, const double*, long, Activation);
template class Mlp<float>;
template class Mlp<double>;

}  // namespace resnorm
