// What training costs (train_cost.cpp): a config over the budget is refused
// naming depth and the deepest that fits, and trainers side by side share one
// engine's budget, each holding its share of train_cost().
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "helpers.h"
#include "resnorm/trainer.h"

using namespace resnorm;

TEST_CASE("train cost: a config over the budget is refused naming depth", "[train_cost]") {
  TrainConfig tc;
  tc.depth = 128;
  tc.width = 256;
  tc.seq = 64;
  tc.batch = 256;
  tc.archs = all_archs();
  const Status st = check_train(tc);
  INFO(st.message);
  CHECK(st.field == "depth");
  CHECK(st.max_fit >= 0);
  CHECK(st.max_fit < 128);
  Trainer<float> tr;
  CHECK(tr.configure(tc, Arch::pre_ln).field == "depth");
  CHECK(check_train(TrainConfig()).ok());
}

TEST_CASE("train cost: trainers side by side share one budget, and each one's bytes are its share of train_cost",
          "[train_cost]") {
  TrainConfig tc;  // the lab's largest shape: d 256, e 4, T 128 tokens
  tc.task = Task::reverse;
  tc.archs = {Arch::pre_ln};
  tc.width = 256;
  tc.expansion = 4;
  tc.seq = 64;
  tc.batch = 1;
  tc.eval_batches = 1;
  tc.steps = 20;
  tc.log_every = 10;
  tc.depth = 19;
  const double one = trainer_bytes(tc, Arch::pre_ln);
  CHECK(one == train_cost(tc).bytes);
  REQUIRE(check_train(tc).ok());
  // Two fit one engine; a third is refused naming depth and the deepest that fits beside them.
  REQUIRE(check_train(tc, one).ok());
  const Status third = check_train(tc, 2 * one);
  INFO(third.message);
  CHECK(third.field == "depth");
  CHECK(third.max_fit >= 0);
  CHECK(third.max_fit < 19);
  CHECK(third.message.find("its engine holds") != std::string::npos);
  TrainConfig at = tc;
  at.depth = static_cast<int>(third.max_fit);
  if (at.depth >= 1) CHECK(check_train(at, 2 * one).ok());
  at.depth += 1;
  CHECK_FALSE(check_train(at, 2 * one).ok());
  Trainer<float> tr;
  CHECK(tr.configure(tc, Arch::pre_ln, 2 * one).field == "depth");
  // Side by side, two archs cost what their two trainers hold, the batches once.
  TrainConfig two = tc;
  two.archs = {Arch::pre_ln, Arch::post_ln};
  const double batches = 2.0 * (2.0 * tc.batch * 128 * 4);  // held-out set and step batch: tokens and targets
  CHECK(std::abs(trainer_bytes(two, Arch::pre_ln) + trainer_bytes(two, Arch::post_ln) - train_cost(two).bytes -
                 batches) < 1);
}

TEST_CASE("train cost: what a trainer holds after logged steps is inside its estimate, BatchNorm's within 30 percent",
          "[train_cost]") {
#if RESNORM_HAVE_MALLINFO2
  // BatchNorm passes the whole batch at once with attention inside each
  // sequence, so its estimate counts the batch's rows but not batch x batch
  // attention; a batch of 64 sequences of 16 at width 64 fits.
  struct Case {
    Block block;
    NormChoice norm;
    int batch, seq, width, depth;
  };
  const Case cases[] = {
      {Block::transformer, NormChoice::batchnorm, 64, 16, 64, 4},
      {Block::transformer, NormChoice::batchnorm, 8, 32, 64, 6},
      {Block::mlp, NormChoice::batchnorm, 32, 16, 64, 8},
      {Block::transformer, NormChoice::automatic, 64, 16, 64, 4},
      {Block::mlp, NormChoice::automatic, 32, 16, 64, 8},
  };
  for (const Case& c : cases) {
    TrainConfig tc;
    tc.task = Task::reverse;
    tc.archs = {Arch::pre_ln};
    tc.block = c.block;
    tc.norm = c.norm;
    tc.batch = c.batch;
    tc.seq = c.seq;
    tc.seq_min = c.seq / 2;
    tc.width = c.width;
    tc.depth = c.depth;
    tc.steps = 4;
    tc.log_every = 2;
    tc.eval_batches = 1;
    REQUIRE(check_train(tc).ok());
    const double before = test::heap_in_use();
    double held = 0;
    {
      Trainer<float> tr;
      REQUIRE(tr.configure(tc, Arch::pre_ln).ok());
      REQUIRE(tr.step(4).size() == 2);
      held = test::heap_in_use() - before;
    }
    const double est = trainer_bytes(tc, Arch::pre_ln);
    std::printf("train cost: %s batch %d seq %d d %d depth %d est %.2f MB held %.2f MB ratio %.3f\n",
                c.norm == NormChoice::batchnorm ? "batchnorm" : "auto", c.batch, c.seq, c.width, c.depth, est / 1048576,
                held / 1048576, est / held);
    CHECK(est >= held);
    if (c.norm == NormChoice::batchnorm) CHECK(est <= 1.30 * held);
  }
#else
  WARN("no mallinfo2 here (or AddressSanitizer's malloc): what a trainer holds is not measured");
#endif
}
