// resnorm/mlp.h: the MLP sublayer f(x) = phi(x W1) W2, and its activations.
//
// Shapes: x, y (T, d); W1 (d, m), W2 (m, d); the hidden activations (T, m).
// No biases. W1 = s1 B1, W2 = s2 B2 (MlpWeights, weights.h).
// nGPT (ngpt.h): pre = s_v sqrt(d) (x W1) per hidden unit, s_v (m) learned.
#pragma once

#include "resnorm/config.h"
#include "resnorm/sublayer.h"
#include "resnorm/tensor.h"
#include "resnorm/weight_grad_norm.h"
#include "resnorm/weights.h"

namespace resnorm {

// a = phi(p) over n entries. ReLU keeps NaN (a comparison would turn it into 0
// and hide an overflow); GELU is the exact one, x Phi(x). With `cdf`, GELU also
// keeps Phi(p) there, for activation_backward() (n entries; other activations ignore it).
template <class S>
void activation_forward(S* a, const S* p, long n, Activation act, S* cdf = nullptr);
// dp = da * phi'(p), with a = phi(p) from activation_forward() (tanh' = 1 - a^2).
// dp may be da. ReLU's derivative is a product with 0 or 1, not a select, so a
// non-finite gradient or input stays non-finite. GELU's Phi(p) comes from
// `cdf` when given (the forward's), else is computed again: the same bits.
template <class S>
void activation_backward(S* dp, const S* da, const S* p, const S* a, long n, Activation act, const S* cdf = nullptr);

template <class S>
class Mlp final : public Sublayer<S> {
 public:
  // train: built for training (sublayer.h): dW1, dW2 held and added to by
  // every backward, GELU's Phi(pre) kept by the forward, no Gram scratch.
  Mlp(int T, int d, int m, bool train = false);
  // New shapes, in the buffers it has where they are large enough.
  void reshape(int T, int d, int m);
  // pre = s1 x B1;  hidden = phi(pre);  y = s2 hidden B2. Caches pre and hidden.
  void forward(S* y, const S* x) override;
  // backward_input(), then ||dW1||, ||dW2|| by the Gram trick (weight_grad_norm.h),
  // and dW1 = x^T dpre, dW2 = hidden^T dy when materialized. Training: dW1 +=
  // x^T dpre, dW2 += hidden^T dy, and no norms.
  void backward(S* dx, const S* dy, const S* x, bool materialize_weight_grads) override;
  // dhidden = s2 dy B2^T;  dpre = dhidden * phi'(pre);  dx = s1 dpre B1^T. Leaves dpre.
  void backward_input(S* dx, const S* dy, const S* x) override;

  // nGPT's s_v on or off (after reshape()): s_v at 1 and its gradient at 0.
  void set_ngpt(bool on);

  MlpWeights<S> weights;  // set by the model for each config
  Activation activation = Activation::relu;
  Workspace<S> pre, hidden;  // (T, m): x W1 and phi(x W1)
  Workspace<S> dpre;         // (T, m): d loss / d pre
  Workspace<S> cdf;          // (T, m), training only: GELU's Phi(pre)
  GramScratch<S> gram;
  Mat<S> dW1, dW2;  // (d, m), (m, d): only when materialized, or training
  double w1_grad_sq = 0, w2_grad_sq = 0;
  // nGPT: s_v (m) and its gradient (added to in training, set otherwise),
  // and x W1 before the scale (T, m); empty when off.
  VecWorkspace<S> sv, dsv;
  Workspace<S> pre_raw;

 private:
  // dx from dy as backward_input() says; param_grads: dsv += d loss / d s_v.
  void input_grad(S* dx, const S* dy, bool param_grads);
  int T_, d_, m_;
  bool train_;
};

}  // namespace resnorm
