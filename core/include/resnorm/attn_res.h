// resnorm/attn_res.h: Attention Residuals (Kimi Team 2026, arXiv 2603.15031),
// the softmax over depth that replaces the residual sum.
//
// A stack of K units (sublayers: an MLP block has one, a transformer block
// two, and the paper gives each attention and each MLP its own) keeps its
// sources v_0 = h_0 and v_k = unit k's output (its branch alone, no skip).
// Unit k + 1 reads, token by token (row t of the (T, d) tensors),
//   h_k[t] = sum_{i=0..k} a_{k,i}[t] v_i[t],
//   a_{k,.}[t] = softmax_i(s_{k,i}[t]),  s_{k,i}[t] = w_k . (g_k * n_i[t]),
//   n_i[t] = v_i[t] / sqrt(mean_c v_i[t,c]^2 + eps)
// with w_k (d) op k's pseudo-query, learned and independent of the input,
// and g_k (d) the gain of op k's RMSNorm of the keys (the keys are the
// values, normalized); no temperature. Op k = 1..K (h_K is the stack's
// output, under the final norm); h_0 = v_0 needs no op. At init w_k = 0 and
// g_k = 1, so every s is 0 and a_{k,i} = 1 / (k + 1): h_k is the mean of
// v_0..v_k. Each source's normalization n_i does not depend on the op, so
// it is computed once, when v_i is written (normalize()).
//
// Backward of op k, from dh = d loss / d h_k (T, d), per token, with
// u = w_k * g_k and r_i = 1 / sqrt(mean v_i^2 + eps):
//   da_i = <v_i, dh>,  ds_i = a_i (da_i - sum_j a_j da_j)
//   dv_i += a_i dh + ds_i r_i (u - n_i s_i / d)      (the value, then the key)
//   dw_k += ds_i g_k * n_i,  dg_k += ds_i w_k * n_i   (summed over i and t)
// dv_k is complete once op k's backward has run (ops k + 1..K ran before it),
// so unit k's backward starts from it.
//
// Block AttnRes (the paper's grouping, and its pseudo-code block_attn_res):
// the K units are cut into N blocks of consecutive units, unit k in block
// B(k) = floor((k - 1) N / K) + 1 (sizes K / N when N divides K; within one
// of each other otherwise). The sources of op k are b_0 = v_0, the sums
// b_j = sum_{i in block j} v_i of the blocks j < B(k) that are complete, and
// the partial sum p_k = sum_{i in B(k), i <= k} v_i of its own block (which
// is b_{B(k)} when unit k ends its block): B(k) + 1 sources, each keyed by its
// RMSNorm as above. The slots hold those sums: slot 0 = v_0, slot k = p_k, so
// op k reads slots 0, e_1, .., e_{B(k)-1}, k with e_j the last unit of block
// j. With N = K every block is one unit, p_k = v_k and this is the Full
// variant above, the same operations in the same order (bit for bit). In the
// backward the slots' gradients dp_k are accumulated as dv_i above; unit k's
// dv_k = sum_{j >= k in B(k)} dp_j, carried down the block once op k is done.
#pragma once

#include <vector>

#include "resnorm/tensor.h"

namespace resnorm {

template <class S>
struct AttnRes {
  // K ops over K + 1 slots of T tokens of width d, the units in N blocks
  // (0, or N >= K: Full AttnRes, one unit a block): w = 0, g = 1, every
  // gradient 0. Allocates only past the capacity (Workspace).
  void resize(int K, int T, int d, int N = 0);
  int ops() const { return K_; }
  int blocks() const { return N_; }  // N; K for Full
  bool full() const { return N_ == K_; }
  // B(k), the block of unit k (k = 1..K); B(0) = 0, the embedding's.
  int block_of(int k) const { return k == 0 ? 0 : static_cast<int>(static_cast<long>(k - 1) * N_ / K_) + 1; }
  int sources(int k) const { return block_of(k) + 1; }  // op k's sources: b_0, .., b_{B(k)-1}, p_k
  // The slot op k reads as its j-th source, j = 0..B(k).
  int slot(int k, int j) const { return j == 0 ? 0 : j < block_of(k) ? ends_[j] : k; }
  S* v(int i) { return vs_.data() + static_cast<long>(i) * T_ * d_; }  // unit i's output (T, d), i = 0..K
  // Slot i's value (T, d): v_i (Full), or p_i (Block), written by normalize(i).
  const S* src(int i) const { return (full() ? vs_ : ps_).data() + static_cast<long>(i) * T_ * d_; }
  S* dv(int i) { return dvs_.data() + static_cast<long>(i) * T_ * d_; }  // d loss / d v_i (T, d)
  S* query(int k) { return w_.data() + static_cast<long>(k - 1) * d_; }  // w_k (d), k = 1..K
  S* gain(int k) { return g_.data() + static_cast<long>(k - 1) * d_; }   // g_k (d)
  S* dquery(int k) { return dw_.data() + static_cast<long>(k - 1) * d_; }
  S* dgain(int k) { return dg_.data() + static_cast<long>(k - 1) * d_; }
  // (T, sources(k)): a_{k,j}[t] at t sources(k) + j; Full: sources(k) = k + 1.
  const S* weights(int k) const { return a_.data() + offsets_[k] * T_; }
  // Slot i (Block: p_i from p_{i-1} and v(i)), then its n_i and r_i; v(i)
  // must be written, and normalize(i - 1) have run (Block).
  void normalize(int i);
  // h_k (T, d) from op k's sources, caching the weights. normalize(0..k) must have run.
  void forward(int k, S* h);
  // The sources' gradients += from dh = d loss / d h_k; dw_k, dg_k += likewise.
  // Block: then dv_k (unit k's) complete by its block's later slots.
  void backward(int k, const S* dh);
  void zero_dv() { dvs_.setZero(); }
  void zero_grad() {
    dw_.setZero();
    dg_.setZero();
  }

 private:
  double logit(int k, int i, int t);  // s_{k,i}[t], i a slot
  int K_ = 0, T_ = 0, d_ = 0, N_ = 0;
  std::vector<int> ends_;            // e_j, the last unit of block j (j = 1..N)
  std::vector<long> offsets_;        // sum_{j<k} sources(j), k = 1..K
  VecWorkspace<S> vs_, dvs_, ns_;    // (K + 1, T, d): v_i, d loss / d slot i (then d loss / d v_i), n_i
  VecWorkspace<S> ps_;               // Block: (K + 1, T, d) the slots p_i; empty for Full
  VecWorkspace<S> rs_;               // (K + 1, T): r_i
  VecWorkspace<S> a_;                // (K (K + 3) / 2, T): op k's weights at offset(k) T
  VecWorkspace<S> w_, g_, dw_, dg_;  // (K, d)
  VecWorkspace<double> scratch_;     // (K + 1): one token's logits, or d loss / d its weights
};

}  // namespace resnorm
