// The stack's backward (model.cpp): every gradient the engine reports against
// central finite differences in double (fd.h), for MLP stacks in every
// architecture x activation x final norm x init, and for transformer blocks.
//
// One exception, rank collapse: a `plain` stack with non-causal attention
// averages its tokens into one (pure attention loses rank doubly
// exponentially, Dong et al. 2021), after which the softmax is flat in the
// scores and W_Q, W_K get gradients of ~1e-11 by block 3. A central
// difference of an O(1) loss cannot resolve those (its round-off is ~1e-16 /
// 1e-5 = 1e-11), so there, and only there, a tensor also passes with
// max|analytic - fd| < kFloor. Any other stack needing the floor fails.
// Likewise the Gram-trick norm of attention stacks carries an absolute error
// ~sqrt(eps) ||x|| ||dQ|| (the squared norm is a difference of
// O(||x||^2 ||dQ||^2) terms), so there it is compared with the materialized
// norm to 1e-10 relative or 1e-9 absolute; MLP stacks get no margin.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fd.h"
#include "helpers.h"
#include "resnorm/model.h"
#include "resnorm/recipes.h"
#include "resnorm/rng.h"

using namespace resnorm;

namespace {

constexpr double kFloor = 1e-10;  // absolute, round-off of the central difference
constexpr double kGramMargin = 1e-9;

// A double model of cfg with non-trivial gamma and beta in every norm, gates
// away from their init (ReZero's 0 would hide every branch) and dense
// averaging weights away from the identity, so their part of each backward
// formula is exercised.
struct StackFixture {
  Config cfg;
  Arch arch;
  WeightBank<double> bank;
  Model<double> model;

  StackFixture(Config c, Arch a, uint64_t norm_seed) : cfg(std::move(c)), arch(a) {
    bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, cfg.block == Block::transformer);
    model.configure(cfg, arch, bank);
    NormalRng rng(stream_key({norm_seed, uint64_t(arch)}));
    auto randomize = [&](Norm<double>& n) {
      if (n.kind == NormKind::none) return;
      for (int i = 0; i < n.gamma.size(); ++i) n.gamma(i) = 1.0 + 0.3 * rng.normal();
      if (n.kind == NormKind::layernorm || n.kind == NormKind::dyt)
        for (int i = 0; i < n.beta.size(); ++i) n.beta(i) = 0.2 * rng.normal();
      // DyT's alpha away from its init, so a wrong alpha in dx or dgamma shows.
      if (n.kind == NormKind::dyt) n.alpha(0) = 0.7 + 0.2 * rng.normal();
    };
    for (int k = 1; k <= model.units(); ++k) {
      randomize(model.unit_at(k).in);
      randomize(model.unit_at(k).out);
      randomize(model.unit_at(k).outer);
    }
    randomize(model.final_norm());
    for (int k = 1; k <= model.units(); ++k) {
      Unit<double>& u = model.unit_at(k);
      for (int i = 0; i < u.gate.size(); ++i) u.gate(i) = 0.7 + 0.3 * rng.normal();
    }
    for (int l = 1; model.dense() && l <= cfg.depth; ++l)
      for (int j = 0; j <= l; ++j) model.mix_row(l)[j] = (j == l ? 1.0 : 0.0) + 0.3 * rng.normal();
    // Hyper-Connections' weights away from their init (HC) and mHC's logits
    // of order 1, so every stream differs and the Sinkhorn iterations work.
    for (int k = 1; model.hyper_on() && k <= model.units(); ++k) {
      Hyper<double>& hc = model.hyper();
      const int n = hc.n();
      for (int i = 0; i < n; ++i) {
        hc.read_param(k)[i] += 0.3 * rng.normal();
        hc.write_param(k)[i] += 0.3 * rng.normal();
        for (int j = 0; j < n; ++j)
          hc.res_param(k)[i * n + j] =
              (hc.kind() == HyperKind::mhc ? 0.0 : hc.res_param(k)[i * n + j]) + 0.3 * rng.normal();
      }
      if (hc.kind() == HyperKind::mhc)
        for (int i = 0; i < n; ++i) hc.read_param(k)[i] = 0.5 * rng.normal();
    }
    // Attention Residuals' queries away from 0 (where every gain's gradient is 0) and gains away from 1.
    for (int k = 1; model.has_attn_res() && k <= model.units(); ++k)
      for (int i = 0; i < cfg.width; ++i) {
        model.attn_res().query(k)[i] = 0.4 * rng.normal();
        model.attn_res().gain(k)[i] = 1.0 + 0.3 * rng.normal();
      }
    // nGPT's alpha of about 0.2 (four times its init, each channel its own), s_qk and s_v away from 1.
    const double root_d = std::sqrt(double(cfg.width));
    for (int k = 1; k <= model.units(); ++k) {
      Unit<double>& u = model.unit_at(k);
      for (int i = 0; i < u.alpha.size(); ++i) u.alpha(i) = (4.0 + rng.normal()) / root_d;
    }
    for (int l = 1; l <= cfg.depth; ++l) {
      Mlp<double>& f = model.mlp(l);
      for (int i = 0; i < f.sv.size(); ++i) f.sv(i) = 1.0 + 0.3 * rng.normal();
      if (cfg.block != Block::transformer) continue;
      Attention<double>& a = model.attention(l);
      for (int i = 0; i < a.sqk.size(); ++i) a.sqk(i) = (1.0 + 0.3 * rng.normal()) / root_d;
    }
  }

