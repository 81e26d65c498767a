// resnorm/hyper.h: n parallel residual streams with learned read, write and
// mixing weights: Hyper-Connections (Zhu et al., ICLR 2025, arXiv 2409.19606,
// the static variant) and their manifold-constrained form mHC (Xie et al.,
// DeepSeek, arXiv 2512.24880, with static weights).
//
// The stack keeps n streams H^k (n, T, d) at every unit boundary k = 0..U
// (U = L P units). Unit k reads one (T, d) input from them, runs its wrapped
// sublayer with no skip (y_k = f(LN(x_k)), the Pre-LN branch), and writes
//   x_k   = sum_j a_j H^{k-1}_j                        (T, d) what unit k reads
//   y_k   = f(LN(x_k))                                 (T, d) the unit's branch
//   H^k_i = sum_j M_ij H^{k-1}_j + b_i y_k             (n, T, d)
// with a (n), M (n, n), b (n) unit k's own. In the HC paper's notation
// (its Eq. 5-6) a = A_m, M = A_r^T, b = B^T; in mHC's x_{l+1} = H^res x_l +
// H^post^T F(H^pre x_l), a = H^pre, M = H^res, b = H^post.
//   hc:  a, M, b are the parameters. Init (the paper's Eq. 14): a = e_{(k-1) mod n},
//        M = I, b = 1 (every entry). With every stream equal to h_0 at the
//        bottom, each stream then stays equal to the Pre-LN stack's h, bit for
//        bit (a weight of exactly 0 is skipped and a weight 1 multiplies exactly).
//   mhc: the parameters are logits p (n), R (n, n), q (n), and (mHC's Eq. 8)
//        a = sigmoid(p), b = 2 sigmoid(q), M = SK(R): Sinkhorn-Knopp from
//        X_0 = exp(R - max R), each iteration dividing every row by its sum,
//        then every column by its sum, `iters` iterations (the paper's t_max = 20).
//        After the last iteration the columns sum to 1 up to rounding, the
//        rows only approximately (finite iterations are not exactly doubly
//        stochastic; mHC-lite, arXiv 2601.05732); the backward is the exact
//        derivative of the iterations run. Init (ours; the paper states none
//        for the static part): p = +8 on stream (k-1) mod n and -8 elsewhere,
//        R = 0 on the diagonal and -8 off it, q = 0, so a ~ e_{(k-1) mod n},
//        M ~ I and b = 1 exactly, near HC's init.
// The streams start as n copies of h_0 (H^0_i = h_0) and the stack's top is
// their mean, (1/n) sum_i H^U_i, summed pairwise (the paper sums them; the
// mean differs by the factor n, which the final norm removes up to its eps,
// and keeps the top equal to Pre-LN's: exactly when n is a power of 2).
//
// What the per-layer diagnostics read (model.h): stream(k) is the streams'
// mean at boundary k, dstream(k) = sum_i dloss/dH^k_i (the gradient along a
// shift of every stream by the same amount, which is dloss/dh of the Pre-LN
// stack at HC's init), and a unit's update ratio ||y_k|| / ||x_k|| is on what
// the unit reads.
//
// Forward next to backward; everything allocated by configure().
#pragma once

#include <cstdint>
#include <vector>

#include "resnorm/tensor.h"

namespace resnorm {

enum class HyperKind : uint8_t { none, hc, mhc };

// Init logit of mHC's near-zero weights (sigmoid(-8) ~ 3.4e-4, exp(-8) ~ 3.4e-4).
inline constexpr double kMhcInitLogit = 8.0;

// M = SK(R) (n, n), row-major, with the iterates kept for the backward:
// iterates (2 iters + 1, n, n): X_0 = exp(R - max R), X_{2t-1} its rows
// normalized, X_{2t} then its columns; M = X_{2 iters}.
template <class S>
void sinkhorn_forward(S* M, S* iterates, const S* R, int n, int iters);
// dR += the exact derivative of the iterations run, from dM and the iterates.
// scratch: 2 n n entries.
template <class S>
void sinkhorn_backward(S* dR, const S* dM, const S* iterates, int n, int iters, S* scratch);

template <class S>
class Hyper {
 public:
  // kind none: nothing held. Otherwise U units of (T, d) streams, n streams,
  // the parameters at their init.
  void configure(HyperKind kind, int n, int iters, int U, int T, int d);
  HyperKind kind() const { return kind_; }
  int n() const { return n_; }
  int units() const { return U_; }
  // The effective a, M, b of every unit from the parameters (mHC: the Sinkhorn
  // iterations); before every forward.
  void prepare();
  // H^0_i = h0 for every i.
  void begin(const S* h0);
  // x_k into x(k) from H^{k-1}; returns x(k).
  const S* read(int k);
  // H^k from H^{k-1} and y(k).
  void write(int k);
  // H^k = H^{k-1} (the unit replaced by the identity).
  void skip(int k);
  // H^k_i = h for every i.
  void set_all(int k, const S* h);
  // H^k_i += h - (their mean), for every i: the streams' mean moved to h
  // along a common shift, the direction dstream() is the gradient along.
  void shift(int k, const S* h);
  // out = (1/n) sum_i H^k_i, summed pairwise.
  void mean(int k, S* out) const;
  S* x(int k) { return x_.data() + static_cast<long>(k - 1) * len_; }
  S* y(int k) { return y_.data() + static_cast<long>(k - 1) * len_; }
  S* stream(int k, int i) { return H_.data() + (static_cast<long>(k) * n_ + i) * len_; }
  S* dstream(int k, int i) { return dH_.data() + (static_cast<long>(k) * n_ + i) * len_; }

