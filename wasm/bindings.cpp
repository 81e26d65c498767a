// Embind over the engine: types in, types out, nothing else.
//
// No C++ exception crosses into JS (the core returns errors as values, and
// refuses up front every call that would not fit its memory budget, limits.h):
// a bad config comes back from run() as "field\tmessage", and wasm/resnorm.js
// throws it as a RangeError. Per-layer arrays are exposed as typed-array views
// of the wasm heap, which the wrapper copies out at once (views go stale when
// memory grows).
//
// One module is one engine with one memory budget (kMemoryBudget), whatever
// lives in it: its trainers reserve their bytes (trainer_bytes()) while they
// live, a new trainer must fit beside them, and a simulate runs in what they
// leave and keeps no workspace between calls while any trainer lives. A saved
// state never lies whole in the heap: state() hands the trainer's tensors to
// JS as views, and load() reads the blob from JS straight into them.
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "resnorm/engine.h"
#include "resnorm/limits.h"
#include "resnorm/normlab.h"
#include "resnorm/trainer.h"

using namespace emscripten;

namespace {

// A config as JS sends it: every number a double (so NaN reaches the core's
// check instead of being truncated by a conversion), enums as their names.
struct JsConfig {
  std::string arch;  // comma-separated
  double depth, width, tokens, expansion, gain, seed, heads, mix_fraction;
  std::string activation, init, final_norm, block, causal;
};

// "field\tmessage", or "field\tmessage\tmax" where a budget refused the call.
std::string error_text(const resnorm::Status& st) {
  std::string s = st.field + "\t" + st.message;
  if (st.max_fit >= 0) s += "\t" + std::to_string(static_cast<long long>(st.max_fit));
  return s;
}

// A whole number in lo..hi, given as a double so that a fraction or NaN is
// refused by name instead of truncated by the conversion to int.
resnorm::Status whole(const char* field, double v, double lo, double hi) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  const std::string range = " (allowed " + std::to_string(static_cast<long long>(lo)) + ".." +
                            std::to_string(static_cast<long long>(hi)) + ")";
  if (!std::isfinite(v)) return {field, std::string(field) + ": " + buf + " is not a finite number" + range};
  if (v != std::floor(v)) return {field, std::string(field) + ": " + buf + " is not a whole number" + range};
  if (v < lo || v > hi) return {field, std::string(field) + ": " + buf + " is out of range" + range};
  return resnorm::Status::Ok();
}

class Simulation;

// What this module's trainers hold (the sum of their reservations), and the
// simulations whose kept workspaces a new trainer makes them give back.
double g_trainers_held = 0;
std::vector<Simulation*> g_simulations;
void release_simulations();

class Simulation {
 public:
  Simulation() { g_simulations.push_back(this); }
  ~Simulation() { g_simulations.erase(std::find(g_simulations.begin(), g_simulations.end(), this)); }
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;
  // Gives back the engine's weight bank and workspaces.
  void release() { engine_.reset(); }

