// The engine as a program outside C++ calls it: configs read field by field,
// the session's memory budget, its simulations and trainers (see session.h).
#include "resnorm/session.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace resnorm {
namespace {

// Every field of `specs` in table order (the order of the page's controls, so
// the first bad one on the form is the one named): choices and lists as
// text, numbers as doubles.
template <class SetText, class SetNumber>
Status read_fields(const std::vector<FieldSpec>& specs, const FieldSource& from, SetText set_text,
                   SetNumber set_number) {
  for (const FieldSpec& f : specs) {
    const bool text = f.kind == FieldKind::choice || f.kind == FieldKind::choice_list;
    const Status st = text ? set_text(f.name, from.text(f)) : set_number(f.name, from.number(f));
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status read_config(const FieldSource& from, Config* cfg) {
  *cfg = Config();
  return read_fields(
      field_specs(), from, [cfg](const char* f, const std::string& t) { return set_field(*cfg, f, t); },
      [cfg](const char* f, double v) { return set_number(*cfg, f, v); });
}

Status read_train_config(const FieldSource& from, TrainConfig* tc) {
  *tc = TrainConfig();
  return read_fields(
      train_field_specs(), from, [tc](const char* f, const std::string& t) { return set_train_field(*tc, f, t); },
      [tc](const char* f, double v) { return set_train_number(*tc, f, v); });
}

// The numbers one log holds: its scalars and its per-layer arrays.
double log_numbers(const TrainConfig& tc) { return 9.0 + 2.0 * (tc.depth + 1) + 3.0 * tc.depth; }

// How many of the next n updates from `done` on are logged (multiples of
// log_every, and the last of tc.steps).
double logged_steps(const TrainConfig& tc, int64_t done, int64_t n) {
  const int64_t end = std::min<int64_t>(done + n, tc.steps);
  if (end <= done) return 0;
  int64_t k = end / tc.log_every - done / tc.log_every;
  if (end == tc.steps && tc.steps % tc.log_every != 0) ++k;
  return static_cast<double>(k);
}

// Whether n updates from `done` on log at most kMaxLogBytes; if not, the
// refusal names n with the most updates whose logs fit.
Status check_log_bytes(const TrainConfig& tc, int64_t done, double n) {
  auto bytes = [&](double k) { return logged_steps(tc, done, static_cast<int64_t>(k)) * log_numbers(tc) * 8; };
  if (bytes(n) <= kMaxLogBytes) return Status::Ok();
  double lo = 0, hi = n;
  while (lo < hi) {
    const double mid = std::floor((lo + hi + 1) / 2);
    if (bytes(mid) <= kMaxLogBytes)
      lo = mid;
    else
      hi = mid - 1;
  }
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "n: %.10g updates would log %.10g steps, %.0f MB of numbers (one call may return %.0f MB; "
                "allowed 0..%.10g from step %lld)",
                n, logged_steps(tc, done, static_cast<int64_t>(n)), bytes(n) / 1048576, kMaxLogBytes / 1048576, lo,
                static_cast<long long>(done));
  return {"n", buf, lo};
}

}  // namespace

void Session::release_simulations() {
  for (SessionSimulation* s : simulations_) s->release();
}

SessionSimulation::SessionSimulation(Session& session) : session_(session) { session_.simulations_.push_back(this); }

SessionSimulation::~SessionSimulation() {
  auto& sims = session_.simulations_;
  sims.erase(std::find(sims.begin(), sims.end(), this));
}

Engine<float>& SessionSimulation::engine() {
  if (!engine_) engine_ = std::make_unique<Engine<float>>();
  return *engine_;
}

Status SessionSimulation::run(const FieldSource& fields) {
  Config cfg;
  const double held = session_.trainers_held();
  Status st = read_config(fields, &cfg);
  if (st.ok() && held > 0) st = check_simulate(cfg, held);
  if (st.ok()) st = engine().simulate(cfg, &res_);
  if (held > 0) release();
  return st;
}

Status SessionSimulation::check(const FieldSource& fields) const {
  Config cfg;
  Status st = read_config(fields, &cfg);
  if (st.ok()) st = check_simulate(cfg);
  return st;
}

Status SessionSimulation::paths(const FieldSource& fields, double samples, double path_seed) {
  Config cfg;
  const double held = session_.trainers_held();
  Status st = read_config(fields, &cfg);
  if (st.ok()) st = check_whole("samples", samples, 1, kMaxPathSamples);
  if (st.ok()) st = check_whole("path_seed", path_seed, 0, 4294967295.0);
  if (st.ok() && held > 0) st = check_paths(cfg, static_cast<int>(samples), held);
  if (st.ok()) st = engine().paths(cfg, static_cast<int>(samples), static_cast<uint32_t>(path_seed), &paths_);
  if (held > 0) release();
  return st;
}

SessionTrainer::SessionTrainer(Session& session) : session_(session) {}

SessionTrainer::~SessionTrainer() { session_.held_ -= reserved_; }

void SessionTrainer::reserve() {
  // Whole bytes, so that the session's sum is exact and comes back to 0.
  const double bytes = std::ceil(trainer_bytes(trainer_.config(), trainer_.arch()));
  session_.held_ += bytes - reserved_;
  reserved_ = bytes;
}

Status SessionTrainer::check(const FieldSource& fields) {
  Status st = read_train_config(fields, &tc_);
  return st.ok() ? check_train(tc_) : st;
}

Status SessionTrainer::start(const FieldSource& fields) {
  Status st = read_train_config(fields, &tc_);
  if (!st.ok()) return st;
  if (tc_.archs.size() != 1) {
    std::string names;
    for (const char* c : find_train_field("arch")->choices) names += (names.empty() ? "" : "|") + std::string(c);
    return {"arch", "arch: " + std::to_string(tc_.archs.size()) +
                        " architectures given; a trainer trains one (allowed one of " + names + ")"};
  }
  session_.release_simulations();
  Trainer<float> fresh;
  st = fresh.configure(tc_, tc_.archs[0], session_.trainers_held());
  if (!st.ok()) return st;
  trainer_ = std::move(fresh);
  reserve();
  started_ = true;
  has_last_ = false;
  return Status::Ok();
}

Status SessionTrainer::step(double n) {
  logs_.clear();
  Status st = check_whole("n", n, 0, find_train_field("steps")->max);
  if (!st.ok()) return st;
  if (!started_) return {"trainer", "trainer: not configured"};
  st = check_log_bytes(trainer_.config(), trainer_.steps_done(), n);
  if (!st.ok()) return st;
  logs_ = trainer_.step(static_cast<int64_t>(n));
  if (!logs_.empty()) {
    last_ = logs_.back();
    has_last_ = true;
  }
  return Status::Ok();
}

void SessionTrainer::clear_logs() { std::vector<TrainLog>().swap(logs_); }

std::string SessionTrainer::outcome() const {
  if (!started_) return "";
  if (!has_last_ && !trainer_.stopped()) return "";
  TrainLog last = last_;
  if (!has_last_) last.first_nonfinite = trainer_.first_nonfinite();
  return resnorm::outcome(last, chance(), optimal());
}

Status SessionTrainer::run_lesion() {
  if (!started_) return {"trainer", "trainer: not configured"};
  lesion_ = trainer_.lesion();
  return Status::Ok();
}

Status SessionTrainer::load(double size, const StateReader& read) {
  Status st = check_whole("state", size, 0, kMemoryBudget);
  if (!st.ok()) return st;
  session_.release_simulations();
  st = trainer_.load(static_cast<uint64_t>(size), read, session_.trainers_held());
  if (!st.ok()) return st;
  reserve();
  started_ = true;
  has_last_ = false;
  clear_logs();
  return Status::Ok();
}

void SessionTrainer::write_state(const StateWriter& write) const {
  if (started_) trainer_.write_state(write);
}

}  // namespace resnorm
