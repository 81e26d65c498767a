// Engine::simulate (engine.cpp): a bad Config comes back as a Status, the same
// config gives the same bits, and the goldens of MLP stacks.
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "helpers.h"
#include "resnorm/engine.h"

using namespace resnorm;

TEST_CASE("the engine refuses a bad Config with a Status and stays usable", "[config]") {
  Engine<float> engine;
  Results res;
  Config bad;
  bad.depth = 0;
  Status st = engine.simulate(bad, &res);
  CHECK(st.field == "depth");
  bad = Config();
  bad.gain = std::numeric_limits<double>::quiet_NaN();
  CHECK(engine.simulate(bad, &res).field == "gain");
  bad = Config();
  bad.archs.clear();
  CHECK(engine.simulate(bad, &res).field == "arch");
  bad = Config();
  bad.depth = 1024;
  bad.width = 512;
  bad.expansion = 4;
  st = engine.simulate(bad, &res);
  CHECK(st.field == "depth");
  CHECK(st.message.find("allowed 1..32") != std::string::npos);
  // Still works afterwards.
  CHECK(engine.simulate(Config(), &res).ok());
  CHECK(res.archs.size() == 4);
  CHECK(set_number(bad, "gain", std::nan("")).field == "gain");
  CHECK(set_number(bad, "depth", 2.5).message.find("whole number") != std::string::npos);
}

TEST_CASE("the same config gives bit-identical results twice", "[determinism]") {
  Config cfg;
  cfg.archs = all_archs();
  cfg.depth = 40;
  cfg.activation = Activation::gelu;
  cfg.final_norm = NormKind::layernorm;
  const std::array<Results, 3> r = test::simulate_thrice(cfg);
  test::check_same_bits(r, {&ArchResult::grad_norm, &ArchResult::stream_rms, &ArchResult::update_ratio,
                            &ArchResult::w1_grad_norm, &ArchResult::w2_grad_norm});
}

TEST_CASE("block=mlp is the default and leaves MLP stacks exactly as they were", "[determinism]") {
  Config def;
  CHECK(def.block == Block::mlp);
  CHECK(def.heads == 4);
  CHECK(def.causal);
  // Golden values of a simulation (double engine, L=24, d=16, T=4, g=1.1, relu,
  // seed 0); a relative 1e-12 allows a libm that rounds log differently in the
  // last place.
  struct Golden {
    const char* arch;
    double grad0, stream_top, update12, w1_4, w2_21;
  };
  const Golden golden[] = {
      {"plain", 4.7663218502369498, 5.1197876205002837, 1.1064303403211375, 8.254153555684125, 31.008867377379154},
      {"residual", 9910.3362876700266, 11436.04260258867, 1.3560333409728944, 30433.057175378461, 32620.517883321445},
      {"post_ln", 0.55668181874367639, 0.99999668657148266, 1.3189322113253756, 1.6384294249981191, 2.9346491856343144},
      {"post_rms", 0.45451484062904385, 0.99999715287032154, 1.266023504424002, 1.1906681937918402, 2.3033767548443742},
      {"pre_ln", 5.0815331329800433, 5.1525472767275469, 0.37329788049217005, 6.5002433988250488, 4.9122906747034367},
      {"pre_rms", 4.2904395363929426, 5.0525215642350352, 0.34983674368276091, 5.5926861304076834, 5.6186042938082457},
      {"sandwich", 7.0256024882837682, 4.4739837370934046, 0.31548740468508829, 6.8332420919121653, 4.0570514023728625},
      {"deepnorm", 0.96184546764039425, 0.99999927378380682, 0.04007594020236134, 0.24841540473527382,
       0.40922759385772217},
      {"gpt2", 1.3985859601184474, 1.4990067467510284, 0.22994239121770774, 0.63519784003037771, 4.4120647734101857},
  };
  Config cfg;
  cfg.depth = 24;
  cfg.width = 16;
  cfg.tokens = 4;
  cfg.gain = 1.1;
  cfg.archs.clear();
  for (const Golden& g : golden) {
    Arch a;
    REQUIRE(parse_arch(g.arch, &a));
    cfg.archs.push_back(a);
  }
  Engine<double> engine;
  Results res;
  REQUIRE(engine.simulate(cfg, &res).ok());
  for (size_t i = 0; i < res.archs.size(); ++i) {
    const ArchResult& r = res.archs[i];
    const Golden& g = golden[i];
    INFO(g.arch);
    CHECK(r.grad_norm[0] == Approx(g.grad0).epsilon(1e-12));
    CHECK(r.stream_rms[24] == Approx(g.stream_top).epsilon(1e-12));
    CHECK(r.update_ratio[11] == Approx(g.update12).epsilon(1e-12));
    CHECK(r.w1_grad_norm[3] == Approx(g.w1_4).epsilon(1e-12));
    CHECK(r.w2_grad_norm[20] == Approx(g.w2_21).epsilon(1e-12));
    CHECK(r.wo_grad_norm.empty());
    CHECK(r.attn_update_ratio.empty());
  }
  // heads and causal are not read by MLP blocks: any value gives the same bits
  // and the same JSON, which has none of the transformer keys.
  Engine<float> e;
  Results a, b;
  Config c = Config();
  c.depth = 16;
  REQUIRE(e.simulate(c, &a).ok());
  c.heads = 8;
  c.causal = false;
  c.width = 6;  // heads does not divide width: irrelevant without attention
  REQUIRE(e.simulate(c, &b).ok());
  c.heads = 4;
  c.causal = true;
  c.width = 64;
  REQUIRE(e.simulate(c, &b).ok());
  CHECK(results_json(a) == results_json(b));
  const std::string json = results_json(a);
  for (const char* key : {"block", "heads", "causal", "wq_grad_norm", "wo_grad_norm", "attn_update_ratio"})
    CHECK(json.find(key) == std::string::npos);
  CHECK(json.find("\"seed\": 0}, \"results\"") != std::string::npos);
}