  // "" on success, else "field\tmessage".
  std::string run(const JsConfig& js) {
    resnorm::Config cfg;
    resnorm::Status st = apply(cfg, js);
    if (st.ok() && g_trainers_held > 0) st = resnorm::check_simulate(cfg, g_trainers_held);
    if (st.ok()) st = engine().simulate(cfg, &res_);
    if (g_trainers_held > 0) release();
    if (!st.ok()) return error_text(st);
    return "";
  }
  // The checks of run() without running: "" if `js` is within its ranges and the
  // budgets, else the error (a pool of workers checks the whole config once each
  // worker runs only some of its architectures).
  std::string check(const JsConfig& js) const {
    resnorm::Config cfg;
    resnorm::Status st = apply(cfg, js);
    if (st.ok()) st = resnorm::check_simulate(cfg);
    return st.ok() ? "" : error_text(st);
  }
  int archCount() const { return static_cast<int>(res_.archs.size()); }
  // Out-of-range indices give "", -1 and an empty view: nothing here throws.
  std::string archName(int i) const { return valid(i) ? resnorm::name(res_.archs[i].arch) : ""; }
  int firstNonfinite(int i) const { return valid(i) ? res_.archs[i].first_nonfinite : -1; }
  // Veit et al.'s path statistics (Engine::paths) for every arch of the
  // config: "" on success, else "field\tmessage". samples and pathSeed come as
  // doubles, so a NaN or a fraction is refused here rather than truncated.
  std::string paths(const JsConfig& js, double samples, double pathSeed) {
    resnorm::Config cfg;
    resnorm::Status st = apply(cfg, js);
    if (st.ok()) st = whole("samples", samples, 1, resnorm::kMaxPathSamples);
    if (st.ok()) st = whole("path_seed", pathSeed, 0, 4294967295.0);
    if (st.ok() && g_trainers_held > 0) st = resnorm::check_paths(cfg, static_cast<int>(samples), g_trainers_held);
    if (st.ok()) st = engine().paths(cfg, static_cast<int>(samples), static_cast<uint32_t>(pathSeed), &paths_);
    if (g_trainers_held > 0) release();
    if (!st.ok()) return error_text(st);
    return "";
  }
  int pathArchCount() const { return static_cast<int>(paths_.archs.size()); }
  std::string pathArchName(int i) const { return validPath(i) ? resnorm::name(paths_.archs[i].arch) : ""; }
  int pathUnits(int i) const { return validPath(i) ? paths_.archs[i].units : 0; }
  double pathFullNorm(int i) const { return validPath(i) ? paths_.archs[i].full_norm : 0.0; }
  // which: 0 count, 1 measured, 2 mean_norm, 3 sd_norm, 4 total (U+1 entries each).
  val pathArray(int i, int which) const {
    if (!validPath(i)) return val(typed_memory_view(size_t(0), static_cast<const double*>(nullptr)));
    const resnorm::PathArch& a = paths_.archs[i];
    const std::vector<double>& v = which == 0   ? a.count
                                   : which == 1 ? a.measured
                                   : which == 2 ? a.mean_norm
                                   : which == 3 ? a.sd_norm
                                                : a.total;
    return val(typed_memory_view(v.size(), v.data()));
  }
  // which: 0 grad_norm, 1 stream_rms, 2 update_ratio, 3 w1_grad_norm, 4 w2_grad_norm,
  // transformer blocks also 5 attn_update_ratio, 6 mlp_update_ratio, 7..10 wq/wk/wv/wo_grad_norm
  // (empty for MLP blocks).
  val array(int i, int which) const {
    if (!valid(i)) return val(typed_memory_view(size_t(0), static_cast<const double*>(nullptr)));
    const std::vector<double>& v = pick(res_.archs[i], which);
    return val(typed_memory_view(v.size(), v.data()));
  }

 private:
  resnorm::Engine<float>& engine() {
    if (!engine_) engine_ = std::make_unique<resnorm::Engine<float>>();
    return *engine_;
  }
  bool valid(int i) const { return i >= 0 && i < archCount(); }
  bool validPath(int i) const { return i >= 0 && i < pathArchCount(); }
  static const std::vector<double>& pick(const resnorm::ArchResult& r, int which) {
    switch (which) {
      case 0: return r.grad_norm;
      case 1: return r.stream_rms;
      case 2: return r.update_ratio;
      case 3: return r.w1_grad_norm;
      case 4: return r.w2_grad_norm;
      case 5: return r.attn_update_ratio;
      case 6: return r.mlp_update_ratio;
      case 7: return r.wq_grad_norm;
      case 8: return r.wk_grad_norm;
      case 9: return r.wv_grad_norm;
      default: return r.wo_grad_norm;
    }
  }
  static resnorm::Status apply(resnorm::Config& cfg, const JsConfig& js) {
    const std::pair<const char*, double> numbers[] = {
        {"depth", js.depth}, {"width", js.width}, {"tokens", js.tokens}, {"expansion", js.expansion},
        {"gain", js.gain},   {"seed", js.seed},   {"heads", js.heads},   {"mix_fraction", js.mix_fraction}};
    const std::pair<const char*, const std::string*> names[] = {{"arch", &js.arch},   {"activation", &js.activation},
                                                                {"init", &js.init},   {"final_norm", &js.final_norm},
                                                                {"block", &js.block}, {"causal", &js.causal}};
    for (auto& [field, text] : names) {
      resnorm::Status st = resnorm::set_field(cfg, field, *text);
      if (!st.ok()) return st;
    }
    for (auto& [field, value] : numbers) {
      resnorm::Status st = resnorm::set_number(cfg, field, value);
      if (!st.ok()) return st;
    }
    return resnorm::Status::Ok();
  }

