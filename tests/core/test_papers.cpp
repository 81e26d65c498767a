// The six reproductions of the papers page, as tests of the engine. Each test
// runs the setting its panel runs by default (web/src/engine/experiments.js
// runs the same settings) and checks the claim with the criterion the panel's
// caption uses. Where the engine contradicts a claim in the paper's setting,
// that half is a [!shouldfail] test: it states the claim as written and is
// expected to fail, so the suite records the disagreement (and would flag the
// day it goes away) instead of hiding it behind a weaker check.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "helpers.h"
#include "resnorm/engine.h"

using namespace resnorm;
using test::slope;

namespace {

double max_over_min(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *hi / *lo;
}

// Transformer blocks as the Xiong panels run them: ReLU FFN, no biases, final
// LayerNorm for the pre-norm architectures only (Post-LN ends in a LayerNorm already).
Config transformer(Arch arch, int depth, int width, int tokens, int heads, bool causal) {
  Config cfg;
  cfg.archs = {arch};
  cfg.block = Block::transformer;
  cfg.depth = depth;
  cfg.width = width;
  cfg.tokens = tokens;
  cfg.heads = heads;
  cfg.causal = causal;
  cfg.final_norm = (arch == Arch::post_ln || arch == Arch::deepnorm) ? NormKind::none : NormKind::layernorm;
  return cfg;
}

// ---------------------------------------------------------------- 1. Xiong et al., Theorem 1

const int kDepths[] = {6, 12, 24, 48, 96};

// Slope of log ||dL/dW2|| of the last block over log L, fitted to every
// (L, seed) point at once (the slope of the mean log over seeds).
double theorem1_slope(Arch arch, int seeds) {
  std::vector<double> x, y;
  Engine<float> engine;
  Results res;
  for (int s = 0; s < seeds; ++s)
    for (int L : kDepths) {
      Config cfg = transformer(arch, L, 64, 16, 4, false);
      cfg.seed = s;
      REQUIRE(engine.simulate(cfg, &res).ok());
      x.push_back(std::log(double(L)));
      y.push_back(std::log(res.archs[0].w2_grad_norm[L - 1]));
    }
  return slope(x, y);
}

// ---------------------------------------------------------------- 2. Xiong et al., Figure 3

// Per block l = 1..6, the mean over seeds of the norm of the gradient of all
// the block's weights, sqrt(||dW_Q||^2 + ||dW_K||^2 + ||dW_V||^2 + ||dW_O||^2 +
// ||dW1||^2 + ||dW2||^2), at the paper's model width: d = 512, FFN 1024, 4 heads,
// T = 32 tokens, non-causal (an encoder), 6 blocks. Returns {post_ln, pre_ln}.
// Computed once for both Figure 3 tests (a few seconds at d = 512).
std::pair<std::vector<double>, std::vector<double>> figure3_uncached(int seeds);
const std::pair<std::vector<double>, std::vector<double>>& figure3() {
  static const auto result = figure3_uncached(3);
  return result;
}
std::pair<std::vector<double>, std::vector<double>> figure3_uncached(int seeds) {
  std::vector<double> post(6, 0.0), pre(6, 0.0);
  Engine<float> engine;  // seeds outside, archs inside: one weight bank per seed
  Results res;
  for (int s = 0; s < seeds; ++s)
    for (Arch arch : {Arch::post_ln, Arch::pre_ln}) {
      Config cfg = transformer(arch, 6, 512, 32, 4, false);
      cfg.expansion = 2;
      cfg.seed = s;
      REQUIRE(engine.simulate(cfg, &res).ok());
      const ArchResult& r = res.archs[0];
      std::vector<double>& out = arch == Arch::post_ln ? post : pre;
      for (int l = 0; l < 6; ++l) {
        double sq = 0;
        for (const std::vector<double>* v :
             {&r.wq_grad_norm, &r.wk_grad_norm, &r.wv_grad_norm, &r.wo_grad_norm, &r.w1_grad_norm, &r.w2_grad_norm})
          sq += (*v)[l] * (*v)[l];
        out[l] += std::sqrt(sq) / seeds;
      }
    }
  return {post, pre};
}

// ---------------------------------------------------------------- 4. DeepNet

struct Spread {
  double grad, stream;  // max / min over layers 0..L
};
struct DeepNetRun {
  Spread deepnorm, post_ln;
};
// Both architectures in one run (same weights, no final norm for either), cached:
// the weight bank of 1000 transformer blocks takes a second to draw.
const DeepNetRun& deepnet(uint32_t seed) {
  static std::vector<std::pair<uint32_t, DeepNetRun>> cache;
  for (const auto& [s, run] : cache)
    if (s == seed) return run;
  Config cfg = transformer(Arch::deepnorm, 1000, 64, 16, 4, true);  // decoder-only: causal
  cfg.archs = {Arch::deepnorm, Arch::post_ln};
  cfg.seed = seed;
  Engine<float> engine;
  Results res;
  REQUIRE(engine.simulate(cfg, &res).ok());
  for (const ArchResult& r : res.archs) REQUIRE(r.first_nonfinite == -1);
  auto spread = [](const ArchResult& r) { return Spread{max_over_min(r.grad_norm), max_over_min(r.stream_rms)}; };
  cache.push_back({seed, {spread(res.archs[0]), spread(res.archs[1])}});
  return cache.back().second;
}

// ---------------------------------------------------------------- 5. GPT-2

// Mean over seeds of stream_rms[L] / stream_rms[0] for each depth.
std::vector<double> top_over_input(Arch arch, int seeds) {
  std::vector<double> out;
  Engine<float> engine;
  Results res;
  for (int L : kDepths) {
    double m = 0;
    for (int s = 0; s < seeds; ++s) {
      Config cfg = transformer(arch, L, 64, 16, 4, true);
      cfg.seed = s;
      REQUIRE(engine.simulate(cfg, &res).ok());
      m += res.archs[0].stream_rms[L] / res.archs[0].stream_rms[0] / seeds;
    }
    out.push_back(m);
  }
  return out;
}

std::vector<double> log_depths() {
  std::vector<double> x;
  for (int L : kDepths) x.push_back(std::log(double(L)));
  return x;
}

std::vector<double> logs(const std::vector<double>& v) {
  std::vector<double> out;
  for (double a : v) out.push_back(std::log(a));
  return out;
}

// ---------------------------------------------------------------- 6. Veit et al.

struct PathSpread {
  int k05, k95, peak;  // lengths at 5% and 95% of the cumulative total, and the largest total
};
PathSpread path_spread(const PathArch& a) {
  double sum = 0;
  for (double t : a.total) sum += t;
  PathSpread p{-1, -1, 0};
  double cum = 0;
  for (int k = 0; k <= a.units; ++k) {
    cum += a.total[k];
    if (p.k05 < 0 && cum >= 0.05 * sum) p.k05 = k;
    if (p.k95 < 0 && cum >= 0.95 * sum) p.k95 = k;
    if (a.total[k] > a.total[p.peak]) p.peak = k;
  }
  return p;
}

}  // namespace

