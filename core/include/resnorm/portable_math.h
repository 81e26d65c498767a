// resnorm/portable_math.h: exp, erf and tanh from + - * / and exact scaling
// only, in double, so they give the same bits natively and in WebAssembly.
//
// libm's expf, erff and tanhf differ between glibc and Emscripten's musl in
// the last place; a saturated softmax in a growing residual stream amplifies
// that to 1e-3 in one pass, and training compounds it step after step (a
// residual transformer's loss parts by 20% within 50 updates). With these,
// the float engine the CLI and the page run computes the same numbers in
// both. Each is accurate to a few ulp of double (measured against libm:
// exp 2e-16, erf 6e-15, tanh 1e-15 relative) and smooth, so the
// finite-difference tests see the functions they differentiate.
#pragma once

#include <cmath>
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

// erf(x): below |x| = 2.5 its Taylor series, sum of (-1)^n x^(2n+1) / (n! (2n+1)),
// until a term is below 1e-17 of the sum (at most 41 terms; the largest term
// is 16x the sum, so 1.2 digits cancel); above, 1 - erfc with erfc(a) =
// exp(-a^2) / sqrt(pi) / (a + (1/2) / (a + 1 / (a + (3/2) / (a + ...)))), the
// continued fraction to depth 40 (< 4e-15 relative at a = 2.5); 1 from |x| = 6
// on (erfc(6) = 2e-17).
inline double erf(double x) {
  const double a = std::fabs(x);
  if (!(a > 0)) return x;  // NaN, and +-0 with its sign
  double r;
  if (a < 2.5) {
    const double x2 = a * a;
    double t = a, sum = a;
    for (int n = 1; n <= 60; ++n) {
      t *= -x2 / n;
      const double term = t / (2 * n + 1);
      sum += term;
      if (std::fabs(term) <= 1e-17 * std::fabs(sum)) break;
    }
    r = sum * 1.12837916709551257390;  // 2 / sqrt(pi)
  } else if (a < 6.0) {
    double f = a;
    for (int n = 40; n >= 1; --n) f = a + 0.5 * n / f;
    r = 1.0 - exp_nonpos(-a * a) * 0.56418958354775628695 / f;  // 1 / sqrt(pi)
  } else {
    r = 1.0;
  }
  return x < 0 ? -r : r;
}

// tanh(x) = (1 - e) / (1 + e) with e = exp(-2|x|); up to |x| = 1/2, where 1 - e
// would cancel, e - 1 comes from its Taylor series instead (at most 20 terms).
inline double tanh(double x) {
  const double a = std::fabs(x);
  if (!(a > 0)) return x;  // NaN, and +-0 with its sign
  double r;
  if (a <= 0.5) {
    const double y = -2.0 * a;
    double t = y, em1 = y;
    for (int n = 2; n <= 30; ++n) {
      t *= y / n;
      em1 += t;
      if (std::fabs(t) <= 1e-17 * std::fabs(em1)) break;
    }
    r = -em1 / (2.0 + em1);
  } else {
    const double e = exp_nonpos(-2.0 * a);
    r = (1.0 - e) / (1.0 + e);
  }
  return x < 0 ? -r : r;
}

}  // namespace resnorm::portable
