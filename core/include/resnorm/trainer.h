// resnorm/trainer.h: training one architecture on one task.
//
//   resnorm::Trainer<float> tr;
//   resnorm::Status st = tr.configure(tc, resnorm::Arch::pre_ln);   // errors as values
//   std::vector<resnorm::TrainLog> logs = tr.step(100);             // the logged steps among them
//   resnorm::Lesion les = tr.lesion();
//   std::string blob = tr.state();  ... st = other.load(blob);       // continues bit-identically
//   tr.write_state(sink); ... st = other.load(size, reader);          // the same, streamed
//
// A Trainer owns the network (network.h), the optimizer state (optim.h) and
// the task (tasks.h); what it reports is in train_results.h, what it costs in
// train_cost.h, its saved state's bytes in train_state.h. Update t (1-based)
// trains on task.train_batch(t - 1); steps t with t % log_every == 0, and the
// last of tc.steps, are logged. The first non-finite loss or gradient stops
// the trainer: that step is logged with first_nonfinite = t and every later
// step() returns nothing.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "resnorm/network.h"
#include "resnorm/optim.h"
#include "resnorm/tasks.h"
#include "resnorm/train_config.h"
#include "resnorm/train_cost.h"
#include "resnorm/train_results.h"
#include "resnorm/train_state.h"

namespace resnorm {

template <class S>
class Trainer {
 public:
  // `held`: bytes its engine holds already (other trainers beside it): this
  // trainer must fit beside them (check_train()).
  Status configure(const TrainConfig& tc, Arch arch, double held = 0);
  // Up to n more updates (not past tc.steps, none once stopped); the logs of the logged ones.
  std::vector<TrainLog> step(int64_t n);
  Lesion lesion();
  // Everything a trainer is, as bytes (train_state.h): its arch, config, step
  // and stop state, the parameters and the optimizer's moments.
  std::string state() const;
  // The same bytes handed to `write` piece by piece (the header, each tensor
  // straight from the trainer's memory, the checksum): no copy of the state is
  // held. state_size() is their total.
  void write_state(const StateWriter& write) const;
  uint64_t state_size() const;
  // Restores a state() exactly. A blob that is damaged, truncated, of another
  // version or scalar, or whose sizes do not match its config is refused with a
  // Status naming what is wrong; nothing is read out of its bounds, and this
  // trainer is unchanged then. Every check runs before anything is written:
  // a state of this trainer's own config and arch is read into it in place
  // (nothing more is allocated than a buffer of kStateReadBytes); one of
  // another config is read into a new trainer beside this one, which must fit
  // beside `held` (the bytes its engine holds, this trainer's included).
  Status load(std::string_view blob, double held = 0);
  // The same from `size` bytes that `read` gives (asked for twice: the header
  // and the checksum, then the tensors; they must not change in between).
  Status load(uint64_t size, const StateReader& read, double held = 0);

  const TrainConfig& config() const { return tc_; }
  Arch arch() const { return arch_; }
  int64_t steps_done() const { return optim_->step(); }
  bool stopped() const { return first_nonfinite_ >= 0; }
  int64_t first_nonfinite() const { return first_nonfinite_; }
  const TaskData& task() const { return *task_; }
  Network<S>& network() { return *net_; }
  // DenseFormer's learned averaging weights now, row-major (L, L + 1): entry
  // (l - 1, j) is w_{l,j}, how much the stream after block l takes of y_j (h_0
  // for j = 0, block j's output otherwise), 0 for j > l. Empty for other architectures.
  std::vector<double> dwa_weights() const { return net_->stack().mix_matrix(); }
  // Attention Residuals' read weights now, averaged over the held-out set's
  // tokens (Network::attn_res_weights): row-major (K, K + 1) for K units,
  // (K, N + 1) over the sources h_0, blocks 1..N under Block AttnRes.
  // Empty for other architectures.
  std::vector<double> attn_res_weights();
  // The gates now (see Gates); empty for architectures without them.
  Gates gates() const;
  // The norms' inputs and outputs on held-out batch 0 now (see NormSamples;
  // eval mode): one forward pass, which leaves the network as a held-out
  // measurement does.
  NormSamples norm_samples();
  // The held-out loss in BatchNorm's three modes now, as a log reports them
  // (TrainLog): train mode, eval mode, one-sequence mode. Computed each time,
  // for every norm (LayerNorm's and RMSNorm's three are the same).
  struct HeldoutModes {
    double train_mode = 0, eval_mode = 0, one_seq = 0;
  };
  HeldoutModes heldout_modes();

 private:
  // The held-out set's loss after the update in BatchNorm's `mode`; first: held-out batch 0's outputs.
  double heldout_loss(long* correct, long* scored, Outputs* first, BnMode mode = BnMode::eval);
  StateHeader state_header() const;
  // The parameters, the first moments, the second moments, then BatchNorm's
  // running means and variances layer by layer.
  std::vector<StateTensor> state_tensors() const;
  std::vector<double> contributions() const;  // per block, from the network's last sums

  TrainConfig tc_;
  Arch arch_ = Arch::plain;
  std::unique_ptr<TaskData> task_;
  std::unique_ptr<Network<S>> net_;
  std::unique_ptr<Optim<S>> optim_;
  std::vector<double> contribution_init_;
  int64_t first_nonfinite_ = -1;
};

}  // namespace resnorm
