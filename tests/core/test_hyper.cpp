// Hyper-Connections and mHC (hyper.cpp, the hyper and mhc recipes): the
// Sinkhorn-Knopp projection and its exact backward against central
// differences in double, its row and column sums after its iterations; HC at
// init equal to Pre-LN bit for bit (the paper's Eq. 14), mHC at init close to
// it; the fields n and the Sinkhorn iterations; the weights as trained, saved
// parameters. The whole stack's finite differences with n streams are the
// all-architecture loops of test_model.cpp and test_network.cpp.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fd.h"
#include "helpers.h"
#include "resnorm/engine.h"
#include "resnorm/hyper.h"
#include "resnorm/model.h"
#include "resnorm/rng.h"
#include "resnorm/trainer.h"
#include "tiny_train.h"

using namespace resnorm;

namespace {

std::vector<double> random_logits(int n, uint64_t key, double sd) {
  NormalRng rng(stream_key({key, uint64_t(n)}));
  std::vector<double> R(static_cast<size_t>(n) * n);
  for (double& v : R) v = sd * rng.normal();
  return R;
}

// Each row's and each column's sum's largest distance from 1.
std::pair<double, double> marginal_errors(const std::vector<double>& M, int n) {
  double rows = 0, cols = 0;
  for (int i = 0; i < n; ++i) {
    double r = 0, c = 0;
    for (int j = 0; j < n; ++j) {
      r += M[i * n + j];
      c += M[j * n + i];
    }
    rows = std::max(rows, std::abs(r - 1));
    cols = std::max(cols, std::abs(c - 1));
  }
  return {rows, cols};
}

}  // namespace

TEST_CASE("mhc: Sinkhorn-Knopp's backward is the exact derivative of the iterations run", "[hyper][mhc][gradients]") {
  for (int n : {1, 2, 4, 7})
    for (int iters : {1, 3, 20}) {
      DYNAMIC_SECTION("n=" << n << " iters=" << iters) {
        std::vector<double> R = random_logits(n, 5, 1.5), G = random_logits(n, 6, 1.0);
        std::vector<double> M(n * n), X((2 * iters + 1) * n * n), scratch(2 * n * n);
        auto loss = [&] {
          sinkhorn_forward(M.data(), X.data(), R.data(), n, iters);
          double s = 0;
          for (int e = 0; e < n * n; ++e) s += G[e] * M[e];
          return s;
        };
        loss();
        std::vector<double> dR(n * n, 0.0);
        sinkhorn_backward(dR.data(), G.data(), X.data(), n, iters, scratch.data());
        fd::Report report("sinkhorn");
        const fd::Check c = report.add("dR", fd::tensor(R.data(), n * n, dR.data(), loss));
        INFO(c.line("dR"));
        // n = 1: M = 1 whatever R, so the gradient is 0 and the differences are round-off.
        if (n == 1)
          CHECK(c.max_diff < 1e-9);
        else
          CHECK(c.rel() < fd::kTol);
      }
    }
}

TEST_CASE("mhc: after its iterations the columns sum to 1 to rounding, the rows within the stated tolerance",
          "[hyper][mhc]") {
  // The last step of every iteration divides each column by its sum, so the
  // columns sum to 1 up to rounding; the rows converge geometrically. Logits
  // of sd 1.5 (entries of exp spanning e^+-4.5): after 20 iterations (the
  // paper's t_max) the rows are within 1e-8 of 1 (4e-9 for this matrix); after
  // 3, not yet within 1e-8.
  const int n = 4;
  const std::vector<double> R = random_logits(n, 9, 1.5);
  auto project = [&](int iters) {
    std::vector<double> M(n * n), X((2 * iters + 1) * n * n);
    sinkhorn_forward(M.data(), X.data(), R.data(), n, iters);
    for (double v : M) CHECK(v > 0);
    return marginal_errors(M, n);
  };
  const auto [rows20, cols20] = project(kSinkhornIters);
  CHECK(cols20 < 1e-15 * n * 4);
  CHECK(rows20 < 1e-8);
  const auto [rows3, cols3] = project(3);
  CHECK(cols3 < 1e-15 * n * 4);
  CHECK(rows3 > 1e-8);  // finite iterations: not exactly doubly stochastic
  // In float the columns are within float's rounding.
  std::vector<float> Rf(R.begin(), R.end()), Mf(n * n), Xf((2 * kSinkhornIters + 1) * n * n);
  sinkhorn_forward(Mf.data(), Xf.data(), Rf.data(), n, kSinkhornIters);
  const auto [rowsf, colsf] = marginal_errors(std::vector<double>(Mf.begin(), Mf.end()), n);
  CHECK(colsf < 4e-7);
  CHECK(rowsf < 1e-6);
}

