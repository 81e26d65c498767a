// resnorm/portable_math.h: exp, erf and tanh for the float engine from + - *
// / and exact scaling only, in double, so they give the same bits natively
// and in WebAssembly.
//
// libm's expf, erff and tanhf differ between glibc and Emscripten's musl in
// the last place; a saturated softmax in a growing residual stream amplifies
// that to 1e-3 in one pass, and training compounds it step after step (a
// residual transformer's loss parts by 20% within 50 updates). With these,
// the float engine the CLI and the page run computes the same numbers in
// both. exp is accurate to a few ulp of double (the softmax of the double
// engine uses it too); erf and tanh to 1e-11, far below float's 6e-8, at the
// cost of a dozen multiply-adds (the double engine, the gradient tests'
// reference, keeps libm's).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace resnorm::portable {

// exp(x) for x <= 0 (a softmax argument s - max s, or -x^2): Cody-Waite
// reduction x = k ln2 + r, |r| <= ln2/2, then Taylor to r^13 (truncation
// < 4e-18 relative). Below -708 the result (< 1e-307) is 0.
inline double exp_nonpos(double x) {
  if (!(x >= -708.0)) return x != x ? x : 0.0;                                             // NaN propagates
  const double k = std::floor(x * 1.4426950408889634 + 0.5);                               // nearest integer to x / ln2
  const double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;  // ln2 = hi + lo
  double p = 1.0 / 6227020800.0;                                                           // 1/13!
  for (double c : {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0,
                   1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0})
    p = p * r + c;
  // 2^k for -1022 <= k <= 0, built from its exponent bits (exact).
  const uint64_t bits = static_cast<uint64_t>(static_cast<int64_t>(k) + 1023) << 52;
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// Horner's rule: c[0] s^(N-1) + ... + c[N-1].
template <size_t N>
inline double poly(const double (&c)[N], double s) {
  double p = c[0];
  for (size_t k = 1; k < N; ++k) p = p * s + c[k];
  return p;
}

// Chebyshev fits (mpmath's chebyfit, 50 digits) in monomial form on s in [-1, 1]:
// erf(x) / x as a polynomial of s = 2 x^2 - 1, |x| < 1 (error 8e-13)
inline constexpr double kErfSmall[] = {4.1364768129199296e-09,  -7.5574904417535861e-08, 1.2233672195978863e-06,
                                       -1.7536824729018507e-05, 0.00021751716035374902,  -0.0022854856569336727,
                                       0.019852496688660258,    -0.14053608901553188,    0.96546873866986727};
// erf(x), s = (x - 1.75) / 0.75, 1 <= x < 2.5 (error 1.4e-11)
inline constexpr double kErfMid[] = {-2.8513402697911223e-07, 1.8788152502352443e-06, -4.0926417461426184e-07,
                                     -2.4522680434184674e-05, 6.7259166415664588e-05, 7.2807267416740982e-05,
                                     -0.00080878716481129096, 0.0015953276661559237,  0.0015719988960950094,
                                     -0.015219856205529566,   0.038035104060840312,   -0.051950385595004756,
                                     0.0395812469519762,      0.98667167120873567};
// erf(x), s = (x - 3.75) / 1.25, 2.5 <= x < 5 (error 1.4e-11)
inline constexpr double kErfHigh[] = {9.6456883584911408e-07,  -2.1521420804049248e-06, -1.19810918890334e-06,
                                      1.0472759429274321e-05,  -2.4370587619568474e-05, 4.4493186648234875e-05,
                                      -6.6269457301101417e-05, 7.8004994731994644e-05,  -7.3533244016981564e-05,
                                      5.5982579675442562e-05,  -3.3790771564721442e-05, 1.5573045297174555e-05,
                                      -5.164677640467492e-06,  1.1015937242425748e-06,  0.99999988627274339};
// tanh(x) / x as a polynomial of s = 8 x^2 - 1, |x| <= 1/2 (error 8e-12)
inline constexpr double kTanhSmall[] = {9.735166091446591e-09,   -2.0190007836721006e-07, 4.1702895952040004e-06,
                                        -8.6502667189986303e-05, 0.0017966355259844411,   -0.037796138165370287,
                                        0.96031634170890956};

// erf(x) to 2e-11 relative: the fits above, 1 from |x| = 5 on (erfc(5) = 1.5e-12).
inline double erf(double x) {
  const double a = std::fabs(x);
  if (!(a > 0)) return x;  // NaN, and +-0 with its sign
  double r;
  if (a < 1.0)
    r = a * poly(kErfSmall, 2.0 * (a * a) - 1.0);
  else if (a < 2.5)
    r = poly(kErfMid, (a - 1.75) * (1.0 / 0.75));
  else if (a < 5.0)
    r = poly(kErfHigh, (a - 3.75) * 0.8);
  else
    r = 1.0;
  return x < 0 ? -r : r;
}

// tanh(x) to 1e-11 relative: up to |x| = 1/2 the fit above, beyond (1 - e) / (1 + e)
// with e = exp(-2|x|) (1 - e >= 0.63 there, nothing cancels).
inline double tanh(double x) {
  const double a = std::fabs(x);
  if (!(a > 0)) return x;  // NaN, and +-0 with its sign
  double r;
  if (a <= 0.5) {
    r = a * poly(kTanhSmall, 8.0 * (a * a) - 1.0);
  } else {
    const double e = exp_nonpos(-2.0 * a);
    r = (1.0 - e) / (1.0 + e);
  }
  return x < 0 ? -r : r;
}

// tanh in an engine's scalar: the portable one for float (the same bits
// natively and in WebAssembly), libm's for double (the gradient tests' reference).
inline float tanh_of(float x) { return float(tanh(double(x))); }
inline double tanh_of(double x) { return std::tanh(x); }

}  // namespace resnorm::portable
