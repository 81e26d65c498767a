// The engine as the bindings call it (session.cpp): configs read field by
// field with every number as a double, the one-architecture rule of a
// trainer, the log budget of a step, and one memory budget for everything a
// session holds.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "resnorm/session.h"

using namespace resnorm;

namespace {

// A config's values as JS sends them: every field at its table default
// unless given, numbers as doubles.
FieldSource source(std::map<std::string, std::string> text, std::map<std::string, double> numbers = {}) {
  return {[text](const FieldSpec& f) {
            const auto it = text.find(f.name);
            return it == text.end() ? std::string(f.default_text) : it->second;
          },
          [text, numbers](const FieldSpec& f) {
            const auto n = numbers.find(f.name);
            if (n != numbers.end()) return n->second;
            const auto t = text.find(f.name);
            return std::strtod(t == text.end() ? f.default_text : t->second.c_str(), nullptr);
          }};
}

// The smallest training run with every part (as tiny_train.h), as JS sends it.
std::map<std::string, std::string> tiny_train(const char* arch = "pre_ln") {
  return {{"task", "copy"}, {"arch", arch}, {"depth", "2"}, {"width", "16"}, {"expansion", "2"}, {"heads", "2"},
          {"seq", "3"},     {"vocab", "6"}, {"batch", "8"}, {"steps", "40"}, {"log_every", "5"}};
}

double reservation(const SessionTrainer& t) { return std::ceil(trainer_bytes(t.config(), t.arch())); }

std::string state_of(const SessionTrainer& t) {
  std::string s;
  t.write_state([&s](const char* p, size_t n) { s.append(p, n); });
  return s;
}

}  // namespace

TEST_CASE("session: a simulation reads its config field by field and computes what the engine does", "[session]") {
  Session session;
  SessionSimulation sim(session);
  REQUIRE(sim.run(source({{"arch", "pre_ln,post_ln"}, {"depth", "5"}, {"width", "8"}})).ok());
  Config cfg;
  cfg.archs = {Arch::pre_ln, Arch::post_ln};
  cfg.depth = 5;
  cfg.width = 8;
  Engine<float> engine;
  Results want;
  REQUIRE(engine.simulate(cfg, &want).ok());
  CHECK(results_json(sim.results()) == results_json(want));
  // Numbers arrive as doubles: a fraction or NaN is refused by name, not truncated.
  CHECK(sim.run(source({}, {{"depth", 2.5}})).message == "depth: 2.5 is not a whole number (allowed 1..1024)");
  CHECK(sim.run(source({}, {{"gain", NAN}})).message == "gain: nan is not a finite number (allowed 0..4)");
  CHECK(sim.run(source({{"arch", "pre_ln,nope"}})).message.rfind("arch: 'nope' is not a known architecture", 0) == 0);
  // Of two bad fields, the first in the table (the order of the page's controls) is named.
  CHECK(sim.run(source({{"activation", "softmax"}}, {{"depth", 0}})).field == "depth");
  CHECK(sim.check(source({{"activation", "softmax"}})).field == "activation");
  CHECK(sim.check(source({{"depth", "1024"}, {"width", "512"}, {"expansion", "4"}})).max_fit == 32);
  CHECK(sim.check(source({{"depth", "4"}})).ok());
}

TEST_CASE("session: path statistics take samples and path_seed as numbers, refused by name", "[session]") {
  Session session;
  SessionSimulation sim(session);
  const FieldSource small = source({{"arch", "residual"}, {"depth", "3"}, {"width", "8"}});
  CHECK(sim.paths(small, 1.5, 0).message == "samples: 1.5 is not a whole number (allowed 1..4096)");
  CHECK(sim.paths(small, 0, 0).field == "samples");
  CHECK(sim.paths(small, 4, -1).message == "path_seed: -1 is out of range (allowed 0..4294967295)");
  REQUIRE(sim.paths(small, 4, 3).ok());
  Config cfg;
  cfg.archs = {Arch::residual};
  cfg.depth = 3;
  cfg.width = 8;
  Engine<float> engine;
  PathResults want;
  REQUIRE(engine.paths(cfg, 4, 3, &want).ok());
  REQUIRE(sim.path_results().archs.size() == 1);
  CHECK(sim.path_results().archs[0].mean_norm == want.archs[0].mean_norm);
}

TEST_CASE("session: a trainer trains one architecture, and its checks count every one", "[session]") {
  Session session;
  SessionTrainer tr(session);
  std::map<std::string, std::string> two = tiny_train("pre_ln,post_ln");
  CHECK(tr.check(source(two)).ok());
  CHECK(tr.config().archs.size() == 2);
  const Status st = tr.start(source(two));
  CHECK(st.field == "arch");
  CHECK(st.message.rfind("arch: 2 architectures given; a trainer trains one (allowed one of plain|residual|", 0) == 0);
  CHECK_FALSE(tr.started());
  CHECK(session.trainers_held() == 0);
  CHECK(tr.start(source(tiny_train(), {{"lr", NAN}})).message == "lr: nan is not a finite number (allowed 0..10)");
  CHECK(tr.start(source(tiny_train(), {{"depth", 0}})).field == "depth");
  REQUIRE(tr.start(source(tiny_train())).ok());
  CHECK(tr.arch() == Arch::pre_ln);
  CHECK(tr.config().archs == std::vector<Arch>{Arch::pre_ln});
}

