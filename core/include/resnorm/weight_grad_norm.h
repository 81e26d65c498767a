// resnorm/weight_grad_norm.h: the Frobenius norm of a weight gradient without
// forming it, shared by the MLP and attention sublayers.
//
// A weight gradient is a product dW = A^T B with A (T, Ka) the layer's input
// and B (T, Kb) the gradient at its output, and
//   ||A^T B||_F^2 = <A A^T, B B^T>
// with two (T, T) Gram matrices: T^2 (Ka + Kb) products instead of T Ka Kb,
// and T is small. The squares in a float Gram overflow (or underflow) long
// before A or B do: whenever that happens with finite inputs, the sum is
// redone in double, so a reported weight-gradient norm is non-finite only if
// the gradient itself is.
#pragma once

#include "resnorm/tensor.h"

namespace resnorm {

template <class S>
struct GramScratch {
  Workspace<S> a, b;          // (T, T): A A^T and B B^T
  VecWorkspace<double> wide;  // T (Ka + Kb) + 2 T^2: the double redo
  // widest: the largest Ka + Kb the scratch will serve.
  void resize(int T, int widest);
};

// ||A^T B||_F^2, forming A A^T into g.a.
template <class S>
double grad_sq(const S* A, int Ka, const S* B, int Kb, int T, GramScratch<S>& g);
// The same with g.a already holding A A^T (attention's W_Q, W_K and W_V share
// their input x, so its Gram matrix is formed once for the three).
template <class S>
double grad_sq_given(const S* A, int Ka, const S* B, int Kb, int T, GramScratch<S>& g);

}  // namespace resnorm
