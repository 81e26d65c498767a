// QK-norm on attention (qk_norm = layernorm; attention.cpp, Dehghani et al.
// 2023, Wortsman et al. 2023): the field, attention alone against central
// finite differences in double with the gains g_Q, g_K among the parameters,
// the scores' bound, and the gains as trained, saved parameters without weight
// decay. The whole training stack's differences with QK-norm on are in
// test_network.cpp.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "attn_fixture.h"
#include "fd.h"
#include "helpers.h"
#include "resnorm/attention.h"
#include "resnorm/model.h"
#include "resnorm/rng.h"
#include "resnorm/trainer.h"
#include "tiny_train.h"

using namespace resnorm;
using test::AttnFixture;

TEST_CASE("qk_norm: a choice field none|layernorm, none by default, refused values named with the allowed set",
          "[qk_norm][config]") {
  const FieldSpec* f = find_field("qk_norm");
  REQUIRE(f);
  CHECK(std::string(f->default_text) == "none");
  CHECK(Config().qk_norm == QkNorm::none);
  CHECK(TrainConfig().qk_norm == QkNorm::none);
  Config cfg;
  const Status bad = set_field(cfg, "qk_norm", "rmsnorm");
  CHECK(bad.field == "qk_norm");
  CHECK(bad.message == "qk_norm: 'rmsnorm' is not a known value (allowed none|layernorm)");
  CHECK(set_number(cfg, "qk_norm", 1).field == "qk_norm");
  REQUIRE(set_field(cfg, "qk_norm", "layernorm").ok());
  CHECK(cfg.qk_norm == QkNorm::layernorm);
  // Written for transformer blocks with it on only; MLP blocks ignore it, like heads and causal.
  CHECK(config_json(cfg).find("qk_norm") == std::string::npos);
  cfg.block = Block::transformer;
  CHECK(config_json(cfg).find("\"qk_norm\": \"layernorm\"") != std::string::npos);
  TrainConfig tc;
  REQUIRE(set_train_field(tc, "qk_norm", "layernorm").ok());
  CHECK(tc.qk_norm == QkNorm::layernorm);
  CHECK(set_train_field(tc, "qk_norm", "cosine").message ==
        "qk_norm: 'cosine' is not a known value (allowed none|layernorm)");
  CHECK(train_config_text(tc).find("--qk-norm layernorm") != std::string::npos);
  CHECK(stack_config(tc, Arch::pre_ln, 6).qk_norm == QkNorm::layernorm);
  TrainConfig back;
  REQUIRE(parse_train_config_text(train_config_text(tc), &back).ok());
  CHECK(back.qk_norm == QkNorm::layernorm);
}

TEST_CASE("qk_norm: attention alone, dx, every dW and dg_Q, dg_K equal central finite differences in double",
          "[qk_norm][attention][gradients]") {
  for (int heads : {1, 2, 4})
    for (bool causal : {true, false}) {
      DYNAMIC_SECTION("heads=" << heads << " causal=" << causal) {
        AttnFixture fx(5, 16, heads, causal, 300 + 10 * heads + causal, QkNorm::layernorm);
        fx.check_gradients("qk_norm attention alone heads=" + std::to_string(heads) +
                           " causal=" + std::to_string(causal));
      }
    }
}

TEST_CASE("qk_norm: the scores are bounded by sqrt(dh) max|g_Q| max|g_K| however large W_Q and W_K grow",
          "[qk_norm][attention]") {
  // ||LN(q)|| <= sqrt(dh) per row (zero mean, unit variance up to eps), so by
  // Cauchy-Schwarz |<g_Q LN(q), g_K LN(k)>| / sqrt(dh) <= sqrt(dh) max|g_Q| max|g_K|.
  // Without QK-norm the scores grow with the scale of W_Q W_K^T.
  for (double blowup : {1.0, 1e3}) {
    AttnFixture fx(6, 16, 2, true, 400, QkNorm::layernorm);
    fx.att.weights = {&fx.base, fx.sq * blowup, fx.sk * blowup, fx.sv, fx.so};
    fx.att.set_qk_norm(QkNorm::layernorm);
    fx.loss();
    const int dh = 8;
    double top = 0;
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j <= i; ++j) {
          double s = 0;
          for (int c = 0; c < dh; ++c) s += fx.att.q((h * 6 + i) * dh + c) * fx.att.k((h * 6 + j) * dh + c);
          top = std::max(top, std::abs(s) / std::sqrt(double(dh)));
        }
    INFO("blowup " << blowup << " largest |score| " << top);
    CHECK(top <= std::sqrt(double(dh)) + 1e-12);  // gains at 1
    // No attention row collapses onto one key: every row's largest probability stays below 1.
    for (int h = 0; h < 2; ++h)
      for (int i = 1; i < 6; ++i) {
        const double* p = fx.att.probs(h) + i * 6;
        CHECK(*std::max_element(p, p + i + 1) < 0.999);
      }
  }
}

