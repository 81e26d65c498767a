// nGPT (Loshchilov et al. 2025; ngpt.h, ngpt.cpp, and its parts in
// attention.cpp, mlp.cpp, network.cpp, optim.cpp, trainer.cpp): Norm's
// backward, attention with its queries and keys on the sphere and s_qk, the
// MLP with s_v, the stack's unit h' = Norm(a + alpha (Norm(f(a)) - a)), and
// the training network with s_z, each against central finite differences in
// double (every new parameter among them); the hidden state on the unit
// sphere after every unit; every weight vector along the embedding dimension
// at unit norm at init and after each training step; no weight decay on
// them; alpha's init from its field; the saved state. The all-architecture
// loops of test_model.cpp and test_network.cpp run ngpt as well.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fd.h"
#include "helpers.h"
#include "resnorm/attention.h"
#include "resnorm/mlp.h"
#include "resnorm/model.h"
#include "resnorm/ngpt.h"
#include "resnorm/recipes.h"
#include "resnorm/rng.h"
#include "resnorm/trainer.h"
#include "tiny_train.h"

using namespace resnorm;

namespace {

std::vector<double> copy_of(const VecWorkspace<double>& v) { return {v.data(), v.data() + v.size()}; }

// nonzero: the gradient must not vanish (a one-token attention's W_Q, W_K and s_qk have none:
// the softmax over one key is 1 whatever the scores).
void check_fd(fd::Report& report, double* w, long n, const std::vector<double>& analytic,
              const std::function<double()>& loss, const std::string& what, bool nonzero = true) {
  const fd::Check c = report.add(what, fd::tensor(w, n, analytic.data(), loss));
  INFO(c.line(what));
  if (nonzero) CHECK(c.max_ref > 0);
  CHECK(c.rel() < fd::kTol);
}

// The largest | ||v|| - 1 | over the vectors of a (rows, cols) row-major parameter.
template <class S>
double unit_error(const S* w, long rows, long cols, bool by_rows) {
  double worst = 0;
  const long outer = by_rows ? rows : cols, inner = by_rows ? cols : rows;
  for (long i = 0; i < outer; ++i) {
    double sq = 0;
    for (long j = 0; j < inner; ++j) {
      const double x = by_rows ? double(w[i * cols + j]) : double(w[j * cols + i]);
      sq += x * x;
    }
    worst = std::max(worst, std::abs(std::sqrt(sq) - 1.0));
  }
  return worst;
}

}  // namespace

TEST_CASE("ngpt: Norm and its backward, and the scaled rows of a query, equal central finite differences", "[ngpt]") {
  const int rows = 4, n = 5;
  Mat<double> x = gaussian_matrix(stream_key({801, 1}), rows, n), r = gaussian_matrix(stream_key({801, 2}), rows, n);
  Mat<double> y(rows, n), dx = Mat<double>::Zero(rows, n);
  std::vector<double> norms(rows);
  auto loss = [&] {
    sphere_forward(y.data(), norms.data(), x.data(), rows, n);
    return (r.array() * y.array()).sum();
  };
  loss();
  for (int i = 0; i < rows; ++i) CHECK(y.row(i).norm() == Approx(1.0).epsilon(1e-15));
  sphere_backward(dx.data(), r.data(), x.data(), norms.data(), rows, n);
  fd::Report report("ngpt Norm");
  check_fd(report, x.data(), x.size(), std::vector<double>(dx.data(), dx.data() + dx.size()), loss, "dx");

  // Two heads of 3 over 4 tokens: out = c s_h raw / ||raw||.
  const int H = 2, T = 4, dh = 3;
  const double c = 1.7;
  Mat<double> raw = gaussian_matrix(stream_key({801, 3}), H * T, dh),
              g = gaussian_matrix(stream_key({801, 4}), H * T, dh);
  std::vector<double> s(H * dh), rn(H * T), ds(H * dh, 0.0);
  for (int i = 0; i < H * dh; ++i) s[i] = 0.5 + 0.1 * i;
  Mat<double> out(H * T, dh), draw(H * T, dh);
  auto scaled = [&] {
    sphere_scale_forward(out.data(), rn.data(), raw.data(), s.data(), c, H, T, dh);
    return (g.array() * out.array()).sum();
  };
  scaled();
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < dh; ++i)
        CHECK(out(h * T + t, i) == Approx(c * s[h * dh + i] * raw(h * T + t, i) / raw.row(h * T + t).norm()));
  sphere_scale_backward(draw.data(), ds.data(), g.data(), raw.data(), rn.data(), s.data(), c, H, T, dh);
  check_fd(report, raw.data(), raw.size(), std::vector<double>(draw.data(), draw.data() + draw.size()), scaled, "draw");
  check_fd(report, s.data(), long(s.size()), ds, scaled, "ds");
}