  // dH^U_i = dtop / n.
  void backward_begin(const S* dtop);
  // dy_k = sum_i b_i dH^k_i into dy(); db, dM for unit k; dH^{k-1}_j = sum_i M_ij dH^k_i. Returns dy().
  const S* backward_write(int k);
  // d loss / d x_k, zero, for the unit's backward to add into.
  S* dx() { return dx_.data(); }
  // dH^{k-1}_j += a_j dx, da_j = <H^{k-1}_j, dx>, then unit k's parameter
  // gradients added to (mHC: through sigmoid and the Sinkhorn iterations).
  void backward_read(int k);
  // out = sum_i dH^k_i.
  void grad_sum(int k, S* out) const;
  void zero_grad();

  // The parameters of unit k (1-based) and their gradients: read (n), res (n n), write (n).
  S* read_param(int k) { return read_.data() + static_cast<long>(k - 1) * n_; }
  S* res_param(int k) { return res_.data() + static_cast<long>(k - 1) * n_ * n_; }
  S* write_param(int k) { return write_.data() + static_cast<long>(k - 1) * n_; }
  S* dread_param(int k) { return dread_.data() + static_cast<long>(k - 1) * n_; }
  S* dres_param(int k) { return dres_.data() + static_cast<long>(k - 1) * n_ * n_; }
  S* dwrite_param(int k) { return dwrite_.data() + static_cast<long>(k - 1) * n_; }
  // The effective weights of unit k (after prepare()).
  const S* a(int k) const { return a_.data() + static_cast<long>(k - 1) * n_; }
  const S* m(int k) const { return m_.data() + static_cast<long>(k - 1) * n_ * n_; }
  const S* b(int k) const { return b_.data() + static_cast<long>(k - 1) * n_; }

  // The stream mixing composed over depth: P = M_U ... M_2 M_1, the effective
  // matrices (after prepare()) multiplied in double in the order the streams
  // meet them (H^U = P H^0 where every branch is zero), and mHC's "Amax Gain
  // Magnitude" of it (Xie et al. 2025, Sec. 3.1): fwd = max_i |sum_j P_ij|,
  // the largest absolute row sum (the forward signal's worst-case gain), and
  // bwd = max_j |sum_i P_ij|, the largest absolute column sum (the backward
  // gradient's). Exactly 1 and 1 at HC's init (M = I); mHC's columns sum to 1
  // up to rounding at every unit, so its bwd is 1 up to rounding. NaN when an
  // entry of P is NaN (or a sum is inf - inf). Kind none: NaN, NaN.
  void composite_gain(double& fwd, double& bwd) const;

 private:
  HyperKind kind_ = HyperKind::none;
  int n_ = 0, iters_ = 0, U_ = 0;
  long len_ = 0;                            // T d
  VecWorkspace<S> read_, res_, write_;      // (U, n), (U, n, n), (U, n): the parameters
  VecWorkspace<S> dread_, dres_, dwrite_;   // their gradients
  VecWorkspace<S> a_, m_, b_;               // the effective weights, shaped as the parameters
  VecWorkspace<S> sk_;                      // (U, 2 iters + 1, n, n) mHC's Sinkhorn iterates
  VecWorkspace<S> H_, dH_;                  // (U + 1, n, T, d) the streams and their gradients
  VecWorkspace<S> x_, y_;                   // (U, T, d) what each unit reads and its branch
  VecWorkspace<S> dx_, dy_;                 // (T, d)
  VecWorkspace<S> da_, dm_, db_, sk_grad_;  // (n), (n n), (n), (2 n n) one unit's scratch

  // (n n) composite_gain()'s product so far and the next one
  mutable std::vector<double> gain_p_, gain_next_;
};

}  // namespace resnorm
