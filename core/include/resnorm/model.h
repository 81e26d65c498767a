// resnorm/model.h: one stack of wrapped sublayers, forward and exact backward.
//
// The stack is a composition, not one loop per preset:
//   block      = a list of units (an MLP block has one; a transformer block will have two)
//   unit       = a sublayer f wrapped by a Wrapping (skip path, alpha, where the norms are)
//   sublayer   = Mlp (phi(x W1) W2), later attention, behind the Sublayer interface
//   BranchScale = the init multipliers of a preset (DeepNet's beta, GPT-2's 1/sqrt(N))
// A unit computes
//   x = Nin(h);  u = Nout(f(x));  s = alpha h + u  (or s = u without skip);  h' = Nouter(s)
// and recipe() says which pieces each preset uses.
//
// Streams and gradients are kept for every layer: h(l), dh(l) are (T, d)
// row-major, l = 0..L. Everything is allocated by configure(); forward() and
// backward() allocate nothing.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "resnorm/config.h"

namespace resnorm {

template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class S>
using Vecx = Eigen::Matrix<S, Eigen::Dynamic, 1>;

struct Wrapping {
  bool skip = true;       // identity path present
  double alpha = 1.0;     // skip scale (DeepNet)
  NormKind in = NormKind::none;     // on the branch input
  NormKind out = NormKind::none;    // on the branch output
  NormKind outer = NormKind::none;  // on the sum
};
struct BranchScale {
  double w1 = 1.0, w2 = 1.0;  // multiply W1, W2 at init, on top of fan-in and gain
};
struct Recipe {
  Wrapping wrap;
  BranchScale scale;
};
// num_sublayers: N, the residual sublayers in the stack (L for MLP blocks).
Recipe recipe(Arch arch, int num_sublayers);

// Base weights of one MLP sublayer, independent of gain, arch and depth:
// gaussian entries N(0, 1), or (semi-)orthogonal scaled to the same expected
// Frobenius norm (||B||_F^2 = rows * cols). W1 = s1 B1, W2 = s2 B2.
template <class S>
struct MlpBase {
  Mat<S> B1;  // (d, m)
  Mat<S> B2;  // (m, d)
};

// Base weights per layer for one (seed, d, m, init), generated once and grown
// as depth grows, so gain, arch and depth changes reuse them.
template <class S>
class WeightBank {
 public:
  // Makes layers 1..depth available; regenerates all if the key changed.
  void prepare(uint32_t seed, int d, int m, Init init, int depth);
  const MlpBase<S>& layer(int l) const { return layers_[l - 1]; }
  MlpBase<S>& mutable_layer(int l) { return layers_[l - 1]; }  // for tests

 private:
  uint32_t seed_ = 0;
  int d_ = 0, m_ = 0;
  Init init_ = Init::gaussian;
  std::vector<MlpBase<S>> layers_;
};

// Deterministic tensors of spec v1, generated in double.
Mat<double> gaussian_matrix(uint64_t key, int rows, int cols);
Mat<double> orthogonal_matrix(uint64_t key, int rows, int cols);  // scaled, see MlpBase
Mat<double> input_stream(uint32_t seed, int T, int d);            // h_0
Mat<double> readout(uint32_t seed, int T, int d);                 // r, ||r||_F = 1

// One norm instance: its parameters, gradients and forward cache.
template <class S>
struct Norm {
  NormKind kind = NormKind::none;
  Vecx<S> gamma, beta, dgamma, dbeta;  // (d); beta unused by RMSNorm
  Vecx<S> mean, rstd;                  // (T)
  void resize(NormKind k, int T, int d);
  void forward(S* y, const S* x, int T, int d);
  void backward(S* dx, const S* dy, const S* x, int T, int d);  // dx +=
  void zero_grad();
};

// A sublayer f: (T, d) -> (T, d).
template <class S>
class Sublayer {
 public:
  virtual ~Sublayer() = default;
  virtual void forward(S* y, const S* x) = 0;
  // dx = df/dx^T dy (overwrites dx); also fills the weight-gradient norms.
  virtual void backward(S* dx, const S* dy, const S* x, bool materialize_weight_grads) = 0;
};

template <class S>
class Mlp final : public Sublayer<S> {
 public:
  Mlp(int T, int d, int m);
  void set_weights(const MlpBase<S>* base, S s1, S s2, Activation act);
  void forward(S* y, const S* x) override;
  void backward(S* dx, const S* dy, const S* x, bool materialize_weight_grads) override;