TEST_CASE("ngpt: attention with queries and keys on the sphere, dx, every dW and ds_qk equal central differences",
          "[ngpt][attention][gradients]") {
  for (int heads : {1, 2, 4})
    for (bool causal : {true, false}) {
      DYNAMIC_SECTION("heads=" << heads << " causal=" << causal) {
        const int T = 5, d = 16;
        const uint64_t seed = 810 + 10 * heads + causal;
        AttnBase<double> base;
        base.Bq = gaussian_matrix(stream_key({seed, 1}), d, d);
        base.Bk = gaussian_matrix(stream_key({seed, 2}), d, d);
        base.Bv = gaussian_matrix(stream_key({seed, 3}), d, d);
        base.Bo = gaussian_matrix(stream_key({seed, 4}), d, d);
        Attention<double> att(T, d, heads, causal);
        const double f = 1.0 / std::sqrt(double(d));
        att.weights = {&base, 1.3 * f, 1.1 * f, 0.8 * f, 0.9 * f};
        att.set_ngpt(true);
        REQUIRE(att.sqk.size() == d);
        for (int i = 0; i < d; ++i) CHECK(att.sqk(i) * std::sqrt(double(d)) == Approx(1.0).epsilon(1e-15));
        NormalRng rng(stream_key({seed, 7}));
        for (int i = 0; i < d; ++i) att.sqk(i) = (1.0 + 0.3 * rng.normal()) * f;
        Mat<double> x = gaussian_matrix(stream_key({seed, 5}), T, d), r = gaussian_matrix(stream_key({seed, 6}), T, d);
        Mat<double> y(T, d), dx(T, d);
        auto loss = [&] {
          att.forward(y.data(), x.data());
          return (r.array() * y.array()).sum();
        };
        loss();
        // Every head's query row has norm |s_qk| per channel: sum_i (s_i n_i)^2 with n on the sphere.
        const int dh = d / heads;
        for (int h = 0; h < heads; ++h)
          for (int t = 0; t < T; ++t) {
            double sq = 0, sn = 0;
            for (int i = 0; i < dh; ++i) {
              const double s = att.sqk(h * dh + i) * std::sqrt(double(d));
              const double q = att.q((long(h) * T + t) * dh + i);
              sq += (q / s) * (q / s);
              sn += q * q;
            }
            CHECK(sq == Approx(1.0).epsilon(1e-12));
            CHECK(sn > 0);
          }
        att.backward(dx.data(), r.data(), x.data(), true);
        const Mat<double> dxa = dx;
        const Mat<double> dBq = att.dWq * att.weights.sq, dBk = att.dWk * att.weights.sk,
                          dBv = att.dWv * att.weights.sv, dBo = att.dWo * att.weights.so;
        const std::vector<double> dsqk = copy_of(att.dsqk);
        fd::Report report("ngpt attention heads=" + std::to_string(heads) + " causal=" + std::to_string(causal));
        auto v = [](const Mat<double>& m) { return std::vector<double>(m.data(), m.data() + m.size()); };
        check_fd(report, x.data(), x.size(), v(dxa), loss, "dx");
        check_fd(report, base.Bq.data(), base.Bq.size(), v(dBq), loss, "dW_Q");
        check_fd(report, base.Bk.data(), base.Bk.size(), v(dBk), loss, "dW_K");
        check_fd(report, base.Bv.data(), base.Bv.size(), v(dBv), loss, "dW_V");
        check_fd(report, base.Bo.data(), base.Bo.size(), v(dBo), loss, "dW_O");
        check_fd(report, att.sqk.data(), att.sqk.size(), dsqk, loss, "ds_qk");
        // backward_input: the same dx, s_qk's gradient left alone.
        loss();
        att.backward(dx.data(), r.data(), x.data(), false);
        const std::vector<double> before = copy_of(att.dsqk);
        Mat<double> dx_only(T, d);
        att.backward_input(dx_only.data(), r.data(), x.data());
        CHECK(dx_only == dx);
        CHECK(copy_of(att.dsqk) == before);
      }
    }
}

