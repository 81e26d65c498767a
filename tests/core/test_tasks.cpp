// The training tasks (tasks.cpp): what each sequence holds, which positions
// are scored, determinism from (seed, step), the fixed held-out set, and the
// chance and optimal losses.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "resnorm/tasks.h"

using namespace resnorm;

namespace {

TrainConfig task_config(Task task) {
  TrainConfig tc;
  tc.task = task;
  tc.seq = 5;
  tc.vocab = 7;
  tc.batch = 4;
  tc.width = 8;
  return tc;
}

}  // namespace

TEST_CASE("copy, reverse and sort: the output half is the input copied, reversed or sorted", "[tasks]") {
  for (Task task : {Task::copy, Task::reverse, Task::sort}) {
    TaskData data(task_config(task));
    const Batch b = data.train_batch(3);
    REQUIRE(b.length == 10);
    CHECK(b.scored() == 4 * 5);
    for (int s = 0; s < b.size; ++s) {
      const int32_t* tok = b.tokens.data() + s * 10;
      const int32_t* tgt = b.targets.data() + s * 10;
      std::vector<int32_t> in(tok, tok + 5), out(tok + 5, tok + 10);
      if (task == Task::reverse) std::reverse(in.begin(), in.end());
      if (task == Task::sort) std::sort(in.begin(), in.end());
      CHECK(in == out);
      for (int t = 0; t < 10; ++t) CHECK(tgt[t] == (t >= 4 && t <= 8 ? tok[t + 1] : -1));
      for (int t = 0; t < 10; ++t) CHECK((tok[t] >= 0 && tok[t] < 7));
    }
    CHECK(data.chance_loss() == Approx(std::log(7.0)));
    CHECK(data.optimal_loss() == 0);
  }
}

TEST_CASE("modadd: position 1 predicts (a + b) mod p", "[tasks]") {
  TaskData data(task_config(Task::modadd));
  const Batch b = data.train_batch(0);
  REQUIRE(b.length == 2);
  for (int s = 0; s < b.size; ++s) {
    CHECK(b.targets[s * 2] == -1);
    CHECK(b.targets[s * 2 + 1] == (b.tokens[s * 2] + b.tokens[s * 2 + 1]) % 7);
  }
}

TEST_CASE("batches depend on (seed, step) only, and the held-out set on the seed only", "[tasks]") {
  const TrainConfig tc = task_config(Task::reverse);
  TaskData a(tc), b(tc);
  CHECK(a.train_batch(17).tokens == b.train_batch(17).tokens);
  CHECK(a.train_batch(17).tokens != a.train_batch(18).tokens);
  REQUIRE(a.heldout().size() == 2);
  CHECK(a.heldout()[0].tokens == b.heldout()[0].tokens);
  CHECK(a.heldout()[0].tokens != a.heldout()[1].tokens);
  TrainConfig other = tc;
  other.seed = 1;
  CHECK(TaskData(other).train_batch(17).tokens != a.train_batch(17).tokens);
  CHECK(TaskData(other).heldout()[0].tokens != a.heldout()[0].tokens);
}

TEST_CASE("markov: sparse rows, and the optimal loss matches the sampled conditional entropy", "[tasks]") {
  TrainConfig tc = task_config(Task::markov);
  tc.batch = 256;
  tc.seq = 12;
  TaskData data(tc);
  const Mat<double>& P = data.markov_matrix();
  for (int i = 0; i < 7; ++i) {
    CHECK(P.row(i).sum() == Approx(1.0));
    CHECK((P.row(i).array() > 0).count() == kMarkovSuccessors);
  }
  // -log P(next | current) over many sampled sequences estimates the expected optimal loss.
  double sum = 0, count = 0;
  for (int step = 0; step < 40; ++step) {
    const Batch b = data.train_batch(step);
    for (size_t i = 0; i < b.tokens.size(); ++i)
      if (b.targets[i] >= 0) {
        const double p = P(b.tokens[i], b.targets[i]);
        REQUIRE(p > 0);
        sum -= std::log(p);
        ++count;
      }
  }
  std::printf("markov optimal %.4f sampled %.4f over %.0f positions, chance %.4f\n", data.optimal_loss(), sum / count,
              count, data.chance_loss());
  CHECK(sum / count == Approx(data.optimal_loss()).epsilon(0.02));
  CHECK(data.optimal_loss() < data.chance_loss());
}

TEST_CASE("teacher: held-out targets have mean square 1, the training batches about 1", "[tasks]") {
  TrainConfig tc = task_config(Task::teacher);
  tc.batch = 128;
  TaskData data(tc);
  double sq = 0, n = 0;
  for (const Batch& b : data.heldout())
    for (double y : b.y) sq += y * y, ++n;
  CHECK(sq / n == Approx(1.0));
  CHECK(data.chance_loss() == 1.0);
  const Batch b = data.train_batch(0);
  REQUIRE(b.x.rows() == 128);
  double tsq = 0;
  for (double y : b.y) tsq += y * y;
  CHECK(tsq / 128 == Approx(1.0).epsilon(0.3));
}

TEST_CASE("padded tasks: lengths drawn from seq_min..seq, pads after them, never scored", "[tasks][padding]") {
  for (Task task : {Task::copy, Task::reverse, Task::sort, Task::markov}) {
    TrainConfig tc = task_config(task);
    tc.seq_min = 2;
    tc.batch = 16;
    TaskData data(tc);
    REQUIRE(data.padded());
    CHECK(data.embedding_rows() == tc.vocab + 1);
    const Batch b = data.train_batch(2);
    const int T = data.context(), per = task == Task::markov ? 1 : 2;
    REQUIRE(b.lengths.size() == size_t(b.size));
    int longest = 0, shortest = T;
    for (int s = 0; s < b.size; ++s) {
      const int len = b.lengths[s];
      longest = std::max(longest, len);
      shortest = std::min(shortest, len);
      CHECK(len % per == 0);
      CHECK(len >= per * tc.seq_min);
      CHECK(len <= T);
      for (int t = 0; t < T; ++t) {
        const int32_t tok = b.tokens[size_t(s) * T + t], tgt = b.targets[size_t(s) * T + t];
        if (t >= len) {
          CHECK(tok == tc.vocab);  // the pad token
          CHECK(tgt == -1);
        } else {
          CHECK(tok < tc.vocab);
          if (tgt >= 0) CHECK(tgt == b.tokens[size_t(s) * T + t + 1]);
        }
      }
      if (task == Task::reverse) {
        const int n = len / 2;
        for (int i = 0; i < n; ++i) CHECK(b.tokens[size_t(s) * T + n + i] == b.tokens[size_t(s) * T + n - 1 - i]);
      }
    }
    CHECK(b.length == longest);
    CHECK(shortest < longest);  // 16 draws from 4 lengths
  }
  // seq_min = seq is the fixed length: the same batches as seq_min = 0, no pads.
  TrainConfig fixed = task_config(Task::reverse), same = fixed;
  same.seq_min = same.seq;
  TaskData a(fixed), b(same);
  CHECK(!b.padded());
  CHECK(a.train_batch(4).tokens == b.train_batch(4).tokens);
  CHECK(b.train_batch(4).lengths.empty());
}
