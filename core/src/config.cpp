// The field table and everything that parses or checks a Config.
#include "resnorm/config.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "resnorm/json.h"

namespace resnorm {
namespace {

const char* kArchNames[] = {"plain",    "residual", "post_ln", "post_rms", "pre_ln",     "pre_rms", "sandwich",
                            "deepnorm", "gpt2",     "admin",   "rezero",   "layerscale", "lns",     "mix_ln",
                            "dwa",      "dyt",      "hyper",   "mhc",      "attn_res",   "hybrid",  "ngpt"};
const char* kActivationNames[] = {"relu", "gelu", "tanh", "linear"};
const char* kInitNames[] = {"gaussian", "orthogonal"};
const char* kNormNames[] = {"none", "layernorm", "rmsnorm"};
const char* kBlockNames[] = {"mlp", "transformer"};
const char* kBooleanNames[] = {"true", "false"};
const char* kQkNormNames[] = {"none", "layernorm"};

std::string fmt_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string quoted(std::string_view s) { return "'" + printable(s) + "'"; }

Status fail(const FieldSpec& f, const std::string& what) {
  return {f.name, std::string(f.name) + ": " + what + " (allowed " + allowed_text(f) + ")"};
}

int choice_index(const FieldSpec& f, std::string_view s) {
  for (size_t i = 0; i < f.choices.size(); ++i)
    if (s == f.choices[i]) return static_cast<int>(i);
  return -1;
}

void assign(Config& c, std::string_view name, double v) {
  static const std::pair<const char*, int Config::*> ints[] = {{"depth", &Config::depth},
                                                               {"width", &Config::width},
                                                               {"tokens", &Config::tokens},
                                                               {"expansion", &Config::expansion},
                                                               {"heads", &Config::heads},
                                                               {"hc_streams", &Config::hc_streams},
                                                               {"sinkhorn_iters", &Config::sinkhorn_iters},
                                                               {"attn_res_blocks", &Config::attn_res_blocks}};
  for (const auto& [field, member] : ints)
    if (name == field) c.*member = static_cast<int>(v);
  if (name == "gain") c.gain = v;
  if (name == "mix_fraction") c.mix_fraction = v;
  if (name == "dyt_alpha") c.dyt_alpha = v;
  if (name == "ngpt_alpha") c.ngpt_alpha = v;
  if (name == "seed") c.seed = static_cast<uint32_t>(v);
}

void assign_choice(Config& c, std::string_view name, int i) {
  if (name == "activation")
    c.activation = static_cast<Activation>(i);
  else if (name == "init")
    c.init = static_cast<Init>(i);
  else if (name == "final_norm")
    c.final_norm = static_cast<NormKind>(i);
  else if (name == "block")
    c.block = static_cast<Block>(i);
  else if (name == "causal")
    c.causal = (i == 0);  // choices "true", "false"
  else if (name == "qk_norm")
    c.qk_norm = static_cast<QkNorm>(i);
}

// Range check of a number already parsed; integers must be whole.
Status check_number(const FieldSpec& f, double v, const std::string& shown) {
  if (!std::isfinite(v)) return fail(f, shown + " is not a finite number");
  if (f.kind != FieldKind::real && v != std::floor(v)) return fail(f, shown + " is not a whole number");
  if (v < f.min || v > f.max) return fail(f, shown + " is out of range");
  if (std::string_view(f.name) == "expansion" && v != 1 && v != 2 && v != 4)
    return fail(f, shown + " is not one of 1, 2, 4");
  if (std::string_view(f.name) == "heads" && v != 1 && v != 2 && v != 4 && v != 8)
    return fail(f, shown + " is not one of 1, 2, 4, 8");
  return Status::Ok();
}

}  // namespace

std::string printable(std::string_view s, size_t max) {
  std::string out;
  for (char c : s.substr(0, max)) out += (c >= 32 && c < 127) ? c : '?';
  if (s.size() > max) out += "...";
  return out;
}

bool parse_decimal(std::string_view s, double* out) {
  size_t i = 0;
  auto digits = [&]() {
    const size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  size_t whole = digits(), frac = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    frac = digits();
  }
  if (whole + frac == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  if (i != s.size()) return false;
  const std::string text(s);
  *out = std::strtod(text.c_str(), nullptr);
  return true;
}

namespace {

// Whether a decimal literal names a number other than zero (a digit other than 0 before the exponent).
bool names_nonzero(std::string_view s) {
  for (char c : s) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') return true;
  }
  return false;
}

}  // namespace

const std::vector<FieldSpec>& field_specs() {
  static const std::vector<FieldSpec> specs = {
      {"arch", FieldKind::choice_list, 0, 0, choices_of(kArchNames), "plain,residual,post_ln,pre_ln",
       "architectures to simulate, comma separated"},
      {"depth", FieldKind::integer, 1, 1024, {}, "96", "L, number of blocks"},
      {"width", FieldKind::integer, 2, 512, {}, "64", "d, features per token"},
      {"tokens", FieldKind::integer, 1, 64, {}, "8", "T, tokens in the stream"},
      {"expansion", FieldKind::integer, 1, 4, {}, "1", "e in {1,2,4}, hidden width m = e d"},
      {"gain", FieldKind::real, 0, 4, {}, "1.0", "g, multiplies W2 at init"},
      {"activation", FieldKind::choice, 0, 0, choices_of(kActivationNames), "relu", "phi"},
      {"init", FieldKind::choice, 0, 0, choices_of(kInitNames), "gaussian", "weight init"},
      {"final_norm", FieldKind::choice, 0, 0, choices_of(kNormNames), "none", "norm before the readout"},
      {"seed", FieldKind::uint32, 0, 4294967295.0, {}, "0", "random seed"},
      // Transformer blocks: attention then MLP, each sublayer wrapped by the arch.
      {"block", FieldKind::choice, 0, 0, choices_of(kBlockNames), "mlp", "what one block is"},
      {"heads", FieldKind::integer, 1, 8, {}, "4", "attention heads in {1,2,4,8}, must divide width"},
      // A boolean as a choice field, so the CLI takes --causal false and the
      // field table needs no new kind. "true" is choice 0.
      {"causal", FieldKind::choice, 0, 0, choices_of(kBooleanNames), "true", "mask attention to earlier tokens"},
      // QK-norm (Dehghani et al. 2023): LayerNorm with a learned gain on each head's q and k; MLP blocks ignore it.
      {"qk_norm", FieldKind::choice, 0, 0, choices_of(kQkNormNames), "none",
       "transformer blocks: LayerNorm on each head's queries and keys before the scores"},
      // Mix-LN: blocks 1..floor(f L) are Post-LN, the rest Pre-LN; 0 is all Pre-LN, 1 all Post-LN.
      {"mix_fraction", FieldKind::real, 0, 1, {}, "0.25", "mix_ln: share of blocks, from the bottom, that are Post-LN"},
      // DyT: alpha_0 of every DyT layer, gamma tanh(alpha x) + beta.
      {"dyt_alpha", FieldKind::real, 0.01, 10, {}, "0.5", "dyt: alpha of every DyT layer at init"},
      // Hyper-Connections: n residual streams; 1 is one stream (HC with n = 1 is still learned weights).
      {"hc_streams", FieldKind::integer, 1, 16, {}, "4", "hyper, mhc: residual streams n (the expansion rate)"},
      // mHC: Sinkhorn-Knopp iterations projecting each mixing matrix towards the doubly stochastic ones.
      {"sinkhorn_iters", FieldKind::integer, 1, 100, {}, "20", "mhc: Sinkhorn-Knopp iterations (rows, then columns)"},
      // nGPT: alpha_A and alpha_M of every unit at init, every channel (the paper's alpha_init).
      {"ngpt_alpha", FieldKind::real, 0.001, 1, {}, "0.05", "ngpt: the step size alpha of every unit at init"},
      // Block AttnRes: the units in N blocks, each read as its sum; 0 (or N >= the units) is Full AttnRes.
      {"attn_res_blocks",
       FieldKind::integer,
       0,
       256,
       {},
       "0",
       "attn_res: blocks N of Block AttnRes (units summed per block); 0 or N >= units: Full"},
  };
  return specs;
}

const FieldSpec* find_field(std::string_view name) {
  for (const FieldSpec& f : field_specs())
    if (name == f.name) return &f;
  return nullptr;
}

std::string allowed_text(const FieldSpec& f) {
  switch (f.kind) {
    case FieldKind::choice:
    case FieldKind::choice_list: {
      std::string s;
      for (size_t i = 0; i < f.choices.size(); ++i) s += (i ? "|" : "") + std::string(f.choices[i]);
      return f.kind == FieldKind::choice_list ? "a comma-separated list of " + s : s;
    }
    case FieldKind::integer:
      if (std::string_view(f.name) == "expansion") return "1, 2 or 4";
      if (std::string_view(f.name) == "heads") return "1, 2, 4 or 8";
      [[fallthrough]];
    case FieldKind::uint32:
    case FieldKind::real: return fmt_number(f.min) + ".." + fmt_number(f.max);
  }
  return "";
}

Status parse_field(const FieldSpec& f, std::string_view text, FieldValue* out) {
  if (text.empty()) return fail(f, "missing value");
  switch (f.kind) {
    case FieldKind::choice: {
      out->choice = choice_index(f, text);
      if (out->choice < 0) return fail(f, quoted(text) + " is not a known value");
      return Status::Ok();
    }
    case FieldKind::choice_list: {
      out->archs.clear();
      size_t start = 0;
      while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string_view item =
            text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        Arch a;
        if (!parse_arch(item, &a)) return fail(f, quoted(item) + " is not a known architecture");
        for (Arch b : out->archs)
          if (a == b) return fail(f, quoted(item) + " is listed twice (each once)");
        out->archs.push_back(a);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      return Status::Ok();
    }
    default: {
      double v = 0;
      if (!parse_decimal(text, &v)) {
        const std::string t(text);
        char* end = nullptr;
        const double loose = std::strtod(t.c_str(), &end);
        const bool non_finite = end != t.c_str() && *end == '\0' && !std::isfinite(loose);
        return fail(f, quoted(text) + (non_finite ? " is not a finite number" : " is not a number"));
      }
      // a value that rounds to zero or to a subnormal is not the value written: 1e-400 is not 0
      if (names_nonzero(text) && std::fabs(v) < std::numeric_limits<double>::min())
        return fail(f, quoted(text) + " is too small to represent");
      if (v == 0) v = 0;  // -0 is 0, as the JS side reads it
      out->number = v;
      return check_number(f, v, quoted(text));
    }
  }
}

Status field_error(const FieldSpec& f, const std::string& what) { return fail(f, what); }

Status check_field(const FieldSpec& f, double value) { return check_number(f, value, fmt_number(value)); }

Status check_whole(const char* field, double value, double lo, double hi) {
  return check_field({field, FieldKind::integer, lo, hi, {}, "", ""}, value);
}

Status set_field(Config& cfg, std::string_view name, std::string_view text) {
  const FieldSpec* f = find_field(name);
  if (!f) return {std::string(name), printable(name) + ": unknown field"};
  FieldValue v;
  Status st = parse_field(*f, text, &v);
  if (!st.ok()) return st;
  if (f->kind == FieldKind::choice)
    assign_choice(cfg, name, v.choice);
  else if (f->kind == FieldKind::choice_list)
    cfg.archs = v.archs;
  else
    assign(cfg, name, v.number);
  return Status::Ok();
}

Status set_number(Config& cfg, std::string_view name, double value) {
  const FieldSpec* f = find_field(name);
  if (!f) return {std::string(name), printable(name) + ": unknown field"};
  if (f->kind == FieldKind::choice || f->kind == FieldKind::choice_list)
    return fail(*f, "a number is not a valid value");
  Status st = check_number(*f, value, fmt_number(value));
  if (!st.ok()) return st;
  assign(cfg, name, value);
  return Status::Ok();
}

Status validate(const Config& c) {
  if (c.archs.empty()) return fail(*find_field("arch"), "the list is empty");
  for (Arch a : c.archs)
    if (static_cast<int>(a) >= kNumArchs) return fail(*find_field("arch"), "unknown architecture");
  const double numbers[] = {
      double(c.depth),          double(c.width), double(c.tokens),         double(c.expansion), c.gain,
      double(c.seed),           double(c.heads), c.mix_fraction,           c.dyt_alpha,         double(c.hc_streams),
      double(c.sinkhorn_iters), c.ngpt_alpha,    double(c.attn_res_blocks)};
  const char* names[] = {"depth",          "width",      "tokens",         "expansion", "gain",
                         "seed",           "heads",      "mix_fraction",   "dyt_alpha", "hc_streams",
                         "sinkhorn_iters", "ngpt_alpha", "attn_res_blocks"};
  for (int i = 0; i < 13; ++i) {
    Status st = check_number(*find_field(names[i]), numbers[i], fmt_number(numbers[i]));
    if (!st.ok()) return st;
  }
  if (static_cast<int>(c.activation) > 3) return fail(*find_field("activation"), "unknown value");
  if (static_cast<int>(c.init) > 1) return fail(*find_field("init"), "unknown value");
  if (static_cast<int>(c.final_norm) > 2) return fail(*find_field("final_norm"), "unknown value");
  if (static_cast<int>(c.block) > 1) return fail(*find_field("block"), "unknown value");
  if (static_cast<int>(c.qk_norm) > 1) return fail(*find_field("qk_norm"), "unknown value");
  // Heads split the d columns of W_Q, W_K, W_V; irrelevant (and unchecked) for MLP blocks.
  if (c.block == Block::transformer && c.width % c.heads != 0)
    return {"heads", "heads: " + std::to_string(c.heads) + " does not divide width " + std::to_string(c.width) +
                         " (allowed 1, 2, 4 or 8, dividing width)"};
  // Weights are kept for every layer (backward needs them), so the product is bounded.
  const double block_weights = c.weights_per_block();
  if (block_weights * c.depth > kMaxWeights) {
    int max_depth = static_cast<int>(kMaxWeights / block_weights);
    const std::string blocks = c.block == Block::transformer ? " with transformer blocks" : "";
    return {"depth",
            "depth: " + std::to_string(c.depth) + " is too deep for width " + std::to_string(c.width) +
                " and expansion " + std::to_string(c.expansion) + blocks + " (allowed 1.." + std::to_string(max_depth) +
                " there: at most " + fmt_number(kMaxWeights) + " weights in all)",
            double(max_depth)};
  }
  return Status::Ok();
}

const char* name(Arch a) { return kArchNames[static_cast<int>(a)]; }
const char* name(Activation a) { return kActivationNames[static_cast<int>(a)]; }
const char* name(Init i) { return kInitNames[static_cast<int>(i)]; }
const char* name(NormKind n) {
  return n == NormKind::batchnorm ? "batchnorm" : n == NormKind::dyt ? "dyt" : kNormNames[static_cast<int>(n)];
}
const char* name(Block b) { return kBlockNames[static_cast<int>(b)]; }
const char* name(QkNorm q) { return kQkNormNames[static_cast<int>(q)]; }

bool parse_arch(std::string_view s, Arch* out) {
  for (int i = 0; i < kNumArchs; ++i)
    if (s == kArchNames[i]) {
      *out = static_cast<Arch>(i);
      return true;
    }
  return false;
}

bool has_arch(const Config& cfg, Arch a) {
  for (Arch b : cfg.archs)
    if (b == a) return true;
  return false;
}

std::vector<Arch> all_archs() {
  std::vector<Arch> v;
  for (int i = 0; i < kNumArchs; ++i) v.push_back(static_cast<Arch>(i));
  return v;
}

std::string config_json(const Config& c) {
  Json j;
  j.begin_object().key("arch").begin_array();
  for (Arch a : c.archs) j.string(name(a));
  j.end_array().key("depth").integer(c.depth).key("width").integer(c.width).key("tokens").integer(c.tokens);
  j.key("expansion").integer(c.expansion).key("gain").number(c.gain, 10);
  j.key("activation").string(name(c.activation)).key("init").string(name(c.init));
  j.key("final_norm").string(name(c.final_norm)).key("seed").integer(c.seed);
  if (c.block == Block::transformer)
    j.key("block").string(name(c.block)).key("heads").integer(c.heads).key("causal").boolean(c.causal);
  if (c.block == Block::transformer && c.qk_norm != QkNorm::none) j.key("qk_norm").string(name(c.qk_norm));
  if (has_arch(c, Arch::mix_ln)) j.key("mix_fraction").number(c.mix_fraction, 10);
  if (has_arch(c, Arch::dyt)) j.key("dyt_alpha").number(c.dyt_alpha, 10);
  if (has_arch(c, Arch::hyper) || has_arch(c, Arch::mhc)) j.key("hc_streams").integer(c.hc_streams);
  if (has_arch(c, Arch::mhc)) j.key("sinkhorn_iters").integer(c.sinkhorn_iters);
  if (has_arch(c, Arch::ngpt)) j.key("ngpt_alpha").number(c.ngpt_alpha, 10);
  if (has_arch(c, Arch::attn_res) && c.attn_res_blocks != 0) j.key("attn_res_blocks").integer(c.attn_res_blocks);
  return j.end_object().str();
}

std::string fields_json(const std::vector<FieldSpec>& specs) {
  const char* kinds[] = {"integer", "real", "choice", "choice_list", "uint32"};
  Json j;
  j.begin_array();
  for (const FieldSpec& f : specs) {
    j.begin_object().key("name").string(f.name).key("kind").string(kinds[static_cast<int>(f.kind)]);
    j.key("min").exact(f.min).key("max").exact(f.max).key("allowed").string(allowed_text(f));
    j.key("default").string(f.default_text).key("help").string(f.help).key("choices").begin_array();
    for (const char* c : f.choices) j.string(c);
    j.end_array().end_object();
  }
  return j.end_array().str();
}

}  // namespace resnorm