  std::unique_ptr<resnorm::Engine<float>> engine_;
  resnorm::Results res_;
  resnorm::PathResults paths_;
};

void release_simulations() {
  for (Simulation* s : g_simulations) s->release();
}

// A double as text that reads back as the same double (1e-30 stays 1e-30).
std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// At most this many bytes of logged numbers per step() call: the logs pass
// through the heap (the wrapper copies them out, then clearLogs() frees them),
// within what the heap has above the budget (README.md, "Limits").
constexpr double kMaxLogBytes = 32.0 * 1024 * 1024;

// The numbers one log holds: its scalars and its per-layer arrays.
double log_numbers(const resnorm::TrainConfig& tc) { return 9.0 + 2.0 * (tc.depth + 1) + 3.0 * tc.depth; }

// How many of the next n updates from `done` on are logged (multiples of
// log_every, and the last of tc.steps).
double logged_steps(const resnorm::TrainConfig& tc, int64_t done, int64_t n) {
  const int64_t end = std::min<int64_t>(done + n, tc.steps);
  if (end <= done) return 0;
  int64_t k = end / tc.log_every - done / tc.log_every;
  if (end == tc.steps && tc.steps % tc.log_every != 0) ++k;
  return static_cast<double>(k);
}

// One architecture's Trainer<float> (the scalar of the CLI's trainers, so the
// page and the CLI train alike). Its config is built field by field on the
// train table's defaults (set, setNumber), then checked (check) or trained
// (start). Every call that can fail returns "" or "field\tmessage[\tmax]".
class JsTrainer {
 public:
  JsTrainer() = default;
  ~JsTrainer() { g_trainers_held -= reserved_; }
  JsTrainer(const JsTrainer&) = delete;
  JsTrainer& operator=(const JsTrainer&) = delete;
  void reset() { tc_ = resnorm::TrainConfig(); }
  // A choice or an arch list, as its text.
  std::string set(const std::string& field, const std::string& text) {
    return message(resnorm::set_train_field(tc_, field, text));
  }
  // A number field: NaN, a fraction for an integer field or a value out of
  // range is refused by the core's check before it is written as text.
  std::string setNumber(const std::string& field, double v) {
    const resnorm::FieldSpec* f = resnorm::find_train_field(field);
    if (!f) return message(resnorm::set_train_field(tc_, field, "0"));
    if (f->kind == resnorm::FieldKind::choice || f->kind == resnorm::FieldKind::choice_list)
      return message(resnorm::field_error(*f, "a number is not a valid value"));
    resnorm::Status st = resnorm::check_field(*f, v);
    if (st.ok()) st = resnorm::set_train_field(tc_, field, exact(v));
    return message(st);
  }
  // The checks of start() for the config as built (every arch of it counted
  // in the budgets, as the CLI's side-by-side run).
  std::string check() const { return message(resnorm::check_train(tc_)); }
  // Configures the trainer: the config must name exactly one architecture, and
  // fit beside the trainers the module holds (this one's old trainer included:
  // it lives until the new one is made).
  std::string start() {
    if (tc_.archs.size() != 1) {
      const resnorm::FieldSpec& f = *resnorm::find_train_field("arch");
      std::string names;
      for (const char* c : f.choices) names += (names.empty() ? "" : "|") + std::string(c);
      return message({"arch", "arch: " + std::to_string(tc_.archs.size()) +
                                  " architectures given; a trainer trains one (allowed one of " + names + ")"});
    }
    release_simulations();
    resnorm::Trainer<float> fresh;
    const resnorm::Status st = fresh.configure(tc_, tc_.archs[0], g_trainers_held);
    if (!st.ok()) return message(st);
    trainer_ = std::move(fresh);
    reserve();
    started_ = true;
    has_last_ = false;
    return "";
  }
  // The config as the core reads it back: the trainer's once started, else the one being built.
  std::string configJson() const { return resnorm::train_config_json(started_ ? trainer_.config() : tc_); }
  std::string archName() const { return resnorm::name(trainer_.arch()); }
  double chance() const { return started_ ? trainer_.task().chance_loss() : 0.0; }
  double optimal() const { return started_ ? trainer_.task().optimal_loss() : 0.0; }
  double stepsDone() const { return started_ ? static_cast<double>(trainer_.steps_done()) : 0.0; }
  bool stopped() const { return started_ && trainer_.stopped(); }