TEST_CASE("1. Xiong et al. Theorem 1: last W2 gradient flat in L for Post-LN, like 1/sqrt(L) for Pre-LN", "[papers]") {
  const double post = theorem1_slope(Arch::post_ln, 8);
  const double pre = theorem1_slope(Arch::pre_ln, 8);
  WARN("Theorem 1 log-log slopes over L = 6..96, 8 seeds: Post-LN " << post << " (claimed 0), Pre-LN " << pre
                                                                    << " (claimed -0.5)");
  CHECK(std::abs(post - 0.0) <= 0.15);
  CHECK(std::abs(pre + 0.5) <= 0.15);
}

TEST_CASE("2. Xiong et al. Figure 3: Post-LN's weight gradients rise toward the top", "[papers]") {
  const auto& [post, pre] = figure3();
  WARN("Figure 3, all weights of block l, l = 1..6: Post-LN top/bottom " << post[5] / post[0] << ", Pre-LN "
                                                                         << pre[5] / pre[0]);
  CHECK(post[5] / post[0] >= 1.2);
  for (int l = 1; l < 6; ++l) CHECK(post[l] > post[l - 1]);
}

TEST_CASE("2. Xiong et al. Figure 3: Pre-LN's weight gradients stay roughly level (contradicted: they fall)",
          "[papers][!shouldfail]") {
  // The engine contradicts this half: each pre-norm branch reads the stream
  // divided by its RMS sigma_l = sqrt(1 + c l), so the gradient reaching block
  // l, and with it the block's weight gradient, goes like 1/sigma_l: the top
  // block's is about half the bottom one's (measured 0.53). Theorem 1's
  // 1/sqrt(L) is the same law read at the last block.
  const auto& [post, pre] = figure3();
  const double ratio = pre[5] / pre[0];
  WARN("Pre-LN top/bottom " << ratio << " (claimed roughly 1, read as within 1/1.5..1.5)");
  CHECK(ratio >= 1 / 1.5);
  CHECK(ratio <= 1.5);
}

