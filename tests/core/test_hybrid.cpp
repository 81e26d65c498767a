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

namespace {

struct QkvFixture {
  int T, d, H;
  AttnBase<double> base;
  Attention<double> att;
  Mat<double> x, r, y, dx;  // (T, d); loss = <r, attention(x)>
  double sq, sk, sv, so;

  QkvFixture(int T_, int d_, int H_, bool causal, uint64_t seed) : T(T_), d(d_), H(H_), att(T_, d_, H_, causal) {
    base.Bq = gaussian_matrix(stream_key({seed, 1}), d, d);
    base.Bk = gaussian_matrix(stream_key({seed, 2}), d, d);
    base.Bv = gaussian_matrix(stream_key({seed, 3}), d, d);
    base.Bo = gaussian_matrix(stream_key({seed, 4}), d, d);
    const double f = 1.0 / std::sqrt(double(d));
    sq = 1.3 * f;
    sk = 1.1 * f;
    sv = 0.8 * f;
    so = 0.9 * f;
    att.weights = {&base, sq, sk, sv, so};
    att.set_qk_norm(QkNorm::layernorm);
    att.set_v_norm(true);
    // Gains away from 1 and apart, so a swapped or missing gain cannot pass.
    NormalRng rng(stream_key({seed, 7}));
    for (long i = 0; i < att.gq.size(); ++i) att.gq(i) = 1.0 + 0.3 * rng.normal();
    for (long i = 0; i < att.gk.size(); ++i) att.gk(i) = 0.9 + 0.3 * rng.normal();
    for (long i = 0; i < att.gv.size(); ++i) att.gv(i) = 1.1 + 0.3 * rng.normal();
    x = 1.2 * gaussian_matrix(stream_key({seed, 5}), T, d);
    r = gaussian_matrix(stream_key({seed, 6}), T, d);
    y.resize(T, d);
    dx.resize(T, d);
  }
  double loss() {
    att.forward(y.data(), x.data());
    return (r.array() * y.array()).sum();
  }
};

std::vector<double> copy_of(const VecWorkspace<double>& v) { return {v.data(), v.data() + v.size()}; }

}  // namespace

TEST_CASE("hybrid: attention with QKV-norm, dx, every dW and dg_Q, dg_K, dg_V equal central finite differences",
          "[hybrid][attention][gradients]") {
  for (int heads : {1, 2, 4})
    for (bool causal : {true, false}) {
      DYNAMIC_SECTION("heads=" << heads << " causal=" << causal) {
        QkvFixture fx(5, 16, heads, causal, 500 + 10 * heads + causal);
        fx.loss();
        fx.att.backward(fx.dx.data(), fx.r.data(), fx.x.data(), true);
        const Mat<double> dx = fx.dx;
        const Mat<double> dBq = fx.att.dWq * fx.sq, dBk = fx.att.dWk * fx.sk, dBv = fx.att.dWv * fx.sv,
                          dBo = fx.att.dWo * fx.so;
        const std::vector<double> dgq = copy_of(fx.att.dgq), dgk = copy_of(fx.att.dgk), dgv = copy_of(fx.att.dgv);
        // The Gram-trick norm of W_V is of the raw V's gradient, as the materialized dW_V.
        CHECK(std::sqrt(fx.att.wv_grad_sq) == Approx(fx.att.dWv.norm()).epsilon(1e-10));
        fd::Report report("hybrid attention heads=" + std::to_string(heads) + " causal=" + std::to_string(causal));
        auto loss = [&] { return fx.loss(); };
        auto check = [&](double* p, long n, const double* g, const char* what) {
          const fd::Check c = report.add(what, fd::tensor(p, n, g, loss));
          INFO(c.line(what));
          CHECK(c.max_ref > 0);
          CHECK(c.rel() < fd::kTol);
        };
        check(fx.x.data(), fx.x.size(), dx.data(), "dx");
        check(fx.base.Bq.data(), fx.base.Bq.size(), dBq.data(), "dW_Q");
        check(fx.base.Bk.data(), fx.base.Bk.size(), dBk.data(), "dW_K");
        check(fx.base.Bv.data(), fx.base.Bv.size(), dBv.data(), "dW_V");
        check(fx.base.Bo.data(), fx.base.Bo.size(), dBo.data(), "dW_O");
        check(fx.att.gq.data(), fx.att.gq.size(), dgq.data(), "dgamma_q");
        check(fx.att.gk.data(), fx.att.gk.size(), dgk.data(), "dgamma_k");
        check(fx.att.gv.data(), fx.att.gv.size(), dgv.data(), "dgamma_v");
        // backward_input: the same dx bits, the gains' gradients left alone.
        Mat<double> dx_only = Mat<double>::Zero(fx.T, fx.d);
        fx.loss();
        fx.att.backward(fx.dx.data(), fx.r.data(), fx.x.data(), false);
        const std::vector<double> dgv_before = copy_of(fx.att.dgv);
        fx.att.backward_input(dx_only.data(), fx.r.data(), fx.x.data());
        CHECK(dx_only == fx.dx);
        CHECK(copy_of(fx.att.dgv) == dgv_before);
      }
    }
}

TEST_CASE("hybrid: every head's value rows are LayerNorm's output (zero mean, unit variance at g_V = 1)",
          "[hybrid][attention]") {
  QkvFixture fx(6, 16, 2, true, 600);
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
            {&a.gq, copy_of(a.dgq)}, {&a.gk, copy_of(a.dgk)}, {&a.gv, copy_of(a.dgv)}};
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