  // Up to n more updates; their logs are read with logCount, logScalars, logArray.
  std::string step(double n) {
    logs_.clear();
    const resnorm::FieldSpec& steps = *resnorm::find_train_field("steps");
    resnorm::Status st = whole("n", n, 0, steps.max);
    if (!st.ok()) return message(st);
    if (!started_) return message({"trainer", "trainer: not configured"});
    const resnorm::TrainConfig& tc = trainer_.config();
    const int64_t done = trainer_.steps_done();
    auto bytes = [&](double k) { return logged_steps(tc, done, static_cast<int64_t>(k)) * log_numbers(tc) * 8; };
    if (bytes(n) > kMaxLogBytes) {
      double lo = 0, hi = n;  // the most updates whose logs fit
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
      return message({"n", buf, lo});
    }
    logs_ = trainer_.step(static_cast<int64_t>(n));
    scalars_.clear();
    for (const resnorm::TrainLog& g : logs_) {
      const double row[] = {double(g.step),
                            g.lr,
                            g.train_loss,
                            g.heldout_loss,
                            g.heldout_accuracy,
                            g.grad_norm_global,
                            g.output_change,
                            g.top_cosine,
                            double(g.first_nonfinite)};
      scalars_.insert(scalars_.end(), std::begin(row), std::end(row));
    }
    if (!logs_.empty()) {
      last_ = logs_.back();
      has_last_ = true;
    }
    return "";
  }
  int logCount() const { return static_cast<int>(logs_.size()); }
  // Frees the logs once the wrapper has copied them out.
  void clearLogs() {
    std::vector<resnorm::TrainLog>().swap(logs_);
    std::vector<double>().swap(scalars_);
  }
  // Log i's step, lr, train_loss, heldout_loss, heldout_accuracy,
  // grad_norm_global, output_change, top_cosine, first_nonfinite (-1: none).
  val logScalars(int i) const {
    if (i < 0 || i >= logCount()) return empty();
    return val(typed_memory_view(9, scalars_.data() + 9 * i));
  }
  // which: 0 grad_norm, 1 stream_rms (L + 1), 2 w_grad_norm, 3 update_ratio, 4 contribution (L).
  val logArray(int i, int which) const {
    if (i < 0 || i >= logCount()) return empty();
    const resnorm::TrainLog& g = logs_[i];
    const std::vector<double>& v = which == 0   ? g.grad_norm
                                   : which == 1 ? g.stream_rms
                                   : which == 2 ? g.w_grad_norm
                                   : which == 3 ? g.update_ratio
                                                : g.contribution;
    return view(v);
  }

