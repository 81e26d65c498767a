// resnorm/normlab.h: the norms on their own, for the norm panel.
//
// One token through LayerNorm or RMSNorm (with the statistics shown), and
// BatchNorm against LayerNorm on a batch of padded sequences: which axis each
// normalizes over, and what padding and batch size do to a token's output.
// Same forward code as the engine (norms.h), in double.
#pragma once

#include <string_view>
#include <vector>

#include "resnorm/config.h"

namespace resnorm {

// The ranges of the norm panel's inputs.
inline constexpr int kMaxTokenFeatures = 4096;
inline constexpr int kMaxBatch = 64, kMaxLength = 256, kMaxNormWidth = 512;

struct TokenNorm {
  std::vector<double> y;  // (d)
  double mean = 0;        // LayerNorm: mean over features; RMSNorm: 0 (no centering)
  double var = 0;         // LayerNorm: variance; RMSNorm: mean square
  double rstd = 0;        // 1 / sqrt(var + eps)
};

// x, gamma, beta: (d), d >= 1. kind: layernorm or rmsnorm (beta unused there).
// Entries so large that the statistics overflow a double are refused (field x).
Status norm_token(NormKind kind, const std::vector<double>& x, const std::vector<double>& gamma,
                  const std::vector<double>& beta, TokenNorm* out);

// A batch of B sequences padded to length T, d features: x is (B, T, d)
// row-major, lengths[b] in 0..T real tokens (the rest is padding, whatever
// its values). BatchNorm (training mode) normalizes each feature over the
// batch and time positions it counts: the real tokens, or every position
// when count_padding (what a naive implementation over the padded tensor
// does). LayerNorm normalizes each token over its own d features. Values
// whose statistics overflow a double are refused (field x).
struct BatchNormResult {
  std::vector<double> batchnorm;  // (B, T, d)
  std::vector<double> layernorm;  // (B, T, d)
  std::vector<double> mean, var;  // (d) BatchNorm's per-feature statistics
};
Status batch_vs_layer_norm(const std::vector<double>& x, int B, int T, int d, const std::vector<int>& lengths,
                           bool count_padding, BatchNormResult* out);

// The same from what JS holds (the bindings): the kind by name; the sizes and
// lengths as doubles, refused by name unless whole and in range.
Status norm_token(std::string_view kind, const std::vector<double>& x, const std::vector<double>& gamma,
                  const std::vector<double>& beta, TokenNorm* out);
Status batch_vs_layer_norm(const std::vector<double>& x, double B, double T, double d,
                           const std::vector<double>& lengths, bool count_padding, BatchNormResult* out);

}  // namespace resnorm