TEST_CASE("3. Xiong et al. Lemma 2: Pre-LN's E||x_l||^2 / d = 1 + l/2 in the FFN-only stack", "[papers]") {
  // The lemma's setting: FFN sublayers only, width d, ReLU, Xavier W1, W2 of
  // variance 1/d. He-scaled W1 (2/d) with gain 1/sqrt(2) on W2 (1/(2d)) is the
  // same function, since ReLU is positively homogeneous: the product of the
  // scales is 1/d either way.
  const int L = 48, seeds = 64;
  Config cfg;
  cfg.archs = {Arch::pre_ln, Arch::post_ln};
  cfg.depth = L;
  cfg.width = 64;
  cfg.tokens = 16;
  cfg.gain = 1 / std::sqrt(2.0);
  std::vector<double> pre(L + 1, 0.0), post(L + 1, 0.0), layers;
  Engine<float> engine;
  Results res;
  for (int s = 0; s < seeds; ++s) {
    cfg.seed = s;
    REQUIRE(engine.simulate(cfg, &res).ok());
    for (int l = 0; l <= L; ++l) {
      pre[l] += res.archs[0].stream_rms[l] * res.archs[0].stream_rms[l] / seeds;
      post[l] += res.archs[1].stream_rms[l] * res.archs[1].stream_rms[l] / seeds;
    }
  }
  for (int l = 0; l <= L; ++l) layers.push_back(l);
  const double fitted = slope(layers, pre);
  double worst = 0;
  for (int l = 0; l <= L; ++l) worst = std::max(worst, std::abs(pre[l] / (1 + l / 2.0) - 1));
  WARN("Lemma 2: fitted slope " << fitted << " (claimed 0.5), worst relative deviation from 1 + l/2 " << worst);
  // Per seed the mean square of a layer's increment varies by ~11% (T = 16
  // tokens share one draw of W1, W2); over 64 seeds that is ~1.4%, so 5% is
  // over 3 standard errors everywhere.
  CHECK(std::abs(fitted - 0.5) <= 0.025);
  CHECK(worst <= 0.05);
  for (int l = 1; l <= L; ++l) CHECK(std::abs(post[l] - 1.0) < 1e-4);  // Post-LN: ||x_l||^2 = d
}

