// resnorm/tensor.h: the matrix types of the engine, and the sum of squares
// every reported norm is made of.
//
// A (T, d) activation is a row-major matrix, one token per row; weights are
// row-major too, so every kernel reads contiguous rows.
#pragma once

#include <Eigen/Core>

namespace resnorm {

template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class S>
using Vecx = Eigen::Matrix<S, Eigen::Dynamic, 1>;

// sum_i x_i^2 over n entries, in double, in index order.
template <class S>
double sq_norm(const S* x, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += double(x[i]) * double(x[i]);
  return s;
}

}  // namespace resnorm