  // The core's outcome() of the last logged step; "" when none was logged
  // since start() or load() (a stopped trainer has diverged all the same).
  std::string outcome() const {
    if (!started_) return "";
    if (!has_last_ && !trainer_.stopped()) return "";
    resnorm::TrainLog last = last_;
    if (!has_last_) last.first_nonfinite = trainer_.first_nonfinite();
    return resnorm::outcome(last, chance(), optimal());
  }

  // The lesion study; read with lesionBase and lesionArray.
  std::string lesion() {
    if (!started_) return message({"trainer", "trainer: not configured"});
    lesion_ = trainer_.lesion();
    return "";
  }
  double lesionBase() const { return lesion_.base; }
  // which: 0 loss, 1 increase, 2 relative, 3 contribution, 4 contribution_init (L each).
  val lesionArray(int which) const {
    const std::vector<double>& v = which == 0   ? lesion_.loss
                                   : which == 1 ? lesion_.increase
                                   : which == 2 ? lesion_.relative
                                   : which == 3 ? lesion_.contribution
                                                : lesion_.contribution_init;
    return view(v);
  }

  // DenseFormer's averaging weights now: (L, L + 1) row-major (Trainer::dwa_weights()); empty for other presets.
  val dwaWeights() {
    dwa_ = started_ ? trainer_.dwa_weights() : std::vector<double>();
    return view(dwa_);
  }

  // The gates now (Trainer::gates()): their width per unit, 0 without gates;
  // read with gatesArray.
  int gates() {
    gates_ = started_ ? trainer_.gates() : resnorm::Gates();
    return gates_.width;
  }
  // which: 0 values (units x width), 1 init, 2 magnitude (units each).
  val gatesArray(int which) const {
    return view(which == 0 ? gates_.values : which == 1 ? gates_.init : gates_.magnitude);
  }

  // The saved state's size in bytes, and its bytes handed to sink(view) piece
  // by piece (views of the trainer's own memory: the sink copies them out).
  double stateSize() const { return started_ ? static_cast<double>(trainer_.state_size()) : 0.0; }
  void writeState(const val& sink) const {
    if (!started_) return;
    trainer_.write_state(
        [&sink](const char* p, size_t n) { sink(val(typed_memory_view(n, reinterpret_cast<const uint8_t*>(p)))); });
  }
  // Restores a saved state (of any config and architecture) of `size` bytes,
  // which read(offset, view) copies into each view it is given; on a refusal
  // the trainer is as it was. A state of this trainer's config is read in
  // place; one of another config needs a trainer beside this one, and is
  // refused naming state when that would not fit.
  std::string load(const val& read, double size) {
    resnorm::Status st = whole("state", size, 0, resnorm::kMemoryBudget);
    if (!st.ok()) return message(st);
    release_simulations();
    st = trainer_.load(
        static_cast<uint64_t>(size),
        [&read](uint64_t at, char* out, size_t n) {
          read(static_cast<double>(at), val(typed_memory_view(n, reinterpret_cast<uint8_t*>(out))));
        },
        g_trainers_held);
    if (!st.ok()) return message(st);
    reserve();
    started_ = true;
    has_last_ = false;
    clearLogs();
    return "";
  }

 private:
  static std::string message(const resnorm::Status& st) { return st.ok() ? "" : error_text(st); }
  static val empty() { return val(typed_memory_view(size_t(0), static_cast<const double*>(nullptr))); }
  static val view(const std::vector<double>& v) { return val(typed_memory_view(v.size(), v.data())); }

  resnorm::TrainConfig tc_;
  resnorm::Trainer<float> trainer_;
  bool started_ = false;
  std::vector<resnorm::TrainLog> logs_;
  std::vector<double> scalars_;
  std::vector<double> dwa_;
  resnorm::Gates gates_;
  resnorm::TrainLog last_;
  bool has_last_ = false;
  resnorm::Lesion lesion_;
  double reserved_ = 0;  // this trainer's share of g_trainers_held