  const MlpBase<S>* base = nullptr;
  S s1 = 1, s2 = 1;                  // W1 = s1 B1, W2 = s2 B2
  Activation act = Activation::relu;
  Mat<S> p, a;                       // (T, m) pre-activation, activation
  Mat<S> dp;                         // (T, m)
  Mat<S> gram_in, gram_out;          // (T, T) scratch for ||dW||
  Mat<S> dW1, dW2;                   // only when materialized
  double w1_grad_sq = 0, w2_grad_sq = 0;

 private:
  int T_, d_, m_;
};

template <class S>
struct Unit {
  Wrapping wrap;
  Norm<S> in, out, outer;
  std::unique_ptr<Sublayer<S>> f;
  Mat<S> x, y, u, s;  // (T, d) caches: normed input, f output, branch output, sum
  double update_ratio = 0;
};

struct ArchResult {
  Arch arch = Arch::plain;
  std::vector<double> grad_norm;     // L+1: ||dloss/dh_l||_F, l = 0..L
  std::vector<double> stream_rms;    // L+1: ||h_l||_F / sqrt(T d)
  std::vector<double> update_ratio;  // L: entry l-1 is block l, ||u_l|| / ||alpha h_{l-1}||
  std::vector<double> w1_grad_norm;  // L: entry l-1 is block l
  std::vector<double> w2_grad_norm;  // L
  int first_nonfinite = -1;          // smallest layer index with a non-finite value; -1 if none
};

template <class S>
class Model {
 public:
  // Sizes buffers for cfg (reallocating only if a size changed) and wires the
  // units for `arch`, using base weights from `bank` (prepared by the caller).
  void configure(const Config& cfg, Arch arch, const WeightBank<S>& bank);
  // Loss <r, out> and every cache. Returns the loss.
  double forward();
  // Loss when the stream after block l is replaced by h (T x d): runs blocks l+1..L.
  double forward_from(int l, const S* h);
  // dh(l) for every l, norm and weight-gradient norms. Requires forward().
  void backward(bool materialize_weight_grads = false);
  ArchResult result() const;

  int depth() const { return L_; }
  int units() const { return static_cast<int>(units_.size()); }
  S* h(int l) { return H_.data() + static_cast<long>(l) * T_ * d_; }
  S* dh(int l) { return dH_.data() + static_cast<long>(l) * T_ * d_; }
  Unit<S>& unit(int l) { return units_[l - 1]; }  // block l's unit, 1-based
  Mlp<S>& mlp(int l) { return static_cast<Mlp<S>&>(*units_[l - 1].f); }
  Norm<S>& final_norm() { return final_; }
  Mat<S>& input() { return h0_; }  // h_0, copied into h(0) by forward()
  Mat<S>& readout_matrix() { return r_; }

 private:
  void forward_unit(Unit<S>& u, S* hout, const S* hin);
  void backward_unit(Unit<S>& u, S* dhin, const S* dhout, const S* hin, bool materialize);
  double loss_from_top();

  Config cfg_;
  Arch arch_ = Arch::plain;
  int L_ = 0, T_ = 0, d_ = 0, m_ = 0;
  std::vector<Unit<S>> units_;
  Norm<S> final_;
  Mat<S> h0_, r_;        // (T, d)
  Vecx<S> H_, dH_;       // (L+1) * T * d
  Mat<S> out_;           // (T, d) final-norm output
  Mat<S> ds_, dy_, dx_;  // (T, d) backward scratch
};

}  // namespace resnorm
