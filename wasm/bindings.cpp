// Embind over the engine's session (session.h): types in, types out, nothing else.
//
// Every check, budget and count of memory is the core's; here a JS value
// becomes a C++ one and back. No C++ exception crosses into JS (the core
// returns errors as values): a call that can fail returns null, or the
// refusal as {field, message, code[, max]}, which wasm/resnorm.js throws as
// an EngineError. Results come back by name, the core's names
// (named_arrays(), named_scalars()), their arrays as typed-array views of the
// wasm heap that the wrapper copies out at once (views go stale when memory
// grows).
#include <emscripten/bind.h>

#include <memory>
#include <string>
#include <vector>

#include "resnorm/export_pytorch.h"
#include "resnorm/norm_timing.h"
#include "resnorm/normlab.h"
#include "resnorm/session.h"

using namespace emscripten;

namespace {

// One module is one session: one memory budget for all its simulations and trainers.
resnorm::Session& module_session() {
  static resnorm::Session session;
  return session;
}

val status(const resnorm::Status& st) {
  if (st.ok()) return val::null();
  val e = val::object();
  e.set("field", st.field);
  e.set("message", st.message);
  e.set("code", std::string(st.code()));
  if (st.max_fit >= 0) e.set("max", st.max_fit);
  return e;
}

val view(const std::vector<double>& v) { return val(typed_memory_view(v.size(), v.data())); }

// Each array as a property of `out`, by its name.
void set_views(val& out, const std::vector<resnorm::NamedArray>& arrays) {
  for (const resnorm::NamedArray& a : arrays) out.set(a.name, view(*a.values));
}

val index_or_null(int64_t i) { return i < 0 ? val::null() : val(static_cast<double>(i)); }

// A config object as wrapper's normalize() leaves it, asked for field by field
// of the core's table: a choice or a list as String(value) (an array of names
// joined by commas, a boolean as "true" or "false"), a number as a double.
resnorm::FieldSource fields_of(const val& config) {
  return {[&config](const resnorm::FieldSpec& f) { return val::global("String")(config[f.name]).as<std::string>(); },
          [&config](const resnorm::FieldSpec& f) { return config[f.name].as<double>(); }};
}

class Simulation {
 public:
  val run(const val& config) { return status(sim_.run(fields_of(config))); }
  val check(const val& config) const { return status(sim_.check(fields_of(config))); }
  val paths(const val& config, double samples, double path_seed) {
    return status(sim_.paths(fields_of(config), samples, path_seed));
  }
  int archCount() const { return static_cast<int>(sim_.results().archs.size()); }
  std::string archName(int i) const { return valid(i) ? resnorm::name(arch(i).arch) : ""; }
  // Arch i's arrays by name, then first_nonfinite (null: none).
  val result(int i) const {
    val out = val::object();
    if (!valid(i)) return out;
    set_views(out, resnorm::named_arrays(arch(i)));
    out.set("first_nonfinite", index_or_null(arch(i).first_nonfinite));
    return out;
  }
  int pathArchCount() const { return static_cast<int>(sim_.path_results().archs.size()); }
  std::string pathArchName(int i) const { return validPath(i) ? resnorm::name(pathArch(i).arch) : ""; }
  // Arch i's path statistics: units, full_norm, then its arrays by name.
  val pathResult(int i) const {
    val out = val::object();
    if (!validPath(i)) return out;
    out.set("units", pathArch(i).units);
    out.set("full_norm", pathArch(i).full_norm);
    set_views(out, resnorm::named_arrays(pathArch(i)));
    return out;
  }

