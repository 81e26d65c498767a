// The MLP sublayer and its activations, forward next to backward (see mlp.h).
#include "resnorm/mlp.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "resnorm/kernels.h"

namespace resnorm {
namespace {

// GELU(x) = x Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2, from e = erf(x / sqrt 2).
template <class S>
inline S gelu_erf(S x) {
  return std::erf(x * S(0.70710678118654752440));
}
template <class S>
inline S gelu_cdf(S e) {
  return S(0.5) * (S(1) + e);
}
// GELU'(x) = Phi(x) + x phi(x).
template <class S>
inline S gelu_grad(S x, S cdf) {
  const S pdf = S(0.39894228040143267794) * std::exp(S(-0.5) * x * x);
  return cdf + x * pdf;
}

// Training's float GELU, four lanes at a time (kernels.h vectors). erf(u):
// u P(u^2) for |u| < 1, else 1 - exp(-u^2) R(|u| - 2.6), with |u| clamped at
// 4.2 (where erf rounds to 1); P and R are near-minimax (Chebyshev)
// polynomials of erf(u) / u and erfc(u) exp(u^2) (errors 1.2e-9 and 6e-9).
// exp(y), y <= 0: y = k ln2 + f and a degree-7 Taylor polynomial, 0 below
// -87.3. Checked over every float: erf within 2.6 ulp (libm's erff: 1 ulp),
// exp within 1.3 ulp; NaN propagates. The same bits natively and in
// WebAssembly, where libm's erff differs between glibc and musl. The stack of
// spec v1 keeps std::erf, whose bits its outputs are held to.
typedef kernels::Vec<float>::type F4;

inline F4 exp_lanes(F4 y) {
  using kernels::splat;
  const F4 round = splat(12582912.0f);  // 1.5 2^23: adding and subtracting it rounds to an integer
  const F4 k = (y * 1.44269504088896341f + round) - round;
  const F4 f = (y - k * 0.693359375f) - k * -2.12194440e-4f;  // ln2 = hi + lo, k hi exact
  F4 p = splat(1.0f / 5040);
  for (float c : {1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) p = p * f + c;
  const kernels::Mask<float> two_k = (__builtin_convertvector(k, kernels::Mask<float>) + 127) << 23;
  return kernels::value<float>(kernels::bits<float>(p * kernels::value<float>(two_k)) & (y >= splat(-87.3f)));
}

inline F4 erf_lanes(F4 u) {
  using kernels::bits, kernels::splat, kernels::value;
  const kernels::Mask<float> sign = bits<float>(u) & bits<float>(splat(-0.0f));
  F4 a = value<float>(bits<float>(u) & ~bits<float>(splat(-0.0f)));
  a = kernels::select<float>(a > splat(4.2f), splat(4.2f), a);  // NaN stays NaN
  const F4 t = a * a;
  F4 p = splat(7.8758750626854883411e-5f);
  for (float c : {-8.0168642871658695293e-4f, 5.1890874234339739861e-3f, -2.6854212010626412443e-2f,
                  1.1283594715160217732e-1f, -3.7612626666720331023e-1f, 1.128379165848350946f})
    p = p * t + c;
  const F4 s = a - 2.6f;
  F4 r = splat(-3.2102368350689571276e-7f);
  for (float c :
       {1.3261295319958251181e-6f, -2.899246335416540238e-6f, 1.1046060019290354412e-5f, -4.7999684474263563211e-5f,
        1.761143311065497331e-4f, -6.1818927179772814427e-4f, 2.1286142874630925561e-3f, -7.0841592190998280035e-3f,
        2.2678811065626834508e-2f, -6.9590278403397621534e-2f, 2.0361323688731828843e-1f})
    r = r * s + c;
  const F4 e = kernels::select<float>(a < splat(1.0f), a * p, 1.0f - exp_lanes(-t) * r);
  return value<float>(bits<float>(e) | sign);
}

// lanes(o, x) writes o[k][0..3] from x[k][0..3]: every entry of the arrays
// out[k], in[k] of n entries, the last n % 4 through zero-padded copies.
template <size_t O, size_t I, class Fn>
void by_fours(long n, std::array<float*, O> out, std::array<const float*, I> in, Fn lanes) {
  std::array<float*, O> o;
  std::array<const float*, I> x;
  long i = 0;
  for (; i + 4 <= n; i += 4) {
    for (size_t k = 0; k < O; ++k) o[k] = out[k] + i;
    for (size_t k = 0; k < I; ++k) x[k] = in[k] + i;
    lanes(o, x);
  }
  if (i == n) return;
  float ob[O][4], ib[I][4] = {};
  for (size_t k = 0; k < I; ++k) {
    std::copy(in[k] + i, in[k] + n, ib[k]);
    x[k] = ib[k];
  }
  for (size_t k = 0; k < O; ++k) o[k] = ob[k];
  lanes(o, x);
  for (size_t k = 0; k < O; ++k) std::copy(ob[k], ob[k] + (n - i), out[k] + i);
}

// The activation of a training Mlp: for float GELU the lanes above (a =
// GELU(p), cdf = Phi(p); dp = da (Phi(p) + p phi(p))), else activation_forward()
// and activation_backward() with the cdf kept.
template <class S>
void train_activation_forward(S* a, S* cdf, const S* p, long n, Activation act) {
  activation_forward(a, p, n, act, cdf);
}
template <>
void train_activation_forward(float* a, float* cdf, const float* p, long n, Activation act) {
  if (act != Activation::gelu) return activation_forward(a, p, n, act, cdf);
  by_fours<2, 1>(n, {a, cdf}, {p}, [](const auto& o, const auto& x) {
    const F4 v = kernels::load(x[0]);
    const F4 e = erf_lanes(v * 0.70710678118654752440f);
    kernels::store(o[0], 0.5f * v * (1.0f + e));
    kernels::store(o[1], 0.5f * (1.0f + e));
  });
}
template <class S>
void train_activation_backward(S* dp, const S* da, const S* p, const S* a, const S* cdf, long n, Activation act) {
  activation_backward(dp, da, p, a, n, act, cdf);
}
template <>
void train_activation_backward(float* dp, const float* da, const float* p, const float* a, const float* cdf, long n,
                               Activation act) {
  if (act != Activation::gelu) return activation_backward(dp, da, p, a, n, act, cdf);
  by_fours<1, 3>(n, {dp}, {da, p, cdf}, [](const auto& o, const auto& x) {
    const F4 v = kernels::load(x[1]);
    const F4 pdf = 0.39894228040143267794f * exp_lanes(-0.5f * v * v);
    kernels::store(o[0], kernels::load(x[0]) * (kernels::load(x[2]) + v * pdf));
  });
}

}  // namespace

template <class S>
void activation_forward(S* a, const S* p, long n, Activation act, S* cdf) {
  switch (act) {
    case Activation::relu:
      for (long i = 0; i < n; ++i) a[i] = (p[i] > S(0) || p[i] != p[i]) ? p[i] : S(0);
      break;
    case Activation::gelu:
      for (long i = 0; i < n; ++i) {
        const S e = gelu_erf(p[i]);
        a[i] = S(0.5) * p[i] * (S(1) + e);
        if (cdf) cdf[i] = gelu_cdf(e);
      }
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
void activation_backward(S* dp, const S* da, const S* p, const S* a, long n, Activation act, const S* cdf) {
  switch (act) {
    case Activation::relu:
      for (long i = 0; i < n; ++i) dp[i] = da[i] * ((p[i] > S(0) || p[i] != p[i]) ? S(1) : S(0));
      break;
    case Activation::gelu:
      if (cdf)
        for (long i = 0; i < n; ++i) dp[i] = da[i] * gelu_grad(p[i], cdf[i]);
      else
        for (long i = 0; i < n; ++i) dp[i] = da[i] * gelu_grad(p[i], gelu_cdf(gelu_erf(p[i])));
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
Mlp<S>::Mlp(int T, int d, int m, bool train) : T_(T), d_(d), m_(m), train_(train) {
  pre.resize(T, m);
  hidden.resize(T, m);
  dpre.resize(T, m);
  if (train) {
    cdf.resize(T, m);
    dW1 = Mat<S>::Zero(d, m);
    dW2 = Mat<S>::Zero(m, d);
  } else {
    gram.resize(T, d + m);
  }
}

template <class S>
void Mlp<S>::forward(S* y, const S* x) {
  kernels::gemm_nn(x, weights.base->B1.data(), pre.data(), T_, d_, m_, weights.s1);  // (T, m)
  const long n = static_cast<long>(T_) * m_;
  if (train_)
    train_activation_forward(hidden.data(), cdf.data(), pre.data(), n, activation);
  else
    activation_forward(hidden.data(), pre.data(), n, activation);
  kernels::gemm_nn(hidden.data(), weights.base->B2.data(), y, T_, m_, d_, weights.s2);  // (T, d)
}

template <class S>
void Mlp<S>::backward_input(S* dx, const S* dy, const S*) {
  kernels::gemm_nt(dy, weights.base->B2.data(), dpre.data(), T_, d_, m_, weights.s2);  // dhidden (T, m)
  const long n = static_cast<long>(T_) * m_;
  if (train_)
    train_activation_backward(dpre.data(), dpre.data(), pre.data(), hidden.data(), cdf.data(), n, activation);
  else
    activation_backward(dpre.data(), dpre.data(), pre.data(), hidden.data(), n, activation);
  kernels::gemm_nt(dpre.data(), weights.base->B1.data(), dx, T_, m_, d_, weights.s1);  // (T, d)
}

// ||dW2||_F^2 = <hidden hidden^T, dy dy^T>, ||dW1||_F^2 = <x x^T, dpre dpre^T>:
// (T, T) Gram matrices instead of the (m, d) gradients themselves.
template <class S>
void Mlp<S>::backward(S* dx, const S* dy, const S* x, bool materialize) {
  backward_input(dx, dy, x);
  if (!train_) {
    w2_grad_sq = grad_sq(hidden.data(), m_, dy, d_, T_, gram);
    w1_grad_sq = grad_sq(x, d_, dpre.data(), m_, T_, gram);
    if (!materialize) return;
    dW1.setZero(d_, m_);
    dW2.setZero(m_, d_);
  }
  kernels::gemm_tn(x, dpre.data(), dW1.data(), T_, d_, m_);     // (d, m) += x^T dpre
  kernels::gemm_tn(hidden.data(), dy, dW2.data(), T_, m_, d_);  // (m, d) += hidden^T dy
}

template void activation_forward(float*, const float*, long, Activation, float*);
template void activation_forward(double*, const double*, long, Activation, double*);
template void activation_backward(float*, const float*, const float*, const float*, long, Activation, const float*);
template void activation_backward(double*, const double*, const double*, const double*, long, Activation,
                                  const double*);
template class Mlp<float>;
template class Mlp<double>;

}  // namespace resnorm
