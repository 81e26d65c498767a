// resnorm/config.h: what a simulation is asked to compute.
//
// Every field is declared once, in the table returned by field_specs(): name,
// kind, range, default. The CLI parses flags through it, the wasm bindings
// validate through it, and error messages are written from it, so a range can
// never be stated in two places.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace resnorm {

// Where the residual and the norm go (see recipe() in recipes.h for the wiring).
enum class Arch : uint8_t {
  plain,       // h <- f(h)
  residual,    // h <- h + f(h)
  post_ln,     // h <- LN(h + f(h))
  post_rms,    // h <- RMS(h + f(h))
  pre_ln,      // h <- h + f(LN(h))
  pre_rms,     // h <- h + f(RMS(h))
  sandwich,    // h <- h + RMS(f(RMS(h)))           (Gemma 2)
  deepnorm,    // h <- LN(alpha h + f(h)), beta-scaled init   (DeepNet)
  gpt2,        // pre_ln with W2 (and W_O) scaled by 1/sqrt(N) at init
  admin,       // h <- LN(omega_i h + f(h)), omega_i profiled at init (Admin, Liu et al. 2020)
  rezero,      // h <- h + alpha f(h), learnable scalar alpha = 0 at init      (ReZero)
  layerscale,  // h <- h + diag(lambda) f(LN(h)), lambda = eps(L) at init      (CaiT)
  lns,         // h <- h + f(LN(h) / sqrt(l)) in block l                       (LayerNorm Scaling)
  mix_ln,      // post_ln in the first floor(f L) blocks, pre_ln above, f = mix_fraction (Mix-LN)
  dwa,         // pre_ln blocks, h_l <- sum_j w_lj y_j over h_0 and every block output (DenseFormer)
  dyt,         // h <- h + f(DyT(h)), DyT(x) = gamma tanh(a x) + beta, a learnable scalar   (Dynamic Tanh)
  hyper,       // n streams H: x = a.H, H <- M H + b f(LN(x)), a, M, b learned   (Hyper-Connections, hyper.h)
  mhc,         // hyper with M = Sinkhorn(exp R) doubly stochastic, a = sigmoid, b = 2 sigmoid   (mHC)
  attn_res,    // unit k reads h = sum_i softmax_i(w_k . RMS(v_i)) v_i over h_0 and every unit output (Attention
               // Residuals)
  hybrid,      // attention: h <- h + attn(h) with LN on Q, K, V per head; FFN: h <- LN(h) + f(LN(h))  (HybridNorm)
  ngpt,        // h <- Norm(h + alpha (Norm(f(h)) - h)), weights on the unit sphere   (nGPT, ngpt.h)
};
enum class Activation : uint8_t { relu, gelu, tanh, linear };
enum class Init : uint8_t { gaussian, orthogonal };
// batchnorm: per feature over the batch's rows (norms.h); training only (a
// train config's `norm` field), never a simulation's final norm.
// dyt: Dynamic Tanh, gamma tanh(a x) + beta entry by entry, a a learnable
// scalar (norms.h); the norm of the dyt architecture, never a config's final_norm choice.
enum class NormKind : uint8_t { none, layernorm, rmsnorm, batchnorm, dyt };
// What one block of the stack is: one MLP sublayer, or attention then MLP
// (two residual sublayers, each wrapped the same way with its own norms).
enum class Block : uint8_t { mlp, transformer };
// QK-norm on attention (Dehghani et al. 2023, "Scaling Vision Transformers to
// 22 Billion Parameters"; Wortsman et al. 2023, "Small-scale proxies for
// large-scale Transformer training instabilities"): layernorm puts each head's
// queries and keys through LayerNorm over the head's dh features, with a
// learned gain and no bias, before the scores Q K^T / sqrt(dh) (attention.h).
enum class QkNorm : uint8_t { none, layernorm };