TEST_CASE("ngpt: the MLP with s_v sqrt(d) on the activation's input, dx, dW1, dW2 and ds_v equal central differences",
          "[ngpt][gradients]") {
  for (Activation act : {Activation::gelu, Activation::tanh, Activation::linear}) {
    DYNAMIC_SECTION(name(act)) {
      const int T = 4, d = 6, m = 12;
      MlpBase<double> base;
      base.B1 = gaussian_matrix(stream_key({820, 1}), d, m);
      base.B2 = gaussian_matrix(stream_key({820, 2}), m, d);
      Mlp<double> f(T, d, m);
      f.weights = {&base, 1.0 / std::sqrt(double(d)), 1.0 / std::sqrt(double(d))};
      f.activation = act;
      f.set_ngpt(true);
      REQUIRE(f.sv.size() == m);
      NormalRng rng(stream_key({820, 3}));
      for (int j = 0; j < m; ++j) f.sv(j) = 1.0 + 0.3 * rng.normal();
      Mat<double> x = gaussian_matrix(stream_key({820, 4}), T, d), r = gaussian_matrix(stream_key({820, 5}), T, d);
      Mat<double> y(T, d), dx(T, d);
      auto loss = [&] {
        f.forward(y.data(), x.data());
        return (r.array() * y.array()).sum();
      };
      loss();
      // pre = s_v sqrt(d) (x W1), entry by entry.
      const Mat<double> xw = x * base.B1 * f.weights.s1;
      for (int t = 0; t < T; ++t)
        for (int j = 0; j < m; ++j) CHECK(f.pre(t, j) == Approx(f.sv(j) * std::sqrt(double(d)) * xw(t, j)));
      f.backward(dx.data(), r.data(), x.data(), true);
      const Mat<double> dxa = dx, dB1 = f.dW1 * f.weights.s1, dB2 = f.dW2 * f.weights.s2;
      const std::vector<double> dsv = copy_of(f.dsv);
      CHECK(std::sqrt(f.w1_grad_sq) == Approx(f.dW1.norm()).epsilon(1e-10));
      fd::Report report(std::string("ngpt mlp ") + name(act));
      auto v = [](const Mat<double>& a) { return std::vector<double>(a.data(), a.data() + a.size()); };
      check_fd(report, x.data(), x.size(), v(dxa), loss, "dx");
      check_fd(report, base.B1.data(), base.B1.size(), v(dB1), loss, "dW1");
      check_fd(report, base.B2.data(), base.B2.size(), v(dB2), loss, "dW2");
      check_fd(report, f.sv.data(), f.sv.size(), dsv, loss, "ds_v");
    }
  }
}

