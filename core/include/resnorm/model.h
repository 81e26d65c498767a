// resnorm/model.h: one stack of wrapped sublayers, forward and exact backward.
//
// The stack is a composition, not one loop per preset:
//   block     = a list of sublayers_per_block units: an MLP block has one (the
//               MLP), a transformer block two (attention, then the MLP), every
//               unit of the stack wrapped the same way, each with its own norms
//   unit      = a sublayer f wrapped by a Wrapping (skip path, alpha, where the
//               norms are; recipes.h)
//   sublayer  = Mlp (mlp.h) or Attention (attention.h), behind Sublayer (sublayer.h)
// A unit computes, with its caches named as in Unit below,
//   normed_in  = Nin(h)                                        (T, d)
//   branch_raw = f(normed_in), or f(h) without Nin             (T, d)
//   branch     = Nout(branch_raw), or branch_raw without Nout  (T, d)
//   sum        = alpha h + branch, or branch without skip      (T, d)
//   h'         = Nouter(sum), or sum without Nouter            (T, d)
// and recipe() says which pieces each preset uses. The unit's forward caches
// what its backward needs; the backward accumulates (+=) into d loss / d h.
//
// Streams and gradients are kept at every unit boundary: stream(k), dstream(k)
// are (T, d) row-major, k = 0..L P with P = sublayers_per_block(); the block
// boundaries are h(l) = stream(l P), l = 0..L (for MLP blocks P = 1 and they are
// the same). Everything is allocated by configure(); forward() and backward()
// allocate nothing. Every buffer is a Workspace (tensor.h) and the units are
// kept across configs of the same block kind, so the model's capacity is the
// largest tokens, width, hidden width and heads it has been configured with
// and the deepest depth: a depth, width, tokens or heads change within it
// allocates nothing.
//
// The definitions: model.cpp (configure, the unit's forward and backward, the
// step API), results.cpp (result()), paths.cpp (backward_path()).
#pragma once

#include <memory>
#include <vector>

#include "resnorm/attention.h"
#include "resnorm/config.h"
#include "resnorm/limits.h"
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
  Norm<S> in, out, outer;  // on the branch input, on the branch output, on the sum
  std::unique_ptr<Sublayer<S>> f;
  // (T, d) caches of the forward (see the top of this file); normed_in, branch
  // and sum are written only when their norm exists.
  Workspace<S> normed_in, branch_raw, branch, sum;
  double update_ratio = 0;  // ||branch output|| / ||alpha h||; not computed for training
  // What the branch adds to the stream: branch with a norm on the branch
  // output, branch_raw without.
  const S* branch_output() const { return out.kind != NormKind::none ? branch.data() : branch_raw.data(); }
};

template <class S>
class Model {
 public:
  // Sizes buffers for cfg (allocating only past the capacity) and wires the
  // units for `arch`, using base weights from `bank` (prepared by the caller
  // for cfg.depth layers, with attention = true for transformer blocks). For
  // Admin it also runs the profiling forward pass that sets each unit's alpha.
  // train: a stack for training (network.h): sublayers built for training
  // (sublayer.h), no update ratios, and backward() adds (+=) into the norms'
  // dgamma and dbeta instead of zeroing them first, so every parameter
  // gradient sums over backward passes until the caller zeroes it.
  void configure(const Config& cfg, Arch arch, const WeightBank<S>& bank, bool train = false);
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
  // The per-block metrics of the last forward() and backward() (results.h).
  ArchResult result() const;

  // One term of the path expansion of the backward pass (paths.h):
  // through_branch[k - 1] != 0 puts unit k in the term's subset (size
  // units()). Requires forward() (its caches: all Jacobians are taken at that
  // point); reads and writes nothing of backward()'s: the stream gradients,
  // the weight-gradient norms and the norms' dgamma, dbeta stay as they were.
  // Allocates nothing. Returns ||term||_F; the term itself is path_gradient().
  double backward_path(const std::vector<char>& through_branch);
  const S* path_gradient() const { return path_grad_[path_grad_at_].data(); }  // (T, d), of the last backward_path()

  int depth() const { return depth_; }
  int units() const { return n_units_; }
  // Units held, in use or kept from a deeper config of the same block kind.
  int units_held() const { return static_cast<int>(units_.size()); }
  // What the workspaces are sized for after configure(cfg): the capacity
  // held grown to cover cfg, or cfg's own sizes when configure starts afresh
  // (the first config, or another block kind).
  Capacity capacity_after(const Config& cfg) const;
  int sublayers_per_block() const { return sublayers_per_block_; }
  S* stream(int k) { return streams_.data() + static_cast<long>(k) * T_ * d_; }  // after unit k
  S* dstream(int k) { return dstreams_.data() + static_cast<long>(k) * T_ * d_; }
  S* h(int l) { return stream(l * sublayers_per_block_); }  // after block l
  S* dh(int l) { return dstream(l * sublayers_per_block_); }
  // Block l's (1-based) unit j: j = 0 the MLP of an MLP block, or in a
  // transformer block j = 0 attention, j = 1 the MLP.
  Unit<S>& unit(int l, int j = 0) { return units_[(l - 1) * sublayers_per_block_ + j]; }
  Unit<S>& unit_at(int k) { return units_[k - 1]; }  // unit k of the stack, 1-based
  Mlp<S>& mlp(int l) { return static_cast<Mlp<S>&>(*unit(l, sublayers_per_block_ - 1).f); }
  Attention<S>& attention(int l) { return static_cast<Attention<S>&>(*unit(l, 0).f); }  // transformer only
  Norm<S>& final_norm() { return final_; }
  Mat<S>& input() { return input_; }  // h_0, copied into h(0) by forward()
  // out (T, d) of the last forward(): FinalNorm(h_L), or h_L without a final norm.
  const S* output() { return final_.kind != NormKind::none ? final_out_.data() : h(depth_); }
  Mat<S>& readout_matrix() { return readout_; }

 private:
  void forward_unit(Unit<S>& u, S* hout, const S* hin);
  void backward_unit(Unit<S>& u, S* dhin, const S* dhout, const S* hin, bool materialize);
  double loss_from_top();

  Config cfg_;
  Arch arch_ = Arch::plain;
  Block block_ = Block::mlp;
  int depth_ = 0, T_ = 0, d_ = 0, m_ = 0, heads_ = 0;
  int sublayers_per_block_ = 1;
  bool train_ = false;
  std::vector<Unit<S>> units_;  // at least L P, block by block; the first n_units_ are the stack
  int n_units_ = 0;             // L P
  Capacity capacity_;           // what the workspaces are sized for (capacity_after)
  std::shared_ptr<AttnScratch<S>> attn_scratch_;
  Norm<S> final_;
  Mat<S> input_, readout_;     // (T, d): h_0 and r
  VecWorkspace<S> streams_;    // (L P + 1, T, d): stream(k)
  VecWorkspace<S> dstreams_;   // (L P + 1, T, d): dstream(k)
  Workspace<S> final_out_;     // (T, d) the final norm's output
  Workspace<S> dsum_;          // (T, d) backward scratch: d loss / d sum
  Workspace<S> dbranch_raw_;   // (T, d) d loss / d branch_raw, with a norm on the branch output
  Workspace<S> dbranch_in_;    // (T, d) d loss / d the sublayer's input, the branch route's part of dh_in
  Workspace<S> path_grad_[2];  // (T, d) backward_path(): the path gradient, ping-pong
  int path_grad_at_ = 0;       // which of path_grad_ holds the result
};

}  // namespace resnorm
