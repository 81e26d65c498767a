// lanes.h's float erf and exp against libm's in double, rounded to float: the
// largest error in ulp over a stride through every float of the range they
// are used on (the stride is odd, so it meets every exponent and mantissa
// pattern class), NaN and the range ends.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "resnorm/lanes.h"

using namespace resnorm;

namespace {

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// |got - want| in units of the last place of want (float).
double ulps(float got, double want) {
  const float w = float(want);
  const double ulp = std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity()) - std::fabs(w);
  return std::fabs(double(got) - want) / ulp;
}

// The largest ulp error of fn (four lanes at a time) against ref over the
// floats with bit patterns lo, lo + stride, ... below hi (both signs when signed).
template <class Fn, class Ref>
double worst_ulps(uint32_t lo, uint32_t hi, uint32_t stride, bool negative, Fn fn, Ref ref) {
  double worst = 0;
  for (uint32_t b = lo; b + 3 * stride < hi; b += 4 * stride) {
    float x[4];
    for (int i = 0; i < 4; ++i) x[i] = from_bits((b + i * stride) | (negative ? 0x80000000u : 0u));
    lanes::F4 v[1] = {kernels::load(x)};
    fn(v);
    for (int i = 0; i < 4; ++i) worst = std::max(worst, ulps(v[0][i], ref(double(x[i]))));
  }
  return worst;
}

}  // namespace

TEST_CASE("lanes erf is libm's to 2.55 ulp, odd, NaN through", "[lanes]") {
  auto erf4 = [](lanes::F4(&v)[1]) { lanes::erf(v); };
  auto ref = [](double x) { return std::erf(x); };
  const uint32_t five = 0x40a00000u;  // 5.0f: erf rounds to 1 from 3.92 on
  const double pos = worst_ulps(0x00800000u, five, 97, false, erf4, ref);
  const double neg = worst_ulps(0x00800000u, five, 97, true, erf4, ref);
  WARN("lanes erf worst ulp: " << pos << " (x > 0), " << neg << " (x < 0)");
  CHECK(pos <= 2.55);
  CHECK(neg <= 2.55);
  lanes::F4 v[1] = {{0.0f, -0.0f, std::nanf(""), 100.0f}};
  lanes::erf(v);
  CHECK(v[0][0] == 0.0f);
  CHECK(std::signbit(v[0][1]));
  CHECK(std::isnan(v[0][2]));
  CHECK(v[0][3] == 1.0f);
}

TEST_CASE("lanes exp of x <= 0 is libm's to 1.21 ulp, 0 below -87.3", "[lanes]") {
  auto exp4 = [](lanes::F4(&v)[1]) { lanes::exp_nonpos(v); };
  auto ref = [](double x) { return std::exp(x); };
  const uint32_t edge = 0x42ae999au;  // -87.3f: below it the result is 0
  const double worst = worst_ulps(0x00800000u, edge, 89, true, exp4, ref);
  WARN("lanes exp worst ulp: " << worst);
  CHECK(worst <= 1.21);
  lanes::F4 v[1] = {{0.0f, -88.0f, -std::numeric_limits<float>::infinity(), std::nanf("")}};
  lanes::exp_nonpos(v);
  CHECK(v[0][0] == 1.0f);
  CHECK(v[0][1] == 0.0f);
  CHECK(v[0][2] == 0.0f);
  CHECK(std::isnan(v[0][3]));
}
