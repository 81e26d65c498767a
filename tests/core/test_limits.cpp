// The budgets of limits.h: the memory estimate against what the engine really
// holds, the configs that used to pass every field's range and then exhaust
// the wasm heap or take most of a minute, and the largest value the error
// names, which must itself fit.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "helpers.h"
#include "resnorm/engine.h"
#include "resnorm/limits.h"

using namespace resnorm;

namespace {

Config make(int archs, int depth, int width, int expansion, int tokens, Block block = Block::mlp, int heads = 4) {
  Config c;
  c.archs.clear();
  const auto all = all_archs();
  for (int i = 0; i < archs; ++i) c.archs.push_back(all[i]);
  c.depth = depth;
  c.width = width;
  c.expansion = expansion;
  c.tokens = tokens;
  c.block = block;
  c.heads = heads;
  return c;
}

// The number a refusal says is the largest that fits ("allowed 1..N ...").
int allowed_max(const std::string& message) {
  const auto at = message.find("allowed 1..");
  REQUIRE(at != std::string::npos);
  return std::stoi(message.substr(at + 11));
}

}  // namespace

TEST_CASE("The memory estimate is what the engine holds after the call, within 10 percent above it") {
#if RESNORM_HAVE_MALLINFO2
  const Config configs[] = {
      make(4, 96, 64, 1, 8),
      make(4, 64, 128, 2, 64),
      make(10, 32, 64, 4, 16),
      make(1, 300, 32, 4, 32),
      make(4, 24, 64, 2, 32, Block::transformer, 4),
      make(10, 16, 32, 1, 64, Block::transformer, 8),
      make(15, 48, 64, 2, 16),  // every architecture: the gates, DenseFormer's averages
      make(15, 16, 32, 2, 32, Block::transformer, 4),
  };
  for (const Config& cfg : configs) {
    const double before = test::heap_in_use();
    Engine<float> engine;
    Results res;
    REQUIRE(engine.simulate(cfg, &res).ok());
    const double held = test::heap_in_use() - before;
    const double est = simulate_cost(cfg).bytes;
    std::printf("limits: %s est %.2f MB held %.2f MB ratio %.4f\n", config_json(cfg).c_str(), est / 1048576,
                held / 1048576, est / held);
    CHECK(est >= held);
    CHECK(est <= 1.10 * held);
  }
#else
  WARN("no mallinfo2 here (or AddressSanitizer's malloc): the estimate is not measured");
#endif
}

TEST_CASE("Configs whose fields are each in range but together exceed a budget are refused, naming depth") {
  // All of these passed validate() and needed 1.5-6 GB or tens of seconds.
  Config deep_wide = make(4, 1024, 128, 2, 64);
  Config ten_deep = make(10, 1024, 64, 1, 64);
  Config mid = make(4, 512, 128, 2, 64);
  Config tiny_transformer = make(10, 1024, 8, 4, 64, Block::transformer, 8);
  Config orthogonal = make(1, 32, 512, 4, 8);
  orthogonal.init = Init::orthogonal;
  for (const Config* cfg : {&deep_wide, &ten_deep, &mid, &tiny_transformer, &orthogonal}) {
    REQUIRE(validate(*cfg).ok());
    Engine<float> engine;
    Results res;
    const Status st = engine.simulate(*cfg, &res);
    INFO(st.message);
    REQUIRE_FALSE(st.ok());
    CHECK(st.field == "depth");
    CHECK(st.message.rfind("depth: " + std::to_string(cfg->depth) + " needs ", 0) == 0);
    CHECK(st.message.find(" with the other settings)") != std::string::npos);
    // The largest depth it names fits, one more does not.
    Config at = *cfg;
    at.depth = allowed_max(st.message);
    CHECK(st.max_fit == at.depth);  // the bindings pass it on as the error's .max
    CHECK(check_simulate(at).ok());
    at.depth += 1;
    CHECK_FALSE(check_simulate(at).ok());
  }
}

