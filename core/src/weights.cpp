// The random tensors of a simulation and the weight bank (see weights.h).
#include "resnorm/weights.h"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>

#include "resnorm/rng.h"

namespace resnorm {

Mat<double> gaussian_matrix(uint64_t key, int rows, int cols) {
  NormalRng rng(key);
  Mat<double> m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = rng.normal();
  return m;
}

Mat<double> orthogonal_matrix(uint64_t key, int rows, int cols) {
  const int big = std::max(rows, cols), small = std::min(rows, cols);
  Eigen::MatrixXd g = gaussian_matrix(key, big, small);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(big, small);  // (big, small)
  // Sign convention of R's diagonal, so Q is unique for a given G.
  for (int j = 0; j < small; ++j)
    if (qr.matrixQR()(j, j) < 0) q.col(j) = -q.col(j);
  const double scale = std::sqrt(double(rows) * cols / small);
  Mat<double> w(rows, cols);
  if (rows >= cols)
    w = scale * q;
  else
    w = scale * q.transpose();
  return w;
}

Mat<double> input_stream(uint32_t seed, int T, int d) {
  return gaussian_matrix(stream_key({seed, uint64_t(Stream::input), uint64_t(T), uint64_t(d)}), T, d);
}

Mat<double> readout(uint32_t seed, int T, int d) {
  Mat<double> z = gaussian_matrix(stream_key({seed, uint64_t(Stream::readout), uint64_t(T), uint64_t(d)}), T, d);
  return z / z.norm();
}

template <class S>
void WeightBank<S>::prepare(uint32_t seed, int d, int m, Init init, int depth, bool attention) {
  if (seed != seed_ || d != d_ || m != m_ || init != init_) {
    layers_.clear();
    seed_ = seed;
    d_ = d;
    m_ = m;
    init_ = init;
  }
  while (static_cast<int>(layers_.size()) < depth) {
    const uint64_t l = layers_.size() + 1;
    const uint64_t k1 = stream_key({seed, uint64_t(Stream::w1), l, uint64_t(d), uint64_t(m), uint64_t(init)});
    const uint64_t k2 = stream_key({seed, uint64_t(Stream::w2), l, uint64_t(d), uint64_t(m), uint64_t(init)});
    MlpBase<S> b;
    if (init == Init::gaussian) {
      b.B1 = gaussian_matrix(k1, d, m).cast<S>();
      b.B2 = gaussian_matrix(k2, m, d).cast<S>();
    } else {
      b.B1 = orthogonal_matrix(k1, d, m).cast<S>();
      b.B2 = orthogonal_matrix(k2, m, d).cast<S>();
    }
    layers_.push_back(std::move(b));
  }
  if (!attention) return;
  if (seed != attn_seed_ || d != attn_d_ || init != attn_init_) {
    attn_.clear();
    attn_seed_ = seed;
    attn_d_ = d;
    attn_init_ = init;
  }
  while (static_cast<int>(attn_.size()) < depth) {
    const uint64_t l = attn_.size() + 1;
    auto make = [&](Stream tag) {
      const uint64_t key = stream_key({seed, uint64_t(tag), l, uint64_t(d), uint64_t(init)});
      return Mat<S>((init == Init::gaussian ? gaussian_matrix(key, d, d) : orthogonal_matrix(key, d, d)).cast<S>());
    };
    AttnBase<S> b;
    b.Bq = make(Stream::wq);
    b.Bk = make(Stream::wk);
    b.Bv = make(Stream::wv);
    b.Bo = make(Stream::wo);
    attn_.push_back(std::move(b));
  }
}

template <class S>
void WeightBank<S>::trim(int depth) {
  if (static_cast<int>(layers_.size()) > depth) {
    layers_.resize(depth);
    layers_.shrink_to_fit();
  }
  if (static_cast<int>(attn_.size()) > depth) {
    attn_.resize(depth);
    attn_.shrink_to_fit();
  }
}

template class WeightBank<float>;
template class WeightBank<double>;

}  // namespace resnorm
