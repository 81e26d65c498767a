// resnorm/session.h: the engine as a program outside C++ calls it. The wasm
// bindings hold one Session per module (one worker of the page) and only
// convert types; every check and budget is here.
//
//   resnorm::Session session;
//   resnorm::SessionSimulation sim(session);
//   resnorm::Status st = sim.run(fields);     // fields: the config's values, field by field
//   sim.results().archs[0]                    // read by name: named_arrays() (results.h)
//   resnorm::SessionTrainer tr(session);
//   st = tr.start(train_fields);              // one architecture
//   st = tr.step(50);                         // tr.logs(): the logged updates among them
//
// Values arrive as text (a choice, a list) or as doubles (every number, so
// that NaN or a fraction reaches a range check instead of a conversion to an
// integer), and every refusal is a Status naming the field.
//
// A session has one memory budget (kMemoryBudget), whatever lives in it: its
// trainers reserve their bytes (trainer_bytes()) while they live, a new
// trainer must fit beside them, and a simulation runs in what they leave and
// keeps no workspace between calls while any trainer lives (a new trainer, or
// a state being loaded, first makes every simulation give its workspaces
// back). A saved state never lies whole in memory: write_state() hands the
// trainer's tensors to the writer, and load() reads a state straight into them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "resnorm/engine.h"
#include "resnorm/trainer.h"

namespace resnorm {

// A config's values, asked for field by field of its table: text for a choice
// or a list ("pre_ln,post_ln", "true"), a double for a number.
struct FieldSource {
  std::function<std::string(const FieldSpec&)> text;
  std::function<double(const FieldSpec&)> number;
};

// At most this many bytes of logged numbers per SessionTrainer::step(): the
// logs pass through the wasm heap (the bindings copy them out, then
// clear_logs() frees them), within what the heap has above the budget
// (docs/cli.md, "Limits").
inline constexpr double kMaxLogBytes = 32.0 * 1024 * 1024;

class SessionSimulation;

class Session {
 public:
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  // What the session's trainers hold of its memory budget, in bytes.
  double trainers_held() const { return held_; }

 private:
  friend class SessionSimulation;
  friend class SessionTrainer;
  void release_simulations();
  double held_ = 0;                              // the sum of the trainers' reservations
  std::vector<SessionSimulation*> simulations_;  // whose workspaces a new trainer takes back
};

// Simulations and path statistics (Engine<float>), every arch of a config.
class SessionSimulation {
 public:
  explicit SessionSimulation(Session& session);
  ~SessionSimulation();
  SessionSimulation(const SessionSimulation&) = delete;
  SessionSimulation& operator=(const SessionSimulation&) = delete;

  // Every arch of the config, within what the session's trainers leave; results() on success.
  Status run(const FieldSource& fields);
  // The checks of run() without running, the budgets counted for an engine of
  // its own (a pool of workers checks the whole config once, each worker then
  // runs some of its architectures).
  Status check(const FieldSource& fields) const;
  // Veit et al.'s path statistics for every arch of the config (Engine::paths):
  // samples in 1..kMaxPathSamples, path_seed a uint32; path_results() on success.
  Status paths(const FieldSource& fields, double samples, double path_seed);
  const Results& results() const { return res_; }
  const PathResults& path_results() const { return paths_; }
  // Gives back the engine's weight bank and workspaces.
  void release() { engine_.reset(); }

 private:
  Engine<float>& engine();
  Session& session_;
  std::unique_ptr<Engine<float>> engine_;
  Results res_;
  PathResults paths_;
};

// One architecture's Trainer<float> (the CLI's scalar, so a config trains to
// the CLI's numbers), its reservation in the session's budget, and the logs
// of its last step() until they are read.
class SessionTrainer {
 public:
  explicit SessionTrainer(Session& session);
  ~SessionTrainer();
  SessionTrainer(const SessionTrainer&) = delete;
  SessionTrainer& operator=(const SessionTrainer&) = delete;

  // The checks of start() for the config, without training: every arch of it
  // counted in the budgets (as the CLI's side-by-side run), nothing held beside it.
  Status check(const FieldSource& fields);
  // Reads the config and starts training: it must name exactly one
  // architecture, and fit beside the session's trainers (this one's old
  // trainer included: it lives until the new one is made).
  Status start(const FieldSource& fields);
  // Up to n more updates, n a whole number in 0..the steps field's maximum
  // whose logs fit kMaxLogBytes (a refusal names n with the most that fit);
  // logs() holds the logged ones until clear_logs().
  Status step(double n);
  const std::vector<TrainLog>& logs() const { return logs_; }
  void clear_logs();
  // outcome() of the last logged step; "" when none was logged since start()
  // or load() (a stopped trainer has diverged all the same).
  std::string outcome() const;
  // The lesion study of the trainer now; lesion() on success.
  Status run_lesion();
  const Lesion& lesion() const { return lesion_; }
  // Restores a saved state (of any config and architecture) of `size` bytes
  // from `read`; on a refusal the trainer is as it was. One of another config
  // needs a trainer beside this one, and is refused naming state when that
  // would not fit in the session.
  Status load(double size, const StateReader& read);

  bool started() const { return started_; }
  // The trainer's config once started, else the one last read.
  const TrainConfig& config() const { return started_ ? trainer_.config() : tc_; }
  Arch arch() const { return trainer_.arch(); }
  // The task's chance and optimal losses; 0 before start().
  double chance() const { return started_ ? trainer_.task().chance_loss() : 0.0; }
  double optimal() const { return started_ ? trainer_.task().optimal_loss() : 0.0; }
  int64_t steps_done() const { return started_ ? trainer_.steps_done() : 0; }
  bool stopped() const { return started_ && trainer_.stopped(); }
  // DenseFormer's weights and the gates now (trainer.h); empty before start().
  std::vector<double> dwa_weights() const { return started_ ? trainer_.dwa_weights() : std::vector<double>(); }
  Gates gates() const { return started_ ? trainer_.gates() : Gates(); }
  // Attention Residuals' read weights over the held-out set (trainer.h); empty before start().
  std::vector<double> attn_res_weights() { return started_ ? trainer_.attn_res_weights() : std::vector<double>(); }
  // The norms' inputs and outputs on held-out batch 0 now (trainer.h); empty before start().
  NormSamples norm_samples() { return started_ ? trainer_.norm_samples() : NormSamples(); }
  // The saved state's size, and its bytes handed to `write`; nothing before start().
  uint64_t state_size() const { return started_ ? trainer_.state_size() : 0; }
  void write_state(const StateWriter& write) const;

 private:
  void reserve();  // what the trainer now holds, in the session's budget
  Session& session_;
  TrainConfig tc_;
  Trainer<float> trainer_;
  bool started_ = false;
  double reserved_ = 0;  // this trainer's share of the session's held bytes
  std::vector<TrainLog> logs_;
  TrainLog last_;  // the last logged step since start() or load()
  bool has_last_ = false;
  Lesion lesion_;
};

}  // namespace resnorm
