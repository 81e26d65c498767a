// Every gradient the engine reports against central finite differences, in
// double, for every preset x activation x final norm x init.
//
// Tolerance: per tensor, max|analytic - fd| / max|fd| < 1e-6. With step
// 1e-5 the central difference has truncation error ~1e-10 and round-off
// ~1e-11 relative to an O(1) loss, so 1e-6 leaves room only for real bugs.
// ReLU is not differentiable at 0: an element whose +-step flips any ReLU
// unit is skipped (and counted; the test requires almost none to be).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <functional>

#include "resnorm/model.h"
#include "resnorm/rng.h"

using namespace resnorm;

namespace {

constexpr double kStep = 1e-5;
constexpr double kTol = 1e-6;

struct Fixture {
  Config cfg;
  Arch arch;
  WeightBank<double> bank;
  Model<double> model;

  Fixture(Config c, Arch a) : cfg(std::move(c)), arch(a) {
    bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth);
    model.configure(cfg, arch, bank);
    // Non-trivial gamma and beta, so their part of each backward formula is exercised.
    NormalRng rng(stream_key({77, uint64_t(arch)}));
    auto randomize = [&](Norm<double>& n) {
      if (n.kind == NormKind::none) return;
      for (int i = 0; i < n.gamma.size(); ++i) n.gamma(i) = 1.0 + 0.3 * rng.normal();
      if (n.kind == NormKind::layernorm)
        for (int i = 0; i < n.beta.size(); ++i) n.beta(i) = 0.2 * rng.normal();
    };
    for (int l = 1; l <= cfg.depth; ++l) {
      randomize(model.unit(l).in);
      randomize(model.unit(l).out);
      randomize(model.unit(l).outer);
    }
    randomize(model.final_norm());
  }

  std::vector<char> relu_pattern() {
    std::vector<char> v;
    if (cfg.activation != Activation::relu) return v;
    for (int l = 1; l <= cfg.depth; ++l) {
      const Mat<double>& p = model.mlp(l).pre;
      for (long i = 0; i < p.size(); ++i) v.push_back(p.data()[i] > 0);
    }
    return v;
  }
};

struct Check {
  double max_diff = 0, max_ref = 0;
  int skipped = 0, checked = 0;
  double rel() const { return max_ref > 0 ? max_diff / max_ref : max_diff; }
};

// Central difference of `loss` over parameter *x against `analytic`.
void fd_element(Fixture& fx, double* x, double analytic, const std::function<double()>& loss,
                const std::vector<char>& base_pattern, Check& c) {
  const double saved = *x;
  *x = saved + kStep;
  const double lp = loss();
  const bool same_p = fx.relu_pattern() == base_pattern;
  *x = saved - kStep;
  const double lm = loss();
  const bool same_m = fx.relu_pattern() == base_pattern;
  *x = saved;
  if (!same_p || !same_m) {
    ++c.skipped;
    return;
  }
  const double fd = (lp - lm) / (2 * kStep);
  c.max_diff = std::max(c.max_diff, std::abs(fd - analytic));
  c.max_ref = std::max(c.max_ref, std::abs(fd));
  ++c.checked;
}

