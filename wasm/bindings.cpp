// Embind over the engine: types in, types out, nothing else.
//
// No C++ exception crosses into JS (the core returns errors as values, and
// refuses up front every call that would not fit its memory budget, limits.h):
// a bad config comes back from run() as "field\tmessage", and wasm/resnorm.js
// throws it as a RangeError. Per-layer arrays are exposed as typed-array views
// of the wasm heap, which the wrapper copies out at once (views go stale when
// memory grows).
#include <emscripten/bind.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "resnorm/engine.h"
#include "resnorm/limits.h"
#include "resnorm/normlab.h"

using namespace emscripten;

namespace {

// A config as JS sends it: every number a double (so NaN reaches the core's
// check instead of being truncated by a conversion), enums as their names.
struct JsConfig {
  std::string arch;  // comma-separated
  double depth, width, tokens, expansion, gain, seed, heads;
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

class Simulation {
 public:
  // "" on success, else "field\tmessage".
  std::string run(const JsConfig& js) {
    resnorm::Config cfg;
    resnorm::Status st = apply(cfg, js);
    if (st.ok()) st = engine_.simulate(cfg, &res_);
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
    if (st.ok()) st = engine_.paths(cfg, static_cast<int>(samples), static_cast<uint32_t>(pathSeed), &paths_);
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
        {"gain", js.gain},   {"seed", js.seed},   {"heads", js.heads}};
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

  resnorm::Engine<float> engine_;
  resnorm::Results res_;
  resnorm::PathResults paths_;
};

// The field table as JSON, so JS shows the same ranges and defaults as the core.
std::string fieldsJson() {
  std::string s = "[";
  bool first = true;
  for (const resnorm::FieldSpec& f : resnorm::field_specs()) {
    const char* kinds[] = {"integer", "real", "choice", "choice_list", "uint32"};
    s += first ? "" : ",";
    first = false;
    s += "{\"name\":\"" + std::string(f.name) + "\",\"kind\":\"" + kinds[static_cast<int>(f.kind)] +
         "\",\"min\":" + std::to_string(f.min) + ",\"max\":" + std::to_string(f.max) + ",\"allowed\":\"" +
         resnorm::allowed_text(f) + "\",\"default\":\"" + f.default_text + "\",\"help\":\"" + f.help +
         "\",\"choices\":[";
    for (size_t i = 0; i < f.choices.size(); ++i) s += (i ? ",\"" : "\"") + std::string(f.choices[i]) + "\"";
    s += "]}";
  }
  return s + "]";
}

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
      .field("causal", &JsConfig::causal);
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
  function("fieldsJson", &fieldsJson);
  function("normToken", &normToken);
  function("batchVsLayerNorm", &batchVsLayerNorm);
  function("normLimits", &normLimits);
}
