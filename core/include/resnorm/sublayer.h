// resnorm/sublayer.h: what the stack asks of a sublayer f: (T, d) -> (T, d).
//
// Mlp (mlp.h) and Attention (attention.h) implement it; a unit of the stack
// (model.h) wraps one. forward() caches what backward needs, so backward()
// takes only the gradient at the output and the input x the forward saw.
// A sublayer built for training (its constructor's `train`) holds its weight
// gradients dW and adds each backward's x^T dy to them (+=), so the passes of
// a batch sum into one gradient (the caller zeroes dW before a batch); it
// computes no weight-gradient norms and has no scratch for them.
#pragma once

#include <cstdint>
#include <vector>

namespace resnorm {

// Which statistics BatchNorm uses in a pass: the batch's (train; train_update
// also moves the running statistics toward them), the running ones (eval), or
// each segment's (one sequence's) own alone (sequence; forward only: the
// held-out one-sequence loss).
enum class BnMode : uint8_t { train, train_update, eval, sequence };

// How the rows of one training pass are laid out, shared by every attention
// sublayer and norm of a model (Model::rows()) and set by the network before
// each pass. The rows are segments of `segment` rows, one sequence each:
// attention stays within a segment and attends only to its first keys[g]
// rows (the sequence's own tokens; the pads after them are masked as keys).
// BatchNorm's statistics are over the rows with counted[r] != 0. Empty
// vectors: every key, every row; segment 0: all rows are one segment.
struct PassRows {
  int segment = 0;
  std::vector<int> keys;         // per segment
  std::vector<uint8_t> counted;  // per row
  BnMode mode = BnMode::train;
  double momentum = 0.1;  // BatchNorm's running statistics, in train_update
};

template <class S>
class Sublayer {
 public:
  virtual ~Sublayer() = default;
  // y = f(x), x and y (T, d).
  virtual void forward(S* y, const S* x) = 0;
  // dx = df/dx^T dy (writes dx, which the caller then adds where it belongs);
  // also fills the sublayer's weight-gradient norms, and materializes the
  // weight gradients themselves when asked (for the tests). Training: dx, and
  // dW += the weight gradients, whatever materialize_weight_grads says.
  virtual void backward(S* dx, const S* dy, const S* x, bool materialize_weight_grads) = 0;
  // The same dx, with the same arithmetic, and nothing else: no weight-gradient
  // norms, no materialized gradients (what backward() stored stays as it was).
  // For Model::backward_path(), which runs it many times per forward pass.
  virtual void backward_input(S* dx, const S* dy, const S* x) = 0;
};

}  // namespace resnorm