namespace {

bool same_bits(const resnorm::Results& a, const resnorm::Results& b) {
  if (a.archs.size() != b.archs.size()) return false;
  for (size_t i = 0; i < a.archs.size(); ++i)
    for (auto field : {&resnorm::ArchResult::grad_norm, &resnorm::ArchResult::stream_rms,
                       &resnorm::ArchResult::update_ratio, &resnorm::ArchResult::w1_grad_norm}) {
      const auto &x = a.archs[i].*field, &y = b.archs[i].*field;
      if (x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) != 0) return false;
    }
  return true;
}

}  // namespace

TEST_CASE("a depth change reuses the deeper workspaces and gives the numbers of a fresh engine", "[determinism]") {
  for (resnorm::Block block : {resnorm::Block::mlp, resnorm::Block::transformer}) {
    resnorm::Config cfg;
    cfg.block = block;
    cfg.width = 16;
    cfg.heads = 2;
    cfg.archs = {resnorm::Arch::post_ln, resnorm::Arch::pre_ln, resnorm::Arch::admin, resnorm::Arch::deepnorm};
    resnorm::Engine<float> engine;
    resnorm::Results res;
    for (int depth : {40, 12, 33, 40, 1, 40}) {
      cfg.depth = depth;
      REQUIRE(engine.simulate(cfg, &res).ok());
      resnorm::Engine<float> fresh;
      resnorm::Results want;
      REQUIRE(fresh.simulate(cfg, &want).ok());
      INFO("depth " << depth);
      CHECK(same_bits(res, want));
    }
  }
}

