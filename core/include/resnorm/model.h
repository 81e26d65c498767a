// resnorm/model.h: one stack of wrapped sublayers, forward and exact backward.
//
// The stack is a composition, not one loop per preset:
//   block      = a list of units: an MLP block has one (the MLP), a transformer
//                block two (attention, then the MLP), every unit of the stack
//                wrapped the same way, each with its own norms
//   unit       = a sublayer f wrapped by a Wrapping (skip path, alpha, where the norms are)
//   sublayer   = Mlp (phi(x W1) W2) or Attention, behind the Sublayer interface
//   BranchScale = the init multipliers of a preset (DeepNet's beta, GPT-2's 1/sqrt(N))
// A unit computes
//   x = Nin(h);  u = Nout(f(x));  s = alpha h + u  (or s = u without skip);  h' = Nouter(s)
// and recipe() says which pieces each preset uses.
//
// Streams and gradients are kept at every unit boundary: stream(k), dstream(k)
// are (T, d) row-major, k = 0..L*P with P units per block; the block boundaries
// are h(l) = stream(l P), l = 0..L (for MLP blocks P = 1 and they are the same).
// Everything is allocated by configure(); forward() and backward() allocate nothing.
#pragma once

#include <memory>
#include <vector>

#include "resnorm/attention.h"
#include "resnorm/config.h"
#include "resnorm/mlp.h"
#include "resnorm/norms.h"
#include "resnorm/recipes.h"
#include "resnorm/results.h"
#include "resnorm/sublayer.h"
#include "resnorm/tensor.h"
#include "resnorm/weights.h"

namespace resnorm {

template <class S>
struct Unit {
  Wrapping wrap;
  Norm<S> in, out, outer;
  std::unique_ptr<Sublayer<S>> f;
  Mat<S> x, y, u, s;  // (T, d) caches: normed input, f output, branch output, sum
  double update_ratio = 0;
  // The branch's output: Nout(f(x)) with a norm on the branch output, f(x) without.
  const S* branch_output() const { return out.kind != NormKind::none ? u.data() : y.data(); }
};

template <class S>
class Model {
 public:
  // Sizes buffers for cfg (reallocating only if a size changed) and wires the
  // units for `arch`, using base weights from `bank` (prepared by the caller
  // for cfg.depth layers, with attention = true for transformer blocks). For
  // Admin it also runs the profiling forward pass that sets each unit's alpha.
  void configure(const Config& cfg, Arch arch, const WeightBank<S>& bank);
  // Loss <r, out> and every cache. Returns the loss.
  double forward();
  // Loss when the stream after block l is replaced by h (T x d): runs blocks l+1..L.
  double forward_from(int l, const S* h);
  // Loss when the stream after unit k (k = 0..units()) is replaced by h.
  double forward_from_unit(int k, const S* h);
  // dh(l) for every l, norm and weight-gradient norms. Requires forward().
  void backward(bool materialize_weight_grads = false);
  // forward() and backward() in steps of one unit, with the same arithmetic:
  // forward() = forward_begin(); forward_step(k) for k = 1..units(); forward_end(),
  // backward() = backward_begin(); backward_step(k) for k = units()..1.
  // Engine runs the models of one config (same shapes and weight bank, one per
  // arch) in lockstep this way, so each unit's weights are read by every arch
  // while still in cache.
  void forward_begin();
  void forward_step(int k);
  double forward_end();  // the loss
  void backward_begin();
  void backward_step(int k, bool materialize_weight_grads = false);
  ArchResult result() const;

  // One term of the path expansion of the backward pass (Veit et al. 2016,
  // "Residual Networks Behave Like Ensembles of Relatively Shallow Networks").
  // A unit's backward is dh_in = J_in^T (alpha I + B)^T J_outer^T dh_out with B
  // the branch Jacobian (Nin, f, Nout) and J_outer that of the norm on the sum
  // (identity without one), so the gradient at h_0 expands over the 2^U
  // subsets of the U = units() units into a sum of "path" terms: at a unit in
  // the subset the gradient goes through the branch only, elsewhere through the
  // skip only (alpha times; a unit without a skip makes the term 0). For an
  // unnormalized residual stack that is the expansion of prod (I + J_i);
  // a pre-norm's Jacobian is part of B, a post-norm's is a factor of both.
  // The sum of the terms over all subsets is exactly dstream(0) of backward()
  // (up to the round-off of adding them).
  //
  // through_branch[k - 1] != 0: unit k is in the subset (size units()).
  // Requires forward() (its caches, all Jacobians are taken at that point);
  // reads and writes nothing of backward()'s: the stream gradients, the
  // weight-gradient norms and the norms' dgamma, dbeta stay as they were.
  // Allocates nothing. Returns ||term||_F; the term itself is path_gradient().
  double backward_path(const std::vector<char>& through_branch);
  const S* path_gradient() const { return pg_[pg_in_].data(); }  // (T, d), of the last backward_path()

  int depth() const { return L_; }
  int units() const { return static_cast<int>(units_.size()); }
  int units_per_block() const { return P_; }
  S* stream(int k) { return H_.data() + static_cast<long>(k) * T_ * d_; }  // after unit k
  S* dstream(int k) { return dH_.data() + static_cast<long>(k) * T_ * d_; }
  S* h(int l) { return stream(l * P_); }  // after block l
  S* dh(int l) { return dstream(l * P_); }
  // Block l's (1-based) unit j: j = 0 the MLP of an MLP block, or in a
  // transformer block j = 0 attention, j = 1 the MLP.
  Unit<S>& unit(int l, int j = 0) { return units_[(l - 1) * P_ + j]; }
  Unit<S>& unit_at(int k) { return units_[k - 1]; }  // unit k of the stack, 1-based
  Mlp<S>& mlp(int l) { return static_cast<Mlp<S>&>(*unit(l, P_ - 1).f); }
  Attention<S>& attention(int l) { return static_cast<Attention<S>&>(*unit(l, 0).f); }  // transformer only
  Norm<S>& final_norm() { return final_; }
  Mat<S>& input() { return h0_; }  // h_0, copied into h(0) by forward()
  Mat<S>& readout_matrix() { return r_; }

 private:
  void forward_unit(Unit<S>& u, S* hout, const S* hin);
  void backward_unit(Unit<S>& u, S* dhin, const S* dhout, const S* hin, bool materialize);
  double loss_from_top();

  Config cfg_;
  Arch arch_ = Arch::plain;
  Block block_ = Block::mlp;
  int L_ = 0, T_ = 0, d_ = 0, m_ = 0, heads_ = 0;
  int P_ = 1;                   // units per block
  std::vector<Unit<S>> units_;  // L * P, block by block
  std::shared_ptr<AttnScratch<S>> attn_scratch_;
  Norm<S> final_;
  Mat<S> h0_, r_;        // (T, d)
  Vecx<S> H_, dH_;       // (L P + 1) * T * d
  Mat<S> out_;           // (T, d) final-norm output
  Mat<S> ds_, dy_, dx_;  // (T, d) backward scratch
  Mat<S> pg_[2];         // (T, d) backward_path(): the path gradient, ping-pong
  int pg_in_ = 0;        // which of pg_ holds the result
};

}  // namespace resnorm