  // Which ReLU units of every MLP are on (empty for other activations).
  std::vector<char> relu_pattern() {
    std::vector<char> v;
    if (cfg.activation != Activation::relu) return v;
    for (int l = 1; l <= cfg.depth; ++l) {
      const Workspace<double>& p = model.mlp(l).pre;
      for (long i = 0; i < p.size(); ++i) v.push_back(p.data()[i] > 0);
    }
    return v;
  }
};

std::string label(const StackFixture& fx) {
  std::ostringstream s;
  s << name(fx.arch) << " " << name(fx.cfg.activation) << " final=" << name(fx.cfg.final_norm) << " "
    << name(fx.cfg.init);
  if (fx.cfg.block == Block::transformer) s << " heads=" << fx.cfg.heads << " causal=" << fx.cfg.causal;
  return s.str();
}

void check_stack(StackFixture& fx) {
  fd::Report report(label(fx));
  Model<double>& m = fx.model;
  const bool transformer = fx.cfg.block == Block::transformer;
  const int L = fx.cfg.depth, U = m.units();
  if (transformer) REQUIRE(U == 2 * L);
  const long n = static_cast<long>(fx.cfg.tokens) * fx.cfg.width;
  m.forward();
  m.backward(true);
  const std::vector<char> pattern = fx.relu_pattern();
  const fd::SamePiece same_piece = [&] { return fx.relu_pattern() == pattern; };
  auto full_loss = [&] { return m.forward(); };
  const bool collapse_allowed = transformer && fx.arch == Arch::plain && !fx.cfg.causal;
  auto passes = [&](const fd::Check& c) {
    if (c.rel() < fd::kTol) return true;
    const bool floor = c.max_diff < kFloor;
    if (floor) CHECK(collapse_allowed);  // the floor is for rank collapse only
    return floor;
  };

  // Analytic values, copied before the finite differences overwrite caches;
  // d loss / d B = s d loss / d W for W = s B.
  std::vector<std::vector<double>> ds(U + 1);
  for (int k = 0; k <= U; ++k) ds[k].assign(m.dstream(k), m.dstream(k) + n);
  struct Grads {
    Mat<double> q, k, v, o, w1, w2;
  };
  std::vector<Grads> g(L + 1);
  const double margin = transformer ? kGramMargin : 0.0;
  for (int l = 1; l <= L; ++l) {
    Mlp<double>& f = m.mlp(l);
    g[l].w1 = f.dW1 * f.weights.s1;
    g[l].w2 = f.dW2 * f.weights.s2;
    // The reported norms (Gram trick) equal the norms of the materialized gradients.
    if (transformer) {
      Attention<double>& a = m.attention(l);
      g[l].q = a.dWq * a.weights.sq;
      g[l].k = a.dWk * a.weights.sk;
      g[l].v = a.dWv * a.weights.sv;
      g[l].o = a.dWo * a.weights.so;
      CHECK(std::sqrt(a.wq_grad_sq) == Approx(a.dWq.norm()).epsilon(1e-10).margin(kGramMargin));
      CHECK(std::sqrt(a.wk_grad_sq) == Approx(a.dWk.norm()).epsilon(1e-10).margin(kGramMargin));
      CHECK(std::sqrt(a.wv_grad_sq) == Approx(a.dWv.norm()).epsilon(1e-10).margin(kGramMargin));
      CHECK(std::sqrt(a.wo_grad_sq) == Approx(a.dWo.norm()).epsilon(1e-10).margin(kGramMargin));
    }
    CHECK(std::sqrt(f.w1_grad_sq) == Approx(f.dW1.norm()).epsilon(1e-10).margin(margin));
    CHECK(std::sqrt(f.w2_grad_sq) == Approx(f.dW2.norm()).epsilon(1e-10).margin(margin));
  }

  // The stream gradient at every unit boundary: the block boundaries (reached
  // through forward_from() in MLP stacks, where they are all the boundaries)
  // and, in transformer blocks, the stream between attention and the MLP.
  for (int k = 0; k <= U; ++k) {
    std::vector<double> hk(m.stream(k), m.stream(k) + n);
    auto loss = [&] {
      if (k == 0) return m.forward();
      return transformer ? m.forward_from_unit(k, hk.data()) : m.forward_from(k, hk.data());
    };
    double* x = k == 0 ? m.input().data() : hk.data();
    const std::string what = "dstream[" + std::to_string(k) + "]";
    const fd::Check c = report.add(what, fd::tensor(x, n, ds[k].data(), loss, same_piece));
    m.forward();
    INFO(c.line(what));
    CHECK(passes(c));
    CHECK(c.few_skipped());
  }

  // Weights: perturb the base matrices in the bank the model reads.
  for (int l = 1; l <= L; ++l) {
    MlpBase<double>& mb = fx.bank.mutable_layer(l);
    std::vector<std::pair<const char*, std::pair<Mat<double>*, const Mat<double>*>>> mats;
    if (transformer) {
      AttnBase<double>& ab = fx.bank.mutable_attention_layer(l);
      mats = {{"W_Q", {&ab.Bq, &g[l].q}},
              {"W_K", {&ab.Bk, &g[l].k}},
              {"W_V", {&ab.Bv, &g[l].v}},
              {"W_O", {&ab.Bo, &g[l].o}}};
    }
    mats.push_back({"W1", {&mb.B1, &g[l].w1}});
    mats.push_back({"W2", {&mb.B2, &g[l].w2}});
    for (const auto& [w, pg] : mats) {
      const std::string what = std::string("d") + w + "[" + std::to_string(l) + "]";
      const fd::Check c =
          report.add(what, fd::tensor(pg.first->data(), pg.first->size(), pg.second->data(), full_loss, same_piece));
      INFO(c.line(what));
      CHECK(passes(c));
      CHECK(c.few_skipped());
    }
  }

  // gamma and beta of every norm of every unit, and the final norm.
  auto check_norm = [&](Norm<double>& nm, const char* where, int k) {
    if (nm.kind == NormKind::none) return;
    Vecx<double> dg = nm.dgamma.map(), db = nm.dbeta.map();
    const std::string at = std::string(where) + "[unit " + std::to_string(k) + "]";
    const fd::Check cg =
        report.add(at + ".dgamma", fd::tensor(nm.gamma.data(), nm.gamma.size(), dg.data(), full_loss, same_piece));
    INFO(cg.line(at + ".dgamma"));
    CHECK(passes(cg));
    if (nm.kind == NormKind::layernorm || nm.kind == NormKind::dyt) {
      const fd::Check cb =
          report.add(at + ".dbeta", fd::tensor(nm.beta.data(), nm.beta.size(), db.data(), full_loss, same_piece));
      INFO(cb.line(at + ".dbeta"));
      CHECK(passes(cb));
    }
    if (nm.kind == NormKind::dyt) {
      const double da = nm.dalpha(0);
      const fd::Check ca = report.add(at + ".dalpha", fd::tensor(nm.alpha.data(), 1, &da, full_loss, same_piece));
      INFO(ca.line(at + ".dalpha"));
      CHECK(passes(ca));
    }
  };
  for (int k = 1; k <= U; ++k) {
    check_norm(m.unit_at(k).in, "in", k);
    check_norm(m.unit_at(k).out, "out", k);
    check_norm(m.unit_at(k).outer, "outer", k);
  }
  check_norm(m.final_norm(), "final", U);

  // Every gate (ReZero's alpha, LayerScale's lambda) and dense averaging weight.
  auto check_params = [&](double* w, long size, const std::vector<double>& analytic, const std::string& what) {
    const fd::Check c = report.add(what, fd::tensor(w, size, analytic.data(), full_loss, same_piece));
    INFO(c.line(what));
    CHECK(passes(c));
    CHECK(c.few_skipped());
  };
  for (int k = 1; k <= U; ++k) {
    Unit<double>& u = m.unit_at(k);
    if (u.wrap.gate == Gate::none) continue;
    check_params(u.gate.data(), u.gate.size(), std::vector<double>(u.dgate.data(), u.dgate.data() + u.dgate.size()),
                 "dgate[unit " + std::to_string(k) + "]");
  }
  for (int l = 1; m.dense() && l <= L; ++l)
    check_params(m.mix_row(l), l + 1, std::vector<double>(m.dmix_row(l), m.dmix_row(l) + l + 1),
                 "dmix[" + std::to_string(l) + "]");
  // Hyper-Connections' read, mix and write weights of every unit (mHC: their
  // logits, through sigmoid and the Sinkhorn iterations).
  using S_vec = std::vector<double>;
  for (int k = 1; m.hyper_on() && k <= U; ++k) {
    Hyper<double>& hc = m.hyper();
    const long nn = long(hc.n()) * hc.n();
    const std::string at = "[unit " + std::to_string(k) + "]";
    // Gradients that vanish by the stack's symmetry, of the size of round-off,
    // are held to an absolute 1e-9 instead of a ratio of two round-offs: unit 1
    // reads n copies of h_0, x = (sum_j a_j) h_0, into LayerNorm, invariant to
    // x's scale up to its eps, so d loss / d a vanishes there; mHC's mix has
    // columns that sum to 1 to rounding, so it reaches the top (the streams'
    // mean) only through the later units' reads, none at the last unit, and at
    // unit 1 it acts on equal streams through row sums that are 1 up to the
    // iterations' gap: its gradients are small, down to round-off. (HC's mix,
    // the same dM, passes at 1e-6 relative everywhere, and the Sinkhorn
    // backward alone in test_hyper.cpp.)
    const bool mhc = hc.kind() == HyperKind::mhc;
    auto check_vanishing = [&](double* w, long size, const S_vec& analytic, const std::string& what) {
      const fd::Check c = report.add(what, fd::tensor(w, size, analytic.data(), full_loss, same_piece));
      INFO(c.line(what));
      CHECK((c.rel() < fd::kTol || c.max_diff < 1e-9));
    };
    const S_vec dread(hc.dread_param(k), hc.dread_param(k) + hc.n());
    const S_vec dres(hc.dres_param(k), hc.dres_param(k) + nn);
    if (k == 1)
      check_vanishing(hc.read_param(k), hc.n(), dread, "dread" + at);
    else
      check_params(hc.read_param(k), hc.n(), dread, "dread" + at);
    if (mhc)
      check_vanishing(hc.res_param(k), nn, dres, "dres" + at);
    else
      check_params(hc.res_param(k), nn, dres, "dres" + at);
    check_params(hc.write_param(k), hc.n(), std::vector<double>(hc.dwrite_param(k), hc.dwrite_param(k) + hc.n()),
                 "dwrite" + at);
  }
  // nGPT: every unit's alpha_s, every MLP's s_v, every attention's s_qk.
  auto copy = [](const VecWorkspace<double>& v) { return std::vector<double>(v.data(), v.data() + v.size()); };
  std::vector<std::vector<double>> dalpha(U + 1), dsv(L + 1), dsqk(L + 1);
  for (int k = 1; k <= U; ++k) dalpha[k] = copy(m.unit_at(k).dalpha);
  for (int l = 1; l <= L; ++l) {
    dsv[l] = copy(m.mlp(l).dsv);
    if (transformer) dsqk[l] = copy(m.attention(l).dsqk);
  }
  for (int k = 1; k <= U; ++k)
    if (m.unit_at(k).alpha.size() > 0)
      check_params(m.unit_at(k).alpha.data(), m.unit_at(k).alpha.size(), dalpha[k],
                   "ngpt dalpha[unit " + std::to_string(k) + "]");
  for (int l = 1; l <= L; ++l) {
    if (m.mlp(l).sv.size() > 0)
      check_params(m.mlp(l).sv.data(), m.mlp(l).sv.size(), dsv[l], "ngpt ds_v[" + std::to_string(l) + "]");
    if (transformer && m.attention(l).sqk.size() > 0)
      check_params(m.attention(l).sqk.data(), m.attention(l).sqk.size(), dsqk[l],
                   "ngpt ds_qk[" + std::to_string(l) + "]");
  }
  const int d = fx.cfg.width;
  for (int k = 1; m.has_attn_res() && k <= U; ++k) {
    AttnRes<double>& ar = m.attn_res();
    check_params(ar.query(k), d, std::vector<double>(ar.dquery(k), ar.dquery(k) + d),
                 "attn_res.dquery[unit " + std::to_string(k) + "]");
    check_params(ar.gain(k), d, std::vector<double>(ar.dgain(k), ar.dgain(k) + d),
                 "attn_res.dgain[unit " + std::to_string(k) + "]");
  }
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
            StackFixture fx(cfg, arch, 77);
            check_stack(fx);
          }
        }
}

