// resnorm/tensor.h: the matrix types of the engine, and the sum of squares
// every reported norm is made of.
//
// A (T, d) activation is a row-major matrix, one token per row; weights are
// row-major too, so every kernel reads contiguous rows.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <utility>

namespace resnorm {

template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class S>
using Vecx = Eigen::Matrix<S, Eigen::Dynamic, 1>;

// How many times a Workspace has allocated, in the whole process: a test reads
// it before and after a call to see that the call allocated no workspace.
inline std::atomic<long> workspace_allocations{0};

// A buffer whose storage outlives its shape: resize() to a shape of no more
// entries than it has ever held keeps the storage (the contents are then
// undefined, as after Eigen's resize); only a larger shape allocates. So a
// model configured for a smaller width or fewer tokens, then for the larger
// again, allocates nothing. Its entries are the first rows * cols of the
// storage, row-major and contiguous like a Mat of the same shape; map() is
// that shape as an Eigen matrix (Base: Mat<S>, or Vecx<S> for a vector).
// Sizes are ints, so it is no larger than a Mat: the memory budget (limits.h)
// keeps every buffer far below 2^31 entries.
template <class S, class Base = Mat<S>>
class Workspace {
 public:
  using Index = Eigen::Index;
  Workspace() = default;
  Workspace(const Workspace& o) { *this = o; }
  Workspace(Workspace&& o) noexcept { swap(o); }
  Workspace& operator=(const Workspace& o) {
    if (this != &o) {
      resize(o.rows_, o.cols_);
      std::copy(o.data(), o.data() + o.size(), data_);
    }
    return *this;
  }
  Workspace& operator=(Workspace&& o) noexcept {
    swap(o);
    return *this;
  }
  ~Workspace() { release(); }

  void resize(Index rows, Index cols) {
    const Index n = rows * cols;
    if (n > capacity_) {
      release();
      data_ = Alloc().allocate(static_cast<size_t>(n));
      capacity_ = static_cast<int>(n);
      workspace_allocations.fetch_add(1, std::memory_order_relaxed);
    }
    rows_ = static_cast<int>(rows);
    cols_ = static_cast<int>(cols);
  }
  void resize(Index n) { resize(n, 1); }  // a vector of n entries
  Index capacity() const { return capacity_; }

  Index rows() const { return rows_; }
  Index cols() const { return cols_; }
  Index size() const { return Index(rows_) * cols_; }
  S* data() { return data_; }
  const S* data() const { return data_; }
  S& operator()(Index i) { return data_[i]; }
  const S& operator()(Index i) const { return data_[i]; }
  S& operator()(Index r, Index c) { return data_[r * cols_ + c]; }
  const S& operator()(Index r, Index c) const { return data_[r * cols_ + c]; }
  void setZero() { std::fill(data_, data_ + size(), S(0)); }
  void setOnes() { std::fill(data_, data_ + size(), S(1)); }
  Eigen::Map<Base> map() { return {data_, rows(), cols()}; }
  Eigen::Map<const Base> map() const { return {data_, rows(), cols()}; }

 private:
  using Alloc = Eigen::aligned_allocator<S>;  // the alignment Eigen gives a Mat
  void release() {
    if (data_) Alloc().deallocate(data_, static_cast<size_t>(capacity_));
    data_ = nullptr;
    capacity_ = 0;
  }
  void swap(Workspace& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(capacity_, o.capacity_);
    std::swap(rows_, o.rows_);
    std::swap(cols_, o.cols_);
  }
  S* data_ = nullptr;
  int capacity_ = 0, rows_ = 0, cols_ = Base::ColsAtCompileTime == 1 ? 1 : 0;  // an empty vector is (0, 1)
};

template <class S>
using VecWorkspace = Workspace<S, Vecx<S>>;

// sum_i x_i^2 over n entries, in double, in index order.
template <class S>
double sq_norm(const S* x, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += double(x[i]) * double(x[i]);
  return s;
}

}  // namespace resnorm
