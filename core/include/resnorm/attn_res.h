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
#pragma once

#include "resnorm/tensor.h"

namespace resnorm {

template <class S>
struct AttnRes {
  // K ops over K + 1 sources of T tokens of width d: w = 0, g = 1, every
  // gradient 0. Allocates only past the capacity (Workspace).
  void resize(int K, int T, int d);
  int ops() const { return K_; }
  S* v(int i) { return vs_.data() + static_cast<long>(i) * T_ * d_; }    // (T, d), i = 0..K
  S* dv(int i) { return dvs_.data() + static_cast<long>(i) * T_ * d_; }  // d loss / d v_i (T, d)
  S* query(int k) { return w_.data() + static_cast<long>(k - 1) * d_; }  // w_k (d), k = 1..K
  S* gain(int k) { return g_.data() + static_cast<long>(k - 1) * d_; }   // g_k (d)
  S* dquery(int k) { return dw_.data() + static_cast<long>(k - 1) * d_; }
  S* dgain(int k) { return dg_.data() + static_cast<long>(k - 1) * d_; }
  const S* weights(int k) const { return a_.data() + offset(k) * T_; }  // (T, k + 1): a_{k,i}[t] at t (k + 1) + i
  // n_i and r_i of v(i), which must be written.
  void normalize(int i);
  // h_k (T, d) from v_0..v_k, caching the weights. normalize(0..k) must have run.
  void forward(int k, S* h);
  // dv_i += for i = 0..k from dh = d loss / d h_k; dw_k, dg_k += likewise.
  void backward(int k, const S* dh);
  void zero_dv() { dvs_.setZero(); }
  void zero_grad() {
    dw_.setZero();
    dg_.setZero();
  }

 private:
  static long offset(int k) { return static_cast<long>(k - 1) * (k + 2) / 2; }  // sum_{j<k} (j + 1)
  double logit(int k, int i, int t);                                            // s_{k,i}[t]
  int K_ = 0, T_ = 0, d_ = 0;
  VecWorkspace<S> vs_, dvs_, ns_;    // (K + 1, T, d): v_i, d loss / d v_i, n_i
  VecWorkspace<S> rs_;               // (K + 1, T): r_i
  VecWorkspace<S> a_;                // (K (K + 3) / 2, T): op k's weights at offset(k) T
  VecWorkspace<S> w_, g_, dw_, dg_;  // (K, d)
  VecWorkspace<double> scratch_;     // (K + 1): one token's logits, or d loss / d its weights
};

}  // namespace resnorm
