// The MLP sublayer and its activations, forward next to backward (see mlp.h).
#include "resnorm/mlp.h"

#include <algorithm>
#include <cmath>

#include "resnorm/kernels.h"
#include "resnorm/portable_math.h"

namespace resnorm {
namespace {

// erf, exp (of x <= 0) and tanh for the activations: float, the engine the
// CLI and the page run, takes the portable ones (the same bits natively and
// in WebAssembly, portable_math.h); double, the reference of the gradient
// tests, takes libm's.
inline float erf_of(float x) { return float(portable::erf(double(x))); }
inline double erf_of(double x) { return std::erf(x); }
inline float exp_nonpos_of(float x) { return float(portable::exp_nonpos(double(x))); }
inline double exp_nonpos_of(double x) { return std::exp(x); }
inline float tanh_of(float x) { return float(portable::tanh(double(x))); }
inline double tanh_of(double x) { return std::tanh(x); }

template <class S>
inline S gelu(S x) {
  return S(0.5) * x * (S(1) + erf_of(x * S(0.70710678118654752440)));
}
template <class S>
inline S gelu_grad(S x) {
  const S cdf = S(0.5) * (S(1) + erf_of(x * S(0.70710678118654752440)));
  const S pdf = S(0.39894228040143267794) * exp_nonpos_of(S(-0.5) * x * x);
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
      for (long i = 0; i < n; ++i) a[i] = tanh_of(p[i]);
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
Mlp<S>::Mlp(int T, int d, int m) : T_(T), d_(d), m_(m) {
  pre.resize(T, m);
  hidden.resize(T, m);
  dpre.resize(T, m);
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
    dW1.resize(d_, m_);
    dW2.resize(m_, d_);
    kernels::gemm_tn(x, dpre.data(), dW1.data(), d_, T_, m_, S(1));     // x^T dpre (d, m)
    kernels::gemm_tn(hidden.data(), dy, dW2.data(), m_, T_, d_, S(1));  // hidden^T dy (m, d)
  }
}

template void activation_forward(float*, const float*, long, Activation);
template void activation_forward(double*, const double*, long, Activation);
template void activation_backward(float*, const float*, const float*, const float*, long, Activation);
template void activation_backward(double*, const double*, const double*, const double*, long, Activation);
template class Mlp<float>;
template class Mlp<double>;

}  // namespace resnorm
