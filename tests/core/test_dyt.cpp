// DyT, Dynamic Tanh (dyt.cpp, the dyt recipe): the kernel's forward and its
// backward against central differences in double, alpha_0 as the config's
// field in every DyT layer (the final norm's too), the simulation's wiring,
// and alpha as a trained, saved parameter without weight decay. The whole
// stack's finite differences with DyT are the all-architecture loops of
// test_model.cpp and test_network.cpp.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fd.h"
#include "helpers.h"
#include "resnorm/engine.h"
#include "resnorm/model.h"
#include "resnorm/rng.h"
#include "resnorm/trainer.h"
#include "tiny_train.h"

using namespace resnorm;

TEST_CASE("dyt: y = gamma tanh(alpha x) + beta, and its backward equals central differences in double", "[dyt]") {
  const int T = 3, d = 7;
  const long n = long(T) * d;
  NormalRng rng(stream_key({31, 7}));
  std::vector<double> x(n), r(n), gamma(d), beta(d), y(n);
  for (double& v : x) v = 2.0 * rng.normal();
  for (double& v : r) v = rng.normal();
  for (double& v : gamma) v = 1.0 + 0.3 * rng.normal();
  for (double& v : beta) v = 0.2 * rng.normal();
  double alpha = 0.8;
  dyt_forward(y.data(), x.data(), alpha, gamma.data(), beta.data(), T, d);
  for (long i = 0; i < n; ++i) CHECK(y[i] == Approx(gamma[i % d] * std::tanh(alpha * x[i]) + beta[i % d]));
  // The float kernel (portable tanh) agrees with double to float's precision.
  std::vector<float> xf(x.begin(), x.end()), gf(gamma.begin(), gamma.end()), bf(beta.begin(), beta.end()), yf(n);
  dyt_forward(yf.data(), xf.data(), float(alpha), gf.data(), bf.data(), T, d);
  for (long i = 0; i < n; ++i) CHECK(double(yf[i]) == Approx(y[i]).margin(1e-6));

  auto loss = [&] {
    dyt_forward(y.data(), x.data(), alpha, gamma.data(), beta.data(), T, d);
    double s = 0;
    for (long i = 0; i < n; ++i) s += r[i] * y[i];
    return s;
  };
  std::vector<double> dx(n, 0.0), dgamma(d, 0.0), dbeta(d, 0.0);
  double dalpha = 0;
  dyt_backward(dx.data(), dgamma.data(), dbeta.data(), &dalpha, r.data(), x.data(), alpha, gamma.data(), T, d);
  fd::Report report("dyt kernel");
  const fd::Check cx = report.add("dx", fd::tensor(x.data(), n, dx.data(), loss));
  const fd::Check cg = report.add("dgamma", fd::tensor(gamma.data(), d, dgamma.data(), loss));
  const fd::Check cb = report.add("dbeta", fd::tensor(beta.data(), d, dbeta.data(), loss));
  const fd::Check ca = report.add("dalpha", fd::tensor(&alpha, 1, &dalpha, loss));
  for (const auto* c : {&cx, &cg, &cb, &ca}) {
    INFO(c->line("dyt"));
    CHECK(c->rel() < fd::kTol);
  }
  // Without the parameter gradients, dx alone, the same bits.
  std::vector<double> dx_only(n, 0.0);
  dyt_backward<double>(dx_only.data(), nullptr, nullptr, nullptr, r.data(), x.data(), alpha, gamma.data(), T, d);
  CHECK(dx_only == dx);
}

