// The path expansion of the backward pass (Model::backward_path, Engine::paths):
// the sum of the path terms over all 2^U subsets of units is the full gradient,
// backward_path() leaves backward()'s results alone, and the sampled
// statistics are what they say they are, under their names.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "resnorm/engine.h"
#include "resnorm/model.h"

using namespace resnorm;

namespace {

// Sum over all 2^U masks of the path gradients, against dstream(0) of backward().
// Returns max |sum - full| / max |full|. gate: every gate entry set to it
// first (ReZero's init of 0 would leave only the all-skip path).
double expansion_error(const Config& cfg, Arch arch, double gate = -1) {
  WeightBank<double> bank;
  bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, cfg.block == Block::transformer);
  Model<double> m;
  m.configure(cfg, arch, bank);
  if (gate >= 0)
    for (int k = 1; k <= m.units(); ++k) m.unit_at(k).gate.map().setConstant(gate * (1.0 + 0.1 * k));
  m.forward();
  m.backward();
  const long n = static_cast<long>(cfg.tokens) * cfg.width;
  const Eigen::Map<const Vecx<double>> full(m.dh(0), n);
  const int U = m.units();
  Vecx<double> sum = Vecx<double>::Zero(n);
  std::vector<char> mask(U);
  for (long bits = 0; bits < (1L << U); ++bits) {
    for (int k = 0; k < U; ++k) mask[k] = (bits >> k) & 1;
    const double norm = m.backward_path(mask);
    const Eigen::Map<const Vecx<double>> term(m.path_gradient(), n);
    CHECK(norm == Approx(term.norm()).epsilon(1e-14));
    sum += term;
  }
  return (sum - full).cwiseAbs().maxCoeff() / full.cwiseAbs().maxCoeff();
}

Config small(int L) {
  Config cfg;
  cfg.depth = L;
  cfg.width = 8;
  cfg.tokens = 3;
  cfg.expansion = 2;
  cfg.gain = 0.9;
  cfg.seed = 5;
  return cfg;
}

}  // namespace

TEST_CASE("the 2^U path terms add up to the full gradient at h_0", "[paths]") {
  // Exact identity: each unit's backward is a sum of a skip and a branch term
  // at the forward point, so the product over units expands into 2^U terms.
  for (int L : {4, 5, 6})
    for (Arch arch : {Arch::residual, Arch::pre_ln, Arch::plain, Arch::post_ln, Arch::sandwich, Arch::deepnorm,
                      Arch::admin, Arch::rezero, Arch::layerscale, Arch::lns, Arch::mix_ln, Arch::dwa, Arch::hybrid})
      for (NormKind fn : {NormKind::none, NormKind::layernorm}) {
        Config cfg = small(L);
        cfg.final_norm = fn;
        INFO("L=" << L << " " << name(arch) << " final=" << name(fn));
        CHECK(expansion_error(cfg, arch) < 1e-10);
        // The gates' Jacobian on the branch route, away from ReZero's 0 and LayerScale's epsilon.
        if (arch == Arch::rezero || arch == Arch::layerscale) CHECK(expansion_error(cfg, arch, 0.6) < 1e-10);
      }
  // Transformer blocks: two sublayers per block, attention then MLP.
  for (Arch arch : {Arch::residual, Arch::pre_ln, Arch::post_ln, Arch::gpt2, Arch::rezero, Arch::layerscale, Arch::lns,
                    Arch::mix_ln, Arch::dwa, Arch::hybrid}) {
    Config cfg = small(3);
    cfg.block = Block::transformer;
    cfg.heads = 2;
    cfg.activation = Activation::gelu;
    cfg.mix_fraction = 0.5;  // one Post-LN block of three
    INFO("transformer " << name(arch));
    CHECK(expansion_error(cfg, arch) < 1e-10);
    if (arch == Arch::rezero || arch == Arch::layerscale) CHECK(expansion_error(cfg, arch, 0.6) < 1e-10);
  }
  // Dense averaging away from its init has more paths than the subsets of units: NaN.
  {
    Config cfg = small(3);
    WeightBank<double> bank;
    bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth);
    Model<double> m;
    m.configure(cfg, Arch::dwa, bank);
    m.forward();
    std::vector<char> mask(m.units(), 1);
    CHECK(std::isfinite(m.backward_path(mask)));
    m.mix_row(2)[0] = 0.5;
    CHECK(std::isnan(m.backward_path(mask)));
  }
}