TEST_CASE("A refusal says what the call would need: memory in MB or GB, work as a multiple of the budget") {
  const Status mem = check_simulate(make(10, 1024, 64, 1, 64));
  CHECK(mem.message.find("GB of memory (one call may use 768 MB)") != std::string::npos);
  Config orthogonal = make(1, 32, 512, 4, 8);
  orthogonal.init = Init::orthogonal;
  const Status work = check_simulate(orthogonal);
  CHECK(work.message.find("times the work one call may do") != std::string::npos);
}

TEST_CASE("Path sampling is bounded by the same work budget, naming samples, or depth when no sample count fits") {
  Config one = make(1, 512, 64, 1, 8);
  const Status st = check_paths(one, 8);
  INFO(st.message);
  REQUIRE_FALSE(st.ok());
  CHECK(st.field == "samples");
  const int fit = allowed_max(st.message);
  CHECK(fit < 8);
  CHECK(check_paths(one, fit).ok());
  CHECK_FALSE(check_paths(one, fit + 1).ok());

  Config four = make(4, 512, 64, 1, 8);
  const Status deep = check_paths(four, 8);
  INFO(deep.message);
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.field == "depth");
  Config at = four;
  at.depth = allowed_max(deep.message);
  CHECK(check_paths(at, 8).ok());
  // The papers page's path experiment stays well inside.
  CHECK(check_paths(make(2, 54, 64, 1, 8), 64).ok());
}

TEST_CASE("The scenes the site and the papers use are inside both budgets") {
  CHECK(check_simulate(make(4, 96, 64, 1, 8)).ok());  // the default scene
  Config deep = make(1, 1000, 64, 1, 8);
  deep.archs = {Arch::deepnorm, Arch::post_ln};
  CHECK(check_simulate(deep).ok());
  CHECK(check_simulate(make(10, 96, 64, 4, 16, Block::transformer, 4)).ok());
  CHECK(check_simulate(make(10, 192, 256, 1, 8)).ok());  // the wide scene
}

TEST_CASE("After a large call, a different large call does not hold both") {
#if RESNORM_HAVE_MALLINFO2
  const double before = test::heap_in_use();
  Engine<float> engine;
  Results res;
  REQUIRE(engine.simulate(make(10, 180, 64, 4, 32), &res).ok());  // many archs
  Config one = make(1, 1000, 64, 4, 16);                          // one arch, deep bank
  REQUIRE(engine.simulate(one, &res).ok());
  Config wide = make(4, 60, 512, 1, 64);  // a new width: a new bank
  REQUIRE(engine.simulate(wide, &res).ok());
  const double held = test::heap_in_use() - before;
  INFO("held " << held / 1048576 << " MB");
  CHECK(held <= simulate_cost(wide).bytes * 1.05);
  CHECK(held <= kMemoryBudget);
#else
  WARN("no mallinfo2 here (or AddressSanitizer's malloc): what the engine holds is not measured");
#endif
}

TEST_CASE("Workspaces kept from a deeper call are given back when keeping them would pass the budget") {
#if RESNORM_HAVE_MALLINFO2
  const double before = test::heap_in_use();
  Engine<float> engine;
  Results res;
  Config deep = make(2, 1024, 64, 4, 64);
  deep.depth = static_cast<int>(check_simulate(deep).max_fit);  // two archs as deep as fits
  REQUIRE(deep.depth > 0);
  REQUIRE(engine.simulate(deep, &res).ok());
  Config many = make(10, 1024, 64, 4, 64);
  many.depth = static_cast<int>(check_simulate(many).max_fit);  // ten archs, shallower, same shape
  REQUIRE(many.depth > 0);
  REQUIRE(engine.simulate(many, &res).ok());
  const double held = test::heap_in_use() - before;
  INFO("held " << held / 1048576 << " MB, depths " << deep.depth << " then " << many.depth);
  CHECK(held <= kMemoryBudget);
#else
  WARN("no mallinfo2 here (or AddressSanitizer's malloc): what the engine holds is not measured");
#endif
}