 private:
  const resnorm::ArchResult& arch(int i) const { return sim_.results().archs[i]; }
  const resnorm::PathArch& pathArch(int i) const { return sim_.path_results().archs[i]; }
  bool valid(int i) const { return i >= 0 && i < archCount(); }
  bool validPath(int i) const { return i >= 0 && i < pathArchCount(); }
  resnorm::SessionSimulation sim_{module_session()};
};

class Trainer {
 public:
  val check(const val& config) { return status(tr_.check(fields_of(config))); }
  val start(const val& config) { return status(tr_.start(fields_of(config))); }
  std::string configJson() const { return resnorm::train_config_json(tr_.config()); }
  std::string archName() const { return resnorm::name(tr_.arch()); }
  double chance() const { return tr_.chance(); }
  double optimal() const { return tr_.optimal(); }
  double stepsDone() const { return static_cast<double>(tr_.steps_done()); }
  bool stopped() const { return tr_.stopped(); }
  val step(double n) { return status(tr_.step(n)); }
  int logCount() const { return static_cast<int>(tr_.logs().size()); }
  // Log i's numbers by name, first_nonfinite (null: none), then its arrays by name.
  val log(int i) const {
    val out = val::object();
    if (i < 0 || i >= logCount()) return out;
    const resnorm::TrainLog& g = tr_.logs()[i];
    for (const resnorm::NamedScalar& s : resnorm::named_scalars(g)) out.set(s.name, s.value);
    out.set("first_nonfinite", index_or_null(g.first_nonfinite));
    set_views(out, resnorm::named_arrays(g));
    return out;
  }
  void clearLogs() { tr_.clear_logs(); }
  std::string outcome() const { return tr_.outcome(); }
  val lesion() { return status(tr_.run_lesion()); }
  // The lesion study's base loss, then its arrays by name.
  val lesionResult() const {
    val out = val::object();
    out.set("base", tr_.lesion().base);
    set_views(out, resnorm::named_arrays(tr_.lesion()));
    return out;
  }
  // DenseFormer's averaging weights now, (L, L + 1) row-major; empty for other architectures.
  val dwaWeights() {
    dwa_ = tr_.dwa_weights();
    return view(dwa_);
  }
  // Attention Residuals' read weights over the held-out set, (K, K + 1)
  // row-major for K units; empty for other architectures.
  val attnResWeights() {
    dwa_ = tr_.attn_res_weights();
    return view(dwa_);
  }
  // The gates now: {width, then their arrays by name}, or null without gates.
  val gates() {
    gates_ = tr_.gates();
    if (gates_.width == 0) return val::null();
    val out = val::object();
    out.set("width", gates_.width);
    set_views(out, resnorm::named_arrays(gates_));
    return out;
  }
  // The norms' inputs and outputs on held-out batch 0 now: {units (an array), rows, width, input,
  // output (views, (units, rows, width) row-major)}, or null for a stack without such norms.
  val normSamples() {
    samples_ = tr_.norm_samples();
    if (samples_.units.empty()) return val::null();
    val out = val::object();
    val units = val::array();
    for (int k : samples_.units) units.call<void>("push", k);
    out.set("units", units);
    out.set("rows", samples_.rows);
    out.set("width", samples_.width);
    out.set("input", view(samples_.input));
    out.set("output", view(samples_.output));
    return out;
  }
  // The saved state's size, and its bytes handed to sink(view) piece by piece
  // (views of the trainer's own memory: the sink copies them out).
  double stateSize() const { return static_cast<double>(tr_.state_size()); }
  void writeState(const val& sink) const {
    tr_.write_state(
        [&sink](const char* p, size_t n) { sink(val(typed_memory_view(n, reinterpret_cast<const uint8_t*>(p)))); });
  }
  // A saved state of `size` bytes, which read(offset, view) copies into each view it is given.
  val load(const val& read, double size) {
    return status(tr_.load(size, [&read](uint64_t at, char* out, size_t n) {
      read(static_cast<double>(at), val(typed_memory_view(n, reinterpret_cast<uint8_t*>(out))));
    }));
  }