  // Reserves what the trainer now holds in the module's budget (whole bytes,
  // so the sum is exact and comes back to 0).
  void reserve() {
    const double bytes = std::ceil(resnorm::trainer_bytes(trainer_.config(), trainer_.arch()));
    g_trainers_held += bytes - reserved_;
    reserved_ = bytes;
  }
};

// A field table as JSON, so JS shows the same ranges and defaults as the core.
std::string specsJson(const std::vector<resnorm::FieldSpec>& specs) {
  std::string s = "[";
  bool first = true;
  for (const resnorm::FieldSpec& f : specs) {
    const char* kinds[] = {"integer", "real", "choice", "choice_list", "uint32"};
    s += first ? "" : ",";
    first = false;
    s += "{\"name\":\"" + std::string(f.name) + "\",\"kind\":\"" + kinds[static_cast<int>(f.kind)] +
         "\",\"min\":" + exact(f.min) + ",\"max\":" + exact(f.max) + ",\"allowed\":\"" + resnorm::allowed_text(f) +
         "\",\"default\":\"" + f.default_text + "\",\"help\":\"" + f.help + "\",\"choices\":[";
    for (size_t i = 0; i < f.choices.size(); ++i) s += (i ? ",\"" : "\"") + std::string(f.choices[i]) + "\"";
    s += "]}";
  }
  return s + "]";
}

std::string fieldsJson() { return specsJson(resnorm::field_specs()); }
std::string trainFieldsJson() { return specsJson(resnorm::train_field_specs()); }

// The norm panel: plain JS arrays in, an object out ({error: "field\tmessage"} on bad input).
val copyOut(const std::vector<double>& v) { return val(typed_memory_view(v.size(), v.data())).call<val>("slice"); }

val failure(const resnorm::Status& st) {
  val out = val::object();
  out.set("error", error_text(st));
  return out;
}

val normToken(const std::string& kind, const val& x, const val& gamma, const val& beta) {
  resnorm::NormKind k = kind == "layernorm" ? resnorm::NormKind::layernorm
                        : kind == "rmsnorm" ? resnorm::NormKind::rmsnorm
                                            : resnorm::NormKind::none;
  resnorm::TokenNorm t;
  resnorm::Status st =
      resnorm::norm_token(k, convertJSArrayToNumberVector<double>(x), convertJSArrayToNumberVector<double>(gamma),
                          convertJSArrayToNumberVector<double>(beta), &t);
  if (!st.ok()) return failure(st);
  val out = val::object();
  out.set("y", copyOut(t.y));
  out.set("mean", t.mean);
  out.set("var", t.var);
  out.set("rstd", t.rstd);
  return out;
}

val batchVsLayerNorm(const val& x, double B, double T, double d, const val& lengths, bool countPadding) {
  resnorm::Status st = whole("batch", B, 1, resnorm::kMaxBatch);
  if (st.ok()) st = whole("length", T, 1, resnorm::kMaxLength);
  if (st.ok()) st = whole("width", d, 1, resnorm::kMaxNormWidth);
  if (!st.ok()) return failure(st);
  std::vector<int> lens;
  for (double len : convertJSArrayToNumberVector<double>(lengths)) {
    st = whole("lengths", len, 0, T);
    if (!st.ok()) return failure(st);
    lens.push_back(static_cast<int>(len));
  }
  resnorm::BatchNormResult r;
  st = resnorm::batch_vs_layer_norm(convertJSArrayToNumberVector<double>(x), static_cast<int>(B), static_cast<int>(T),
                                    static_cast<int>(d), lens, countPadding, &r);
  if (!st.ok()) return failure(st);
  val out = val::object();
  out.set("batchnorm", copyOut(r.batchnorm));
  out.set("layernorm", copyOut(r.layernorm));
  out.set("mean", copyOut(r.mean));
  out.set("var", copyOut(r.var));
  return out;
}