TEST_CASE("ngpt: the recipe, and every unit's output Norm(a + alpha (Norm(f(a)) - a)) on the unit sphere",
          "[ngpt][recipe][simulation]") {
  const Recipe rec = recipe(Arch::ngpt, 4, 2);
  CHECK(rec.wrap.sphere);
  CHECK(rec.ngpt);
  CHECK(rec.scale.unit_vectors);
  CHECK(rec.wrap.in == NormKind::none);
  CHECK(rec.wrap.out == NormKind::none);
  CHECK(rec.wrap.outer == NormKind::none);
  CHECK(rec.wrap.gate == Gate::none);
  for (Arch a : all_archs())
    if (a != Arch::ngpt) {
      CHECK(!recipe(a, 4, 2).wrap.sphere);
      CHECK(!recipe(a, 4, 2).ngpt);
    }
  CHECK(final_norm_of(tiny_train_config(), Arch::ngpt) == NormKind::none);

  for (Block block : {Block::transformer, Block::mlp}) {
    DYNAMIC_SECTION(name(block)) {
      Config cfg = test::small_transformer();
      cfg.block = block;
      cfg.depth = 5;
      cfg.ngpt_alpha = 0.2;
      WeightBank<double> bank;
      bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, block == Block::transformer);
      Model<double> m;
      m.configure(cfg, Arch::ngpt, bank);
      // The field's alpha in every channel at init; the stored value 1 / sqrt(d).
      for (int k = 1; k <= m.units(); ++k)
        for (int i = 0; i < cfg.width; ++i) {
          CHECK(m.unit_at(k).alpha(i) == Approx(1.0 / std::sqrt(double(cfg.width))).epsilon(1e-15));
          CHECK(m.unit_at(k).step(i) == Approx(0.2).epsilon(1e-14));
        }
      NormalRng rng(stream_key({830, uint64_t(block)}));
      for (int k = 1; k <= m.units(); ++k)
        for (int i = 0; i < cfg.width; ++i) m.unit_at(k).alpha(i) *= 1.0 + 0.5 * rng.normal();
      m.forward();
      const int T = cfg.tokens, d = cfg.width;
      for (int k = 1; k <= m.units(); ++k) {
        const Unit<double>& u = m.unit_at(k);
        const double* hin = m.stream(k - 1);
        const double* hout = m.stream(k);
        for (int t = 0; t < T; ++t) {
          // Every token's stream after the unit has norm 1.
          double sq = 0;
          for (int i = 0; i < d; ++i) sq += hout[t * d + i] * hout[t * d + i];
          CHECK(std::sqrt(sq) == Approx(1.0).epsilon(1e-15));
          // a = Norm(h), b = Norm(f(a)), recomputed here.
          double na = 0, nb = 0;
          for (int i = 0; i < d; ++i) {
            na += hin[t * d + i] * hin[t * d + i];
            nb += u.branch_raw(t, i) * u.branch_raw(t, i);
          }
          na = std::sqrt(na);
          nb = std::sqrt(nb);
          std::vector<double> sum(d);
          double ns = 0;
          for (int i = 0; i < d; ++i) {
            const double a = hin[t * d + i] / na, b = u.branch_raw(t, i) / nb;
            const double alpha = std::abs(u.alpha(i)) * 0.2 * std::sqrt(double(d));
            sum[i] = a + alpha * (b - a);
            ns += sum[i] * sum[i];
          }
          for (int i = 0; i < d; ++i) CHECK(hout[t * d + i] == Approx(sum[i] / std::sqrt(ns)).epsilon(1e-13));
        }
      }
      // The update ratio is ||alpha (b - a)|| / ||a||.
      m.backward();
      const ArchResult res = m.result();
      for (double r : res.update_ratio) CHECK((r > 0 && std::isfinite(r)));
    }
  }
}