TEST_CASE("hyper: at init (Eq. 14: A_m = e_{k mod n}, A_r = I, B = 1) every stream is Pre-LN's, bit for bit",
          "[hyper]") {
  for (Block block : {Block::mlp, Block::transformer})
    for (NormKind fn : {NormKind::none, NormKind::layernorm})
      for (int n : {1, 2, 3, 4, 8}) {
        DYNAMIC_SECTION(name(block) << " final=" << name(fn) << " n=" << n) {
          Config cfg = block == Block::transformer ? test::small_transformer() : Config();
          cfg.depth = 5;
          cfg.width = 8;
          cfg.tokens = 4;
          cfg.final_norm = fn;
          cfg.hc_streams = n;
          cfg.seed = 3;
          const bool transformer = block == Block::transformer;
          auto run = [&](auto zero) {
            using S = decltype(zero);
            WeightBank<S> bank;
            bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, transformer);
            Model<S> pre, hc;
            pre.configure(cfg, Arch::pre_ln, bank);
            hc.configure(cfg, Arch::hyper, bank);
            const double lp = pre.forward(), lh = hc.forward();
            const long len = long(cfg.tokens) * cfg.width;
            // Every stream at every unit boundary equals Pre-LN's stream there.
            bool streams_equal = true;
            for (int k = 0; k <= hc.units(); ++k)
              for (int i = 0; i < n; ++i)
                streams_equal =
                    streams_equal && std::equal(pre.stream(k), pre.stream(k) + len, hc.hyper().stream(k, i));
            CHECK(streams_equal);
            // The top (the streams' mean, summed pairwise) is exact when n is a power of 2.
            if ((n & (n - 1)) == 0) {
              CHECK(lp == lh);
              CHECK(std::equal(pre.output(), pre.output() + len, hc.output()));
              bool means_equal = true;
              for (int k = 0; k <= hc.units(); ++k)
                means_equal = means_equal && std::equal(pre.stream(k), pre.stream(k) + len, hc.stream(k));
              CHECK(means_equal);
            } else {
              CHECK(lh == Approx(lp).epsilon(1e-5));
            }
            // The units read what Pre-LN's read and update it by the same ratio.
            for (int k = 1; k <= hc.units(); ++k) CHECK(hc.unit_at(k).update_ratio == pre.unit_at(k).update_ratio);
            // The gradient diagnostics (the sum over the streams) are Pre-LN's up to rounding.
            pre.backward();
            hc.backward();
            for (int k = 0; k <= hc.units(); ++k)
              for (long e = 0; e < len; e += 7)
                CHECK(double(hc.dstream(k)[e]) ==
                      Approx(double(pre.dstream(k)[e])).epsilon(std::is_same_v<S, float> ? 1e-4 : 1e-10).margin(1e-12));
          };
          run(double(0));
          run(float(0));
        }
      }
}

