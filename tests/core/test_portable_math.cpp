// exp, erf and tanh from + - * / only (portable_math.h) against libm: exp to
// a few ulp of double, erf and tanh to 2e-11 (the float engine's; float's
// epsilon is 6e-8), odd, NaN and signed zeros kept. That they give the same
// bits natively and in WebAssembly is checked by the Node parity tests.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <initializer_list>
#include <limits>

#include "resnorm/portable_math.h"

using namespace resnorm;

namespace {
double rel(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-300); }

// The largest relative difference of an odd function f to libm's g on (0, hi]
// (80000 steps) and at `edges`; asserts f(-x) = -f(x) on the way.
template <class F, class G>
double odd_worst(F f, G g, double hi, std::initializer_list<double> edges) {
  double worst = 0;
  for (int i = 1; i <= 80000; ++i) {
    const double x = hi * i / 80000;
    worst = std::max(worst, rel(f(x), g(x)));
    if (f(-x) != -f(x)) FAIL_CHECK("not odd at " << x);
  }
  for (double x : edges) worst = std::max(worst, rel(f(x), g(x)));
  return worst;
}
}  // namespace

TEST_CASE("portable exp of x <= 0 is libm's to 1e-15, 0 below -708", "[portable_math]") {
  double worst = 0;
  for (int i = 0; i <= 70000; ++i) {
    const double x = -708.0 * i / 70000;
    worst = std::max(worst, rel(portable::exp_nonpos(x), std::exp(x)));
  }
  WARN("exp_nonpos max relative difference to libm: " << worst);
  CHECK(worst < 1e-15);
  CHECK(portable::exp_nonpos(0.0) == 1.0);
  CHECK(portable::exp_nonpos(-709.0) == 0.0);
  CHECK(portable::exp_nonpos(-std::numeric_limits<double>::infinity()) == 0.0);
  CHECK(std::isnan(portable::exp_nonpos(std::nan(""))));
}

TEST_CASE("portable erf is libm's to 2e-11, odd, 1 from 5 on", "[portable_math]") {
  const double worst = odd_worst([](double x) { return portable::erf(x); }, [](double x) { return std::erf(x); }, 8.0,
                                 {1e-300, 1e-20, 1e-8, 0.9999999, 1.0, 2.4999999, 2.5, 4.9999999, 5.0});
  WARN("erf max relative difference to libm: " << worst);
  CHECK(worst < 2e-11);
  CHECK(std::signbit(portable::erf(-0.0)));
  CHECK(portable::erf(std::numeric_limits<double>::infinity()) == 1.0);
  CHECK(std::isnan(portable::erf(std::nan(""))));
}

TEST_CASE("portable tanh is libm's to 2e-11, odd, +-1 far out", "[portable_math]") {
  const double worst = odd_worst([](double x) { return portable::tanh(x); }, [](double x) { return std::tanh(x); },
                                 25.0, {1e-300, 1e-20, 1e-8, 0.4999999, 0.5, 0.5000001});
  WARN("tanh max relative difference to libm: " << worst);
  CHECK(worst < 2e-11);
  CHECK(std::signbit(portable::tanh(-0.0)));
  CHECK(portable::tanh(-std::numeric_limits<double>::infinity()) == -1.0);
  CHECK(std::isnan(portable::tanh(std::nan(""))));
}