TEST_CASE("ngpt: the simulation's alpha, s_qk and s_v of every unit and the input equal central differences",
          "[ngpt][gradients][simulation]") {
  for (Block block : {Block::transformer, Block::mlp})
    for (bool causal : {true, false}) {
      if (block == Block::mlp && !causal) continue;
      DYNAMIC_SECTION(name(block) << " causal=" << causal) {
        Config cfg = test::small_transformer();
        cfg.block = block;
        cfg.causal = causal;
        cfg.activation = Activation::gelu;
        WeightBank<double> bank;
        bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, block == Block::transformer);
        Model<double> m;
        m.configure(cfg, Arch::ngpt, bank);
        const double root_d = std::sqrt(double(cfg.width));
        NormalRng rng(stream_key({840, uint64_t(block), uint64_t(causal)}));
        for (int k = 1; k <= m.units(); ++k)
          for (int i = 0; i < cfg.width; ++i) m.unit_at(k).alpha(i) = (4.0 + rng.normal()) / root_d;
        for (int l = 1; l <= cfg.depth; ++l) {
          for (int j = 0; j < m.mlp(l).sv.size(); ++j) m.mlp(l).sv(j) = 1.0 + 0.3 * rng.normal();
          if (block == Block::transformer)
            for (int i = 0; i < cfg.width; ++i) m.attention(l).sqk(i) = (1.0 + 0.3 * rng.normal()) / root_d;
        }
        m.forward();
        m.backward();
        const long n = long(cfg.tokens) * cfg.width;
        const std::vector<double> dh0(m.dstream(0), m.dstream(0) + n);
        std::vector<std::vector<double>> dalpha, dsv, dsqk;
        for (int k = 1; k <= m.units(); ++k) dalpha.push_back(copy_of(m.unit_at(k).dalpha));
        for (int l = 1; l <= cfg.depth; ++l) {
          dsv.push_back(copy_of(m.mlp(l).dsv));
          if (block == Block::transformer) dsqk.push_back(copy_of(m.attention(l).dsqk));
        }
        fd::Report report(std::string("ngpt simulation ") + name(block) + " causal=" + std::to_string(causal));
        auto loss = [&] { return m.forward(); };
        check_fd(report, m.input().data(), n, dh0, loss, "dh_0");
        for (int k = 1; k <= m.units(); ++k)
          check_fd(report, m.unit_at(k).alpha.data(), cfg.width, dalpha[k - 1], loss,
                   "dalpha[unit " + std::to_string(k) + "]");
        for (int l = 1; l <= cfg.depth; ++l) {
          check_fd(report, m.mlp(l).sv.data(), m.mlp(l).sv.size(), dsv[l - 1], loss, "ds_v[" + std::to_string(l) + "]");
          if (block == Block::transformer)
            check_fd(report, m.attention(l).sqk.data(), cfg.width, dsqk[l - 1], loss,
                     "ds_qk[" + std::to_string(l) + "]");
        }
      }
    }
}

TEST_CASE("ngpt: the path terms sum to the whole gradient", "[ngpt][paths]") {
  Config cfg = test::small_transformer();
  cfg.depth = 2;
  WeightBank<double> bank;
  bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, true);
  Model<double> m;
  m.configure(cfg, Arch::ngpt, bank);
  m.forward();
  m.backward();
  const long n = long(cfg.tokens) * cfg.width;
  const int U = m.units();
  std::vector<double> total(n, 0.0);
  std::vector<char> mask(U);
  for (int s = 0; s < (1 << U); ++s) {
    for (int k = 0; k < U; ++k) mask[k] = (s >> k) & 1;
    REQUIRE(std::isfinite(m.backward_path(mask)));
    for (long i = 0; i < n; ++i) total[i] += m.path_gradient()[i];
  }
  for (long i = 0; i < n; ++i) CHECK(total[i] == Approx(m.dstream(0)[i]).epsilon(1e-10).margin(1e-13));
}

