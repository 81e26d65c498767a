// resnorm/optim.h: the optimizers of training, the learning-rate schedule and
// global-norm gradient clipping.
//
// For every parameter w with gradient g (network.h's Param), step t = 1, 2, ...
// at learning rate lr(t), in double per entry, stored back in the scalar:
//   sgd    v = momentum v + g';  w -= lr v                        g' = g + wd w on matrices (L2)
//   adam   m = b1 m + (1 - b1) g';  v = b2 v + (1 - b2) g'^2;
//          w -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
//   adamw  adam with g' = g, then w -= lr wd w on matrices (decoupled, Loshchilov & Hutter)
// Weight decay touches matrices and embeddings only, never gamma or beta, nor
// nGPT's matrices kept at unit norm (Param::unit).
#pragma once

#include <cstdint>
#include <vector>

#include "resnorm/network.h"
#include "resnorm/tensor.h"
#include "resnorm/train_config.h"

namespace resnorm {

// The learning rate of update t (1-based) of tc.steps: linear warmup
// lr t / W for t <= W, then with p = (t - W - 1) / max(1, steps - W):
// constant lr; linear lr (1 - p); cosine lr (1 + cos(pi p)) / 2;
// inverse_sqrt lr sqrt(max(W, 1) / t).
double learning_rate(const TrainConfig& tc, int64_t t);

// The global gradient norm sqrt(sum of every g^2), in double; with clip > 0
// and the norm above it, every gradient is scaled by clip / norm. Returns the
// norm before clipping.
template <class S>
double clip_gradients(std::vector<Param<S>>& params, double clip);

template <class S>
class Optim {
 public:
  Optim(const TrainConfig& tc, const std::vector<Param<S>>& params);
  // Update t = step() + 1 at learning rate lr from the parameters' gradients.
  void update(std::vector<Param<S>>& params, double lr);
  int64_t step() const { return t_; }
  // The moments (sgd: the velocity in first(); second() empty), for the saved state.
  std::vector<Vecx<S>>& first() { return m_; }
  std::vector<Vecx<S>>& second() { return v_; }
  void set_step(int64_t t) { t_ = t; }

 private:
  Optimizer kind_;
  double momentum_, beta1_, beta2_, eps_, wd_;
  std::vector<Vecx<S>> m_, v_;
  int64_t t_ = 0;
};

}  // namespace resnorm
