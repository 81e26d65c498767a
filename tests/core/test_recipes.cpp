// The presets' wiring and init rules (recipes.cpp): what N is for DeepNet and
// GPT-2, and Admin's profiled omegas.
#include <catch2/catch.hpp>
#include <cmath>

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
