// resnorm/attention.h: the multi-head self-attention sublayer, and its softmax.
//
// Shapes: x, y (T, d); W_Q, W_K, W_V, W_O (d, d); per head (T, dh) blocks,
// dh = d / heads, and (T, T) scores and probabilities.
// W_Q = sq Bq, ..., W_O = so Bo (AttnWeights, weights.h).
#pragma once

#include <algorithm>
#include <limits>
#include <memory>

#include "resnorm/config.h"
#include "resnorm/sublayer.h"
#include "resnorm/tensor.h"
#include "resnorm/weight_grad_norm.h"
#include "resnorm/weights.h"

namespace resnorm {

// Row-wise softmax of the (T, T) scores P, in place: row i over j < T, or over
// j <= i when causal (the masked entries become exactly 0). The exponential is
// computed in double from + - * and an exact power of two only, so the
// probabilities are the same bits natively and in WebAssembly. train (float):
// with lanes.h's float exp instead, four at a time (the same bits natively
// and in WebAssembly too). keys in 1..T-1: only j < keys are attended (the
// later keys are a padded sequence's pads); 0 or T: every key.
template <class S>
void softmax_forward(S* P, int T, bool causal, bool train = false, int keys = 0);
// dS = P * (dP - rowsum(dP * P)) * scale, in place over dP (T, T), with P the
// forward's probabilities; masked entries (P = 0) get 0. scale: the scores'
// 1 / sqrt(dh), folded in here. lower: P is causal and dP is read only on and
// below the diagonal (kernels.h's `lower`), dS above it set to 0.
template <class S>
void softmax_backward(S* dP, const S* P, int T, S scale, bool lower = false);

// Backward scratch of attention, shared by every attention sublayer of a
// model (backward runs one sublayer at a time). Shapes in Attention below.
template <class S>
struct AttnScratch {
  Workspace<S> dctx, dq, dk, dv, staging;  // (T, d)
  VecWorkspace<S> hctx, hdq, hdk, hdv;     // (heads, T, dh) head-major
  Workspace<S> dscores;                    // (segment, segment)
  GramScratch<S> gram;                     // for ||dW||; not sized for training
  // (T, d), in the buffers it has where they are large enough; segment 0: T.
  void resize(int T, int d, bool train = false, int segment = 0);
};

// Multi-head self-attention over the T tokens, heads h = 0..H-1 owning the
// columns h dh .. (h+1) dh - 1 (dh = d / H) of Q, K, V and the rows of W_O:
//   Q = x W_Q, K = x W_K, V = x W_V                       (T, d)
//   S_h = Q_h K_h^T / sqrt(dh)                            (T, T)  per head
//   P_h = softmax_j(S_h), S_h[i][j] = -inf for j > i when causal
//   ctx = [P_0 V_0 | ... | P_{H-1} V_{H-1}]                (T, d)
//   y = ctx W_O                                           (T, d)
// QK-norm (qk_norm = layernorm, config.h; Dehghani et al. 2023, Wortsman et
// al. 2023): before the scores, every head's every row of Q and K goes
// through LayerNorm over its dh features, Q_h <- LN(Q_h) g_Q, K_h <- LN(K_h) g_K,
// the gains g_Q, g_K (dh) learned, shared by the heads, no bias; the scale
// 1 / sqrt(dh) stays. Its backward is norms.h's LayerNorm backward per row.
// V-norm (v_norm, HybridNorm's QKV-norm with QK-norm on): every head's every
// row of V likewise, V_h <- LN(V_h) g_V, g_V (dh) learned and shared by the heads.
// nGPT (ngpt, ngpt.h): every head's every row of Q and K goes onto the unit
// sphere and is scaled per channel, Q_h <- s_qk,h Norm(Q_h), K_h <- s_qk,h
// Norm(K_h), s_qk = sqrt(d) s (s (d) learned, head h's dh entries at h dh,
// one s for Q and K), and the scale is sqrt(dh) instead of 1 / sqrt(dh).
// No biases (like the MLP). Forward caches Q, K, V (head-major), P and ctx;
// backward is exact reverse mode, through the softmax as
//   dS = P * (dP - rowsum(dP * P)).
// For training the T rows may be G segments of `segment` rows (one sequence
// each, sublayer.h's PassRows): attention then runs within each segment, per
// head the (segment, segment) scores of segment g at att's (h G + g) block,
// and a segment attends only to its first `rows->keys[g]` keys.
template <class S>
class Attention final : public Sublayer<S> {
 public:
  // scratch: shared backward workspace; nullptr allocates a private one.
  // train: built for training (sublayer.h): dWq .. dWo held and added to by every backward.
  Attention(int T, int d, int heads, bool causal, std::shared_ptr<AttnScratch<S>> scratch = nullptr, bool train = false,
            int segment = 0);
  // New shapes (heads must divide d), in the buffers it has where they are
  // large enough; the scratch is resized too.
  void reshape(int T, int d, int heads, int segment = 0);
  void forward(S* y, const S* x) override;
  // Fills wq_grad_sq .. wo_grad_sq (Gram trick) and, when materialized, dWq .. dWo.
  // Training: dWq += x^T dQ, dWk += x^T dK, dWv += x^T dV, dWo += ctx^T dy, and no norms.
  void backward(S* dx, const S* dy, const S* x, bool materialize_weight_grads) override;
  void backward_input(S* dx, const S* dy, const S* x) override;
  // Sets QK-norm on or off, the gains at 1 and their gradients at 0 (after reshape()).
  void set_qk_norm(QkNorm kind);
  // Sets V-norm on or off, g_V at 1 and its gradient at 0 (after set_qk_norm()).
  void set_v_norm(bool on);
  // Sets nGPT's queries and keys on or off (after set_qk_norm(), which it
  // needs off), s at 1 / sqrt(d) (s_qk = 1) and its gradient at 0.
  void set_ngpt(bool on);