TEST_CASE(
    "a width, tokens or heads change within the sizes seen reuses the workspaces and gives the numbers of a fresh "
    "engine",
    "[determinism]") {
  struct Step {
    int depth, width, tokens, expansion, heads;
    bool within;  // inside the capacity the steps before it built
  };
  // The first step sets the capacity (width 32, 8 tokens, hidden 64, 2 heads,
  // depth 12); every later step inside it allocates no workspace; a wider one
  // grows it.
  const Step steps[] = {
      {12, 32, 8, 2, 2, false}, {12, 16, 8, 2, 2, true}, {12, 32, 4, 2, 2, true},  {5, 8, 3, 4, 2, true},
      {12, 32, 8, 1, 2, true},  {12, 32, 8, 2, 1, true}, {12, 48, 8, 2, 2, false}, {9, 32, 6, 2, 2, true},
  };
  for (resnorm::Block block : {resnorm::Block::mlp, resnorm::Block::transformer}) {
    resnorm::Config cfg;
    cfg.block = block;
    cfg.archs = {resnorm::Arch::post_ln, resnorm::Arch::pre_ln, resnorm::Arch::admin, resnorm::Arch::deepnorm};
    resnorm::Engine<float> engine;
    resnorm::Results res;
    for (const Step& s : steps) {
      cfg.depth = s.depth;
      cfg.width = s.width;
      cfg.tokens = s.tokens;
      cfg.expansion = s.expansion;
      cfg.heads = s.heads;
      const long before = resnorm::workspace_allocations.load();
      REQUIRE(engine.simulate(cfg, &res).ok());
      const long allocated = resnorm::workspace_allocations.load() - before;
      resnorm::Engine<float> fresh;
      resnorm::Results want;
      REQUIRE(fresh.simulate(cfg, &want).ok());
      INFO(resnorm::name(block) << " blocks, depth " << s.depth << ", width " << s.width << ", tokens " << s.tokens
                                << ", expansion " << s.expansion << ", heads " << s.heads);
      CHECK(same_bits(res, want));
      CHECK(resnorm::results_json(res) == resnorm::results_json(want));  // every array, attention's too
      if (s.within)
        CHECK(allocated == 0);
      else
        CHECK(allocated > 0);
    }
  }
}

TEST_CASE("mix_ln's fraction: 0 is pre_ln and 1 is post_ln bit for bit, between them the bottom blocks are post_ln's",
          "[determinism]") {
  for (Block block : {Block::mlp, Block::transformer}) {
    Config cfg = test::small_transformer();
    cfg.block = block;
    cfg.depth = 8;
    cfg.archs = {Arch::pre_ln, Arch::post_ln, Arch::mix_ln};
    Engine<float> engine;  // one engine throughout: only the fraction changes between calls
    Results res;
    const auto arrays = {&ArchResult::grad_norm, &ArchResult::stream_rms, &ArchResult::update_ratio,
                         &ArchResult::w1_grad_norm, &ArchResult::w2_grad_norm};
    const auto same = [&](const ArchResult& a, const ArchResult& b) {
      for (auto member : arrays) {
        const std::vector<double>&x = a.*member, &y = b.*member;
        if (x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) != 0) return false;
      }
      return true;
    };
    INFO(name(block));
    cfg.mix_fraction = 0;
    REQUIRE(engine.simulate(cfg, &res).ok());
    CHECK(same(res.archs[2], res.archs[0]));
    CHECK_FALSE(same(res.archs[2], res.archs[1]));
    cfg.mix_fraction = 1;
    REQUIRE(engine.simulate(cfg, &res).ok());
    CHECK(same(res.archs[2], res.archs[1]));
    CHECK_FALSE(same(res.archs[2], res.archs[0]));
    // 0.5 of 8 blocks: blocks 1..4 are Post-LN, so the stream up to h_4 is post_ln's, and above it is not.
    cfg.mix_fraction = 0.5;
    REQUIRE(engine.simulate(cfg, &res).ok());
    const ArchResult &post = res.archs[1], &mix = res.archs[2];
    for (int l = 0; l <= 4; ++l) CHECK(mix.stream_rms[l] == post.stream_rms[l]);
    for (int l = 5; l <= 8; ++l) CHECK(mix.stream_rms[l] != post.stream_rms[l]);
    CHECK_FALSE(same(mix, post));
    CHECK_FALSE(same(mix, res.archs[0]));
  }
}