TEST_CASE("Block AttnRes: every gradient equals a central finite difference, MLP and transformer blocks",
          "[gradients][attn_res]") {
  // MLP: K = 4 units in 1..3 blocks, and K = 5 in 2 blocks of 3 and 2 units;
  // transformer: K = 6 units (3 blocks of attention and MLP) in 1..4 blocks,
  // 4 cutting a block between its attention and its MLP.
  struct Case {
    bool transformer;
    int depth, blocks;
  };
  for (const Case& c : {Case{false, 4, 1}, Case{false, 4, 2}, Case{false, 4, 3}, Case{false, 5, 2}, Case{true, 3, 1},
                        Case{true, 3, 2}, Case{true, 3, 3}, Case{true, 3, 4}})
    for (NormKind fn : {NormKind::none, NormKind::rmsnorm}) {
      Config cfg = c.transformer ? test::small_transformer() : Config();
      if (!c.transformer) {
        cfg.width = 6;
        cfg.expansion = 2;
        cfg.tokens = 3;
        cfg.gain = 0.9;
        cfg.seed = 11;
      }
      cfg.depth = c.depth;
      cfg.activation = Activation::gelu;
      cfg.final_norm = fn;
      cfg.attn_res_blocks = c.blocks;
      DYNAMIC_SECTION(name(cfg.block) << " depth=" << c.depth << " N=" << c.blocks << " final=" << name(fn)) {
        StackFixture fx(cfg, Arch::attn_res, 79);
        REQUIRE(fx.model.attn_res().blocks() == c.blocks);
        REQUIRE(!fx.model.attn_res().full());
        check_stack(fx);
      }
    }
}

