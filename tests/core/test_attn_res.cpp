// Attention Residuals (attn_res.cpp, the attn_res recipe): the uniform
// weights at init exactly, in simulation and training, for MLP and
// transformer stacks; the queries and gains as trained parameters without
// weight decay, saved and restored. The whole stack's finite differences with
// Attention Residuals (every query and gain, away from their init) are the
// all-architecture loops of test_model.cpp and test_network.cpp.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "helpers.h"
#include "resnorm/model.h"
#include "resnorm/trainer.h"
#include "tiny_train.h"

using namespace resnorm;

TEST_CASE("attn_res: at init every weight is 1 / (k + 1), so unit k + 1 reads the mean of h_0 and units 1..k",
          "[attn_res][simulation]") {
  for (Block block : {Block::mlp, Block::transformer}) {
    Config cfg = block == Block::transformer ? test::small_transformer() : Config();
    cfg.depth = 5;
    cfg.width = 8;
    cfg.tokens = 4;
    WeightBank<double> bank;
    bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, block == Block::transformer);
    Model<double> m;
    m.configure(cfg, Arch::attn_res, bank);
    REQUIRE(m.has_attn_res());
    m.forward();
    const int U = m.units(), T = cfg.tokens, d = cfg.width;
    const long n = long(T) * d;
    AttnRes<double>& ar = m.attn_res();
    REQUIRE(ar.ops() == U);
    for (int k = 1; k <= U; ++k) {
      CHECK(m.unit_at(k).wrap.skip == false);
      CHECK(m.unit_at(k).in.kind == NormKind::rmsnorm);
      for (int i = 0; i < d; ++i) {
        CHECK(ar.query(k)[i] == 0.0);
        CHECK(ar.gain(k)[i] == 1.0);
      }
    }
    // h_0 is the input; v_0 = h_0.
    for (long i = 0; i < n; ++i) CHECK(m.stream(0)[i] == m.input().data()[i]);
    for (long i = 0; i < n; ++i) CHECK(ar.v(0)[i] == m.input().data()[i]);
    for (int k = 1; k <= U; ++k) {
      const double* a = ar.weights(k);
      for (int t = 0; t < T; ++t)
        for (int i = 0; i <= k; ++i) CHECK(a[t * (k + 1) + i] == 1.0 / (k + 1));
      // h_k = (v_0 + ... + v_k) / (k + 1), to round-off.
      double err = 0, ref = 0;
      for (long e = 0; e < n; ++e) {
        double mean = 0;
        for (int i = 0; i <= k; ++i) mean += ar.v(i)[e];
        mean /= k + 1;
        err = std::max(err, std::abs(m.stream(k)[e] - mean));
        ref = std::max(ref, std::abs(mean));
      }
      INFO(name(block) << " k=" << k);
      CHECK(err <= 1e-14 * ref);
    }
    // Every value is a unit's branch alone: v_k = f(RMS(h_{k-1})), no skip added.
    for (int k = 1; k <= U; ++k) {
      const double* b = m.unit_at(k).branch_output();
      for (long e = 0; e < n; ++e) CHECK(ar.v(k)[e] == b[e]);
    }
  }
}

TEST_CASE("attn_res: the float engine's weights at init are 1 / (k + 1) too", "[attn_res][simulation]") {
  Config cfg;
  cfg.depth = 6;
  cfg.width = 8;
  cfg.tokens = 3;
  WeightBank<float> bank;
  bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, false);
  Model<float> m;
  m.configure(cfg, Arch::attn_res, bank);
  m.forward();
  for (int k = 1; k <= m.units(); ++k)
    for (int e = 0; e < cfg.tokens * (k + 1); ++e) CHECK(m.attn_res().weights(k)[e] == float(1.0 / (k + 1)));
}

TEST_CASE("attn_res: each unit's query and gain are parameters, no matrix, trained, saved and restored",
          "[attn_res][trainer][state]") {
  TrainConfig tc = tiny_train_config();
  tc.steps = 30;
  CHECK(final_norm_of(tc, Arch::attn_res) == NormKind::rmsnorm);
  Trainer<float> a, b;
  REQUIRE(a.configure(tc, Arch::attn_res).ok());
  const int U = tc.depth * 2;
  int queries = 0, gains = 0;
  for (const Param<float>& p : a.network().params()) {
    const bool q = p.name.rfind("attn_res.query[unit ", 0) == 0, g = p.name.rfind("attn_res.gain[unit ", 0) == 0;
    if (!q && !g) continue;
    queries += q;
    gains += g;
    CHECK(p.n == tc.width);
    CHECK(!p.matrix);  // no weight decay (optim.cpp)
    for (long i = 0; i < p.n; ++i) CHECK(p.w[i] == (q ? 0.0f : 1.0f));
  }
  CHECK(queries == U);
  CHECK(gains == U);
  auto values = [](Trainer<float>& t) {
    std::vector<float> v;
    for (const Param<float>& p : t.network().params())
      if (p.name.rfind("attn_res.", 0) == 0) v.insert(v.end(), p.w, p.w + p.n);
    return v;
  };
  const std::vector<float> init = values(a);
  const std::vector<TrainLog> logs = a.step(10);
  REQUIRE(!logs.empty());
  CHECK(std::isfinite(logs.back().train_loss));
  const std::vector<float> trained = values(a);
  CHECK(trained != init);  // the queries learn
  REQUIRE(b.load(a.state()).ok());
  CHECK(values(b) == trained);
  test::check_same_logs(a.step(10), b.step(10));
}