inline constexpr int kNumArchs = 21;
inline constexpr double kEps = 1e-5;  // inside every norm's square root
// Mix-LN's default share of Post-LN blocks (Li et al. 2024: "Post-LN for the
// first 25% of the layers").
inline constexpr double kMixLnFraction = 0.25;
// DyT's initial alpha (Zhu et al. 2025, "Transformers without Normalization":
// alpha_0 = 0.5 for every model but the LLMs; the reference code's default).
inline constexpr double kDytAlpha = 0.5;
// Hyper-Connections' expansion rate n (Zhu et al. 2025: n = 4 in most of their runs).
inline constexpr int kHcStreams = 4;
// mHC's Sinkhorn-Knopp iterations (Xie et al. 2025: t_max = 20).
inline constexpr int kSinkhornIters = 20;
// nGPT's eigen learning rates alpha_A, alpha_M at init (Loshchilov et al.
// 2025, Section 2.2.2: alpha_init = 0.05 in their runs; the reference code's 0.05).
inline constexpr double kNgptAlpha = 0.05;

struct Config {
  std::vector<Arch> archs{Arch::plain, Arch::residual, Arch::post_ln, Arch::pre_ln};
  int depth = 96;     // L, number of blocks
  int width = 64;     // d, features per token
  int tokens = 8;     // T, tokens in the stream
  int expansion = 1;  // e, hidden width m = e * d
  double gain = 1.0;  // g, multiplies W2
  Activation activation = Activation::relu;
  Init init = Init::gaussian;
  NormKind final_norm = NormKind::none;
  uint32_t seed = 0;
  // Transformer blocks: heads and causal are read only when block == transformer.
  Block block = Block::mlp;
  int heads = 4;                  // in {1, 2, 4, 8}, must divide width (checked for transformer blocks only)
  bool causal = true;             // token i attends to tokens j <= i only
  QkNorm qk_norm = QkNorm::none;  // LayerNorm on each head's queries and keys (transformer blocks only)
  // Mix-LN: the fraction of the blocks, from the bottom, that are Post-LN
  // (recipes.h); in [0, 1], read only by mix_ln.
  double mix_fraction = kMixLnFraction;
  // DyT: every DyT layer's alpha at init (norms.h); read only by dyt.
  double dyt_alpha = kDytAlpha;
  // Hyper-Connections and mHC: the number of streams n (hyper.h); read only by hyper and mhc.
  int hc_streams = kHcStreams;
  // mHC: Sinkhorn-Knopp iterations of every mixing matrix; read only by mhc.
  int sinkhorn_iters = kSinkhornIters;
  // nGPT: every unit's alpha (per channel) at init (ngpt.h); read only by ngpt.
  double ngpt_alpha = kNgptAlpha;
  // Attention Residuals: N blocks of Block AttnRes (attn_res.h); 0, or N at
  // least the unit count, is Full AttnRes. Read only by attn_res.
  int attn_res_blocks = 0;

  int hidden() const { return expansion * width; }
  int sublayers_per_block() const { return block == Block::transformer ? 2 : 1; }
  // Weights one block holds: 2 d m for the MLP, plus 4 d^2 (W_Q, W_K, W_V, W_O).
  double weights_per_block() const {
    return 2.0 * width * hidden() + (block == Block::transformer ? 4.0 * width * width : 0.0);
  }
};

// An error as a value: which field, and a one-line message that names the
// value and the allowed range. ok() when field is empty.
struct Status {
  std::string field;
  std::string message;
  // Where a budget (limits.h) or the weight cap refused the call: the largest
  // value of `field` that fits with the other settings (0 if none does); -1 otherwise.
  double max_fit = -1;
  bool ok() const { return field.empty(); }
  // What kind of refusal, for the JS API's EngineError: "budget" where a budget
  // refused the call (max_fit is set), else "range" (a value its field does not allow).
  const char* code() const { return max_fit >= 0 ? "budget" : "range"; }
  static Status Ok() { return {}; }
};

enum class FieldKind : uint8_t { integer, real, choice, choice_list, uint32 };

