// resnorm/lanes.h: elementwise math on the vectors of kernels.h (four float
// or two double lanes), written with + - * and bit operations only, so a
// result has the same bits natively and in WebAssembly.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>

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
// softmax). The spec v1 stack keeps libm's erf and its own double exp, whose
// bits its outputs are held to. Checked over every float: exp_nonpos within
// 1.21 ulp, erf within 2.55 ulp (libm's erff: 1 ulp; glibc's and musl's
// differ); NaN propagates through both.

// exp(y) for y <= 0: y = k ln2 + f, |f| <= ln2 / 2, and a degree-7 Taylor
// polynomial of e^f times 2^k; 0 below -87.3 (no subnormals).
inline F4 exp_nonpos(F4 y) {
  using kernels::splat;
  const F4 round = splat(12582912.0f);  // 1.5 2^23: adding and subtracting it rounds to an integer
  const F4 k = (y * 1.44269504088896341f + round) - round;
  const F4 f = (y - k * 0.693359375f) - k * -2.12194440e-4f;  // ln2 = hi + lo, k hi exact
  F4 p = splat(1.0f / 5040);
  for (float c : {1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) p = p * f + c;
  const Mask<float> two_k = (__builtin_convertvector(k, Mask<float>) + 127) << 23;
  return value<float>(bits<float>(p * value<float>(two_k)) & (y >= splat(-87.3f)));
}

// erf(u): u P(u^2) for |u| < 1, else 1 - exp(-u^2) R(|u| - 2.6), with |u|
// clamped at 4.2 (where erf rounds to 1); P and R are near-minimax (Chebyshev)
// polynomials of erf(u) / u and erfc(u) exp(u^2) (errors 1.2e-9 and 6e-9).
inline F4 erf(F4 u) {
  using kernels::splat;
  const Mask<float> sign = bits<float>(u) & bits<float>(splat(-0.0f));
  F4 a = value<float>(bits<float>(u) & ~bits<float>(splat(-0.0f)));
  a = select<float>(a > splat(4.2f), splat(4.2f), a);  // NaN stays NaN
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
  const F4 e = select<float>(a < splat(1.0f), a * p, 1.0f - exp_nonpos(-t) * r);
  return value<float>(bits<float>(e) | sign);
}

// fn(o, x) writes o[k][0..3] from x[k][0..3]: every entry of the arrays
// out[k], in[k] of n entries, the last n % 4 through zero-padded copies.
template <size_t O, size_t I, class Fn>
void by_fours(long n, std::array<float*, O> out, std::array<const float*, I> in, Fn fn) {
  std::array<float*, O> o;
  std::array<const float*, I> x;
  long i = 0;
  for (; i + 4 <= n; i += 4) {
    for (size_t k = 0; k < O; ++k) o[k] = out[k] + i;
    for (size_t k = 0; k < I; ++k) x[k] = in[k] + i;
    fn(o, x);
  }
  if (i == n) return;
  float ob[O][4], ib[I][4] = {};
  for (size_t k = 0; k < I; ++k) {
    std::copy(in[k] + i, in[k] + n, ib[k]);
    x[k] = ib[k];
  }
  for (size_t k = 0; k < O; ++k) o[k] = ob[k];
  fn(o, x);
  for (size_t k = 0; k < O; ++k) std::copy(ob[k], ob[k] + (n - i), out[k] + i);
}

}  // namespace resnorm::lanes
