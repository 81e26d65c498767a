// The MLP sublayer and its activations (mlp.cpp): dx, dW1 and dW2 against
// central finite differences in double (fd.h) for every activation, and the
// non-finite values the activations keep.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "fd.h"
#include "resnorm/mlp.h"
#include "resnorm/rng.h"
#include "resnorm/weights.h"

using namespace resnorm;

TEST_CASE("MLP alone: dx, dW1 and dW2 equal central finite differences for every activation", "[mlp]") {
  const int T = 5, d = 6, m = 12;
  for (Activation act : {Activation::relu, Activation::gelu, Activation::tanh, Activation::linear}) {
    MlpBase<double> base;
    base.B1 = gaussian_matrix(stream_key({31, 1}), d, m);
    base.B2 = gaussian_matrix(stream_key({31, 2}), m, d);
    Mlp<double> f(T, d, m);
    // Scales away from the init's, and distinct, so a swapped scale cannot pass.
    f.weights = {&base, 1.3 / std::sqrt(double(d)), 0.8 / std::sqrt(double(m))};
    f.activation = act;
    Mat<double> x = gaussian_matrix(stream_key({31, 3}), T, d), r = gaussian_matrix(stream_key({31, 4}), T, d);
    Mat<double> y(T, d), dx(T, d);
    auto loss = [&] {
      f.forward(y.data(), x.data());
      return (r.array() * y.array()).sum();
    };
    loss();
    f.backward(dx.data(), r.data(), x.data(), true);
    CHECK(std::sqrt(f.w1_grad_sq) == Approx(f.dW1.norm()).epsilon(1e-10));
    CHECK(std::sqrt(f.w2_grad_sq) == Approx(f.dW2.norm()).epsilon(1e-10));
    // d loss / d B = s d loss / d W; copies, before the differences overwrite the caches.
    const Mat<double> dx0 = dx, dB1 = f.dW1 * f.weights.s1, dB2 = f.dW2 * f.weights.s2;
    std::vector<char> pattern;
    auto relu_pattern = [&] {
      std::vector<char> v;
      if (act == Activation::relu)
        for (long i = 0; i < f.pre.size(); ++i) v.push_back(f.pre.data()[i] > 0);
      return v;
    };
    pattern = relu_pattern();
    const fd::SamePiece same_piece = [&] { return relu_pattern() == pattern; };
    fd::Report report(std::string("mlp alone ") + name(act));
    const std::pair<const char*, std::pair<Mat<double>*, const Mat<double>*>> tensors[] = {
        {"dx", {&x, &dx0}}, {"dW1", {&base.B1, &dB1}}, {"dW2", {&base.B2, &dB2}}};
    for (const auto& [what, t] : tensors) {
      const fd::Check c =
          report.add(what, fd::tensor(t.first->data(), t.first->size(), t.second->data(), loss, same_piece));
      INFO(c.line(what) << " " << name(act));
      CHECK(c.max_ref > 0);
      CHECK(c.rel() < fd::kTol);
      CHECK(c.few_skipped());
    }
  }
}

TEST_CASE("activations keep non-finite values: ReLU passes NaN, its derivative is a product", "[mlp]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const double p[] = {-1.0, 2.0, nan, -inf, inf};
  double a[5], dp[5];
  activation_forward(a, p, 5, Activation::relu);
  CHECK(a[0] == 0.0);
  CHECK(a[1] == 2.0);
  CHECK(std::isnan(a[2]));  // a comparison alone would give 0 and hide an overflow
  CHECK(a[3] == 0.0);
  CHECK(a[4] == inf);
  const double da[] = {inf, 3.0, 1.0, 1.0, 1.0};
  activation_backward(dp, da, p, a, 5, Activation::relu);
  CHECK(std::isnan(dp[0]));  // inf * 0: a non-finite gradient stays non-finite
  CHECK(dp[1] == 3.0);
  CHECK(dp[2] == 1.0);
  CHECK(dp[3] == 0.0);
  CHECK(dp[4] == 1.0);
  // tanh' from the cached output, linear passes the gradient through.
  activation_forward(a, p, 2, Activation::tanh);
  activation_backward(dp, da + 1, p + 1, a + 1, 1, Activation::tanh);
  CHECK(dp[0] == Approx(3.0 * (1 - std::tanh(2.0) * std::tanh(2.0))).epsilon(1e-15));
  activation_backward(dp, da, p, a, 2, Activation::linear);
  CHECK(dp[0] == inf);
  CHECK(dp[1] == 3.0);
}