struct FieldSpec {
  const char* name;  // as in JSON, the JS API and the CLI (--name, with _ as -)
  FieldKind kind;
  double min, max;                   // integer, real, uint32
  std::vector<const char*> choices;  // choice, choice_list
  const char* default_text;
  const char* help;
};

// A choice field's choices: the names of its enum, in the enum's order.
template <size_t N>
std::vector<const char*> choices_of(const char* const (&names)[N]) {
  return {names, names + N};
}

// The one table of fields, in display order.
const std::vector<FieldSpec>& field_specs();
const FieldSpec* find_field(std::string_view name);
// "1..1024", "0..4", "relu|gelu|tanh|linear", ...
std::string allowed_text(const FieldSpec& spec);

// What a message may show of text a user typed: at most `max` bytes, every
// byte outside printable ASCII as '?' (no control byte or escape sequence
// reaches a terminal), "..." when cut.
std::string printable(std::string_view s, size_t max = 40);
// Numbers are written in decimal: an optional '-', digits with an optional
// fraction (or a fraction alone), an optional exponent (e or E, an optional
// sign, digits): "4", "-0.5", ".5", "1e-3", "2.5E+2". Nothing else: no '+'
// or spaces around it, no hex, no "inf" or "nan". False if `s` is not one.
bool parse_decimal(std::string_view s, double* out);

// A value of one field, parsed: a number, a choice's index or an arch list.
struct FieldValue {
  double number = 0;
  int choice = -1;
  std::vector<Arch> archs;
};
// Parses `text` as a value of field `f` (of this table or another in its
// style, train_config.h) and checks it against f's range; the message of a
// failure names f, the value and the allowed range.
Status parse_field(const FieldSpec& f, std::string_view text, FieldValue* out);
// "<field>: <what> (allowed <range>)", the one form of a field's error.
Status field_error(const FieldSpec& f, const std::string& what);
// The range check of a number already held (as set_number() does it).
Status check_field(const FieldSpec& f, double value);
// A whole number in lo..hi that arrives as a double (from JS), checked as an
// integer field's range is: a fraction, NaN or a value out of range is refused
// naming `field` instead of being truncated by a conversion.
Status check_whole(const char* field, double value, double lo, double hi);

// Parses `text` into `cfg`'s field `name`, checking its range. The message of
// a failure reads like "depth: 0 is out of range (allowed 1..1024)".
Status set_field(Config& cfg, std::string_view name, std::string_view text);
// Numeric setters for bindings that already hold numbers (NaN is rejected here).
Status set_number(Config& cfg, std::string_view name, double value);

// Checks every field's range and the memory budget of the whole config.
Status validate(const Config& cfg);

// Upper bound on the number of weights (L times weights_per_block()) one simulation may hold.
inline constexpr double kMaxWeights = 64.0 * 1024 * 1024;

const char* name(Arch a);
const char* name(Activation a);
const char* name(Init i);
const char* name(NormKind n);
const char* name(Block b);
const char* name(QkNorm q);
bool parse_arch(std::string_view s, Arch* out);
std::vector<Arch> all_archs();
// Whether `a` is among the config's architectures.
bool has_arch(const Config& cfg, Arch a);

// {"arch": [...], "depth": 96, ...} with the field names of the table.
// block, heads and causal are printed only for transformer blocks: the JSON of
// an MLP stack has none of them (qk_norm only for transformer blocks with it on); mix_fraction only when mix_ln runs,
// the one architecture that reads it, and dyt_alpha only when dyt runs, hc_streams only when hyper
// or mhc runs, sinkhorn_iters only when mhc runs, ngpt_alpha only when ngpt runs, attn_res_blocks
// only when attn_res runs with it not 0.
std::string config_json(const Config& cfg);
// A field table (this one or train_field_specs()) as JSON, [{"name", "kind",
// "min", "max", "allowed", "default", "help", "choices"}, ...]: JS shows the
// core's ranges and defaults from it.
std::string fields_json(const std::vector<FieldSpec>& specs);

}  // namespace resnorm
