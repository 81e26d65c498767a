// The architectures' wiring and init rules (recipes.cpp): what N is for DeepNet and
// GPT-2, Admin's profiled omegas, and the wiring of the architectures with gates,
// scaled inputs, early blocks and dense averaging.
#include <catch2/catch.hpp>
#include <cmath>
#include <utility>
#include <vector>

#include "helpers.h"
#include "resnorm/model.h"
#include "resnorm/recipes.h"

using namespace resnorm;

TEST_CASE("recipes: N is blocks for DeepNet, residual sublayers for GPT-2", "[attention]") {
  // DeepNet, decoder-only: alpha = (2N)^(1/4), beta = (8N)^(-1/4), N = blocks.
  for (int sublayers_per_block : {1, 2}) {
    const Recipe d = recipe(Arch::deepnorm, 12, sublayers_per_block);
    CHECK(d.wrap.alpha == Approx(std::pow(24.0, 0.25)).epsilon(1e-15));
    CHECK(d.scale.w1 == Approx(std::pow(96.0, -0.25)).epsilon(1e-15));
    CHECK(d.scale.w2 == d.scale.w1);
    CHECK(d.scale.wv == d.scale.w1);
    CHECK(d.scale.wo == d.scale.w1);
    CHECK(d.scale.wq == 1.0);
    CHECK(d.scale.wk == 1.0);
  }
  // GPT-2: 1/sqrt(N) on W2 and W_O, N = residual sublayers = 2L in transformer blocks.
  CHECK(recipe(Arch::gpt2, 12, 1).scale.w2 == Approx(1 / std::sqrt(12.0)).epsilon(1e-15));
  CHECK(recipe(Arch::gpt2, 12, 2).scale.w2 == Approx(1 / std::sqrt(24.0)).epsilon(1e-15));
  CHECK(recipe(Arch::gpt2, 12, 2).scale.wo == Approx(1 / std::sqrt(24.0)).epsilon(1e-15));
  CHECK(recipe(Arch::gpt2, 12, 2).scale.wv == 1.0);
  CHECK(recipe(Arch::admin, 12, 2).profile_alpha);
  CHECK(recipe(Arch::admin, 12, 2).wrap.outer == NormKind::layernorm);
}

TEST_CASE("Admin: omega_1 = 1 and omega_{i+1} = sqrt(Var[omega_i h_{i-1}] + Var[f_i]), never depending on L",
          "[attention][admin]") {
  auto variance = [](const double* x, long n) {
    double mean = 0, v = 0;
    for (long i = 0; i < n; ++i) mean += x[i];
    mean /= n;
    for (long i = 0; i < n; ++i) v += (x[i] - mean) * (x[i] - mean);
    return v / n;
  };
  for (Block block : {Block::mlp, Block::transformer}) {
    Config cfg = test::small_transformer();
    cfg.block = block;
    cfg.depth = 12;
    cfg.width = 16;
    cfg.tokens = 6;
    cfg.gain = 1.0;
    WeightBank<double> bank;
    bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, block == Block::transformer);
    Model<double> m;
    m.configure(cfg, Arch::admin, bank);
    m.forward();  // the same omegas, so the same streams as the profiling pass
    const long n = static_cast<long>(cfg.tokens) * cfg.width;
    INFO(name(block));
    CHECK(m.unit_at(1).wrap.alpha == 1.0);
    for (int k = 1; k < m.units(); ++k) {
      Unit<double>& u = m.unit_at(k);
      const double omega = u.wrap.alpha;
      const double expect = std::sqrt(omega * omega * variance(m.stream(k - 1), n) + variance(u.branch_raw.data(), n));
      CHECK(m.unit_at(k + 1).wrap.alpha == Approx(expect).epsilon(1e-12));
      CHECK(m.unit_at(k + 1).wrap.alpha > omega);  // grows: every branch adds variance
    }
    // Post-LN stream.
    for (int l = 1; l <= cfg.depth; ++l) {
      double rms = std::sqrt(Eigen::Map<Vecx<double>>(m.h(l), n).squaredNorm() / n);
      CHECK(std::abs(rms - 1.0) < 1e-4);
    }
    // A shallower stack has the same first omegas.
    Config shallow = cfg;
    shallow.depth = 5;
    Model<double> s;
    s.configure(shallow, Arch::admin, bank);
    for (int k = 1; k <= s.units(); ++k) CHECK(s.unit_at(k).wrap.alpha == m.unit_at(k).wrap.alpha);
  }
}

