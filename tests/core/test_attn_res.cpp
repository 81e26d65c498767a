// Attention Residuals (attn_res.cpp, the attn_res recipe): the uniform
// weights at init exactly, in simulation and training, for MLP and
// transformer stacks; the queries and gains as trained parameters without
// weight decay, saved and restored. The whole stack's finite differences with
// Attention Residuals (every query and gain, away from their init) are the
// all-architecture loops of test_model.cpp and test_network.cpp.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "helpers.h"
#include "resnorm/config.h"
#include "resnorm/model.h"
#include "resnorm/rng.h"
#include "resnorm/train_config.h"
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

namespace {

Config blocks_config(Block block) {
  Config cfg = block == Block::transformer ? test::small_transformer() : Config();
  cfg.depth = block == Block::transformer ? 3 : 5;
  cfg.width = 8;
  cfg.tokens = 4;
  return cfg;
}

// An attn_res model in double on blocks_config(block) with N blocks (0: Full), its queries and gains
// drawn from `seed` (0: at init), configured and not yet run.
struct BlockModel {
  Config cfg;
  WeightBank<double> bank;
  Model<double> m;

  BlockModel(Block block, int N, uint64_t seed) : cfg(blocks_config(block)) {
    cfg.attn_res_blocks = N;
    bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, cfg.block == Block::transformer);
    m.configure(cfg, Arch::attn_res, bank);
    if (seed == 0) return;
    NormalRng rng(stream_key({seed}));
    for (int k = 1; k <= m.units(); ++k)
      for (int i = 0; i < cfg.width; ++i) {
        m.attn_res().query(k)[i] = 0.4 * rng.normal();
        m.attn_res().gain(k)[i] = 1.0 + 0.3 * rng.normal();
      }
  }
};

}  // namespace

TEST_CASE("Block AttnRes: attn_res_blocks in 0..256, 0 the default (Full), refused by name, in the JSON when not 0",
          "[attn_res][config]") {
  const FieldSpec* f = find_field("attn_res_blocks");
  REQUIRE(f != nullptr);
  CHECK(std::string(f->default_text) == "0");
  CHECK(f->min == 0);
  CHECK(f->max == 256);
  CHECK(Config().attn_res_blocks == 0);
  CHECK(TrainConfig().attn_res_blocks == 0);
  Config cfg;
  CHECK(set_field(cfg, "attn_res_blocks", "-1").message == "attn_res_blocks: '-1' is out of range (allowed 0..256)");
  CHECK(set_field(cfg, "attn_res_blocks", "257").field == "attn_res_blocks");
  REQUIRE(set_field(cfg, "attn_res_blocks", "3").ok());
  CHECK(cfg.attn_res_blocks == 3);
  CHECK(config_json(cfg).find("attn_res_blocks") == std::string::npos);  // not attn_res
  cfg.archs = {Arch::attn_res};
  CHECK(config_json(cfg).find("\"attn_res_blocks\": 3") != std::string::npos);
  cfg.attn_res_blocks = 0;
  CHECK(config_json(cfg).find("attn_res_blocks") == std::string::npos);  // Full: as before the field
  TrainConfig tc;
  REQUIRE(set_train_field(tc, "attn_res_blocks", "2").ok());
  CHECK(stack_config(tc, Arch::attn_res, 4).attn_res_blocks == 2);
}

TEST_CASE("Block AttnRes: the units' blocks, op k's sources b_0, completed blocks and its partial sum", "[attn_res]") {
  AttnRes<double> ar;
  ar.resize(6, 1, 2, 3);  // blocks {1, 2}, {3, 4}, {5, 6}
  CHECK(ar.blocks() == 3);
  const int B[] = {0, 1, 1, 2, 2, 3, 3};
  for (int k = 0; k <= 6; ++k) CHECK(ar.block_of(k) == B[k]);
  CHECK(ar.sources(1) == 2);
  CHECK(ar.slot(1, 0) == 0);
  CHECK(ar.slot(1, 1) == 1);  // p_1 = v_1
  CHECK(ar.slot(4, 1) == 2);  // b_1 = p_2
  CHECK(ar.slot(4, 2) == 4);  // p_4 = b_2
  CHECK(ar.slot(5, 2) == 4);  // b_2
  CHECK(ar.slot(5, 3) == 5);  // p_5 = v_5
  ar.resize(5, 1, 2, 2);      // 5 units in 2 blocks: {1, 2, 3}, {4, 5}
  for (int k = 1; k <= 5; ++k) CHECK(ar.block_of(k) == (k <= 3 ? 1 : 2));
  for (int N : {0, 5, 6, 256}) {
    ar.resize(5, 1, 2, N);
    CHECK(ar.full());
    for (int k = 1; k <= 5; ++k) {
      CHECK(ar.sources(k) == k + 1);
      for (int j = 0; j <= k; ++j) CHECK(ar.slot(k, j) == j);
    }
  }
}