TEST_CASE("4. DeepNet: at 1000 blocks DeepNorm keeps the gradient within a small factor, Post-LN does not",
          "[papers]") {
  // Decoder-only, Table 1 of the paper: alpha = (2N)^(1/4), beta = (8N)^(-1/4), N = 1000 blocks.
  const Recipe r = recipe(Arch::deepnorm, 1000, 2);
  CHECK(r.wrap.alpha == Approx(std::pow(2000.0, 0.25)).epsilon(1e-15));
  CHECK(r.scale.w2 == Approx(std::pow(8000.0, -0.25)).epsilon(1e-15));
  CHECK(r.wrap.alpha == Approx(6.6874).epsilon(1e-4));
  CHECK(r.scale.w2 == Approx(0.10574).epsilon(1e-4));
  for (uint32_t seed : {0u, 1u}) {
    const Spread deep = deepnet(seed).deepnorm;
    const Spread post = deepnet(seed).post_ln;
    WARN("seed " << seed << ": gradient max/min over layers: DeepNorm " << deep.grad << ", Post-LN " << post.grad
                 << "; stream max/min: DeepNorm " << deep.stream << ", Post-LN " << post.stream);
    CHECK(deep.grad <= 2.0);  // "a small factor": 2
    CHECK(deep.stream <= 2.0);
    CHECK(post.grad > 2.0);  // measured 4e5 and 8e10
  }
}

TEST_CASE("4. DeepNet: Post-LN's stream spread is 1 by construction, so it is no part of the claim", "[papers]") {
  // Every Post-LN block ends in a LayerNorm, so its stream RMS is 1 after
  // every block at any depth: max/min over layers is rms(h_0) / 1 (measured
  // 1.015 and 1.08). The stream cannot tell DeepNorm and Post-LN apart; the
  // paper's claim is about the gradient, and so is the verdict.
  for (uint32_t seed : {0u, 1u}) CHECK(deepnet(seed).post_ln.stream < 1.2);
}

TEST_CASE("5. GPT-2's 1/sqrt(N): the top stream stays near the input's at every depth, Pre-LN's grows like sqrt(L)",
          "[papers]") {
  const std::vector<double> gpt2 = top_over_input(Arch::gpt2, 4);
  const std::vector<double> pre = top_over_input(Arch::pre_ln, 4);
  const double gpt2_slope = slope(log_depths(), logs(gpt2));
  const double pre_slope = slope(log_depths(), logs(pre));
  WARN("top/input RMS, L = 6..96: GPT-2 " << gpt2.front() << " .. " << gpt2.back() << " (slope " << gpt2_slope
                                          << "), Pre-LN " << pre.front() << " .. " << pre.back() << " (slope "
                                          << pre_slope << ")");
  for (double r : gpt2) {
    CHECK(r <= 1.5);  // "near": within a factor 1.5
    CHECK(r >= 1 / 1.5);
  }
  CHECK(std::abs(gpt2_slope) <= 0.1);
  CHECK(std::abs(pre_slope - 0.5) <= 0.15);
}

TEST_CASE("6. Veit et al.: most of the gradient comes from paths much shorter than the typical path", "[papers]") {
  // 54 blocks as in the paper's ResNet-110; Pre-LN, whose branch reads a
  // normalized copy of the stream like a ResNet's batch-normalized residual
  // module; 32 sampled paths per length.
  Config cfg;
  cfg.depth = 54;
  cfg.width = 64;
  cfg.tokens = 8;
  cfg.archs = {Arch::pre_ln, Arch::residual};
  Engine<float> engine;
  PathResults res;
  REQUIRE(engine.paths(cfg, 32, 0, &res).ok());
  const PathSpread pre = path_spread(res.archs[0]);
  const PathSpread plain_residual = path_spread(res.archs[1]);
  WARN("Pre-LN: 90% of the gradient magnitude from lengths "
       << pre.k05 << ".." << pre.k95 << ", peak " << pre.peak << " (Veit: 5..17 of 54); unnormalized residual: "
       << plain_residual.k05 << ".." << plain_residual.k95 << ", peak " << plain_residual.peak);
  // The claim: 95% of the gradient comes from paths shorter than the average path (27).
  CHECK(pre.k95 < 27);
  // Along each path the gradient shrinks by roughly 1/sigma_l per branch taken.
  CHECK(res.archs[0].mean_norm[10] < 1e-3 * res.archs[0].mean_norm[0]);
  // Contrast, not part of the claim: without a norm each branch keeps the
  // gradient's size at init (gain 1), so the total follows the binomial count
  // and centres on U/2.
  CHECK(plain_residual.k95 > 27);
  CHECK(std::abs(plain_residual.peak - 27) <= 3);
}