TEST_CASE("recipes: ReZero, LayerScale, LNS, Mix-LN and DenseFormer", "[recipes]") {
  const Recipe rz = recipe(Arch::rezero, 12, 2);
  CHECK(rz.wrap.gate == Gate::scalar);
  CHECK(rz.wrap.gate_init == 0.0);
  CHECK(rz.wrap.in == NormKind::none);
  CHECK(rz.wrap.outer == NormKind::none);
  CHECK(rz.wrap.skip);
  // CaiT's epsilon by depth: 0.1 up to 18 blocks, 1e-5 up to 24, 1e-6 beyond.
  for (auto [L, eps] : {std::pair{1, 0.1}, {18, 0.1}, {19, 1e-5}, {24, 1e-5}, {25, 1e-6}, {96, 1e-6}}) {
    const Recipe ls = recipe(Arch::layerscale, L, 1);
    CHECK(ls.wrap.gate == Gate::channel);
    CHECK(ls.wrap.gate_init == eps);
    CHECK(ls.wrap.in == NormKind::layernorm);
  }
  // LNS: 1/sqrt(l) on block l's input norm, the two units of a transformer block alike.
  const Recipe lns = recipe(Arch::lns, 8, 2);
  for (int l = 1; l <= 8; ++l) {
    CHECK(block_wrapping(lns, l).in_scale == 1.0 / std::sqrt(double(l)));
    CHECK(block_wrapping(lns, l).in == NormKind::layernorm);
  }
  CHECK(block_wrapping(recipe(Arch::pre_ln, 8, 2), 5).in_scale == 1.0);
  // Mix-LN: floor(f L) Post-LN blocks, then Pre-LN.
  CHECK(mix_ln_early_blocks(12, kMixLnFraction) == 3);
  CHECK(mix_ln_early_blocks(7, kMixLnFraction) == 1);
  CHECK(mix_ln_early_blocks(3, kMixLnFraction) == 0);
  CHECK(mix_ln_early_blocks(100, 0.29) == 29);  // not 28 from 0.29 * 100 = 28.999999999999996
  CHECK(mix_ln_early_blocks(10, 1.0) == 10);
  CHECK(mix_ln_early_blocks(10, 0.0) == 0);
  const Recipe mix = recipe(Arch::mix_ln, 12, 1);
  for (int l = 1; l <= 12; ++l) {
    const Wrapping w = block_wrapping(mix, l);
    INFO("block " << l);
    CHECK(w.outer == (l <= 3 ? NormKind::layernorm : NormKind::none));
    CHECK(w.in == (l <= 3 ? NormKind::none : NormKind::layernorm));
  }
  CHECK(recipe(Arch::mix_ln, 12, 1, 0.5).early_blocks == 6);
  // The ends of the range: 0 wraps every block as pre_ln does, 1 every block as post_ln does.
  for (int L : {1, 3, 12}) {
    const Recipe none = recipe(Arch::mix_ln, L, 2, 0.0), all = recipe(Arch::mix_ln, L, 2, 1.0);
    CHECK(none.early_blocks == 0);
    CHECK(all.early_blocks == L);
    for (int l = 1; l <= L; ++l) {
      INFO("L " << L << " block " << l);
      const Wrapping pre = block_wrapping(none, l), post = block_wrapping(all, l);
      CHECK(pre.in == NormKind::layernorm);
      CHECK(pre.outer == NormKind::none);
      CHECK(post.in == NormKind::none);
      CHECK(post.outer == NormKind::layernorm);
    }
  }
  // DenseFormer: Pre-LN blocks with the averaging.
  const Recipe dwa = recipe(Arch::dwa, 12, 2);
  CHECK(dwa.dense_average);
  CHECK(dwa.wrap.in == NormKind::layernorm);
  CHECK(!recipe(Arch::pre_ln, 12, 2).dense_average);
}

TEST_CASE("recipes: a model wires each block as block_wrapping() says, with gates at their init", "[recipes]") {
  Config cfg = test::small_transformer();
  cfg.depth = 8;
  WeightBank<double> bank;
  bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, true);
  Model<double> m;
  m.configure(cfg, Arch::mix_ln, bank);
  for (int l = 1; l <= 8; ++l)
    for (int j = 0; j < 2; ++j) CHECK(m.unit(l, j).outer.kind == (l <= 2 ? NormKind::layernorm : NormKind::none));
  m.configure(cfg, Arch::layerscale, bank);
  for (int k = 1; k <= m.units(); ++k) {
    REQUIRE(m.unit_at(k).gate.size() == cfg.width);
    CHECK(m.unit_at(k).gate.map().maxCoeff() == 0.1);
    CHECK(m.unit_at(k).gate.map().minCoeff() == 0.1);
  }
  m.configure(cfg, Arch::pre_ln, bank);  // the same model, no gate now
  for (int k = 1; k <= m.units(); ++k) CHECK(m.unit_at(k).gate.size() == 0);
  CHECK(!m.dense());
  m.configure(cfg, Arch::dwa, bank);
  REQUIRE(m.dense());
  CHECK(m.mix_size() == 8 * 11 / 2);
  const std::vector<double> w = m.mix_matrix();
  REQUIRE(w.size() == 8 * 9);
  for (int l = 1; l <= 8; ++l)
    for (int j = 0; j <= 8; ++j) CHECK(w[(l - 1) * 9 + j] == (j == l ? 1.0 : 0.0));
}