TEST_CASE("transformer blocks: every gradient equals a central finite difference", "[gradients][attention]") {
  for (Arch arch : all_archs())
    for (Activation act : {Activation::relu, Activation::gelu})
      for (NormKind fn : {NormKind::none, NormKind::layernorm})
        for (bool causal : {true, false}) {
          Config cfg = test::small_transformer();
          cfg.activation = act;
          cfg.final_norm = fn;
          cfg.causal = causal;
          DYNAMIC_SECTION(name(arch) << " " << name(act) << " final=" << name(fn) << " causal=" << causal) {
            StackFixture fx(cfg, arch, 78);
            check_stack(fx);
          }
        }
}

TEST_CASE("transformer blocks: gradients with other heads, orthogonal init and rmsnorm", "[gradients][attention]") {
  for (Arch arch : {Arch::pre_ln, Arch::post_rms, Arch::sandwich, Arch::admin})
    for (int heads : {1, 4}) {
      Config cfg = test::small_transformer();
      cfg.heads = heads;
      cfg.init = Init::orthogonal;
      cfg.activation = Activation::tanh;
      cfg.final_norm = NormKind::rmsnorm;
      DYNAMIC_SECTION(name(arch) << " heads=" << heads) {
        StackFixture fx(cfg, arch, 78);
        check_stack(fx);
      }
    }
}

