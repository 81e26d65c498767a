// resnorm/model.h: one stack of wrapped sublayers, forward and exact backward.
//
// The stack is a composition, not one loop per architecture:
//   block     = a list of sublayers_per_block units: an MLP block has one (the
//               MLP), a transformer block two (attention, then the MLP), every
//               unit of the stack wrapped the same way, each with its own norms
//   unit      = a sublayer f wrapped by a Wrapping (skip path, alpha, where the
//               norms are; recipes.h)
//   sublayer  = Mlp (mlp.h) or Attention (attention.h), behind Sublayer (sublayer.h)
// A unit computes, with its caches named as in Unit below,
//   normed_in  = c Nin(h)                                      (T, d)
//   branch_raw = f(normed_in), or f(h) without Nin             (T, d)
//   branch     = Nout(branch_raw), or branch_raw without Nout  (T, d)
//   gated      = gate * branch (the gate broadcast over rows)  (T, d)
//   sum        = alpha h + u, or u without skip                (T, d)
//                (alpha normed_in + u when the skip reads the normed input)
//   h'         = Nouter(sum), or sum without Nouter            (T, d)
// with c the wrapping's in_scale, u = gated with a gate and branch without,
// and recipe() says which pieces each architecture uses. The unit's forward caches
// what its backward needs; the backward accumulates (+=) into d loss / d h.
//
// Dense averaging (DenseFormer's DWA, recipes.h): with it the stream after
// block l is not the block's output y_l but x_l = sum_{j=0..l} w_{l,j} y_j
// with y_0 = h_0: block l reads x_{l-1} and writes y_l (the last unit's
// output, kept in y(l)), then x_l goes to h(l). The weights w_{l,j}, l = 1..L,
// j = 0..l (L (L + 3) / 2 of them, mix_row(l)) are 1 for j = l and 0 otherwise
// at init, so the stack is then exactly the Pre-LN one (a term whose weight is
// exactly 0 is skipped, so even a non-finite y_j does not reach x_l through a
// 0). Backward: dx_l is complete once block l + 1's backward has run; then
// dw_{l,j} = <y_j, dx_l> and dy_j += w_{l,j} dx_l for j <= l, and dy_l is
// complete, so block l's backward starts from it; dh_0 = dx_0 + dy_0.
//
// Hyper-Connections and mHC (hyper.h): n streams around every unit, held by
// hyper(); each unit runs without a skip on what it reads from them, and
// stream(k), dstream(k) hold the streams' mean and the sum of their gradients
// (hyper.h says why), so every per-layer metric reads those.
//
// Attention Residuals (attn_res.h): unit k writes its output v_k (its branch,
// no skip) into attn_res().v(k), and stream(k) = h_k, the softmax-weighted
// sum of v_0 = h_0, v_1..v_k, which unit k + 1 reads and the final norm reads
// at k = K. Backward: dstream(k) is complete once unit k + 1's backward has
// run; op k's backward adds to dv_0..dv_k, and then dv_k is complete, so unit
// k's backward starts from it; dh_0 = dstream(0) + dv_0.
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
#include "resnorm/attn_res.h"
#include "resnorm/config.h"
#include "resnorm/hyper.h"
#include "resnorm/limits.h"
#include "resnorm/mlp.h"
#include "resnorm/ngpt.h"
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
  Workspace<S> normed_in, branch_raw, branch, sum, gated;
  // The gate's entries (1 for a scalar gate, d for a channel gate, none
  // without) and d loss / d gate, which backward() adds to like dgamma.
  VecWorkspace<S> gate, dgate;
  double update_ratio = 0;  // ||branch output|| / ||alpha h||; not computed for training
  // The branch before the gate: branch with a norm on the branch output, branch_raw without.
  const S* ungated_output() const { return out.kind != NormKind::none ? branch.data() : branch_raw.data(); }
  // What the branch adds to the stream: gated with a gate (or nGPT's alpha (b - a)), ungated_output() without.
  const S* branch_output() const { return wrap.gate != Gate::none || wrap.sphere ? gated.data() : ungated_output(); }
  // The gate's forward into `gated`, and its backward: db = gate * dgated,
  // and with `grads` dgate += d loss / d gate (model.cpp).
  void gate_forward(int T, int d);
  void gate_backward(S* db, const S* dgated, int T, int d, bool grads);
  // What the skip carries from the unit's input h (T, d): normed_in when
  // wrap.skip_normed (HybridNorm's FFN) or wrap.sphere (nGPT's Norm(h)), h otherwise.
  const S* skip_input(const S* h) const { return wrap.skip_normed || wrap.sphere ? normed_in.data() : h; }
  // dx (n) *= in_scale: from d loss / d normed_in to d loss / d Nin's output.
  void scale_in_gradient(S* dx, long n) const;
  // nGPT's sphere wrapping (ngpt.h): the stored alpha_s (d) and d loss / d
  // alpha_s (added to like dgate); alpha = |alpha_s| alpha_factor; the row
  // norms of h, f(a) and the sum (T each). Empty for other wrappings.
  VecWorkspace<S> alpha, dalpha, r_in, r_branch, r_sum;
  double alpha_factor = 0;
  S step(int i) const { return S(std::abs(double(alpha(i))) * alpha_factor); }
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
  // segment (training): the T rows are segments of that many rows, one
  // sequence each, attention within each (attention.h); 0: one sequence.
  void configure(const Config& cfg, Arch arch, const WeightBank<S>& bank, bool train = false, int segment = 0);
  // Every norm of the units that exists becomes BatchNorm (norms.h), with
  // gamma = 1, beta = 0 and running statistics at their init (training only;
  // the final norm is the config's, which training makes BatchNorm itself);
  // Admin's omegas are profiled again through them.
  void use_batchnorm();
  // The pass's layout, read by every attention sublayer and norm (sublayer.h):
  // the training network sets it before a pass; a simulation leaves it empty.
  PassRows& rows() { return *rows_; }
  // Loss <r, out> and every cache. Returns the loss.
  double forward();
  // Loss when the stream after block l is replaced by h (T x d): runs blocks l+1..L.
  double forward_from(int l, const S* h);
  // Loss when the stream after unit k (k = 0..units()) is replaced by h.
  // With n streams (hyper.h): at k = 0 every stream is h; above, every stream
  // moves by h - their mean, so dstream(k) is this loss's gradient in h.
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
  // forward_step(k) with unit k replaced by the identity (its output = its
  // input; with dense averaging the block's y is then its input stream, and
  // the average is taken as ever). The lesion study's step.
  void skip_step(int k);
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
  int d() const { return d_; }
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
  // Dense averaging (see the top of this file); false, and the rest empty, for other architectures.
  bool dense() const { return dense_; }
  S* y(int j) { return ys_.data() + static_cast<long>(j) * T_ * d_; }  // (T, d), j = 0..L
  S* mix_row(int l) { return mix_.data() + mix_offset(l); }            // (l + 1): w_{l,0..l}
  S* dmix_row(int l) { return dmix_.data() + mix_offset(l); }          // d loss / d w_{l,0..l}
  long mix_size() const { return mix_.size(); }                        // L (L + 3) / 2
  // Row-major (L, L + 1): entry (l - 1, j) = w_{l,j} for j <= l, 0 above. Empty without dense averaging.
  std::vector<double> mix_matrix() const;
  // Hyper-Connections and mHC (hyper.h); kind() none for other architectures.
  Hyper<S>& hyper() { return hyper_; }
  bool hyper_on() const { return hyper_.kind() != HyperKind::none; }
  // Attention Residuals (see the top of this file); has_attn_res() false and
  // attn_res() empty for other architectures.
  bool has_attn_res() const { return attn_res_on_; }
  AttnRes<S>& attn_res() { return attn_res_; }

 private:
  void forward_unit(Unit<S>& u, S* hout, const S* hin);
  void backward_unit(Unit<S>& u, S* dhin, const S* dhout, const S* hin, bool materialize);
  // nGPT's unit (ngpt.cpp): forward_unit() and backward_unit() of a sphere
  // wrapping, and one route of its backward for backward_path().
  void forward_sphere(Unit<S>& u, S* hout, const S* hin);
  void backward_sphere(Unit<S>& u, S* dhin, const S* dhout, const S* hin, bool materialize);
  void path_sphere(Unit<S>& u, S* next, const S* g, const S* hin, bool through_branch);
  double loss_from_top();
  // Block l's average x_l = sum_j w_{l,j} y_j into h(l).
  void mix_forward(int l);
  // dw_{l,j} += <y_j, dx_l>, dy_j += w_{l,j} dx_l for j = 0..l.
  void mix_backward(int l);
  // Where unit k writes: y(l) for the last unit of block l with dense averaging,
  // v_k with Attention Residuals, else stream(k).
  S* unit_output(int k);
  // After unit k's output is written: dense averaging's x_l at a block's end,
  // or Attention Residuals' h_k.
  void after_unit(int k);
  static long mix_offset(int l) { return static_cast<long>(l - 1) * (l + 2) / 2; }

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
  std::shared_ptr<PassRows> rows_ = std::make_shared<PassRows>();
  Norm<S> final_;
  Mat<S> input_, readout_;      // (T, d): h_0 and r
  VecWorkspace<S> streams_;     // (L P + 1, T, d): stream(k)
  VecWorkspace<S> dstreams_;    // (L P + 1, T, d): dstream(k)
  Workspace<S> final_out_;      // (T, d) the final norm's output
  Workspace<S> dsum_;           // (T, d) backward scratch: d loss / d sum
  Workspace<S> dbranch_raw_;    // (T, d) d loss / d branch_raw, with a norm on the branch output
  Workspace<S> dbranch_in_;     // (T, d) d loss / d the sublayer's input, the branch route's part of dh_in
  Workspace<S> dungated_;       // (T, d) d loss / d the branch before its gate
  bool dense_ = false;          // dense averaging (DenseFormer)
  VecWorkspace<S> ys_, dys_;    // (L + 1, T, d): y(j) and d loss / d y(j), dense averaging only
  VecWorkspace<S> mix_, dmix_;  // (L (L + 3) / 2): w_{l,j} row by row, and their gradients
  Hyper<S> hyper_;              // the n streams of hyper and mhc
  bool attn_res_on_ = false;    // Attention Residuals
  AttnRes<S> attn_res_;         // its sources, weights and queries
  Workspace<S> path_grad_[2];   // (T, d) backward_path(): the path gradient, ping-pong
  int path_grad_at_ = 0;        // which of path_grad_ holds the result
};

}  // namespace resnorm
