// The train field table and everything that parses or checks a TrainConfig.
#include "resnorm/train_config.h"

#include <algorithm>
#include <utility>

#include "resnorm/json.h"

namespace resnorm {
namespace {

const char* kTaskNames[] = {"copy", "reverse", "sort", "modadd", "markov", "teacher"};
const char* kPositionNames[] = {"learned", "sinusoidal"};
const char* kFinalNames[] = {"auto", "none", "layernorm", "rmsnorm"};
const char* kOptimizerNames[] = {"sgd", "adam", "adamw"};
const char* kScheduleNames[] = {"constant", "linear", "cosine", "inverse_sqrt"};
const char* kNormChoiceNames[] = {"auto", "batchnorm"};
const char* kBnPadNames[] = {"count", "mask"};

// A field of the simulate table with training's default (and range).
FieldSpec stack_field(const char* name, const char* default_text, double max = -1) {
  FieldSpec f = *find_field(name);
  f.default_text = default_text;
  if (max >= 0) f.max = max;
  return f;
}

// Every numeric field with its member, for assigning and for validate().
struct IntField {
  const char* name;
  int TrainConfig::*member;
};
struct RealField {
  const char* name;
  double TrainConfig::*member;
};
const IntField kInts[] = {{"depth", &TrainConfig::depth},
                          {"width", &TrainConfig::width},
                          {"expansion", &TrainConfig::expansion},
                          {"heads", &TrainConfig::heads},
                          {"seq", &TrainConfig::seq},
                          {"seq_min", &TrainConfig::seq_min},
                          {"vocab", &TrainConfig::vocab},
                          {"batch", &TrainConfig::batch},
                          {"steps", &TrainConfig::steps},
                          {"warmup", &TrainConfig::warmup},
                          {"log_every", &TrainConfig::log_every},
                          {"eval_batches", &TrainConfig::eval_batches},
                          {"hc_streams", &TrainConfig::hc_streams},
                          {"sinkhorn_iters", &TrainConfig::sinkhorn_iters},
                          {"attn_res_blocks", &TrainConfig::attn_res_blocks}};
const RealField kReals[] = {{"gain", &TrainConfig::gain},
                            {"lr", &TrainConfig::lr},
                            {"momentum", &TrainConfig::momentum},
                            {"beta1", &TrainConfig::beta1},
                            {"beta2", &TrainConfig::beta2},
                            {"eps", &TrainConfig::eps},
                            {"weight_decay", &TrainConfig::weight_decay},
                            {"clip", &TrainConfig::clip},
                            {"mix_fraction", &TrainConfig::mix_fraction},
                            {"dyt_alpha", &TrainConfig::dyt_alpha},
                            {"ngpt_alpha", &TrainConfig::ngpt_alpha},
                            {"bn_momentum", &TrainConfig::bn_momentum}};

int choice_of(const TrainConfig& t, std::string_view name) {
  if (name == "task") return int(t.task);
  if (name == "block") return int(t.block);
  if (name == "qk_norm") return int(t.qk_norm);
  if (name == "activation") return int(t.activation);
  if (name == "init") return int(t.init);
  if (name == "positions") return int(t.positions);
  if (name == "final_norm") return int(t.final_norm);
  if (name == "optimizer") return int(t.optimizer);
  if (name == "schedule") return int(t.schedule);
  if (name == "norm") return int(t.norm);
  if (name == "bn_pads") return int(t.bn_pads);
  return -1;
}

void assign_choice(TrainConfig& t, std::string_view name, int i) {
  if (name == "task") t.task = Task(i);
  if (name == "block") t.block = Block(i);
  if (name == "qk_norm") t.qk_norm = QkNorm(i);
  if (name == "activation") t.activation = Activation(i);
  if (name == "init") t.init = Init(i);
  if (name == "positions") t.positions = Positions(i);
  if (name == "final_norm") t.final_norm = FinalNorm(i);
  if (name == "optimizer") t.optimizer = Optimizer(i);
  if (name == "schedule") t.schedule = Schedule(i);
  if (name == "norm") t.norm = NormChoice(i);
  if (name == "bn_pads") t.bn_pads = BnPads(i);
}

}  // namespace

std::vector<Arch> default_train_archs() { return {Arch::post_ln, Arch::pre_ln}; }

const std::vector<FieldSpec>& train_field_specs() {
  static const std::vector<FieldSpec> specs = {
      {"task", FieldKind::choice, 0, 0, choices_of(kTaskNames), "reverse", "what the model learns"},
      {"arch", FieldKind::choice_list, 0, 0, find_field("arch")->choices, "post_ln,pre_ln",
       "architectures to train side by side, comma separated"},
      stack_field("block", "transformer"),
      stack_field("depth", "6", 128),
      stack_field("width", "64", 256),
      stack_field("expansion", "4"),
      stack_field("heads", "4"),
      stack_field("qk_norm", "none"),
      stack_field("activation", "gelu"),
      stack_field("init", "gaussian"),
      stack_field("gain", "1.0"),
      stack_field("mix_fraction", "0.25"),
      stack_field("dyt_alpha", "0.5"),
      stack_field("hc_streams", "4"),
      stack_field("sinkhorn_iters", "20"),
      stack_field("ngpt_alpha", "0.05"),
      stack_field("attn_res_blocks", "0"),
      {"positions", FieldKind::choice, 0, 0, choices_of(kPositionNames), "learned",
       "position vectors added to the token embedding"},
      {"final_norm", FieldKind::choice, 0, 0, choices_of(kFinalNames), "auto",
       "norm before the unembedding; auto: the architecture's"},
      {"seq", FieldKind::integer, 2, 64, {}, "8", "n, symbols per input (tokens per sequence for markov)"},
      {"seq_min",
       FieldKind::integer,
       0,
       64,
       {},
       "0",
       "shortest n: each sequence's n drawn from seq_min..seq, padded to the batch's longest (0: all seq; modadd and "
       "teacher have no length)"},
      {"vocab", FieldKind::integer, 2, 256, {}, "16", "V, symbols (p for modadd)"},
      {"batch", FieldKind::integer, 1, 256, {}, "32", "B, sequences (examples for teacher) per step"},
      {"steps", FieldKind::integer, 0, 1000000, {}, "1000", "optimizer steps"},
      {"optimizer", FieldKind::choice, 0, 0, choices_of(kOptimizerNames), "adam", "update rule"},
      {"lr", FieldKind::real, 0, 10, {}, "1e-3", "peak learning rate"},
      {"momentum", FieldKind::real, 0, 0.999999, {}, "0.9", "sgd's momentum"},
      {"beta1", FieldKind::real, 0, 0.999999, {}, "0.9", "adam's first-moment decay"},
      {"beta2", FieldKind::real, 0, 0.999999, {}, "0.999", "adam's second-moment decay"},
      {"eps", FieldKind::real, 1e-30, 1, {}, "1e-8", "adam's epsilon"},
      {"weight_decay", FieldKind::real, 0, 1, {}, "0", "on matrices: L2 for sgd, adam; decoupled for adamw"},
      {"clip", FieldKind::real, 0, 1e30, {}, "0", "global gradient-norm clip (0: off)"},
      {"warmup", FieldKind::integer, 0, 1000000, {}, "0", "steps of linear warmup"},
      {"schedule", FieldKind::choice, 0, 0, choices_of(kScheduleNames), "constant", "learning rate after warmup"},
      {"log_every", FieldKind::integer, 1, 1000000, {}, "10", "log every n-th step (and the last)"},
      {"eval_batches", FieldKind::integer, 1, 64, {}, "2", "held-out set size in batches"},
      {"norm", FieldKind::choice, 0, 0, choices_of(kNormChoiceNames), "auto",
       "the stack's norms: auto, the architecture's; batchnorm, each one BatchNorm"},
      {"bn_pads", FieldKind::choice, 0, 0, choices_of(kBnPadNames), "mask",
       "whether BatchNorm's batch statistics count padded positions"},
      {"bn_momentum", FieldKind::real, 0, 1, {}, "0.1", "BatchNorm's running statistics: momentum of the batch's"},
      stack_field("seed", "0"),
  };
  return specs;
}

const FieldSpec* find_train_field(std::string_view name) {
  for (const FieldSpec& f : train_field_specs())
    if (name == f.name) return &f;
  return nullptr;
}

Status set_train_field(TrainConfig& t, std::string_view name, std::string_view text) {
  const FieldSpec* f = find_train_field(name);
  if (!f) return {std::string(name), printable(name) + ": unknown field"};
  FieldValue v;
  Status st = parse_field(*f, text, &v);
  if (!st.ok()) return st;
  if (f->kind == FieldKind::choice) {
    assign_choice(t, name, v.choice);
  } else if (f->kind == FieldKind::choice_list) {
    t.archs = v.archs;
  } else if (name == "seed") {
    t.seed = static_cast<uint32_t>(v.number);
  } else {
    for (const IntField& i : kInts)
      if (name == i.name) t.*i.member = static_cast<int>(v.number);
    for (const RealField& r : kReals)
      if (name == r.name) t.*r.member = v.number;
  }
  return Status::Ok();
}

Status set_train_number(TrainConfig& t, std::string_view name, double value) {
  const FieldSpec* f = find_train_field(name);
  if (!f) return {std::string(name), printable(name) + ": unknown field"};
  if (f->kind == FieldKind::choice || f->kind == FieldKind::choice_list)
    return field_error(*f, "a number is not a valid value");
  Status st = check_field(*f, value);
  if (!st.ok()) return st;
  return set_train_field(t, name, exact_number(value));
}

Status validate(const TrainConfig& t) {
  const FieldSpec& arch = *find_train_field("arch");
  if (t.archs.empty()) return field_error(arch, "the list is empty");
  for (Arch a : t.archs)
    if (static_cast<int>(a) >= kNumArchs) return field_error(arch, "unknown architecture");
  for (const IntField& i : kInts) {
    Status st = check_field(*find_train_field(i.name), t.*i.member);
    if (!st.ok()) return st;
  }
  for (const RealField& r : kReals) {
    Status st = check_field(*find_train_field(r.name), t.*r.member);
    if (!st.ok()) return st;
  }
  for (const FieldSpec& f : train_field_specs())
    if (f.kind == FieldKind::choice) {
      const int c = choice_of(t, f.name);
      if (c < 0 || c >= static_cast<int>(f.choices.size())) return field_error(f, "unknown value");
    }
  if (t.seq_min > t.seq) {
    FieldSpec f = *find_train_field("seq_min");
    f.max = t.seq;
    return field_error(f, std::to_string(t.seq_min) + " is out of range, at most seq");
  }
  if (t.block == Block::transformer && t.width % t.heads != 0)
    return field_error(*find_train_field("heads"),
                       std::to_string(t.heads) + " does not divide width " + std::to_string(t.width));
  return Status::Ok();
}

std::string train_config_text(const TrainConfig& t) {
  std::string s;
  for (const FieldSpec& f : train_field_specs()) {
    std::string flag = f.name;
    for (char& c : flag)
      if (c == '_') c = '-';
    std::string value;
    if (f.kind == FieldKind::choice) {
      value = f.choices[choice_of(t, f.name)];
    } else if (f.kind == FieldKind::choice_list) {
      for (size_t i = 0; i < t.archs.size(); ++i) value += (i ? "," : "") + std::string(name(t.archs[i]));
    } else if (std::string_view(f.name) == "seed") {
      value = std::to_string(t.seed);
    } else {
      for (const IntField& i : kInts)
        if (std::string_view(f.name) == i.name) value = std::to_string(t.*i.member);
      for (const RealField& r : kReals)
        if (std::string_view(f.name) == r.name) value = exact_number(t.*r.member);
    }
    s += (s.empty() ? "--" : " --") + flag + " " + value;
  }
  return s;
}

Status parse_train_config_text(std::string_view text, TrainConfig* tc) {
  TrainConfig t;
  size_t at = 0;
  while (at < text.size()) {
    const size_t flag_end = text.find(' ', at);
    if (text.substr(at, 2) != "--" || flag_end == std::string_view::npos)
      return {"config", "config: '" + printable(text.substr(at)) + "' is not a --flag value pair"};
    const size_t value_end = std::min(text.find(' ', flag_end + 1), text.size());
    std::string field(text.substr(at + 2, flag_end - at - 2));
    for (char& c : field)
      if (c == '-') c = '_';
    Status st = set_train_field(t, field, text.substr(flag_end + 1, value_end - flag_end - 1));
    if (!st.ok()) return st;
    at = value_end + 1;
  }
  Status st = validate(t);
  if (st.ok()) *tc = t;
  return st;
}

std::string train_config_json(const TrainConfig& t) {
  Json j;
  j.begin_object();
  for (const FieldSpec& f : train_field_specs()) {
    j.key(f.name);
    if (f.kind == FieldKind::choice) {
      j.string(f.choices[choice_of(t, f.name)]);
    } else if (f.kind == FieldKind::choice_list) {
      j.begin_array();
      for (Arch a : t.archs) j.string(name(a));
      j.end_array();
    } else if (std::string_view(f.name) == "seed") {
      j.integer(t.seed);
    } else {
      for (const IntField& i : kInts)
        if (std::string_view(f.name) == i.name) j.integer(t.*i.member);
      for (const RealField& r : kReals)
        if (std::string_view(f.name) == r.name) j.exact(t.*r.member);
    }
  }
  return j.end_object().str();
}

const char* name(Task t) { return kTaskNames[static_cast<int>(t)]; }
const char* name(Optimizer o) { return kOptimizerNames[static_cast<int>(o)]; }
const char* name(Schedule s) { return kScheduleNames[static_cast<int>(s)]; }
const char* name(Positions p) { return kPositionNames[static_cast<int>(p)]; }
const char* name(FinalNorm f) { return kFinalNames[static_cast<int>(f)]; }
const char* name(NormChoice n) { return kNormChoiceNames[static_cast<int>(n)]; }
const char* name(BnPads p) { return kBnPadNames[static_cast<int>(p)]; }

NormKind final_norm_of(const TrainConfig& t, Arch arch) {
  if (batchnorm(t) && t.final_norm == FinalNorm::automatic) {
    TrainConfig as_wired = t;
    as_wired.norm = NormChoice::automatic;
    return final_norm_of(as_wired, arch) == NormKind::none ? NormKind::none : NormKind::batchnorm;
  }
  switch (t.final_norm) {
    case FinalNorm::none: return NormKind::none;
    case FinalNorm::layernorm: return NormKind::layernorm;
    case FinalNorm::rmsnorm: return NormKind::rmsnorm;
    case FinalNorm::automatic: break;
  }
  switch (arch) {
    case Arch::pre_ln:
    case Arch::gpt2:
    case Arch::layerscale:
    case Arch::lns:
    case Arch::mix_ln:
    case Arch::dwa:
    case Arch::hyper:
    case Arch::mhc: return NormKind::layernorm;
    case Arch::pre_rms:
    case Arch::sandwich:
    case Arch::attn_res: return NormKind::rmsnorm;
    case Arch::dyt: return NormKind::dyt;
    case Arch::hybrid: return NormKind::layernorm;
    default: return NormKind::none;
  }
}

Config stack_config(const TrainConfig& t, Arch arch, int tokens) {
  Config c;
  c.archs = {arch};
  c.depth = t.depth;
  c.width = t.width;
  c.tokens = tokens;
  c.expansion = t.expansion;
  c.gain = t.gain;
  c.activation = t.activation;
  c.init = t.init;
  c.final_norm = final_norm_of(t, arch);
  c.seed = t.seed;
  c.block = t.block;
  c.heads = t.heads;
  c.causal = true;
  c.qk_norm = t.qk_norm;
  c.mix_fraction = t.mix_fraction;
  c.dyt_alpha = t.dyt_alpha;
  c.hc_streams = t.hc_streams;
  c.sinkhorn_iters = t.sinkhorn_iters;
  c.ngpt_alpha = t.ngpt_alpha;
  c.attn_res_blocks = t.attn_res_blocks;
  return c;
}

}  // namespace resnorm