// ---------------------------------------------------------------- 7-10. Answers to the open question

namespace {

// The norm of the gradient of all of block l's weights together, l = 1..L.
std::vector<double> block_grad_norms(const ArchResult& r) {
  std::vector<double> out;
  for (size_t l = 0; l < r.w2_grad_norm.size(); ++l) {
    double sq = 0;
    for (const std::vector<double>* v :
         {&r.wq_grad_norm, &r.wk_grad_norm, &r.wv_grad_norm, &r.wo_grad_norm, &r.w1_grad_norm, &r.w2_grad_norm})
      sq += (*v)[l] * (*v)[l];
    out.push_back(std::sqrt(sq));
  }
  return out;
}

double worst_deviation(const std::vector<double>& v, double ref) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x / ref - 1));
  return m;
}

}  // namespace

TEST_CASE("7. ReZero: at init the stack is the identity, every layer's gradient is the top's", "[papers]") {
  for (int L : {12, 96}) {
    Config cfg = transformer(Arch::rezero, L, 64, 16, 4, true);
    cfg.archs = {Arch::rezero, Arch::pre_ln};
    cfg.final_norm = NormKind::none;
    Engine<float> engine;
    Results res;
    REQUIRE(engine.simulate(cfg, &res).ok());
    const ArchResult& z = res.archs[0];
    const double grad = worst_deviation(z.grad_norm, z.grad_norm[L]);
    const double stream = worst_deviation(z.stream_rms, z.stream_rms[0]);
    const double pre = worst_deviation(res.archs[1].grad_norm, res.archs[1].grad_norm[L]);
    WARN("L = " << L << ": ReZero max |g_l/g_L - 1| " << grad << ", stream " << stream << "; Pre-LN " << pre);
    CHECK(grad <= 1e-6);
    CHECK(stream <= 1e-6);
    CHECK(pre > 1e-2);  // contrast: the branches add their Jacobians
  }
}

TEST_CASE("8. LayerNorm Scaling: the top stream's variance grows at most half as fast as Pre-LN's", "[papers]") {
  // Var(h_L) / Var(h_0) for L = 12, 24, 48, 96, mean over 4 seeds, causal
  // transformer blocks with a final LayerNorm; both architectures on one weight bank.
  const int depths[] = {12, 24, 48, 96};
  std::vector<double> pre(4, 0.0), lns(4, 0.0), x;
  Engine<float> engine;
  Results res;
  for (int i = 0; i < 4; ++i) {
    const int L = depths[i];
    x.push_back(std::log(double(L)));
    for (int s = 0; s < 4; ++s) {
      Config cfg = transformer(Arch::pre_ln, L, 64, 16, 4, true);
      cfg.archs = {Arch::pre_ln, Arch::lns};
      cfg.seed = s;
      REQUIRE(engine.simulate(cfg, &res).ok());
      for (int a = 0; a < 2; ++a) {
        const double r = res.archs[a].stream_rms[L] / res.archs[a].stream_rms[0];
        (a == 0 ? pre : lns)[i] += r * r / 4;
      }
    }
  }
  const double s_pre = slope(x, logs(pre)), s_lns = slope(x, logs(lns));
  WARN("Var(h_L)/Var(h_0), L = 12..96: Pre-LN " << pre.front() << " .. " << pre.back() << " (slope " << s_pre
                                                << "), LNS " << lns.front() << " .. " << lns.back() << " (slope "
                                                << s_lns << ")");
  CHECK(s_lns <= 0.5 * s_pre);
  for (int i = 0; i < 4; ++i) CHECK(lns[i] < pre[i]);
}

