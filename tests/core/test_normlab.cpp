// The norm panel's engine: one token through a norm, BatchNorm vs LayerNorm.
#include <catch2/catch.hpp>
#include <cmath>

#include "resnorm/normlab.h"

using namespace resnorm;

TEST_CASE("one token through LayerNorm: statistics, a constant vector gives beta", "[normlab]") {
  TokenNorm t;
  REQUIRE(norm_token(NormKind::layernorm, {1, 2, 3, 6}, {1, 1, 1, 1}, {0, 0, 0, 0}, &t).ok());
  CHECK(t.mean == Approx(3.0));
  CHECK(t.var == Approx(3.5).epsilon(1e-12));
  double m = 0;
  for (double v : t.y) m += v / 4;
  CHECK(std::abs(m) < 1e-12);
  REQUIRE(norm_token(NormKind::layernorm, {5, 5, 5}, {2, 3, 4}, {0.5, -1, 7}, &t).ok());
  CHECK(t.y == std::vector<double>{0.5, -1, 7});
  CHECK(t.var == Approx(0.0).margin(1e-12));
  // gamma = 1, beta = 0 still standardize: not an identity.
  REQUIRE(norm_token(NormKind::layernorm, {10, 20}, {1, 1}, {0, 0}, &t).ok());
  CHECK(t.y[0] == Approx(-1.0).epsilon(1e-6));
  CHECK(t.y[1] == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("one token through RMSNorm: no centering", "[normlab]") {
  TokenNorm t;
  REQUIRE(norm_token(NormKind::rmsnorm, {3, 4}, {1, 1}, {}, &t).ok());
  CHECK(t.var == Approx(12.5));
  CHECK(t.y[0] == Approx(3 / std::sqrt(12.5 + kEps)));
  CHECK(t.mean == 0);
}

TEST_CASE("bad norm-panel input is a Status naming the field", "[normlab]") {
  TokenNorm t;
  CHECK(norm_token(NormKind::layernorm, {}, {}, {}, &t).field == "x");
  CHECK(norm_token(NormKind::layernorm, {1, NAN}, {1, 1}, {0, 0}, &t).field == "x");
  CHECK(norm_token(NormKind::layernorm, {1, 2}, {1}, {0, 0}, &t).field == "gamma");
  BatchNormResult r;
  CHECK(batch_vs_layer_norm({1, 2}, 1, 1, 2, {3}, false, &r).field == "lengths");
  CHECK(batch_vs_layer_norm({1, 2}, 0, 1, 2, {}, false, &r).field == "batch");
  CHECK(batch_vs_layer_norm({0, 0}, 1, 1, 2, {0}, false, &r).field == "lengths");
}

TEST_CASE("BatchNorm output of a token moves with the rest of the batch, LayerNorm's does not", "[normlab]") {
  // Two sequences, T = 3, d = 2. Token (0, 0) is the one we watch.
  const int B = 2, T = 3, d = 2;
  std::vector<double> x = {1, 2, 3, 5, 0, 0, /* seq 1 */ 4, -1, 2, 2, 7, 1};
  BatchNormResult a, b, c;
  REQUIRE(batch_vs_layer_norm(x, B, T, d, {2, 3}, false, &a).ok());
  REQUIRE(batch_vs_layer_norm(x, B, T, d, {2, 2}, false, &b).ok());  // the other sequence got shorter
  CHECK(a.batchnorm[0] != Approx(b.batchnorm[0]));
  CHECK(a.layernorm[0] == b.layernorm[0]);
  CHECK(a.layernorm[1] == b.layernorm[1]);
  // Counting padding changes BatchNorm's statistics too.
  REQUIRE(batch_vs_layer_norm(x, B, T, d, {2, 3}, true, &c).ok());
  CHECK(c.batchnorm[0] != Approx(a.batchnorm[0]));
  // Batch of one (inference): the token's BatchNorm output changes again; LayerNorm's is the same.
  std::vector<double> one(x.begin(), x.begin() + T * d);
  BatchNormResult s;
  REQUIRE(batch_vs_layer_norm(one, 1, T, d, {2}, false, &s).ok());
  CHECK(s.batchnorm[0] != Approx(a.batchnorm[0]));
  CHECK(s.layernorm[0] == a.layernorm[0]);
  // BatchNorm's per-feature statistics over the counted tokens are standardized.
  double m0 = 0;
  int n = 0;
  for (int bb = 0; bb < B; ++bb)
    for (int t = 0; t < (bb == 0 ? 2 : 3); ++t, ++n) m0 += a.batchnorm[(bb * T + t) * d];
  CHECK(std::abs(m0 / n) < 1e-12);
}

TEST_CASE("entries whose statistics overflow a double are refused, naming x", "[normlab]") {
  resnorm::TokenNorm t;
  const resnorm::Status st = resnorm::norm_token(resnorm::NormKind::layernorm, {1e308, -1e308}, {1, 1}, {0, 0}, &t);
  CHECK(st.field == "x");
  CHECK(st.message.find("overflow") != std::string::npos);
  CHECK(resnorm::norm_token(resnorm::NormKind::rmsnorm, {1e200, 1}, {1, 1}, {0, 0}, &t).field == "x");
  resnorm::BatchNormResult r;
  CHECK(resnorm::batch_vs_layer_norm({1e308, -1e308}, 2, 1, 1, {1, 1}, false, &r).field == "x");
  // Large but representable statistics are fine.
  CHECK(resnorm::norm_token(resnorm::NormKind::layernorm, {1e100, -1e100}, {1, 1}, {0, 0}, &t).ok());
}
