// resnorm/trainer.h: training one architecture on one task (spec v2).
//
//   resnorm::Trainer<float> tr;
//   resnorm::Status st = tr.configure(tc, resnorm::Arch::pre_ln);   // errors as values
//   std::vector<resnorm::TrainLog> logs = tr.step(100);             // the logged steps among them
//   resnorm::Lesion les = tr.lesion();
//   std::string blob = tr.state();  ... st = other.load(blob);       // continues bit-identically
//   tr.write_state(sink); ... st = other.load(size, reader);          // the same, streamed
//
// A Trainer owns the network (network.h), the optimizer state (optim.h) and
// the task (tasks.h). Update t (1-based) trains on task.train_batch(t - 1);
// steps t with t % log_every == 0, and the last of tc.steps, are logged. The
// first non-finite loss or gradient stops the trainer: that step is logged
// with first_nonfinite = t and every later step() returns nothing.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "resnorm/limits.h"
#include "resnorm/network.h"
#include "resnorm/optim.h"
#include "resnorm/tasks.h"
#include "resnorm/train_config.h"

namespace resnorm {

// One logged step. Per-block arrays are indexed like spec v1's: l = 0..L for
// the stream and its gradient (block boundaries), block l at l - 1 otherwise.
struct TrainLog {
  int64_t step = 0;             // updates done, this one included
  double lr = 0;                // of this update
  double train_loss = 0;        // on this step's batch, before the update
  double heldout_loss = 0;      // the held-out set after the update
  double heldout_accuracy = 0;  // argmax = target over its scored positions; NaN for teacher
  double grad_norm_global = 0;  // ||all gradients||, before clipping
  // RMS of F(x; W_after) - F(x; W_before) over held-out batch 0 (F: the logits, or yhat).
  double output_change = 0;
  // Mean cosine similarity of the top stream (out) of every pair of items of
  // held-out batch 0 after the update: near 1 when the output no longer depends on the input.
  double top_cosine = 0;
  std::vector<double> grad_norm;     // L + 1: ||d loss / d h_l|| over the batch
  std::vector<double> stream_rms;    // L + 1: ||h_l|| / sqrt(B T d)
  std::vector<double> w_grad_norm;   // L: ||d loss / d W|| over every matrix of block l
  std::vector<double> update_ratio;  // L: ||W_after - W_before|| / ||W_before|| over block l's matrices
  std::vector<double> contribution;  // L: ||u_l|| / ||alpha h_{l-1}|| (transformer: rss of the two units)
  int64_t first_nonfinite = -1;      // this step, when its loss or gradient was not finite
};

// Held-out loss with each block skipped (h_l = h_{l-1}), and each block's
// contribution now and at init.
struct Lesion {
  double base = 0;                                      // held-out loss of the whole model
  std::vector<double> loss;                             // L: with block l skipped
  std::vector<double> increase, relative;               // L: loss - base, (loss - base) / base
  std::vector<double> contribution, contribution_init;  // L: on held-out batch 0
};

// The learnable gates (ReZero's alpha, LayerScale's lambda) unit by unit, now
// and at init: unit k = 1..L P is block (k - 1) / P + 1's (P = 2 for a
// transformer block: attention, then the MLP). Width 0 and every vector empty
// for presets without a gate.
struct Gates {
  int width = 0;                  // entries per unit: 1 (one scalar) or d (one per channel)
  std::vector<double> values;     // (units, width) row-major: the entries now
  std::vector<double> init;       // units: every entry's value at init (the recipe's gate_init)
  std::vector<double> magnitude;  // units: mean |entry| now
};

// What training cost: memory from the sizes the trainers of every arch
// allocate (the peak of a logged step included), and work per update. Saving
// and loading add no copy of the state (write_state() and load() stream it).
Cost train_cost(const TrainConfig& tc, int scalar_bytes = 4);
// The bytes one trainer of `arch` on tc holds: its share of train_cost().
double trainer_bytes(const TrainConfig& tc, Arch arch, int scalar_bytes = 4);
// validate(tc) and the budgets of limits.h (memory, and one update's work),
// naming depth and the deepest that fits when over; `held`: bytes its engine
// holds already (other trainers in the same wasm module), which the memory
// of tc must fit beside.
Status check_train(const TrainConfig& tc, double held = 0);

// The framing of a saved state (Trainer::state()): it starts with the magic and
// the version and ends with the checksum of every byte before the checksum.
inline constexpr char kStateMagic[8] = {'R', 'N', 'T', 'R', 'A', 'I', 'N', '1'};
inline constexpr uint32_t kStateVersion = 1;
uint64_t state_checksum(std::string_view bytes);  // FNV-1a 64
// A saved state's bytes as they are written, in pieces, in order.
using StateWriter = std::function<void(const char* bytes, size_t n)>;
// Reads bytes [offset, offset + n) of a saved state into `out` (the loader
// never asks past the size it was given).
using StateReader = std::function<void(uint64_t offset, char* out, size_t n)>;
// The largest piece load() reads into a buffer of its own (the checksum pass);
// the tensors are read straight into the trainer's memory.
inline constexpr size_t kStateReadBytes = 256 * 1024;

// How a run ended: "trained" (held-out loss below halfway from chance to the
// optimal loss), "diverged" (non-finite, or held-out loss above 1.5 x chance),
// "collapsed" (top cosine above 0.99 with held-out loss within 10% of
// chance), else "slow".
const char* outcome(const TrainLog& last, double chance, double optimal);

template <class S>
class Trainer {
 public:
  // `held`: bytes its engine holds already (other trainers beside it): this
  // trainer must fit beside them (check_train()).
  Status configure(const TrainConfig& tc, Arch arch, double held = 0);
  // Up to n more updates (not past tc.steps, none once stopped); the logs of the logged ones.
  std::vector<TrainLog> step(int64_t n);
  Lesion lesion();
  // Everything a trainer is, as bytes: header (magic, version, arch, config,
  // scalar size, tensor count and sizes), then the parameters, the optimizer's
  // moments, the step and the stop state, then an FNV-1a 64 checksum.
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
  // for j = 0, block j's output otherwise), 0 for j > l. Empty for other presets.
  std::vector<double> dwa_weights() const { return net_->stack().mix_matrix(); }
  // The gates now (see Gates); empty for presets without them.
  Gates gates() const;

 private:
  // The held-out set's loss after the update; first: held-out batch 0's outputs.
  double heldout_loss(long* correct, long* scored, Outputs* first);
  std::string state_header() const;           // state()'s bytes before the tensors
  std::vector<double> contributions() const;  // per block, from the network's last sums

  TrainConfig tc_;
  Arch arch_ = Arch::plain;
  std::unique_ptr<TaskData> task_;
  std::unique_ptr<Network<S>> net_;
  std::unique_ptr<Optim<S>> optim_;
  std::vector<double> contribution_init_;
  int64_t first_nonfinite_ = -1;
};

// The CLI's lines: {"arch": ..., "step": ..., ...} per log, and one arch's
// summary {"steps": ..., "outcome": ..., ..., "lesion": {...}, "gates": {width,
// init, magnitude, values} or null, "dwa": [[w_{1,0}, w_{1,1}], ...] (row l - 1
// holds w_{l,0..l}) or null} (chance and optimal name the outcome).
std::string train_log_json(Arch arch, const TrainLog& log);
std::string train_summary_json(const TrainLog& last, const Lesion& lesion, const Gates& gates,
                               const std::vector<double>& dwa, double chance, double optimal);

}  // namespace resnorm
