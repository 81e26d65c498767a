// HybridNorm (Zhuo et al. 2025; the hybrid recipe, attention.cpp's V-norm,
// model.cpp's skip from the normed input): attention with LayerNorm on Q, K
// and V against central differences in double with the gains g_Q, g_K, g_V
// among the parameters, the recipe's wiring in both block kinds, the FFN
// unit's h' = LN(h) + f(LN(h)) exactly, the simulation's gains against
// central differences through the whole stack, and g_V as a trained, saved
// parameter without weight decay. The whole stack's finite differences with
// hybrid are the all-architecture loops of test_model.cpp and
// test_network.cpp; its path expansion is in test_paths.cpp.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "attn_fixture.h"
#include "fd.h"
#include "helpers.h"
#include "resnorm/attention.h"
#include "resnorm/model.h"
#include "resnorm/norms.h"
#include "resnorm/recipes.h"
#include "resnorm/rng.h"
#include "resnorm/trainer.h"
#include "tiny_train.h"

using namespace resnorm;
using test::AttnFixture;

TEST_CASE("hybrid: attention with QKV-norm, dx, every dW and dg_Q, dg_K, dg_V equal central finite differences",
          "[hybrid][attention][gradients]") {
  for (int heads : {1, 2, 4})
    for (bool causal : {true, false}) {
      DYNAMIC_SECTION("heads=" << heads << " causal=" << causal) {
        AttnFixture fx(5, 16, heads, causal, 500 + 10 * heads + causal, QkNorm::layernorm, true);
        fx.check_gradients("hybrid attention heads=" + std::to_string(heads) + " causal=" + std::to_string(causal));
      }
    }
}

TEST_CASE("hybrid: every head's value rows are LayerNorm's output (zero mean, unit variance at g_V = 1)",
          "[hybrid][attention]") {
  AttnFixture fx(6, 16, 2, true, 600, QkNorm::layernorm, true);
  fx.att.gv.setOnes();
  fx.loss();
  const int dh = 8;
  for (int row = 0; row < 2 * 6; ++row) {
    double mean = 0, sq = 0;
    for (int c = 0; c < dh; ++c) mean += fx.att.v(row * dh + c);
    mean /= dh;
    for (int c = 0; c < dh; ++c) sq += (fx.att.v(row * dh + c) - mean) * (fx.att.v(row * dh + c) - mean);
    CHECK(std::abs(mean) < 1e-12);
    CHECK(sq / dh == Approx(1.0).epsilon(1e-3));  // eps = 1e-5 inside the square root
  }
  // Off again: V is the projection itself.
  fx.att.set_v_norm(false);
  CHECK(fx.att.gv.size() == 0);
}

TEST_CASE("hybrid: the recipe, attention without a norm around it and QKV-norm inside, the FFN LN(h) + f(LN(h))",
          "[hybrid][recipe]") {
  const Recipe rec = recipe(Arch::hybrid, 4, 2);
  CHECK(rec.split_attention);
  CHECK(rec.qkv_norm);
  CHECK(rec.attn.in == NormKind::none);
  CHECK(rec.attn.out == NormKind::none);
  CHECK(rec.attn.outer == NormKind::none);
  CHECK(rec.attn.skip);
  CHECK(!rec.attn.skip_normed);
  CHECK(rec.wrap.in == NormKind::layernorm);
  CHECK(rec.wrap.outer == NormKind::none);
  CHECK(rec.wrap.skip_normed);
  CHECK(unit_wrapping(rec, 1, true).in == NormKind::none);
  CHECK(unit_wrapping(rec, 1, false).in == NormKind::layernorm);
  // Every other architecture wraps both units alike.
  for (Arch a : all_archs())
    if (a != Arch::hybrid) {
      const Recipe other = recipe(a, 4, 2);
      CHECK(!other.split_attention);
      CHECK(!other.qkv_norm);
      CHECK(!other.wrap.skip_normed);
    }
  TrainConfig tc = tiny_train_config();
  CHECK(final_norm_of(tc, Arch::hybrid) == NormKind::layernorm);

  for (Block block : {Block::transformer, Block::mlp}) {
    DYNAMIC_SECTION(name(block)) {
      Config cfg = test::small_transformer();
      cfg.block = block;
      WeightBank<double> bank;
      bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, block == Block::transformer);
      Model<double> m;
      m.configure(cfg, Arch::hybrid, bank);
      m.forward();
      const int P = m.sublayers_per_block();
      const int T = cfg.tokens, d = cfg.width;
      for (int l = 1; l <= cfg.depth; ++l) {
        if (block == Block::transformer) {
          const Unit<double>& a = m.unit(l, 0);
          CHECK(a.in.kind == NormKind::none);
          CHECK(a.outer.kind == NormKind::none);
          CHECK(m.attention(l).qk_norm == QkNorm::layernorm);
          CHECK(m.attention(l).v_norm);
          // h' = h + attn(h), bit for bit.
          const double* hin = m.stream((l - 1) * P);
          const double* hout = m.stream((l - 1) * P + 1);
          const double* b = a.branch_output();
          for (long i = 0; i < long(T) * d; ++i) CHECK(hout[i] == hin[i] + b[i]);
        }
        // The FFN unit: h' = LN(h) + f(LN(h)), LN's output recomputed here.
        const int k = l * P;
        Unit<double>& f = m.unit_at(k);
        CHECK(f.in.kind == NormKind::layernorm);
        CHECK(f.wrap.skip_normed);
        std::vector<double> ln(long(T) * d), mean(T), rstd(T);
        std::vector<double> gamma(d, 1.0), beta(d, 0.0);
        layernorm_forward(ln.data(), mean.data(), rstd.data(), m.stream(k - 1), gamma.data(), beta.data(), T, d);
        const double* out = m.stream(k);
        const double* b = f.branch_output();
        for (long i = 0; i < long(T) * d; ++i) {
          CHECK(f.normed_in.data()[i] == ln[i]);
          CHECK(out[i] == ln[i] + b[i]);
        }
      }
    }
  }
}