TEST_CASE("session: step takes n as a number within the log budget, and the outcome once a step is logged",
          "[session]") {
  Session session;
  SessionTrainer tr(session);
  CHECK(tr.step(1).message == "trainer: not configured");
  CHECK(tr.run_lesion().message == "trainer: not configured");
  CHECK(tr.outcome().empty());
  CHECK(tr.state_size() == 0);
  CHECK(state_of(tr).empty());
  REQUIRE(tr.start(source(tiny_train())).ok());
  CHECK(tr.step(1.5).message == "n: 1.5 is not a whole number (allowed 0..1000000)");
  CHECK(tr.step(2e6).field == "n");
  REQUIRE(tr.step(4).ok());
  CHECK(tr.logs().empty());     // log_every 5: nothing logged yet
  CHECK(tr.outcome().empty());  // nor anything to judge
  REQUIRE(tr.step(6).ok());
  REQUIRE(tr.logs().size() == 2);
  CHECK(tr.logs()[1].step == 10);
  CHECK(tr.steps_done() == 10);
  CHECK(tr.outcome() == outcome(tr.logs()[1], tr.chance(), tr.optimal()));
  tr.clear_logs();
  CHECK(tr.logs().empty());
  REQUIRE(tr.run_lesion().ok());
  CHECK(tr.lesion().loss.size() == 2);

  // One call returns at most kMaxLogBytes of logs: 16 numbers a log at depth 1.
  std::map<std::string, std::string> every = {{"arch", "pre_ln"}, {"depth", "1"},       {"width", "8"},
                                              {"seq", "2"},       {"steps", "1000000"}, {"log_every", "1"}};
  SessionTrainer logged(session);
  REQUIRE(logged.start(source(every)).ok());
  const Status st = logged.step(1e6);
  CHECK(st.field == "n");
  CHECK(st.max_fit == kMaxLogBytes / (16 * 8));
  CHECK(st.message ==
        "n: 1000000 updates would log 1000000 steps, 122 MB of numbers (one call may return 32 MB; allowed "
        "0..262144 from step 0)");
  CHECK(logged.steps_done() == 0);
}

TEST_CASE("session: trainers reserve their bytes, a state loads beside them, and simulations run in what is left",
          "[session]") {
  Session session;
  {
    SessionTrainer a(session), b(session);
    REQUIRE(a.start(source(tiny_train())).ok());
    CHECK(session.trainers_held() == reservation(a));
    REQUIRE(b.start(source(tiny_train("residual"), {{"depth", 3}})).ok());
    CHECK(session.trainers_held() == reservation(a) + reservation(b));
    // A state of another config replaces b's trainer, and its reservation.
    REQUIRE(a.step(3).ok());
    const std::string blob = state_of(a);
    CHECK(blob.size() == a.state_size());
    auto read = [&blob](uint64_t at, char* out, size_t n) { blob.copy(out, n, at); };
    CHECK(b.load(1.5, read).message == "state: 1.5 is not a whole number (allowed 0..805306368)");
    REQUIRE(b.load(static_cast<double>(blob.size()), read).ok());
    CHECK(b.arch() == Arch::pre_ln);
    CHECK(b.steps_done() == 3);
    CHECK(state_of(b) == blob);
    CHECK(session.trainers_held() == 2 * reservation(a));
  }
  CHECK(session.trainers_held() == 0);  // whole bytes: the sum comes back to 0

  // A trainer of 165 MB, and the deepest simulation that fits the budget alone:
  // beside it the simulation is refused naming depth and what the session holds.
  SessionTrainer big(session);
  REQUIRE(
      big
          .start(source(
              {{"arch", "pre_ln"}, {"depth", "1"}, {"width", "64"}, {"seq", "64"}, {"batch", "256"}, {"vocab", "256"}}))
          .ok());
  const double held = session.trainers_held();
  CHECK(held == reservation(big));
  CHECK(held > 150e6);
  SessionSimulation sim(session);
  std::map<std::string, std::string> wide = {{"depth", "1024"}, {"width", "128"}, {"expansion", "2"}, {"tokens", "64"}};
  const Status alone = sim.check(source(wide));
  REQUIRE(alone.field == "depth");
  wide["depth"] = std::to_string(static_cast<int>(alone.max_fit));
  CHECK(sim.check(source(wide)).ok());  // check() counts an engine of its own
  const Status beside = sim.run(source(wide));
  INFO(beside.message);
  CHECK(beside.field == "depth");
  CHECK(beside.max_fit < alone.max_fit);
  CHECK(beside.message.find("its engine holds") != std::string::npos);
}