  AttnWeights<S> weights;  // set by the model for each config
  bool causal = true;
  const PassRows* rows = nullptr;  // the pass's segments' keys (training); nullptr: every key
  VecWorkspace<S> q, k, v;         // (heads, T, dh) head-major: head h's (T, dh) block at h T dh
  VecWorkspace<S> att;             // (heads, T, T) softmax probabilities; 0 where masked
  Workspace<S> ctx;                // (T, d) concatenated head outputs
  Mat<S> dWq, dWk, dWv, dWo;       // (d, d), only when materialized, or training: d loss / d W
  double wq_grad_sq = 0, wk_grad_sq = 0, wv_grad_sq = 0, wo_grad_sq = 0;
  // QK-norm: the gains g_Q, g_K (dh) and their gradients (added to by every
  // backward in training, set by it otherwise); empty when off.
  QkNorm qk_norm = QkNorm::none;
  VecWorkspace<S> gq, gk, dgq, dgk;
  // V-norm: the gain g_V (dh) and its gradient, as g_Q's; empty when off.
  bool v_norm = false;
  VecWorkspace<S> gv, dgv;
  // nGPT: the stored s (d) of s_qk = sqrt(d) s and its gradient, as g_Q's; empty when off.
  bool ngpt = false;
  VecWorkspace<S> sqk, dsqk;
  // The largest attention logit of the last forward(): max |S_h[i][j]| =
  // |q_i . k_j| / sqrt(dh) (after QK-norm when on) over every head, segment and
  // query i, over the keys j that query attends to (j <= i when causal, j <
  // the segment's keys), as the scores enter the softmax. NaN before any forward.
  double max_logit = std::numeric_limits<double>::quiet_NaN();

  int heads() const { return H_; }
  const S* probs(int h) const { return att.data() + static_cast<long>(h) * T_ * seg_; }  // (T, T) unsegmented

 private:
  // dx from dy, leaving dQ, dK, dV (T, d) in the scratch for the weight norms.
  // param_grads: add d loss / d g_Q, g_K into dgq, dgk (QK-norm).
  void input_grad(S* dx, const S* dy, bool param_grads);
  // Keys segment g attends to: rows->keys[g] (at least 1), or 0 for every key.
  int keys(int g) const { return rows && !rows->keys.empty() ? std::max(1, rows->keys[g]) : 0; }
  int T_, d_, H_, dh_, seg_ = 0;
  bool train_;
  std::shared_ptr<AttnScratch<S>> scratch_;
  // QK-norm's caches: the raw Q, K (heads, T, dh) before the norm, each row's
  // mean and rstd (heads T), and a zero bias (dh). nGPT's: the raw Q, K and
  // each row's norm in q_rstd_, k_rstd_.
  VecWorkspace<S> q_raw_, k_raw_, q_mean_, q_rstd_, k_mean_, k_rstd_, zero_bias_;
  // V-norm's caches, as QK-norm's: the raw V (heads, T, dh), each row's mean and rstd (heads T).
  VecWorkspace<S> v_raw_, v_mean_, v_rstd_;
};

}  // namespace resnorm
