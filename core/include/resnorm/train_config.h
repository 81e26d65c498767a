// resnorm/train_config.h: what a training run is asked to do.
//
// One table of fields in the style of config.h (train_field_specs()): name,
// kind, range, default, help. The CLI's `train` flags, their help and every
// message about a bad value come from it. The stack's own fields (arch, block,
// depth, width, expansion, heads, qk_norm, activation, init, gain, mix_fraction, dyt_alpha, hc_streams, sinkhorn_iters,
// ngpt_alpha)
// are the simulate table's entries with training's defaults and ranges.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "resnorm/config.h"

namespace resnorm {

// copy, reverse, sort: n symbols, then the same n (copied, reversed, sorted);
// modadd: a, b -> (a + b) mod p; markov: a sparse bigram language; teacher:
// regression on a fixed random network (tasks.h).
enum class Task : uint8_t { copy, reverse, sort, modadd, markov, teacher };
enum class Positions : uint8_t { learned, sinusoidal };
// auto: the architecture's own final norm (final_norm_of() below).
enum class FinalNorm : uint8_t { automatic, none, layernorm, rmsnorm };
enum class Optimizer : uint8_t { sgd, adam, adamw };
enum class Schedule : uint8_t { constant, linear, cosine, inverse_sqrt };
// auto: the architecture's norms; batchnorm: every norm the architecture places (in, out,
// outer, and the final norm under final_norm auto) is BatchNorm (norms.h).
enum class NormChoice : uint8_t { automatic, batchnorm };
// Whether BatchNorm's batch statistics count the padded positions.
enum class BnPads : uint8_t { count, mask };

// post_ln, pre_ln (out of line: GCC 12 warns falsely on a two-entry initializer list here).
std::vector<Arch> default_train_archs();

struct TrainConfig {
  Task task = Task::reverse;
  std::vector<Arch> archs = default_train_archs();
  Block block = Block::transformer;
  int depth = 6;      // L blocks
  int width = 64;     // d
  int expansion = 4;  // m = e d
  int heads = 4;
  QkNorm qk_norm = QkNorm::none;  // QK-norm on attention (config.h); MLP blocks ignore it
  Activation activation = Activation::gelu;
  Init init = Init::gaussian;
  double gain = 1.0;
  Positions positions = Positions::learned;
  FinalNorm final_norm = FinalNorm::automatic;
  int seq = 8;  // n: symbols per input (copy, reverse, sort), tokens per sequence (markov)
  // The shortest n (copy, reverse, sort, markov): each sequence's n is drawn
  // from seq_min..seq, and a batch is padded to its longest. 0: every n = seq.
  int seq_min = 0;
  int vocab = 16;  // V symbols (p for modadd)
  int batch = 32;  // B sequences (examples for teacher) per step
  int steps = 1000;
  Optimizer optimizer = Optimizer::adam;
  double lr = 1e-3;  // peak learning rate
  double momentum = 0.9;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 0;
  double clip = 0;  // global gradient-norm clip; 0 = off
  int warmup = 0;   // linear warmup steps
  Schedule schedule = Schedule::constant;
  int log_every = 10;
  int eval_batches = 2;  // the held-out set: eval_batches batches of `batch`
  uint32_t seed = 0;
  double mix_fraction = kMixLnFraction;  // Mix-LN's share of Post-LN blocks (config.h)
  double dyt_alpha = kDytAlpha;          // DyT's alpha at init (config.h)
  int hc_streams = kHcStreams;           // hyper and mhc: residual streams n (config.h)
  int sinkhorn_iters = kSinkhornIters;   // mhc: Sinkhorn-Knopp iterations (config.h)
  double ngpt_alpha = kNgptAlpha;        // ngpt: alpha at init (config.h)
  int attn_res_blocks = 0;               // attn_res: Block AttnRes's N; 0 is Full (config.h)
  NormChoice norm = NormChoice::automatic;
  BnPads bn_pads = BnPads::mask;
  double bn_momentum = 0.1;  // running = (1 - m) running + m batch
};

// The one table of the train fields, in display order.
const std::vector<FieldSpec>& train_field_specs();
const FieldSpec* find_train_field(std::string_view name);
// Parses `text` into field `name` of `tc`, checking its range.
Status set_train_field(TrainConfig& tc, std::string_view name, std::string_view text);
// A number field from a number already held (the bindings'): NaN, a fraction
// for an integer field or a value out of range is refused by name.
Status set_train_number(TrainConfig& tc, std::string_view name, double value);
// Every field in range, and the combinations: heads divide width, sort and
// copy need vocab >= 2, markov seq >= 2, seq_min at most seq.
Status validate(const TrainConfig& tc);
// "--task reverse --arch post_ln,pre_ln ...": every field as set_train_field()
// reads it back (the saved state's config, the CLI's echo).
std::string train_config_text(const TrainConfig& tc);
// Reads train_config_text()'s form ("--flag value" pairs, flags with '-') into tc.
Status parse_train_config_text(std::string_view text, TrainConfig* tc);
// {"task": "reverse", ...} with the table's field names.
std::string train_config_json(const TrainConfig& tc);

const char* name(Task t);
const char* name(Optimizer o);
const char* name(Schedule s);
const char* name(Positions p);
const char* name(FinalNorm f);
const char* name(NormChoice n);
const char* name(BnPads p);
// norm = batchnorm.
inline bool batchnorm(const TrainConfig& tc) { return tc.norm == NormChoice::batchnorm; }

// The final norm an architecture gets under `auto`: LayerNorm after Pre-LN stacks
// (pre_ln, gpt2, layerscale, lns, dwa, and mix_ln, whose top blocks are
// Pre-LN), RMSNorm after pre_rms and sandwich, DyT after dyt, LayerNorm after hybrid, none after ngpt (its stream is on
// the unit sphere) (HybridNorm's reference code ends in one), none after post-norm stacks (deepnorm, admin, post_ln,
// post_rms: their stream is already a norm's output) and after the norm-free plain, residual and rezero.
NormKind final_norm_of(const TrainConfig& tc, Arch arch);
// The stack's Config for one arch: `tokens` is the rows one forward pass
// carries (a sequence's context, or a teacher batch), causal attention.
Config stack_config(const TrainConfig& tc, Arch arch, int tokens);

}  // namespace resnorm