TEST_CASE("backward_path: the all-skip path of a residual stack is the readout, and nothing of backward() changes",
          "[paths]") {
  Config cfg = small(6);
  WeightBank<double> bank;
  bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth);
  Model<double> m;
  m.configure(cfg, Arch::pre_ln, bank);
  m.forward();
  m.backward();
  const ArchResult before = m.result();
  const long n = static_cast<long>(cfg.tokens) * cfg.width;
  const Vecx<double> dh0 = Eigen::Map<const Vecx<double>>(m.dh(0), n);
  const Vecx<double> dgamma = m.unit(3).in.dgamma.map();
  std::vector<char> none(m.units(), 0), all(m.units(), 1), some = {1, 0, 1, 1, 0, 0};
  // Without a final norm the identity path carries r unchanged: norm exactly 1 up to rounding.
  CHECK(m.backward_path(none) == Approx(1.0).epsilon(1e-14));
  CHECK(m.backward_path(all) > 0);
  CHECK(m.backward_path(some) > 0);
  CHECK(std::isnan(m.backward_path(std::vector<char>(3, 1))));  // wrong size: NaN, nothing run
  const ArchResult after = m.result();
  CHECK(after.grad_norm == before.grad_norm);
  CHECK(after.w1_grad_norm == before.w1_grad_norm);
  CHECK(after.w2_grad_norm == before.w2_grad_norm);
  CHECK((Eigen::Map<const Vecx<double>>(m.dh(0), n) - dh0).cwiseAbs().maxCoeff() == 0.0);
  CHECK((m.unit(3).in.dgamma.map() - dgamma).cwiseAbs().maxCoeff() == 0.0);
  // A plain stack has no skip: every path but the all-branch one is 0.
  Model<double> p;
  p.configure(cfg, Arch::plain, bank);
  p.forward();
  CHECK(p.backward_path(some) == 0.0);
  CHECK(p.backward_path(all) > 0.0);
}

TEST_CASE("Engine::paths: binomial counts, exact short lengths, sampled long ones, deterministic", "[paths]") {
  Config cfg;
  cfg.depth = 10;
  cfg.width = 16;
  cfg.tokens = 4;
  cfg.archs = {Arch::residual, Arch::pre_ln};
  Engine<float> engine;
  PathResults res;
  REQUIRE(engine.paths(cfg, 12, 7, &res).ok());
  REQUIRE(res.archs.size() == 2);
  const double binom10[] = {1, 10, 45, 120, 210, 252, 210, 120, 45, 10, 1};
  for (const PathArch& a : res.archs) {
    INFO(name(a.arch));
    CHECK(a.units == 10);
    REQUIRE(a.count.size() == 11);
    for (int k = 0; k <= 10; ++k) {
      CHECK(a.count[k] == binom10[k]);
      // Lengths with at most 12 paths are enumerated: k = 0, 1, 9, 10.
      CHECK(a.measured[k] == std::min(12.0, binom10[k]));
      CHECK(a.total[k] == a.count[k] * a.mean_norm[k]);
      CHECK(a.mean_norm[k] > 0);
      CHECK(a.sd_norm[k] >= 0);
    }
    CHECK(a.mean_norm[0] == Approx(1.0).epsilon(1e-6));  // the identity path carries r, ||r|| = 1
    CHECK(a.sd_norm[0] == 0.0);
    CHECK(a.full_norm > 0);
    // By name, each of the U + 1 arrays once.
    const std::vector<NamedArray> arrays = named_arrays(a);
    std::vector<std::string> names;
    for (const NamedArray& n : arrays) names.push_back(n.name);
    CHECK(names == std::vector<std::string>{"count", "measured", "mean_norm", "sd_norm", "total"});
    CHECK(find_array(arrays, "mean_norm") == &a.mean_norm);
  }
  // Same arguments, same numbers; another path seed draws other paths.
  PathResults again, other;
  Engine<float> fresh;
  REQUIRE(fresh.paths(cfg, 12, 7, &again).ok());
  REQUIRE(fresh.paths(cfg, 12, 8, &other).ok());
  CHECK(again.archs[1].mean_norm == res.archs[1].mean_norm);
  CHECK(other.archs[1].mean_norm[1] == res.archs[1].mean_norm[1]);  // k = 1 is exact: no draws
  CHECK(other.archs[1].mean_norm[5] != res.archs[1].mean_norm[5]);
  // Errors as values, naming the field.
  PathResults bad;
  Status st = engine.paths(cfg, 0, 0, &bad);
  CHECK(st.field == "samples");
  CHECK(st.message == "samples: 0 is out of range (allowed 1..4096)");
  cfg.depth = 300;
  cfg.block = Block::transformer;
  st = engine.paths(cfg, 8, 0, &bad);
  CHECK(st.field == "depth");
  CHECK(st.message == "depth: 300 is out of range for path sampling (allowed 1..256 with transformer blocks)");
  cfg.depth = 0;
  CHECK(engine.paths(cfg, 8, 0, &bad).field == "depth");
}