TEST_CASE("mhc: at init (a ~ e_k, M ~ I, b = 1) the stack is close to Pre-LN", "[hyper][mhc]") {
  Config cfg;
  cfg.depth = 6;
  cfg.width = 8;
  cfg.tokens = 4;
  cfg.final_norm = NormKind::layernorm;
  WeightBank<double> bank;
  bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, false);
  Model<double> pre, mhc;
  pre.configure(cfg, Arch::pre_ln, bank);
  mhc.configure(cfg, Arch::mhc, bank);
  // The effective weights: b = 2 sigmoid(0) = 1 exactly, M doubly stochastic near I.
  for (int k = 1; k <= mhc.units(); ++k) {
    const int n = mhc.hyper().n(), home = (k - 1) % n;
    for (int i = 0; i < n; ++i) {
      CHECK(mhc.hyper().b(k)[i] == 1.0);
      CHECK(mhc.hyper().a(k)[i] == Approx(i == home ? 1.0 : 0.0).margin(1e-3));
      for (int j = 0; j < n; ++j) CHECK(mhc.hyper().m(k)[i * n + j] == Approx(i == j ? 1.0 : 0.0).margin(2e-3));
    }
    const std::vector<double> M(mhc.hyper().m(k), mhc.hyper().m(k) + n * n);
    const auto [rows, cols] = marginal_errors(M, n);
    CHECK(rows < 1e-12);
    CHECK(cols < 1e-12);
  }
  CHECK(mhc.forward() == Approx(pre.forward()).epsilon(1e-3));
}

TEST_CASE("hyper, mhc: hc_streams in 1..16 and sinkhorn_iters in 1..100, refused by name", "[hyper][config]") {
  CHECK(std::string(find_field("hc_streams")->default_text) == "4");
  CHECK(std::string(find_field("sinkhorn_iters")->default_text) == "20");
  CHECK(Config().hc_streams == 4);
  CHECK(Config().sinkhorn_iters == 20);
  Config cfg;
  CHECK(set_field(cfg, "hc_streams", "0").message == "hc_streams: '0' is out of range (allowed 1..16)");
  CHECK(set_field(cfg, "hc_streams", "17").field == "hc_streams");
  CHECK(set_field(cfg, "hc_streams", "2.5").field == "hc_streams");
  CHECK(set_field(cfg, "sinkhorn_iters", "0").message == "sinkhorn_iters: '0' is out of range (allowed 1..100)");
  CHECK(set_number(cfg, "sinkhorn_iters", std::nan("")).field == "sinkhorn_iters");
  REQUIRE(set_field(cfg, "hc_streams", "3").ok());
  REQUIRE(set_field(cfg, "sinkhorn_iters", "7").ok());
  Config bad = cfg;
  bad.hc_streams = 0;
  CHECK(validate(bad).field == "hc_streams");
  bad = cfg;
  bad.sinkhorn_iters = 101;
  CHECK(validate(bad).field == "sinkhorn_iters");
  // Written where they are read, only.
  cfg.archs = {Arch::pre_ln};
  CHECK(config_json(cfg).find("hc_streams") == std::string::npos);
  cfg.archs = {Arch::pre_ln, Arch::hyper};
  CHECK(config_json(cfg).find("\"hc_streams\": 3") != std::string::npos);
  CHECK(config_json(cfg).find("sinkhorn_iters") == std::string::npos);
  cfg.archs = {Arch::mhc};
  CHECK(config_json(cfg).find("\"sinkhorn_iters\": 7") != std::string::npos);
  // Training takes both; the final norm under auto is LayerNorm, as Pre-LN's.
  TrainConfig tc = tiny_train_config();
  CHECK(final_norm_of(tc, Arch::hyper) == NormKind::layernorm);
  CHECK(final_norm_of(tc, Arch::mhc) == NormKind::layernorm);
  tc.hc_streams = 3;
  tc.sinkhorn_iters = 7;
  const Config sc = stack_config(tc, Arch::mhc, 4);
  CHECK(sc.hc_streams == 3);
  CHECK(sc.sinkhorn_iters == 7);
}

