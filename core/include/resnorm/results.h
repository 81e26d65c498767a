// resnorm/results.h: what a simulation reports, per layer, and how it is written.
//
// Model::result() (results.cpp) reads the metrics off a model after forward()
// and backward(): norms of the stream and of its gradient at every block
// boundary, each block's relative update and weight-gradient norms, and the
// first layer where anything overflows. Overflow is one rule for every array
// (see apply_overflow_rule in results.cpp): a value not finite or beyond the
// float type's range, and every value that depends on one, is +Infinity.
// results_json() and results_table() write them for the CLI and the tests;
// the bindings read the arrays by name (named_arrays()).
#pragma once

#include <string>
#include <vector>

#include "resnorm/config.h"
#include "resnorm/json.h"

namespace resnorm {

// Per-block results; every array is indexed by block (h_l at block boundaries).
struct ArchResult {
  Arch arch = Arch::plain;
  std::vector<double> grad_norm;   // L+1: ||dloss/dh_l||_F, l = 0..L
  std::vector<double> stream_rms;  // L+1: ||h_l||_F / sqrt(T d)
  // L: entry l-1 is block l. MLP blocks: ||u_l|| / ||alpha h_{l-1}||. Transformer
  // blocks: sqrt(r_attn^2 + r_mlp^2), the root-sum-square of the two units'
  // ratios r = ||u|| / ||alpha h_in|| (each unit's own input stream and alpha).
  // It is the block's combined relative update ||u_attn + u_mlp|| / ||h_{l-1}||
  // of a pre-norm block when the updates are orthogonal and small against the
  // stream, and it stays defined where that one is not (a norm on the sum
  // between the two units, Admin's per-unit alpha).
  std::vector<double> update_ratio;
  std::vector<double> w1_grad_norm;  // L: entry l-1 is block l (the block's MLP)
  std::vector<double> w2_grad_norm;  // L
  // Transformer blocks only; empty for MLP blocks. Entry l-1 is block l.
  std::vector<double> attn_update_ratio;  // L: r_attn, the attention unit's ||u|| / ||alpha h_in||
  std::vector<double> mlp_update_ratio;   // L: r_mlp, the MLP unit's
  // ||d loss / d W_Q||_F. Where the tokens collapse to one (pure attention
  // without skips, Dong et al. 2021) W_Q and W_K stop mattering and their
  // gradients fall to the float32 round-off of the simulation (~1e-9 where
  // double gives ~1e-17); values that small are that floor, not a signal.
  std::vector<double> wq_grad_norm;  // L
  std::vector<double> wk_grad_norm;  // L
  std::vector<double> wv_grad_norm;  // L
  std::vector<double> wo_grad_norm;  // L
  int first_nonfinite = -1;          // smallest layer index with an overflowed value; -1 if none
};

struct Results {
  Config config;
  std::vector<ArchResult> archs;  // in the order of config.archs
};

// Every per-layer array of r with its key, in the order results_json() writes
// them; the transformer-only ones (attn_update_ratio ... wo_grad_norm) only
// when non-empty, so an MLP stack's result has none of them.
std::vector<NamedArray> named_arrays(const ArchResult& r);
// JSON of the CLI and the tests: {"config": {...}, "results": {"<arch>": {...,
// "first_nonfinite": ...}}}, non-finite numbers as null.
std::string results_json(const Results& res);
// The CLI's table: the config on one line, gradient and stream norm per layer
// for every arch (every layer up to 24 blocks, then every ceil(L / 24)-th and
// the top), and one summary line per arch.
std::string results_table(const Results& res);

}  // namespace resnorm