TEST_CASE("dyt: dyt_alpha is a field in 0.01..10, alpha_0 of every DyT layer, the final norm's under auto",
          "[dyt][config]") {
  const FieldSpec* f = find_field("dyt_alpha");
  REQUIRE(f);
  CHECK(std::string(f->default_text) == "0.5");
  CHECK(Config().dyt_alpha == kDytAlpha);
  CHECK(kDytAlpha == 0.5);
  Config cfg;
  CHECK(set_field(cfg, "dyt_alpha", "0").message == "dyt_alpha: '0' is out of range (allowed 0.01..10)");
  CHECK(set_field(cfg, "dyt_alpha", "11").field == "dyt_alpha");
  CHECK(set_number(cfg, "dyt_alpha", std::nan("")).field == "dyt_alpha");
  REQUIRE(set_field(cfg, "dyt_alpha", "0.8").ok());
  CHECK(cfg.dyt_alpha == 0.8);
  Config bad = cfg;
  bad.dyt_alpha = -1;
  CHECK(validate(bad).field == "dyt_alpha");
  // Written where dyt runs, only.
  cfg.archs = {Arch::pre_ln};
  CHECK(config_json(cfg).find("dyt_alpha") == std::string::npos);
  cfg.archs = {Arch::pre_ln, Arch::dyt};
  CHECK(config_json(cfg).find("\"dyt_alpha\": 0.8") != std::string::npos);

  // The simulation's stack: DyT where Pre-LN has its LayerNorm, alpha = alpha_0.
  cfg.depth = 3;
  cfg.width = 8;
  WeightBank<double> bank;
  bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, false);
  Model<double> m;
  m.configure(cfg, Arch::dyt, bank);
  for (int k = 1; k <= m.units(); ++k) {
    CHECK(m.unit_at(k).in.kind == NormKind::dyt);
    CHECK(m.unit_at(k).out.kind == NormKind::none);
    CHECK(m.unit_at(k).outer.kind == NormKind::none);
    CHECK(m.unit_at(k).in.alpha(0) == 0.8);
  }

  // Training: every DyT layer's alpha a parameter at alpha_0, the final norm DyT too, none a matrix.
  TrainConfig tc = tiny_train_config();
  tc.dyt_alpha = 0.3;
  CHECK(final_norm_of(tc, Arch::dyt) == NormKind::dyt);
  Trainer<float> t;
  REQUIRE(t.configure(tc, Arch::dyt).ok());
  int alphas = 0;
  bool final_alpha = false;
  for (const Param<float>& p : t.network().params()) {
    if (p.name.rfind("alpha.", 0) != 0) continue;
    ++alphas;
    final_alpha = final_alpha || p.name == "alpha.final";
    CHECK(p.n == 1);
    CHECK(p.w[0] == 0.3f);
    CHECK(!p.matrix);  // the optimizer's weight decay is for matrices only (optim.cpp)
  }
  CHECK(alphas == tc.depth * 2 + 1);  // transformer blocks: two units each, and the final norm
  CHECK(final_alpha);
}

TEST_CASE("dyt: with a small alpha_0 a ReLU branch sees alpha_0 h, so block 1 updates alpha_0 times the residual's",
          "[dyt][simulation]") {
  // tanh(a x) = a x (1 - (a x)^2 / 3 + ...) and ReLU is positively homogeneous,
  // so f(DyT(h)) = a f(h) to O(a^2 x^2): with gamma = 1, beta = 0 at init,
  // block 1's update ratio is a times the norm-free residual's.
  Config cfg;
  cfg.archs = {Arch::residual, Arch::dyt};
  cfg.depth = 4;
  cfg.dyt_alpha = 0.01;
  Engine<double> engine;
  Results res;
  REQUIRE(engine.simulate(cfg, &res).ok());
  const double residual = res.archs[0].update_ratio[0], dyt = res.archs[1].update_ratio[0];
  CHECK(dyt == Approx(cfg.dyt_alpha * residual).epsilon(1e-3));
  for (double v : res.archs[1].grad_norm) CHECK(std::isfinite(v));
}