TEST_CASE("hyper, mhc: the read, mix and write weights are named parameters that train, saved and restored",
          "[hyper][trainer][state]") {
  for (Arch arch : {Arch::hyper, Arch::mhc}) {
    DYNAMIC_SECTION(name(arch)) {
      TrainConfig tc = tiny_train_config();
      tc.hc_streams = 3;
      Trainer<float> a, b;
      REQUIRE(a.configure(tc, arch).ok());
      const std::string prefix = arch == Arch::hyper ? "hc_" : "mhc_";
      auto weights = [&](Trainer<float>& t) {
        std::vector<float> v;
        int tensors = 0;
        for (const Param<float>& p : t.network().params())
          if (p.name.rfind(prefix, 0) == 0) {
            ++tensors;
            CHECK(!p.matrix);
            CHECK((p.n == 3 || p.n == 9));
            v.insert(v.end(), p.w, p.w + p.n);
          }
        CHECK(tensors == 3 * tc.depth * 2);  // read, mix, write in each of the 2 units of every block
        return v;
      };
      const std::vector<float> init = weights(a);
      const std::vector<TrainLog> logs = a.step(10);
      REQUIRE(!logs.empty());
      CHECK(std::isfinite(logs.back().train_loss));
      const std::vector<float> trained = weights(a);
      CHECK(trained != init);
      REQUIRE(b.load(a.state()).ok());
      CHECK(weights(b) == trained);
      CHECK(b.config().hc_streams == 3);
      test::check_same_logs(a.step(10), b.step(10));
    }
  }
}

TEST_CASE("hyper, mhc: a simulation runs with MLP and transformer blocks, every metric finite", "[hyper][simulation]") {
  for (Block block : {Block::mlp, Block::transformer}) {
    Config cfg = block == Block::transformer ? test::small_transformer() : Config();
    cfg.archs = {Arch::pre_ln, Arch::hyper, Arch::mhc};
    cfg.depth = 12;
    Engine<float> engine;
    Results res;
    REQUIRE(engine.simulate(cfg, &res).ok());
    for (const ArchResult& r : res.archs) {
      for (double v : r.grad_norm) CHECK(std::isfinite(v));
      for (double v : r.stream_rms) CHECK(std::isfinite(v));
    }
    // HC's block metrics at init are Pre-LN's (n = 4, a power of 2).
    for (size_t l = 0; l < res.archs[0].stream_rms.size(); ++l)
      CHECK(res.archs[1].stream_rms[l] == res.archs[0].stream_rms[l]);
  }
}

namespace {

// The product M_U ... M_1 taken from the left end (M_U M_{U-1}, then on down to M_1), the other
// association of composite_gain's, and its largest |row sum| and |column sum|.
template <class S>
std::pair<double, double> direct_gain(const Hyper<S>& h) {
  const int n = h.n();
  std::vector<double> P(static_cast<size_t>(n) * n);
  for (int e = 0; e < n * n; ++e) P[e] = double(h.m(h.units())[e]);
  for (int k = h.units() - 1; k >= 1; --k) {  // P <- P M_k
    std::vector<double> next(P.size(), 0.0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int r = 0; r < n; ++r) next[i * n + j] += P[i * n + r] * double(h.m(k)[r * n + j]);
    P = next;
  }
  double rows = 0, cols = 0;
  for (int i = 0; i < n; ++i) {
    double r = 0, c = 0;
    for (int j = 0; j < n; ++j) {
      r += P[i * n + j];
      c += P[j * n + i];
    }
    rows = std::max(rows, std::abs(r));
    cols = std::max(cols, std::abs(c));
  }
  return {rows, cols};
}

}  // namespace

