// resnorm/weights.h: the random tensors of a simulation and the bank that keeps
// every layer's base weights.
//
// Everything is generated in double from splitmix64 streams (rng.h), keyed by
// what the tensor may depend on and nothing else, then cast to the engine's
// scalar: the same numbers natively and in WebAssembly.
//   h_0 (T, d)  N(0, 1) entries, key (seed, T, d)
//   r   (T, d)  z / ||z||_F with z N(0, 1), key (seed, T, d)
//   B1 (d, m), B2 (m, d) of layer l, key (seed, l, d, m, init)
//   Bq, Bk, Bv, Bo (d, d) of layer l, key (seed, l, d, init)
// A layer's weights never depend on the depth L: deepening a stack keeps the
// layers it had. The recipe (recipes.h) scales them: W = s B.
#pragma once

#include <cstdint>
#include <vector>

#include "resnorm/config.h"
#include "resnorm/tensor.h"

namespace resnorm {

// rows x cols, i.i.d. N(0, 1), row by row.
Mat<double> gaussian_matrix(uint64_t key, int rows, int cols);
// (Semi-)orthogonal: Q of the QR of a gaussian matrix, signs fixed by R's
// diagonal, scaled to the gaussian's expected Frobenius norm (||W||_F^2 = rows cols).
Mat<double> orthogonal_matrix(uint64_t key, int rows, int cols);
Mat<double> input_stream(uint32_t seed, int T, int d);  // h_0
Mat<double> readout(uint32_t seed, int T, int d);       // r, ||r||_F = 1

// Base weights of one MLP sublayer, independent of gain, arch and depth:
// gaussian entries N(0, 1), or orthogonal with the same Frobenius norm.
// W1 = s1 B1, W2 = s2 B2.
template <class S>
struct MlpBase {
  Mat<S> B1;  // (d, m)
  Mat<S> B2;  // (m, d)
};

// Base weights of one attention sublayer: four (d, d) matrices, gaussian
// N(0, 1) or orthogonal with the same Frobenius norm (||B||_F^2 = d^2),
// W_Q = sq Bq, W_K = sk Bk, W_V = sv Bv, W_O = so Bo. Not keyed by heads
// (heads split the columns of the same matrices, so the heads slider
// regenerates nothing) nor by m. A transformer block l uses the same MlpBase
// as MLP block l.
template <class S>
struct AttnBase {
  Mat<S> Bq, Bk, Bv, Bo;  // (d, d)
};

// What a sublayer multiplies by: its base matrices in the bank and the
// scales of the recipe (recipes.h), W = s B.
template <class S>
struct MlpWeights {
  const MlpBase<S>* base = nullptr;
  S s1 = 1, s2 = 1;  // W1 = s1 B1, W2 = s2 B2
};
template <class S>
struct AttnWeights {
  const AttnBase<S>* base = nullptr;
  S sq = 1, sk = 1, sv = 1, so = 1;  // W_Q = sq Bq, ..., W_O = so Bo
};

// Base weights per layer for one (seed, d, m, init), generated once and grown
// as depth grows, so gain, arch and depth changes reuse them.
template <class S>
class WeightBank {
 public:
  // Makes layers 1..depth available (attention weights too if `attention`);
  // regenerates all of a kind if its key changed.
  void prepare(uint32_t seed, int d, int m, Init init, int depth, bool attention = false);
  // Frees the layers after `depth` (they are generated again if asked for).
  void trim(int depth);
  int layers_held() const { return static_cast<int>(layers_.size()); }
  const MlpBase<S>& layer(int l) const { return layers_[l - 1]; }
  MlpBase<S>& mutable_layer(int l) { return layers_[l - 1]; }  // for tests
  const AttnBase<S>& attention_layer(int l) const { return attn_[l - 1]; }
  AttnBase<S>& mutable_attention_layer(int l) { return attn_[l - 1]; }  // for tests

 private:
  uint32_t seed_ = 0;
  int d_ = 0, m_ = 0;
  Init init_ = Init::gaussian;
  std::vector<MlpBase<S>> layers_;
  uint32_t attn_seed_ = 0;  // the attention weights' own key: (seed, d, init)
  int attn_d_ = 0;
  Init attn_init_ = Init::gaussian;
  std::vector<AttnBase<S>> attn_;
};

}  // namespace resnorm