TEST_CASE("Mix-LN with Post-LN early blocks: every gradient equals a central finite difference", "[gradients]") {
  // The default share (floor(0.25 L)) leaves the small transformer stack no
  // Post-LN block; these fractions give it one and two.
  for (double fraction : {0.34, 0.67})
    for (Block block : {Block::mlp, Block::transformer}) {
      Config cfg = test::small_transformer();
      cfg.block = block;
      cfg.activation = Activation::gelu;
      cfg.final_norm = NormKind::layernorm;
      cfg.mix_fraction = fraction;
      DYNAMIC_SECTION(name(block) << " mix_fraction=" << fraction) {
        StackFixture fx(cfg, Arch::mix_ln, 79);
        REQUIRE(fx.model.unit(1).outer.kind == NormKind::layernorm);
        REQUIRE(fx.model.unit(3).in.kind == NormKind::layernorm);
        check_stack(fx);
      }
    }
}

// Admin's omegas come from a profiling forward at init; a training stack that
// turns its norms into BatchNorm profiles them again through BatchNorm.
TEST_CASE("Admin's omegas under BatchNorm are profiled through BatchNorm, the norms it trains with") {
  for (Block block : {Block::mlp, Block::transformer}) {
    Config cfg = test::small_transformer();
    cfg.block = block;
    cfg.tokens = 12;
    WeightBank<double> bank;
    bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, block == Block::transformer);
    Model<double> model;
    model.configure(cfg, Arch::admin, bank, true);
    auto omegas = [&model] {
      std::vector<double> w;
      for (int k = 1; k <= model.units(); ++k) w.push_back(model.unit_at(k).wrap.alpha);
      return w;
    };
    const std::vector<double> with_ln = omegas();
    model.use_batchnorm();
    const std::vector<double> with_bn = omegas();
    INFO(name(block));
    CHECK(with_bn[0] == 1.0);
    double apart = 0;
    for (size_t k = 0; k < with_bn.size(); ++k) apart = std::max(apart, std::abs(with_bn[k] - with_ln[k]));
    INFO("largest |omega_BN - omega_LN| " << apart);
    CHECK(apart > 1e-6);
    // A second profile through the same norms (train mode: the input's own statistics) gives the same omegas.
    model.rows().mode = BnMode::train;
    profile_admin_omegas(model);
    CHECK(omegas() == with_bn);
  }
}
