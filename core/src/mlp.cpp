// The MLP sublayer and its activations, forward next to backward (see mlp.h).
#include "resnorm/mlp.h"

#include <algorithm>
#include <cmath>

#include "resnorm/kernels.h"
#include "resnorm/lanes.h"
#include "resnorm/portable_math.h"

namespace resnorm {
namespace {

// erf, exp (of x <= 0) and tanh for the activations: float, the engine the
// CLI and the page run, takes the portable ones (the same bits natively and
// in WebAssembly, portable_math.h); double, the reference of the gradient
// tests, takes libm's. A training Mlp's float GELU takes lanes.h's instead,
// four entries at a time (train_activation_forward below).
inline float erf_of(float x) { return float(portable::erf(double(x))); }
inline double erf_of(double x) { return std::erf(x); }
inline float exp_nonpos_of(float x) { return float(portable::exp_nonpos(double(x))); }
inline double exp_nonpos_of(double x) { return std::exp(x); }

// GELU(x) = x Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2, from e = erf(x / sqrt 2).
template <class S>
inline S gelu_erf(S x) {
  return erf_of(x * S(0.70710678118654752440));
}
template <class S>
inline S gelu_cdf(S e) {
  return S(0.5) * (S(1) + e);
}
// GELU'(x) = Phi(x) + x phi(x).
template <class S>
inline S gelu_grad(S x, S cdf) {
  const S pdf = S(0.39894228040143267794) * exp_nonpos_of(S(-0.5) * x * x);
  return cdf + x * pdf;
}

// Vectors of the GELU lanes in flight at once (lanes.h).
constexpr int kGeluLanes = 2;

// The activation of a training Mlp: for float GELU in four lanes with
// lanes.h's erf and exp (a = GELU(p), cdf = Phi(p); dp = da (Phi(p) + p
// phi(p))), else activation_forward() and activation_backward() with the cdf kept.
template <class S>
void train_activation_forward(S* a, S* cdf, const S* p, long n, Activation act) {
  activation_forward(a, p, n, act, cdf);
}
template <>
void train_activation_forward(float* a, float* cdf, const float* p, long n, Activation act) {
  if (act != Activation::gelu) return activation_forward(a, p, n, act, cdf);
  lanes::by_lanes<kGeluLanes, 2, 1>(n, {a, cdf}, {p}, [](auto lanes_n, const auto& o, const auto& x) {
    constexpr int N = decltype(lanes_n)::value;
    lanes::F4 v[N], e[N];
    for (int i = 0; i < N; ++i) {
      v[i] = kernels::load(x[0] + 4 * i);
      e[i] = v[i] * 0.70710678118654752440f;
    }
    lanes::erf(e);
    for (int i = 0; i < N; ++i) {
      kernels::store(o[0] + 4 * i, 0.5f * v[i] * (1.0f + e[i]));
      kernels::store(o[1] + 4 * i, 0.5f * (1.0f + e[i]));
    }
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
  lanes::by_lanes<kGeluLanes, 1, 3>(n, {dp}, {da, p, cdf}, [](auto lanes_n, const auto& o, const auto& x) {
    constexpr int N = decltype(lanes_n)::value;
    lanes::F4 v[N], e[N];
    for (int i = 0; i < N; ++i) {
      v[i] = kernels::load(x[1] + 4 * i);
      e[i] = -0.5f * v[i] * v[i];
    }
    lanes::exp_nonpos(e);
    for (int i = 0; i < N; ++i) {
      const lanes::F4 pdf = 0.39894228040143267794f * e[i];
      kernels::store(o[0] + 4 * i, kernels::load(x[0] + 4 * i) * (kernels::load(x[2] + 4 * i) + v[i] * pdf));
    }
  });
}

// dp = da [p > 0 or p is NaN] in vectors of kernels.h. Written out because the
// call is in place (dp = da): the compilers' loop vectorizers check that the
// arrays do not overlap and fall back to their scalar loop when they do.
template <class S>
void relu_backward(S* dp, const S* da, const S* p, long n) {
  typedef typename kernels::Vec<S>::type V;
  constexpr int W = kernels::Vec<S>::lanes;
  const V one = kernels::splat(S(1)), zero = kernels::splat(S(0));
  long i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const V p0 = kernels::load(p + i), p1 = kernels::load(p + i + W);
    const V d0 = kernels::load(da + i), d1 = kernels::load(da + i + W);
    kernels::store(dp + i, d0 * lanes::select<S>((p0 > zero) | (p0 != p0), one, zero));
    kernels::store(dp + i + W, d1 * lanes::select<S>((p1 > zero) | (p1 != p1), one, zero));
  }
  for (; i < n; ++i) dp[i] = da[i] * ((p[i] > S(0) || p[i] != p[i]) ? S(1) : S(0));
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
      for (long i = 0; i < n; ++i) a[i] = portable::tanh_of(p[i]);
      break;
    case Activation::linear:
      for (long i = 0; i < n; ++i) a[i] = p[i];
      break;
  }
}

template <class S>
void activation_backward(S* dp, const S* da, const S* p, const S* a, long n, Activation act, const S* cdf) {
  switch (act) {
    case Activation::relu: relu_backward(dp, da, p, n); break;
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
Mlp<S>::Mlp(int T, int d, int m, bool train) : train_(train) {
  reshape(T, d, m);
}

template <class S>
void Mlp<S>::reshape(int T, int d, int m) {
  T_ = T;
  d_ = d;
  m_ = m;
  for (Workspace<S>* b : {&pre, &hidden, &dpre}) b->resize(T, m);
  if (train_) {
    cdf.resize(T, m);
    dW1 = Mat<S>::Zero(d, m);
    dW2 = Mat<S>::Zero(m, d);
  } else {
    gram.resize(T, d + m);
  }
}

template <class S>
void Mlp<S>::set_ngpt(bool on) {
  for (VecWorkspace<S>* v : {&sv, &dsv}) v->resize(on ? m_ : 0);
  pre_raw.resize(on ? T_ : 0, on ? m_ : 0);
  if (!on) return;
  sv.setOnes();
  dsv.setZero();
}

template <class S>
void Mlp<S>::forward(S* y, const S* x) {
  const long n = static_cast<long>(T_) * m_;
  if (sv.size() > 0) {  // nGPT: pre = s_v sqrt(d) (x W1)
    kernels::gemm_nn(x, weights.base->B1.data(), pre_raw.data(), T_, d_, m_, weights.s1);  // (T, m)
    const double c = std::sqrt(double(d_));
    for (int t = 0; t < T_; ++t)
      for (int j = 0; j < m_; ++j) pre(t, j) = S(c * double(sv(j))) * pre_raw(t, j);
  } else {
    kernels::gemm_nn(x, weights.base->B1.data(), pre.data(), T_, d_, m_, weights.s1);  // (T, m)
  }
  if (train_)
    train_activation_forward(hidden.data(), cdf.data(), pre.data(), n, activation);
  else
    activation_forward(hidden.data(), pre.data(), n, activation);
  kernels::gemm_nn(hidden.data(), weights.base->B2.data(), y, T_, m_, d_, weights.s2);  // (T, d)
}

template <class S>
void Mlp<S>::backward_input(S* dx, const S* dy, const S*) {
  input_grad(dx, dy, false);
}

// nGPT: with dpre = d loss / d pre, dsv_j += sqrt(d) sum_t dpre pre_raw (double), then dpre *= s_v sqrt(d).
template <class S>
void Mlp<S>::input_grad(S* dx, const S* dy, bool param_grads) {
  kernels::gemm_nt(dy, weights.base->B2.data(), dpre.data(), T_, d_, m_, weights.s2);  // dhidden (T, m)
  const long n = static_cast<long>(T_) * m_;
  if (train_)
    train_activation_backward(dpre.data(), dpre.data(), pre.data(), hidden.data(), cdf.data(), n, activation);
  else
    activation_backward(dpre.data(), dpre.data(), pre.data(), hidden.data(), n, activation);
  if (sv.size() > 0) {
    const double c = std::sqrt(double(d_));
    for (int j = 0; param_grads && j < m_; ++j) {
      double sum = 0;
      for (int t = 0; t < T_; ++t) sum += double(dpre(t, j)) * double(pre_raw(t, j));
      dsv(j) += S(c * sum);
    }
    for (int t = 0; t < T_; ++t)
      for (int j = 0; j < m_; ++j) dpre(t, j) *= S(c * double(sv(j)));
  }
  kernels::gemm_nt(dpre.data(), weights.base->B1.data(), dx, T_, m_, d_, weights.s1);  // (T, d)
}

// ||dW2||_F^2 = <hidden hidden^T, dy dy^T>, ||dW1||_F^2 = <x x^T, dpre dpre^T>:
// (T, T) Gram matrices instead of the (m, d) gradients themselves.
template <class S>
void Mlp<S>::backward(S* dx, const S* dy, const S* x, bool materialize) {
  if (!train_) dsv.setZero();  // the simulation's gradient is this backward's alone
  input_grad(dx, dy, true);
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
