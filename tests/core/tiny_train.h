// The smallest training run that still has every part (two transformer blocks,
// two heads, an expansion, a held-out set): fast enough for tests that step it
// many times and for a fuzzer that loads its state thousands of times a second.
#pragma once

#include "resnorm/train_config.h"

namespace resnorm {

inline TrainConfig tiny_train_config(Task task = Task::copy) {
  TrainConfig tc;
  tc.task = task;
  tc.depth = 2;
  tc.width = 16;
  tc.expansion = 2;
  tc.heads = 2;
  tc.seq = 3;
  tc.vocab = 6;
  tc.batch = 8;
  tc.steps = 40;
  tc.log_every = 5;
  tc.lr = 3e-3;
  return tc;
}

}  // namespace resnorm