TEST_CASE("ngpt: the training network's every parameter, s_z and alpha among them, equals central differences",
          "[ngpt][network][gradients]") {
  for (Task task : {Task::copy, Task::teacher})
    for (Block block : {Block::transformer, Block::mlp}) {
      DYNAMIC_SECTION(name(task) << " " << name(block)) {
        TrainConfig tc = tiny_train_config(task);
        tc.block = block;
        tc.batch = 2;
        tc.eval_batches = 1;
        tc.activation = Activation::gelu;
        TaskData data(tc);
        Network<double> net(tc, Arch::ngpt, data);
        NormalRng rng(stream_key({850, uint64_t(task), uint64_t(block)}));
        const double root_d = std::sqrt(double(tc.width));
        int news = 0;
        for (Param<double>& p : net.params()) {
          if (p.name.rfind("ngpt_alpha", 0) == 0)
            for (long i = 0; i < p.n; ++i) p.w[i] = (4.0 + rng.normal()) / root_d;
          if (p.name.rfind("s_qk", 0) == 0 || p.name == "s_z")
            for (long i = 0; i < p.n; ++i) p.w[i] = (1.0 + 0.3 * rng.normal()) / root_d;
          if (p.name.rfind("s_v", 0) == 0)
            for (long i = 0; i < p.n; ++i) p.w[i] = 1.0 + 0.3 * rng.normal();
          news += p.name.rfind("ngpt_alpha", 0) == 0 || p.name.rfind("s_", 0) == 0;
        }
        const int P = block == Block::transformer ? 2 : 1;
        CHECK(news == tc.depth * P + tc.depth * P + (task == Task::copy ? 1 : 0));  // alpha per unit; s_v, s_qk; s_z
        const Batch batch = data.train_batch(0);
        net.run(batch, true);
        auto loss = [&] { return net.run(batch, false); };
        fd::Report report(std::string("ngpt network ") + name(task) + " " + name(block));
        for (Param<double>& p : net.params()) {
          const std::vector<double> g(p.g, p.g + p.n);
          const bool one_key = task == Task::teacher && (p.name.rfind("W_Q", 0) == 0 || p.name.rfind("W_K", 0) == 0 ||
                                                         p.name.rfind("s_qk", 0) == 0);
          if (one_key)  // a teacher example is a sequence of one token: exactly 0 on both sides
            for (long i = 0; i < p.n; ++i) CHECK(p.g[i] == 0.0);
          check_fd(report, p.w, p.n, g, loss, p.name, !one_key);
        }
      }
    }
}

TEST_CASE("ngpt: every weight vector along the embedding dimension has unit norm at init and after every step",
          "[ngpt][trainer]") {
  for (Block block : {Block::transformer, Block::mlp}) {
    DYNAMIC_SECTION(name(block)) {
      TrainConfig tc = tiny_train_config();
      tc.block = block;
      tc.steps = 6;
      tc.lr = 1e-2;
      Trainer<float> t;
      REQUIRE(t.configure(tc, Arch::ngpt).ok());
      auto check_units = [&](const char* when) {
        int sphere = 0;
        for (const Param<float>& p : t.network().params()) {
          if (p.unit == UnitAxis::none) continue;
          ++sphere;
          INFO(when << " " << p.name);
          CHECK(p.n % p.cols == 0);
          CHECK(unit_error(p.w, p.n / p.cols, p.cols, p.unit == UnitAxis::rows) < 1e-6);
        }
        // embedding, positions, unembedding, W1, W2 and (transformer) W_Q, W_K, W_V, W_O per block
        CHECK(sphere == 3 + tc.depth * (block == Block::transformer ? 6 : 2));
      };
      check_units("init");
      for (int s = 0; s < tc.steps; ++s) {
        const std::vector<TrainLog> logs = t.step(1);
        REQUIRE(logs.size() == (size_t(s + 1) % size_t(tc.log_every) == 0 || s + 1 == tc.steps ? 1u : 0u));
        check_units("after a step");
      }
      // Which vectors: W_Q's columns, W_O's rows, the unembedding's columns, the embedding's rows.
      for (const Param<float>& p : t.network().params()) {
        if (p.name.rfind("W_Q[", 0) == 0 || p.name.rfind("W1[", 0) == 0 || p.name == "unembedding")
          CHECK(p.unit == UnitAxis::cols);
        if (p.name.rfind("W_O[", 0) == 0 || p.name.rfind("W2[", 0) == 0 || p.name == "embedding")
          CHECK(p.unit == UnitAxis::rows);
        if (p.name.rfind("ngpt_alpha", 0) == 0 || p.name.rfind("s_", 0) == 0) {
          CHECK(p.unit == UnitAxis::none);
          CHECK(!p.matrix);
        }
      }
    }
  }
  // Another architecture keeps its weights where the optimizer puts them.
  Trainer<float> pre;
  REQUIRE(pre.configure(tiny_train_config(), Arch::pre_ln).ok());
  for (const Param<float>& p : pre.network().params()) CHECK(p.unit == UnitAxis::none);
}

