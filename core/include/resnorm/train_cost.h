// resnorm/train_cost.h: what training costs, and the budgets a training config
// must fit (limits.h), checked before anything is allocated.
#pragma once

#include "resnorm/limits.h"
#include "resnorm/train_config.h"

namespace resnorm {

// Memory from the sizes the trainers of every arch of tc allocate (the peak of
// a logged step included), and work per update. Saving and loading add no
// copy of the state (train_state.h streams it).
Cost train_cost(const TrainConfig& tc, int scalar_bytes = 4);
// The bytes one trainer of `arch` on tc holds: its share of train_cost().
double trainer_bytes(const TrainConfig& tc, Arch arch, int scalar_bytes = 4);
// validate(tc) and the budgets of limits.h (memory, and one update's work),
// naming depth and the deepest that fits when over; `held`: bytes its engine
// holds already (other trainers in the same wasm module), which the memory
// of tc must fit beside.
Status check_train(const TrainConfig& tc, double held = 0);

}  // namespace resnorm