TEST_CASE("dyt: alpha trains, is saved in the state and restored", "[dyt][trainer][state]") {
  TrainConfig tc = tiny_train_config();
  tc.steps = 30;
  Trainer<float> a, b;
  REQUIRE(a.configure(tc, Arch::dyt).ok());
  auto alphas = [](Trainer<float>& t) {
    std::vector<float> v;
    for (const Param<float>& p : t.network().params())
      if (p.name.rfind("alpha.", 0) == 0) v.push_back(p.w[0]);
    return v;
  };
  const std::vector<float> init = alphas(a);
  REQUIRE(!init.empty());
  const std::vector<TrainLog> logs = a.step(10);
  REQUIRE(!logs.empty());
  CHECK(std::isfinite(logs.back().train_loss));
  const std::vector<float> trained = alphas(a);
  CHECK(trained != init);  // alpha learns
  REQUIRE(b.load(a.state()).ok());
  CHECK(alphas(b) == trained);
  CHECK(b.config().dyt_alpha == tc.dyt_alpha);
  test::check_same_logs(a.step(10), b.step(10));
}

TEST_CASE("norm samples: each norm's input and output on held-out batch 0, the output its formula of the input",
          "[dyt][trainer][norm_samples]") {
  // After training, every sampled output equals the norm applied directly to its input row:
  // LayerNorm (x - mean) / sqrt(var + eps) gamma + beta for Pre-LN, gamma tanh(alpha x) + beta for DyT.
  TrainConfig tc = tiny_train_config(Task::reverse);
  tc.steps = 20;
  for (Arch arch : {Arch::pre_ln, Arch::dyt}) {
    DYNAMIC_SECTION(name(arch)) {
      Trainer<double> t;
      REQUIRE(t.configure(tc, arch).ok());
      t.step(20);
      const NormSamples s = t.norm_samples();
      Model<double>& m = t.network().stack();
      const int P = 2;                                      // transformer blocks: attention, then the MLP
      REQUIRE(s.units.size() == size_t(P * tc.depth + 1));  // every unit's input norm, then the final norm
      CHECK(s.units.back() == P * tc.depth + 1);
      CHECK(s.width == tc.width);
      REQUIRE(s.rows > 0);
      const long n = static_cast<long>(s.rows) * s.width;
      REQUIRE(s.input.size() == s.units.size() * n);
      REQUIRE(s.output.size() == s.input.size());
      double worst = 0, spread = 0;
      for (size_t i = 0; i < s.units.size(); ++i) {
        const int k = s.units[i];
        const Norm<double>& nm = k <= m.units() ? m.unit_at(k).in : m.final_norm();
        for (int r = 0; r < s.rows; ++r) {
          const double* x = s.input.data() + i * n + static_cast<long>(r) * s.width;
          const double* y = s.output.data() + i * n + static_cast<long>(r) * s.width;
          double mean = 0, var = 0;
          for (int c = 0; c < s.width; ++c) mean += x[c] / s.width;
          for (int c = 0; c < s.width; ++c) var += (x[c] - mean) * (x[c] - mean) / s.width;
          for (int c = 0; c < s.width; ++c) {
            const double want = arch == Arch::dyt ? nm.gamma(c) * std::tanh(nm.alpha(0) * x[c]) + nm.beta(c)
                                                  : (x[c] - mean) / std::sqrt(var + kEps) * nm.gamma(c) + nm.beta(c);
            worst = std::max(worst, std::abs(y[c] - want));
            spread = std::max(spread, std::abs(x[c]));
          }
        }
      }
      INFO(name(arch) << ": largest |output - formula| " << worst);
      CHECK(worst < 1e-12);
      CHECK(spread > 0);
      // the stack is left as a held-out measurement leaves it: the next steps are those of a trainer never asked
      Trainer<double> u;
      REQUIRE(u.configure(tc, arch).ok());
      u.step(20);
      test::check_same_logs(t.step(5), u.step(5));
    }
  }
  // a stack without such norms (the plain stack, no final norm) samples none
  Trainer<float> plain;
  REQUIRE(plain.configure(tiny_train_config(), Arch::plain).ok());
  CHECK(plain.norm_samples().units.empty());
}