 private:
  resnorm::SessionTrainer tr_{module_session()};
  std::vector<double> dwa_;  // what dwaWeights() and attnResWeights() hand out views of
  resnorm::Gates gates_;
  resnorm::NormSamples samples_;  // what normSamples() hands out views of
};

// Runs as one PyTorch script (export_pytorch.h), what `resnorm train
// --export-pytorch` writes for one config: `groups`, a list of {config, keys,
// labels} (keys and labels: one per arch of config, the lab's run's), each
// config read and checked as a trainer's, then exported from the initial
// weights (Trainer<float>, the CLI's scalar). {script}, or {error} naming the
// field (the config's, the budgets' as check() counts them, or the
// exporter's: arch, norm, steps).
val exportPytorch(const val& groups) {
  val out = val::object();
  const double held = module_session().trainers_held();
  std::vector<resnorm::PytorchGroup> runs;
  resnorm::Status st;
  for (unsigned i = 0; st.ok() && i < groups["length"].as<unsigned>(); ++i) {
    const val g = groups[i];
    resnorm::SessionTrainer reader(module_session());  // reads and checks the config, holds nothing
    st = reader.check(fields_of(g["config"]));
    if (st.ok()) st = resnorm::check_train(reader.config(), held);
    runs.push_back({reader.config(), vecFromJSArray<std::string>(g["keys"]), vecFromJSArray<std::string>(g["labels"])});
  }
  std::string script;
  if (st.ok()) st = resnorm::export_pytorch<float>(runs, held, &script);
  if (!st.ok()) {
    out.set("error", status(st));
    return out;
  }
  out.set("script", script);
  return out;
}

std::string fieldsJson() { return resnorm::fields_json(resnorm::field_specs()); }
std::string trainFieldsJson() { return resnorm::fields_json(resnorm::train_field_specs()); }

// A JS array's numbers, and a vector as a new Float64Array.
std::vector<double> numbers(const val& a) { return convertJSArrayToNumberVector<double>(a); }
val copied(const std::vector<double>& v) { return view(v).call<val>("slice"); }

// The norm panel: {y, mean, var, rstd}, or {error} on bad input.
val normToken(const std::string& kind, const val& x, const val& gamma, const val& beta) {
  resnorm::TokenNorm t;
  const resnorm::Status st = resnorm::norm_token(kind, numbers(x), numbers(gamma), numbers(beta), &t);
  val out = val::object();
  if (!st.ok()) {
    out.set("error", status(st));
    return out;
  }
  out.set("y", copied(t.y));
  out.set("mean", t.mean);
  out.set("var", t.var);
  out.set("rstd", t.rstd);
  return out;
}

// {batchnorm, layernorm, mean, var}, or {error} on bad input.
val batchVsLayerNorm(const val& x, double B, double T, double d, const val& lengths, bool countPadding) {
  resnorm::BatchNormResult r;
  const resnorm::Status st = resnorm::batch_vs_layer_norm(numbers(x), B, T, d, numbers(lengths), countPadding, &r);
  val out = val::object();
  if (!st.ok()) {
    out.set("error", status(st));
    return out;
  }
  out.set("batchnorm", copied(r.batchnorm));
  out.set("layernorm", copied(r.layernorm));
  out.set("mean", copied(r.mean));
  out.set("var", copied(r.var));
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

// LayerNorm against RMSNorm, timed: {width, tokens, samples, inner, ln_forward,
// ln_backward, rms_forward, rms_backward (each {median_ms, p10_ms, p90_ms}),
// forward_ratio, backward_ratio, total_ratio}, or {error} on bad input.
val timeNorms(double width, double tokens, double samples) {
  resnorm::NormTiming r;
  const resnorm::Status st = resnorm::time_norms(width, tokens, samples, &r);
  val out = val::object();
  if (!st.ok()) {
    out.set("error", status(st));
    return out;
  }
  out.set("width", r.width);
  out.set("tokens", r.tokens);
  out.set("samples", r.samples);
  out.set("inner", r.inner);
  for (int k = 0; k < resnorm::kNumNormKernels; ++k) {
    val t = val::object();
    t.set("median_ms", r.kernel[k].median_ms);
    t.set("p10_ms", r.kernel[k].p10_ms);
    t.set("p90_ms", r.kernel[k].p90_ms);
    out.set(resnorm::kNormKernelNames[k], t);
  }
  out.set("forward_ratio", r.forward_ratio);
  out.set("backward_ratio", r.backward_ratio);
  out.set("total_ratio", r.total_ratio);
  return out;
}

// The largest saved state the wrapper reads: a state's tensors are held
// within one session's memory budget, so a larger one is refused unread.
double maxStateBytes() { return resnorm::kMemoryBudget; }

// What the module's trainers hold of its memory budget, and the budget.
val memoryHeld() {
  val out = val::object();
  out.set("trainers", module_session().trainers_held());
  out.set("budget", resnorm::kMemoryBudget);
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(resnorm) {
  class_<Simulation>("Simulation")
      .constructor<>()
      .function("run", &Simulation::run)
      .function("check", &Simulation::check)
      .function("paths", &Simulation::paths)
      .function("archCount", &Simulation::archCount)
      .function("archName", &Simulation::archName)
      .function("result", &Simulation::result)
      .function("pathArchCount", &Simulation::pathArchCount)
      .function("pathArchName", &Simulation::pathArchName)
      .function("pathResult", &Simulation::pathResult);
  class_<Trainer>("Trainer")
      .constructor<>()
      .function("check", &Trainer::check)
      .function("start", &Trainer::start)
      .function("configJson", &Trainer::configJson)
      .function("archName", &Trainer::archName)
      .function("chance", &Trainer::chance)
      .function("optimal", &Trainer::optimal)
      .function("stepsDone", &Trainer::stepsDone)
      .function("stopped", &Trainer::stopped)
      .function("step", &Trainer::step)
      .function("logCount", &Trainer::logCount)
      .function("log", &Trainer::log)
      .function("clearLogs", &Trainer::clearLogs)
      .function("outcome", &Trainer::outcome)
      .function("lesion", &Trainer::lesion)
      .function("lesionResult", &Trainer::lesionResult)
      .function("dwaWeights", &Trainer::dwaWeights)
      .function("attnResWeights", &Trainer::attnResWeights)
      .function("gates", &Trainer::gates)
      .function("normSamples", &Trainer::normSamples)
      .function("stateSize", &Trainer::stateSize)
      .function("writeState", &Trainer::writeState)
      .function("load", &Trainer::load);
  function("exportPytorch", &exportPytorch);
  function("fieldsJson", &fieldsJson);
  function("trainFieldsJson", &trainFieldsJson);
  function("maxStateBytes", &maxStateBytes);
  function("memoryHeld", &memoryHeld);
  function("normToken", &normToken);
  function("batchVsLayerNorm", &batchVsLayerNorm);
  function("normLimits", &normLimits);
  function("timeNorms", &timeNorms);
}