TEST_CASE("Block AttnRes: at init each op's weights are uniform over its sources, h_k their mean",
          "[attn_res][simulation]") {
  for (Block block : {Block::mlp, Block::transformer})
    for (int N : {1, 2, 3}) {
      BlockModel b(block, N, 0);
      const Config& cfg = b.cfg;
      Model<double>& m = b.m;
      m.forward();
      AttnRes<double>& ar = m.attn_res();
      const int K = m.units(), T = cfg.tokens;
      const long n = long(T) * cfg.width;
      REQUIRE(ar.blocks() == N);
      for (int k = 1; k <= K; ++k) {
        const int S = ar.sources(k);
        const double* a = ar.weights(k);
        for (int e = 0; e < T * S; ++e) CHECK(a[e] == 1.0 / S);
        // The sources by hand from the units' outputs: v_0, each earlier block's sum, then this block's so far.
        std::vector<double> mean(n, 0.0);
        for (long e = 0; e < n; ++e) mean[e] = ar.v(0)[e];
        for (int i = 1; i <= k; ++i)
          for (long e = 0; e < n; ++e) mean[e] += ar.v(i)[e];
        double err = 0, ref = 0;
        for (long e = 0; e < n; ++e) {
          err = std::max(err, std::abs(m.stream(k)[e] - mean[e] / S));
          ref = std::max(ref, std::abs(mean[e] / S));
        }
        INFO(name(block) << " N=" << N << " k=" << k);
        CHECK(err <= 1e-14 * ref);
      }
    }
  Config cfg;
  cfg.depth = 6;
  cfg.width = 8;
  cfg.tokens = 3;
  cfg.attn_res_blocks = 4;
  WeightBank<float> bank;
  bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, false);
  Model<float> m;
  m.configure(cfg, Arch::attn_res, bank);
  m.forward();
  for (int k = 1; k <= m.units(); ++k)
    for (int e = 0; e < cfg.tokens * m.attn_res().sources(k); ++e)
      CHECK(m.attn_res().weights(k)[e] == float(1.0 / m.attn_res().sources(k)));
}

TEST_CASE(
    "Block AttnRes: h_k is the softmax of w_k . (g_k * RMS(x)) over b_0, the completed blocks' sums and "
    "the partial sum, computed here from the units' outputs",
    "[attn_res][simulation]") {
  for (Block block : {Block::mlp, Block::transformer})
    for (int N : {1, 2, 4}) {
      BlockModel b(block, N, 5);
      const Config& cfg = b.cfg;
      Model<double>& m = b.m;
      m.forward();
      AttnRes<double>& ar = m.attn_res();
      const int K = m.units(), T = cfg.tokens, d = cfg.width;
      for (int k = 1; k <= K; ++k) {
        // The sources: v_0, then for each block j <= B(k) the sum of its units' outputs up to k.
        std::vector<std::vector<double>> src(ar.block_of(k) + 1, std::vector<double>(long(T) * d, 0.0));
        for (long e = 0; e < long(T) * d; ++e) src[0][e] = ar.v(0)[e];
        for (int i = 1; i <= k; ++i)
          for (long e = 0; e < long(T) * d; ++e) src[ar.block_of(i)][e] += ar.v(i)[e];
        double err = 0, ref = 0;
        for (int t = 0; t < T; ++t) {
          std::vector<double> s(src.size());
          double mx = -INFINITY, z = 0;
          for (size_t j = 0; j < src.size(); ++j) {
            const double* x = src[j].data() + long(t) * d;
            double ms = 0, dot = 0;
            for (int c = 0; c < d; ++c) ms += x[c] * x[c];
            const double r = 1.0 / std::sqrt(ms / d + kEps);
            for (int c = 0; c < d; ++c) dot += ar.query(k)[c] * ar.gain(k)[c] * x[c] * r;
            s[j] = dot;
            mx = std::max(mx, dot);
          }
          for (double& x : s) z += (x = std::exp(x - mx));
          for (int c = 0; c < d; ++c) {
            double h = 0;
            for (size_t j = 0; j < src.size(); ++j) h += s[j] / z * src[j][long(t) * d + c];
            err = std::max(err, std::abs(m.stream(k)[long(t) * d + c] - h));
            ref = std::max(ref, std::abs(h));
          }
          for (size_t j = 0; j < src.size(); ++j)
            CHECK(std::abs(ar.weights(k)[t * long(src.size()) + j] - s[j] / z) < 1e-13);
        }
        INFO(name(block) << " N=" << N << " k=" << k);
        CHECK(err <= 1e-12 * ref);
      }
    }
}

