// resnorm/lanes.h: elementwise math on the vectors of kernels.h (four float
// or two double lanes), written with + - * and bit operations only, so a
// result has the same bits natively and in WebAssembly.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "resnorm/kernels.h"

namespace resnorm::lanes {

using kernels::Vec;
typedef Vec<float>::type F4;

// A comparison's lane mask (all ones or all zeros per lane), a vector's bits
// as such a mask and back, and the select of a where the mask is set, else b.
template <class S>
using Mask = decltype(typename Vec<S>::type{} > typename Vec<S>::type{});
template <class S>
inline Mask<S> bits(typename Vec<S>::type v) {
  Mask<S> m;
  std::memcpy(&m, &v, sizeof m);
  return m;
}
template <class S>
inline typename Vec<S>::type value(Mask<S> m) {
  typename Vec<S>::type v;
  std::memcpy(&v, &m, sizeof v);
  return v;
}
template <class S>
inline typename Vec<S>::type select(Mask<S> m, typename Vec<S>::type a, typename Vec<S>::type b) {
  return value<S>((m & bits<S>(a)) | (~m & bits<S>(b)));
}

// Float functions for training (a training Mlp's GELU, its attention's
// softmax). The simulation's stack keeps libm's erf and its own double exp, whose
// bits its outputs are held to. Checked over every float: exp_nonpos within
// 1.21 ulp, erf within 2.55 ulp (libm's erff: 1 ulp; glibc's and musl's
// differ); NaN propagates through both.

// Each function works on N vectors at once, step by step across them: the
// steps are long chains of dependent operations, and N independent chains in
// flight hide their latency (every lane gets the same operations for any N).

// y[i] = exp(y[i]) for y <= 0: y = k ln2 + f, |f| <= ln2 / 2, and a degree-7
// Taylor polynomial of e^f times 2^k; 0 below -87.3 (no subnormals).
template <int N>
inline void exp_nonpos(F4 (&y)[N]) {
  using kernels::splat;
  const F4 round = splat(12582912.0f);  // 1.5 2^23: adding and subtracting it rounds to an integer
  F4 k[N], f[N], p[N];
  for (int i = 0; i < N; ++i) {
    k[i] = (y[i] * 1.44269504088896341f + round) - round;
    f[i] = (y[i] - k[i] * 0.693359375f) - k[i] * -2.12194440e-4f;  // ln2 = hi + lo, k hi exact
    p[i] = splat(1.0f / 5040);
  }
  for (float c : {1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f})
    for (int i = 0; i < N; ++i) p[i] = p[i] * f[i] + c;
  for (int i = 0; i < N; ++i) {
    const Mask<float> two_k = (__builtin_convertvector(k[i], Mask<float>) + 127) << 23;
    // 0 below the range; NaN (where every comparison is false) stays NaN
    const Mask<float> keep = (y[i] >= splat(-87.3f)) | (y[i] != y[i]);
    y[i] = value<float>(bits<float>(p[i] * value<float>(two_k)) & keep);
  }
}

// u[i] = erf(u[i]): u P(u^2) for |u| < 1, else 1 - exp(-u^2) R(|u| - 2.6),
// with |u| clamped at 4.2 (where erf rounds to 1); P and R are near-minimax
// (Chebyshev) polynomials of erf(u) / u and erfc(u) exp(u^2) (errors 1.2e-9 and 6e-9).
template <int N>
inline void erf(F4 (&u)[N]) {
  using kernels::splat;
  const Mask<float> sign_bit = bits<float>(splat(-0.0f));
  Mask<float> sign[N];
  F4 a[N], t[N], p[N], r[N], e[N];
  for (int i = 0; i < N; ++i) {
    sign[i] = bits<float>(u[i]) & sign_bit;
    a[i] = value<float>(bits<float>(u[i]) & ~sign_bit);
    a[i] = select<float>(a[i] > splat(4.2f), splat(4.2f), a[i]);  // NaN stays NaN
    t[i] = a[i] * a[i];
    e[i] = -t[i];
    p[i] = splat(7.8758750626854883411e-5f);
    r[i] = splat(-3.2102368350689571276e-7f);
  }
  for (float c : {-8.0168642871658695293e-4f, 5.1890874234339739861e-3f, -2.6854212010626412443e-2f,
                  1.1283594715160217732e-1f, -3.7612626666720331023e-1f, 1.128379165848350946f})
    for (int i = 0; i < N; ++i) p[i] = p[i] * t[i] + c;
  for (float c :
       {1.3261295319958251181e-6f, -2.899246335416540238e-6f, 1.1046060019290354412e-5f, -4.7999684474263563211e-5f,
        1.761143311065497331e-4f, -6.1818927179772814427e-4f, 2.1286142874630925561e-3f, -7.0841592190998280035e-3f,
        2.2678811065626834508e-2f, -6.9590278403397621534e-2f, 2.0361323688731828843e-1f})
    for (int i = 0; i < N; ++i) r[i] = r[i] * (a[i] - 2.6f) + c;
  exp_nonpos(e);
  for (int i = 0; i < N; ++i) {
    const F4 v = select<float>(a[i] < splat(1.0f), a[i] * p[i], 1.0f - e[i] * r[i]);
    u[i] = value<float>(bits<float>(v) | sign[i]);
  }
}

// fn(o, x) with o[k], x[k] pointing at 4 N entries of out[k], in[k] (N
// vectors each): every entry of the n-entry arrays, the last ones in single
// vectors (N = 1) and the last n % 4 through zero-padded copies.
template <int N, size_t O, size_t I, class Fn>
void by_lanes(long n, std::array<float*, O> out, std::array<const float*, I> in, Fn fn) {
  std::array<float*, O> o;
  std::array<const float*, I> x;
  auto at = [&](long i) {
    for (size_t k = 0; k < O; ++k) o[k] = out[k] + i;
    for (size_t k = 0; k < I; ++k) x[k] = in[k] + i;
  };
  long i = 0;
  for (; i + 4 * N <= n; i += 4 * N) at(i), fn(std::integral_constant<int, N>(), o, x);
  for (; i + 4 <= n; i += 4) at(i), fn(std::integral_constant<int, 1>(), o, x);
  if (i == n) return;
  float ob[O][4], ib[I][4] = {};
  for (size_t k = 0; k < I; ++k) {
    std::copy(in[k] + i, in[k] + n, ib[k]);
    x[k] = ib[k];
  }
  for (size_t k = 0; k < O; ++k) o[k] = ob[k];
  fn(std::integral_constant<int, 1>(), o, x);
  for (size_t k = 0; k < O; ++k) std::copy(ob[k], ob[k] + (n - i), out[k] + i);
}

}  // namespace resnorm::lanes