TEST_CASE("ngpt: no weight decay on its matrices, and its new parameters saved and restored",
          "[ngpt][trainer][state]") {
  TrainConfig tc = tiny_train_config();
  tc.steps = 20;
  tc.log_every = 5;
  TrainConfig decayed = tc;
  decayed.weight_decay = 0.1;  // adam's L2 on matrices: nGPT's matrices take none
  Trainer<float> a, b, c;
  REQUIRE(a.configure(tc, Arch::ngpt).ok());
  REQUIRE(b.configure(decayed, Arch::ngpt).ok());
  test::check_same_logs(a.step(10), b.step(10));
  // Pre-LN's matrices do take it.
  Trainer<float> p0, p1;
  REQUIRE(p0.configure(tc, Arch::pre_ln).ok());
  REQUIRE(p1.configure(decayed, Arch::pre_ln).ok());
  CHECK(p0.step(5).back().train_loss != p1.step(5).back().train_loss);

  auto values = [](Trainer<float>& t, const std::string& prefix) {
    std::vector<float> v;
    for (const Param<float>& p : t.network().params())
      if (p.name.rfind(prefix, 0) == 0) v.insert(v.end(), p.w, p.w + p.n);
    return v;
  };
  REQUIRE(c.load(a.state()).ok());
  for (const char* prefix : {"ngpt_alpha", "s_qk", "s_v", "s_z", "W_Q[1]", "embedding"}) {
    INFO(prefix);
    CHECK(!values(a, prefix).empty());
    CHECK(values(c, prefix) == values(a, prefix));
  }
  // The new parameters trained away from their init.
  Trainer<float> fresh;
  REQUIRE(fresh.configure(tc, Arch::ngpt).ok());
  for (const char* prefix : {"ngpt_alpha", "s_qk", "s_v", "s_z"}) CHECK(values(a, prefix) != values(fresh, prefix));
  test::check_same_logs(a.step(10), c.step(10));
}

TEST_CASE("ngpt: alpha's init is the ngpt_alpha field's, in range 0.001..1", "[ngpt][config]") {
  Config cfg;
  cfg.archs = {Arch::ngpt};
  CHECK(cfg.ngpt_alpha == 0.05);
  CHECK(set_field(cfg, "ngpt_alpha", "0.3").ok());
  CHECK(cfg.ngpt_alpha == 0.3);
  const Status bad = set_field(cfg, "ngpt_alpha", "2");
  CHECK(!bad.ok());
  CHECK(bad.message == "ngpt_alpha: '2' is out of range (allowed 0.001..1)");
  INFO(config_json(cfg));
  CHECK(config_json(cfg).find("\"ngpt_alpha\"") != std::string::npos);
  cfg.archs = {Arch::pre_ln};
  CHECK(config_json(cfg).find("ngpt_alpha") == std::string::npos);
  TrainConfig tc = tiny_train_config();
  REQUIRE(set_train_field(tc, "ngpt_alpha", "0.1").ok());
  CHECK(stack_config(tc, Arch::ngpt, 4).ngpt_alpha == 0.1);
  Trainer<float> t;
  REQUIRE(t.configure(tc, Arch::ngpt).ok());
  for (int k = 1; k <= t.network().stack().units(); ++k)
    CHECK(double(t.network().stack().unit_at(k).step(0)) == Approx(0.1).epsilon(1e-6));
}