TEST_CASE("qk_norm: the gains train without weight decay, are saved and restored, and MLP blocks ignore the field",
          "[qk_norm][trainer][state]") {
  TrainConfig tc = tiny_train_config();
  tc.qk_norm = QkNorm::layernorm;
  tc.steps = 30;
  tc.optimizer = Optimizer::adamw;
  tc.weight_decay = 0.1;
  auto gains = [](Trainer<float>& t) {
    std::vector<float> v;
    for (const Param<float>& p : t.network().params())
      if (p.name.rfind("gamma_q[", 0) == 0 || p.name.rfind("gamma_k[", 0) == 0) v.insert(v.end(), p.w, p.w + p.n);
    return v;
  };
  for (Arch arch : {Arch::pre_ln, Arch::post_ln, Arch::dyt}) {
    DYNAMIC_SECTION(name(arch)) {
      Trainer<float> a, b;
      REQUIRE(a.configure(tc, arch).ok());
      int count = 0;
      for (const Param<float>& p : a.network().params())
        if (p.name.rfind("gamma_q[", 0) == 0 || p.name.rfind("gamma_k[", 0) == 0) {
          ++count;
          CHECK(p.n == tc.width / tc.heads);
          CHECK(!p.matrix);  // the optimizer's weight decay is for matrices only (optim.cpp)
        }
      CHECK(count == 2 * tc.depth);
      const std::vector<float> init = gains(a);
      for (float g : init) CHECK(g == 1.0f);
      const std::vector<TrainLog> logs = a.step(10);
      REQUIRE(!logs.empty());
      CHECK(std::isfinite(logs.back().train_loss));
      const std::vector<float> trained = gains(a);
      CHECK(trained != init);
      REQUIRE(b.load(a.state()).ok());
      CHECK(b.config().qk_norm == QkNorm::layernorm);
      CHECK(gains(b) == trained);
      test::check_same_logs(a.step(10), b.step(10));
    }
  }
  // MLP blocks: no attention, no gains, the same run as with the field off.
  TrainConfig mlp = tiny_train_config(Task::teacher);
  mlp.block = Block::mlp;
  mlp.steps = 10;
  Trainer<float> off, on;
  REQUIRE(off.configure(mlp, Arch::pre_ln).ok());
  mlp.qk_norm = QkNorm::layernorm;
  REQUIRE(on.configure(mlp, Arch::pre_ln).ok());
  CHECK(gains(on).empty());
  test::check_same_logs(off.step(10), on.step(10));
}

TEST_CASE("max_logit: attention's largest |q.k|/sqrt(dh) equals a direct computation from x and the weights",
          "[qk_norm][attention][max_logit]") {
  // Q = x sq Bq, K = x sk Bk computed here with Eigen, each head's (T, dh) block
  // through LayerNorm with the gains when QK-norm is on; the largest |score|
  // over the keys each query attends to (j <= i when causal).
  const int T = 5, d = 12, H = 3, dh = d / H;
  for (bool causal : {true, false})
    for (QkNorm kind : {QkNorm::none, QkNorm::layernorm}) {
      DYNAMIC_SECTION((causal ? "causal " : "full ") << (kind == QkNorm::none ? "none" : "layernorm")) {
        AttnFixture fx(T, d, H, causal, 500, QkNorm::layernorm);
        if (kind == QkNorm::none) fx.att.set_qk_norm(QkNorm::none);
        CHECK(std::isnan(Attention<double>(T, d, H, causal).max_logit));  // no forward yet
        fx.loss();
        const Mat<double> Q = fx.x * (fx.sq * fx.base.Bq), K = fx.x * (fx.sk * fx.base.Bk);
        auto head = [&](const Mat<double>& M, int h, int i, const VecWorkspace<double>& g) {
          Vecx<double> r = M.row(i).segment(h * dh, dh).transpose();
          if (kind == QkNorm::none) return r;
          const double mean = r.mean();
          const double var = (r.array() - mean).square().mean();
          Vecx<double> out = (r.array() - mean) / std::sqrt(var + kEps);
          for (int c = 0; c < dh; ++c) out(c) *= g(c);
          return out;
        };
        double top = 0;
        for (int h = 0; h < H; ++h)
          for (int i = 0; i < T; ++i)
            for (int j = 0; j < (causal ? i + 1 : T); ++j)
              top = std::max(top,
                             std::abs(head(Q, h, i, fx.att.gq).dot(head(K, h, j, fx.att.gk))) / std::sqrt(double(dh)));
        INFO("direct " << top << " attention " << fx.att.max_logit);
        CHECK(top > 0);
        CHECK(fx.att.max_logit == Approx(top).epsilon(1e-12));
      }
    }
}

TEST_CASE(
    "max_logit: training logs it for transformer blocks (at most sqrt(dh) at init with QK-norm), NaN for MLP blocks",
    "[qk_norm][trainer][max_logit]") {
  TrainConfig tc = tiny_train_config();
  tc.log_every = 1;
  const double dh = tc.width / tc.heads;
  for (QkNorm kind : {QkNorm::none, QkNorm::layernorm}) {
    tc.qk_norm = kind;
    Trainer<double> t;
    REQUIRE(t.configure(tc, Arch::pre_ln).ok());
    const std::vector<TrainLog> logs = t.step(3);
    REQUIRE(logs.size() == 3);
    for (const TrainLog& g : logs) CHECK((std::isfinite(g.max_logit) && g.max_logit > 0));
    // Step 1's batch meets the initial gains (1): |LN(q) . LN(k)| / sqrt(dh) <= ||LN(q)|| ||LN(k)|| / sqrt(dh) <=
    // sqrt(dh).
    if (kind == QkNorm::layernorm) CHECK(logs[0].max_logit <= std::sqrt(dh));
    bool named = false;
    for (const NamedScalar& s : named_scalars(logs[0]))
      if (std::string(s.name) == "max_logit") named = s.value == logs[0].max_logit;
    CHECK(named);
  }
  TrainConfig mlp = tiny_train_config(Task::teacher);
  mlp.block = Block::mlp;
  mlp.log_every = 1;
  Trainer<float> m;
  REQUIRE(m.configure(mlp, Arch::pre_ln).ok());
  for (const TrainLog& g : m.step(2)) CHECK(std::isnan(g.max_logit));
  CHECK(train_log_json(Arch::pre_ln, m.step(1).at(0)).find("\"max_logit\": null") != std::string::npos);
}