// The norm panel's input ranges, so the wrapper can refuse a huge array before copying it in.
val normLimits() {
  val out = val::object();
  out.set("tokenFeatures", resnorm::kMaxTokenFeatures);
  out.set("batch", resnorm::kMaxBatch);
  out.set("length", resnorm::kMaxLength);
  out.set("width", resnorm::kMaxNormWidth);
  return out;
}

// The largest saved state the wrapper reads: a state's tensors are held
// within one trainer's memory budget, so a larger blob is refused unread.
double maxStateBytes() { return resnorm::kMemoryBudget; }

// What this module's trainers hold of its memory budget, and the budget.
val memoryHeld() {
  val out = val::object();
  out.set("trainers", g_trainers_held);
  out.set("budget", resnorm::kMemoryBudget);
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(resnorm) {
  value_object<JsConfig>("Config")
      .field("arch", &JsConfig::arch)
      .field("depth", &JsConfig::depth)
      .field("width", &JsConfig::width)
      .field("tokens", &JsConfig::tokens)
      .field("expansion", &JsConfig::expansion)
      .field("gain", &JsConfig::gain)
      .field("activation", &JsConfig::activation)
      .field("init", &JsConfig::init)
      .field("final_norm", &JsConfig::final_norm)
      .field("seed", &JsConfig::seed)
      .field("block", &JsConfig::block)
      .field("heads", &JsConfig::heads)
      .field("causal", &JsConfig::causal)
      .field("mix_fraction", &JsConfig::mix_fraction);
  class_<Simulation>("Simulation")
      .constructor<>()
      .function("run", &Simulation::run)
      .function("check", &Simulation::check)
      .function("archCount", &Simulation::archCount)
      .function("archName", &Simulation::archName)
      .function("firstNonfinite", &Simulation::firstNonfinite)
      .function("array", &Simulation::array)
      .function("paths", &Simulation::paths)
      .function("pathArchCount", &Simulation::pathArchCount)
      .function("pathArchName", &Simulation::pathArchName)
      .function("pathUnits", &Simulation::pathUnits)
      .function("pathFullNorm", &Simulation::pathFullNorm)
      .function("pathArray", &Simulation::pathArray);
  class_<JsTrainer>("Trainer")
      .constructor<>()
      .function("reset", &JsTrainer::reset)
      .function("set", &JsTrainer::set)
      .function("setNumber", &JsTrainer::setNumber)
      .function("check", &JsTrainer::check)
      .function("start", &JsTrainer::start)
      .function("configJson", &JsTrainer::configJson)
      .function("archName", &JsTrainer::archName)
      .function("chance", &JsTrainer::chance)
      .function("optimal", &JsTrainer::optimal)
      .function("stepsDone", &JsTrainer::stepsDone)
      .function("stopped", &JsTrainer::stopped)
      .function("step", &JsTrainer::step)
      .function("logCount", &JsTrainer::logCount)
      .function("logScalars", &JsTrainer::logScalars)
      .function("logArray", &JsTrainer::logArray)
      .function("outcome", &JsTrainer::outcome)
      .function("lesion", &JsTrainer::lesion)
      .function("lesionBase", &JsTrainer::lesionBase)
      .function("lesionArray", &JsTrainer::lesionArray)
      .function("dwaWeights", &JsTrainer::dwaWeights)
      .function("gates", &JsTrainer::gates)
      .function("gatesArray", &JsTrainer::gatesArray)
      .function("clearLogs", &JsTrainer::clearLogs)
      .function("stateSize", &JsTrainer::stateSize)
      .function("writeState", &JsTrainer::writeState)
      .function("load", &JsTrainer::load);
  function("fieldsJson", &fieldsJson);
  function("trainFieldsJson", &trainFieldsJson);
  function("maxStateBytes", &maxStateBytes);
  function("memoryHeld", &memoryHeld);
  function("normToken", &normToken);
  function("batchVsLayerNorm", &batchVsLayerNorm);
  function("normLimits", &normLimits);
}