TEST_CASE("hyper, mhc: the composite gain is the largest |row| and |column| sum of M_U ... M_1, and 1 at HC's init",
          "[hyper][mhc][gain]") {
  double fwd = 0, bwd = 0;
  Hyper<double> none;
  none.configure(HyperKind::none, 4, 0, 6, 2, 3);
  none.composite_gain(fwd, bwd);
  CHECK((std::isnan(fwd) && std::isnan(bwd)));
  for (int n : {1, 2, 4, 8}) {
    DYNAMIC_SECTION("n=" << n) {
      // HC's init (Eq. 14): every M = I, so P = I and both gains are exactly 1
      Hyper<double> hc;
      hc.configure(HyperKind::hc, n, 0, 12, 2, 3);
      hc.composite_gain(fwd, bwd);
      CHECK(fwd == 1.0);
      CHECK(bwd == 1.0);
      Hyper<float> hcf;
      hcf.configure(HyperKind::hc, n, 0, 12, 2, 3);
      hcf.composite_gain(fwd, bwd);
      CHECK(fwd == 1.0);
      CHECK(bwd == 1.0);
      // trained-like mixing: M = I + noise (HC) and SK(noise) (mHC), against the direct product
      for (HyperKind kind : {HyperKind::hc, HyperKind::mhc}) {
        Hyper<double> h;
        h.configure(kind, n, kSinkhornIters, 12, 2, 3);
        for (int k = 1; k <= h.units(); ++k) {
          const std::vector<double> R = random_logits(n, 100 + k, kind == HyperKind::hc ? 0.3 : 1.5);
          for (int e = 0; e < n * n; ++e) h.res_param(k)[e] = (kind == HyperKind::hc && e % (n + 1) == 0) + R[e];
        }
        h.prepare();
        h.composite_gain(fwd, bwd);
        const auto [rows, cols] = direct_gain(h);
        CHECK(fwd == Approx(rows).epsilon(1e-12));
        CHECK(bwd == Approx(cols).epsilon(1e-12));
        if (kind == HyperKind::mhc) {
          // every M's columns sum to 1 up to rounding, so P's do; the rows only to Sinkhorn's tolerance
          CHECK(bwd == Approx(1.0).epsilon(1e-12));
          CHECK(fwd >= 1.0 - 1e-12);
        } else if (n > 1) {
          CHECK(fwd != Approx(1.0).epsilon(1e-3));  // the noise moved it: the test can see a wrong product
        }
      }
    }
  }
  // a NaN anywhere in P is the gain's NaN
  Hyper<double> bad;
  bad.configure(HyperKind::hc, 3, 0, 4, 2, 3);
  bad.res_param(2)[4] = std::nan("");
  bad.prepare();
  bad.composite_gain(fwd, bwd);
  CHECK((std::isnan(fwd) && std::isnan(bwd)));
}

TEST_CASE("hyper, mhc: the training logs carry the composite gain, NaN for other architectures",
          "[hyper][mhc][gain][trainer]") {
  for (Arch arch : {Arch::hyper, Arch::mhc, Arch::pre_ln}) {
    DYNAMIC_SECTION(name(arch)) {
      TrainConfig tc = tiny_train_config();
      tc.log_every = 1;
      tc.steps = 6;
      Trainer<double> t;
      REQUIRE(t.configure(tc, arch).ok());
      Hyper<double>& h = t.network().stack().hyper();
      double fwd = 0, bwd = 0;
      h.composite_gain(fwd, bwd);  // the matrices step 1's batch runs with
      const std::vector<TrainLog> logs = t.step(6);
      REQUIRE(logs.size() == 6);
      if (arch == Arch::pre_ln) {
        for (const TrainLog& g : logs) CHECK((std::isnan(g.hc_gain_fwd) && std::isnan(g.hc_gain_bwd)));
      } else {
        CHECK(logs[0].hc_gain_fwd == fwd);
        CHECK(logs[0].hc_gain_bwd == bwd);
        if (arch == Arch::hyper) CHECK((fwd == 1.0 && bwd == 1.0));  // step 1: HC's init, before the update
        CHECK(std::isfinite(logs.back().hc_gain_fwd));
        CHECK(std::isfinite(logs.back().hc_gain_bwd));
        if (arch == Arch::hyper) CHECK(logs.back().hc_gain_fwd != 1.0);  // trained: the mixing moved
      }
      if (arch == Arch::mhc) CHECK(logs.back().hc_gain_bwd == Approx(1.0).epsilon(1e-12));
    }
  }
}