TEST_CASE("hybrid: the qk_norm field changes nothing (QKV-norm is part of the architecture)", "[hybrid][simulation]") {
  Config cfg = test::small_transformer();
  WeightBank<double> bank;
  bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, true);
  Model<double> off, on;
  off.configure(cfg, Arch::hybrid, bank);
  cfg.qk_norm = QkNorm::layernorm;
  on.configure(cfg, Arch::hybrid, bank);
  CHECK(off.forward() == on.forward());
}

TEST_CASE("hybrid: the simulation's gains g_Q, g_K, g_V of every block equal central differences through the stack",
          "[hybrid][gradients][simulation]") {
  for (bool causal : {true, false}) {
    DYNAMIC_SECTION("causal=" << causal) {
      Config cfg = test::small_transformer();
      cfg.causal = causal;
      cfg.final_norm = NormKind::layernorm;
      WeightBank<double> bank;
      bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, true);
      Model<double> m;
      m.configure(cfg, Arch::hybrid, bank);
      NormalRng rng(stream_key({71, 3}));
      for (int l = 1; l <= cfg.depth; ++l)
        for (VecWorkspace<double>* g : {&m.attention(l).gq, &m.attention(l).gk, &m.attention(l).gv})
          for (long i = 0; i < g->size(); ++i) (*g)(i) = 1.0 + 0.3 * rng.normal();
      m.forward();
      m.backward();
      fd::Report report("hybrid simulation gains causal=" + std::to_string(causal));
      auto loss = [&] { return m.forward(); };
      for (int l = 1; l <= cfg.depth; ++l) {
        Attention<double>& a = m.attention(l);
        const std::vector<std::pair<VecWorkspace<double>*, std::vector<double>>> gains = {
            {&a.gq, AttnFixture::copy_of(a.dgq)},
            {&a.gk, AttnFixture::copy_of(a.dgk)},
            {&a.gv, AttnFixture::copy_of(a.dgv)}};
        const char* names[] = {"dgamma_q", "dgamma_k", "dgamma_v"};
        for (int i = 0; i < 3; ++i) {
          const std::string what = std::string(names[i]) + "[" + std::to_string(l) + "]";
          const fd::Check c = report.add(
              what, fd::tensor(gains[i].first->data(), gains[i].first->size(), gains[i].second.data(), loss));
          INFO(c.line(what));
          CHECK(c.max_ref > 0);
          CHECK(c.rel() < fd::kTol);
        }
      }
    }
  }
}

TEST_CASE("hybrid: g_V trains without weight decay, is saved and restored, and MLP blocks have no attention gains",
          "[hybrid][trainer][state]") {
  auto gains = [](Trainer<float>& t, const char* prefix) {
    std::vector<float> v;
    for (const Param<float>& p : t.network().params())
      if (p.name.rfind(prefix, 0) == 0) v.insert(v.end(), p.w, p.w + p.n);
    return v;
  };
  TrainConfig tc = tiny_train_config();
  tc.steps = 30;
  tc.optimizer = Optimizer::adamw;
  tc.weight_decay = 0.1;
  Trainer<float> a, b;
  REQUIRE(a.configure(tc, Arch::hybrid).ok());
  int count = 0;
  for (const Param<float>& p : a.network().params())
    if (p.name.rfind("gamma_v[", 0) == 0) {
      ++count;
      CHECK(p.n == tc.width / tc.heads);
      CHECK(!p.matrix);  // the optimizer's weight decay is for matrices only (optim.cpp)
    }
  CHECK(count == tc.depth);
  CHECK(gains(a, "gamma_q[").size() == size_t(tc.depth) * (tc.width / tc.heads));
  const std::vector<float> init = gains(a, "gamma_v[");
  for (float g : init) CHECK(g == 1.0f);
  const std::vector<TrainLog> logs = a.step(10);
  REQUIRE(!logs.empty());
  CHECK(std::isfinite(logs.back().train_loss));
  const std::vector<float> trained = gains(a, "gamma_v[");
  CHECK(trained != init);
  REQUIRE(b.load(a.state()).ok());
  CHECK(gains(b, "gamma_v[") == trained);
  test::check_same_logs(a.step(10), b.step(10));

  TrainConfig mlp = tiny_train_config(Task::teacher);
  mlp.block = Block::mlp;
  mlp.steps = 10;
  Trainer<float> m;
  REQUIRE(m.configure(mlp, Arch::hybrid).ok());
  CHECK(gains(m, "gamma_v[").empty());
  CHECK(gains(m, "gamma_q[").empty());
  const std::vector<TrainLog> mlogs = m.step(10);
  REQUIRE(!mlogs.empty());
  CHECK(std::isfinite(mlogs.back().train_loss));
}