void check_model(Fixture& fx) {
  Model<double>& m = fx.model;
  const int L = fx.cfg.depth;
  const long n = static_cast<long>(fx.cfg.tokens) * fx.cfg.width;
  m.forward();
  m.backward(true);
  const std::vector<char> pattern = fx.relu_pattern();
  auto full_loss = [&] { return m.forward(); };

  // Copies of everything analytic before the finite differences overwrite caches.
  std::vector<std::vector<double>> dh(L + 1);
  for (int l = 0; l <= L; ++l) dh[l].assign(m.dh(l), m.dh(l) + n);
  std::vector<Mat<double>> dW1(L + 1), dW2(L + 1);
  std::vector<double> w1_norm(L + 1), w2_norm(L + 1);
  for (int l = 1; l <= L; ++l) {
    dW1[l] = m.mlp(l).dW1 * m.mlp(l).weights.s1;  // dloss/dB1 = s1 dloss/dW1
    dW2[l] = m.mlp(l).dW2 * m.mlp(l).weights.s2;
    w1_norm[l] = std::sqrt(m.mlp(l).w1_grad_sq);
    w2_norm[l] = std::sqrt(m.mlp(l).w2_grad_sq);
    // The reported norms (Gram trick) equal the norms of the materialized gradients.
    CHECK(w1_norm[l] == Approx(m.mlp(l).dW1.norm()).epsilon(1e-10));
    CHECK(w2_norm[l] == Approx(m.mlp(l).dW2.norm()).epsilon(1e-10));
  }

  // Stream gradients dloss/dh_l, l = 0..L.
  for (int l = 0; l <= L; ++l) {
    Check c;
    std::vector<double> hl(m.h(l), m.h(l) + n);
    for (long i = 0; i < n; ++i) {
      auto loss = [&] { return l == 0 ? m.forward() : m.forward_from(l, hl.data()); };
      if (l == 0)
        fd_element(fx, m.input().data() + i, dh[l][i], loss, pattern, c);
      else
        fd_element(fx, hl.data() + i, dh[l][i], loss, pattern, c);
    }
    m.forward();
    INFO("dh[" << l << "] max diff " << c.max_diff << " rel " << c.rel() << " skipped " << c.skipped);
    CHECK(c.rel() < kTol);
    CHECK(c.skipped * 20 <= c.checked + c.skipped);
  }

  // Weights: perturb the base matrices in the bank the model reads.
  for (int l = 1; l <= L; ++l) {
    for (int which = 1; which <= 2; ++which) {
      Mat<double>& B = which == 1 ? fx.bank.mutable_layer(l).B1 : fx.bank.mutable_layer(l).B2;
      const Mat<double>& G = which == 1 ? dW1[l] : dW2[l];
      Check c;
      for (long i = 0; i < B.size(); ++i) fd_element(fx, B.data() + i, G.data()[i], full_loss, pattern, c);
      INFO("dW" << which << "[" << l << "] max diff " << c.max_diff << " rel " << c.rel() << " skipped " << c.skipped);
      CHECK(c.rel() < kTol);
      CHECK(c.skipped * 20 <= c.checked + c.skipped);
    }
  }

  // gamma and beta of every norm.
  auto check_norm = [&](Norm<double>& nm, const char* what, int l) {
    if (nm.kind == NormKind::none) return;
    Vecx<double> dg = nm.dgamma, db = nm.dbeta;
    Check cg, cb;
    for (int i = 0; i < nm.gamma.size(); ++i) fd_element(fx, &nm.gamma(i), dg(i), full_loss, pattern, cg);
    INFO(what << "[" << l << "].dgamma max diff " << cg.max_diff << " rel " << cg.rel());
    CHECK(cg.rel() < kTol);
    if (nm.kind == NormKind::layernorm) {
      for (int i = 0; i < nm.beta.size(); ++i) fd_element(fx, &nm.beta(i), db(i), full_loss, pattern, cb);
      INFO(what << "[" << l << "].dbeta max diff " << cb.max_diff << " rel " << cb.rel());
      CHECK(cb.rel() < kTol);
    }
  };
  for (int l = 1; l <= L; ++l) {
    check_norm(m.unit(l).in, "in", l);
    check_norm(m.unit(l).out, "out", l);
    check_norm(m.unit(l).outer, "outer", l);
  }
  check_norm(m.final_norm(), "final", L);
}

}  // namespace

TEST_CASE("every gradient equals a central finite difference", "[gradients]") {
  for (Arch arch : all_archs())
    for (Activation act : {Activation::relu, Activation::gelu, Activation::tanh, Activation::linear})
      for (NormKind fn : {NormKind::none, NormKind::layernorm, NormKind::rmsnorm})
        for (Init init : {Init::gaussian, Init::orthogonal}) {
          Config cfg;
          cfg.depth = 4;
          cfg.width = 6;
          cfg.expansion = 2;  // m = 12
          cfg.tokens = 3;
          cfg.gain = 0.9;
          cfg.activation = act;
          cfg.final_norm = fn;
          cfg.init = init;
          cfg.seed = 11;
          DYNAMIC_SECTION(name(arch) << " " << name(act) << " final=" << name(fn) << " " << name(init)) {
            Fixture fx(cfg, arch);
            check_model(fx);
          }
        }
}