// Per block, the mean over 4 seeds of the norm of the gradient of all the
// block's weights, for 24 causal transformer blocks; a final LayerNorm for
// Pre-LN and Mix-LN (whose top blocks are Pre-LN), none for Post-LN
// (transformer()). Returns max/min over the blocks for {Post-LN, Pre-LN, Mix-LN}.
namespace {
std::vector<double> mixln_spreads() {
  const int L = 24;
  std::vector<double> out;
  Engine<float> engine;
  Results res;
  for (Arch arch : {Arch::post_ln, Arch::pre_ln, Arch::mix_ln}) {
    std::vector<double> norms(L, 0.0);
    for (int s = 0; s < 4; ++s) {
      Config cfg = transformer(arch, L, 64, 16, 4, true);
      cfg.seed = s;
      REQUIRE(engine.simulate(cfg, &res).ok());
      const std::vector<double> g = block_grad_norms(res.archs[0]);
      for (int l = 0; l < L; ++l) norms[l] += g[l] / 4;
    }
    out.push_back(max_over_min(norms));
  }
  return out;
}
}  // namespace

TEST_CASE(
    "9. Mix-LN: more uniform block gradients than Post-LN and Pre-LN at init (contradicted: not more than either)",
    "[papers][!shouldfail]") {
  // "More uniform": a max/min at least 10% lower. The engine contradicts both
  // halves at init (measured Post-LN 1.62, Pre-LN 4.36, Mix-LN 4.35): above
  // its Post-LN blocks Mix-LN is Pre-LN, whose block gradients fall as the
  // stream grows, and at d = 64 Post-LN's stay nearly level.
  const std::vector<double> s = mixln_spreads();
  WARN("max/min of the block weight gradients: Post-LN " << s[0] << ", Pre-LN " << s[1] << ", Mix-LN " << s[2]);
  CHECK(s[2] <= 0.9 * s[0]);
  CHECK(s[2] <= 0.9 * s[1]);
}

TEST_CASE("9. Mix-LN: at init its block gradients spread like Pre-LN's, Post-LN's least", "[papers]") {
  const std::vector<double> s = mixln_spreads();
  CHECK(s[0] < s[1]);
  CHECK(s[2] == Approx(s[1]).epsilon(0.1));
}

TEST_CASE("10. LayerScale: at init every block's update ratio is about eps", "[papers]") {
  CHECK(layerscale_epsilon(12) == 0.1);
  CHECK(layerscale_epsilon(18) == 0.1);
  CHECK(layerscale_epsilon(24) == 1e-5);
  CHECK(layerscale_epsilon(36) == 1e-6);
  for (int L : {12, 24, 36}) {
    const double eps = layerscale_epsilon(L);
    Config cfg = transformer(Arch::layerscale, L, 64, 16, 4, true);
    cfg.archs = {Arch::layerscale, Arch::pre_ln};
    Engine<float> engine;
    Results res;
    REQUIRE(engine.simulate(cfg, &res).ok());
    const ArchResult& ls = res.archs[0];
    double lo = 1e300, hi = 0;
    for (double r : ls.update_ratio) {
      lo = std::min(lo, r / eps);
      hi = std::max(hi, r / eps);
    }
    WARN("L = " << L << ", eps = " << eps << ": update ratio / eps over the blocks " << lo << " .. " << hi);
    CHECK(lo >= 0.5);  // "about eps": within a factor 2
    CHECK(hi <= 2.0);
    // Block 1's attention reads h_0 in both, through the same weights.
    CHECK(ls.attn_update_ratio[0] / (eps * res.archs[1].attn_update_ratio[0]) == Approx(1).epsilon(1e-4));
  }
}