TEST_CASE("Workspaces kept from a wider call are given back when keeping them would pass the budget") {
  // A model's capacity is the largest of each size it has seen (model.h):
  // after a wide, shallow call, a deep narrow one would keep a capacity of the
  // wide sizes at the deep depth, bounded by 1.3 GB, though each call alone
  // fits; the engine gives the wide workspaces back and holds the deep call's.
  Config wide = make(1, 8, 512, 4, 64);
  Config deep = make(1, 400, 64, 1, 8);
  REQUIRE(check_simulate(wide).ok());
  REQUIRE(check_simulate(deep).ok());
  Capacity both{Block::mlp, 64, 512, 2048, 0, 400};
  REQUIRE(capacity_bytes(both, 4) > kMemoryBudget);
#if RESNORM_HAVE_MALLINFO2
  const double before = test::heap_in_use();
  Engine<float> engine;
  Results res;
  REQUIRE(engine.simulate(wide, &res).ok());
  REQUIRE(engine.simulate(deep, &res).ok());
  const double held = test::heap_in_use() - before;
  INFO("held " << held / 1048576 << " MB");
  CHECK(held <= simulate_cost(deep).bytes * 1.05);
#else
  WARN("no mallinfo2 here (or AddressSanitizer's malloc): what the engine holds is not measured");
#endif
}

TEST_CASE("Over the weight cap and a budget at once, the depth named fits both") {
  Config cfg = make(1, 1024, 128, 4, 64, Block::transformer, 4);
  cfg.archs = {Arch::admin};
  const Status st = check_simulate(cfg);
  INFO(st.message);
  REQUIRE(st.field == "depth");
  Config at = cfg;
  at.depth = static_cast<int>(st.max_fit);
  CHECK(st.message.find("allowed 1.." + std::to_string(at.depth)) != std::string::npos);
  CHECK(check_simulate(at).ok());
  at.depth += 1;
  CHECK_FALSE(check_simulate(at).ok());
  // Over the weight cap alone, the weight cap's own message and depth.
  const Status cap = check_simulate(make(4, 1024, 512, 4, 8));
  CHECK(cap.message.find("weights in all") != std::string::npos);
  CHECK(cap.max_fit == 32);
}

TEST_CASE("Beside what its engine holds already, a call must fit in what is left, and the refusal names both") {
  // 4 archs at depth 96, d 128, T 64: about 400 MB, within the budget alone.
  const Config cfg = make(4, 96, 128, 1, 64);
  const double cost = simulate_cost(cfg).bytes;
  REQUIRE(cost < kMemoryBudget);
  REQUIRE(check_simulate(cfg).ok());
  CHECK(check_simulate(cfg, kMemoryBudget - cost).ok());
  CHECK(fits(simulate_cost(cfg), kMemoryBudget - cost));
  // Held beside it: 600 MB (trainers of the same wasm module).
  const double held = 600.0 * 1024 * 1024;
  const Status st = check_simulate(cfg, held);
  INFO(st.message);
  REQUIRE_FALSE(st.ok());
  CHECK(st.field == "depth");
  CHECK(st.message.find("of memory, and its engine holds 600 MB already (one engine may hold 768 MB in all)") !=
        std::string::npos);
  CHECK(st.message.find("with the other settings and what its engine holds)") != std::string::npos);
  Config at = cfg;
  at.depth = allowed_max(st.message);
  CHECK(st.max_fit == at.depth);
  CHECK(at.depth >= 1);
  CHECK(at.depth < cfg.depth);
  CHECK(check_simulate(at, held).ok());
  CHECK(simulate_cost(at).bytes + held <= kMemoryBudget);
  at.depth += 1;
  CHECK_FALSE(check_simulate(at, held).ok());
  // Nothing left: no depth fits, and .max says so with 0.
  const Status none = check_simulate(cfg, kMemoryBudget);
  CHECK(none.field == "depth");
  CHECK(none.max_fit == 0);
  CHECK(none.message.find("no value fits with the other settings and what its engine holds") != std::string::npos);
  // Path sampling likewise.
  const Status paths = check_paths(cfg, 1, held);
  CHECK(paths.field == "depth");
  CHECK(paths.max_fit == st.max_fit);
  CHECK(check_paths(make(1, 8, 16, 1, 4), 8, held).ok());
}