TEST_CASE(
    "Block AttnRes: N equal to the number of units (or above it) is Full AttnRes bit for bit, forward and "
    "backward",
    "[attn_res][simulation]") {
  for (Block block : {Block::mlp, Block::transformer}) {
    BlockModel f(block, 0, 9);
    const Config& cfg = f.cfg;
    Model<double>& full = f.m;
    const int K = cfg.depth * cfg.sublayers_per_block();
    full.forward();
    full.backward(true);
    for (int N : {K, K + 3}) {
      BlockModel b(block, N, 9);
      Model<double>& m = b.m;
      CHECK(m.forward() == full.forward());
      full.backward(true);
      m.backward(true);
      const long n = long(cfg.tokens) * cfg.width;
      INFO(name(block) << " N=" << N);
      for (int k = 0; k <= K; ++k) {
        CHECK(std::equal(m.stream(k), m.stream(k) + n, full.stream(k)));
        CHECK(std::equal(m.dstream(k), m.dstream(k) + n, full.dstream(k)));
        CHECK(std::equal(m.attn_res().dv(k), m.attn_res().dv(k) + n, full.attn_res().dv(k)));
      }
      for (int k = 1; k <= K; ++k) {
        CHECK(std::equal(m.attn_res().weights(k), m.attn_res().weights(k) + cfg.tokens * (k + 1),
                         full.attn_res().weights(k)));
        CHECK(std::equal(m.attn_res().dquery(k), m.attn_res().dquery(k) + cfg.width, full.attn_res().dquery(k)));
        CHECK(std::equal(m.attn_res().dgain(k), m.attn_res().dgain(k) + cfg.width, full.attn_res().dgain(k)));
      }
    }
  }
}

TEST_CASE(
    "Block AttnRes: trained (queries and gains learn, the model saved and restored), its read weights "
    "a K x (N + 1) matrix, row k over b_0..b_B(k), each row summing to 1",
    "[attn_res][trainer]") {
  TrainConfig tc = tiny_train_config();
  tc.steps = 30;
  tc.attn_res_blocks = 2;
  Trainer<float> a, b;
  REQUIRE(a.configure(tc, Arch::attn_res).ok());
  const int K = tc.depth * 2, N = 2;
  const std::vector<double> w0 = a.attn_res_weights();
  REQUIRE(w0.size() == size_t(K) * (N + 1));
  const AttnRes<float>& ar = a.network().stack().attn_res();
  for (int k = 1; k <= K; ++k) {
    const int S = ar.sources(k);
    double sum = 0;
    for (int j = 0; j <= N; ++j) {
      const double x = w0[size_t(k - 1) * (N + 1) + j];
      if (j < S)
        CHECK(x == Approx(1.0 / S).epsilon(1e-6));
      else
        CHECK(x == 0.0);
      sum += x;
    }
    CHECK(sum == Approx(1.0).epsilon(1e-6));
  }
  const std::vector<TrainLog> logs = a.step(10);
  REQUIRE(!logs.empty());
  CHECK(std::isfinite(logs.back().train_loss));
  const std::vector<double> w1 = a.attn_res_weights();
  CHECK(w1 != w0);
  REQUIRE(b.load(a.state()).ok());
  CHECK(b.config().attn_res_blocks == 2);
  CHECK(b.attn_res_weights() == w1);
  test::check_same_logs(a.step(10), b.step(10));
}
