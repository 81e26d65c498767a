// Hyper-Connections and mHC: the streams' read, write and mix, forward next to
// backward, and the Sinkhorn-Knopp projection with its exact backward (see hyper.h).
#include "resnorm/hyper.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "resnorm/portable_math.h"

namespace resnorm {
namespace {

// sigmoid(p) in double, from exp of a non-positive argument (the same bits natively and in wasm).
double sigmoid(double p) {
  if (p >= 0) return 1.0 / (1.0 + portable::exp_nonpos(-p));
  const double e = portable::exp_nonpos(p);
  return e / (1.0 + e);
}

// sum_{i in [lo, hi)} v(i), halving the range (pairwise): n equal terms with n a
// power of 2 sum to n times the term exactly.
template <class S, class V>
S pairwise(int lo, int hi, const V& v) {
  if (hi - lo == 1) return v(lo);
  const int mid = lo + (hi - lo) / 2;
  return pairwise<S>(lo, mid, v) + pairwise<S>(mid, hi, v);
}

template <class S>
double dot(const S* x, const S* y, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += double(x[i]) * double(y[i]);
  return s;
}

// out = sum_j w_j in_j over the terms of nonzero weight, in order of j, the
// first term w in_j itself (so a lone weight 1 copies in_j bit for bit); 0 if
// every weight is 0. in_j = in + j * stride, w_j = w[j * wstride].
template <class S>
void weighted_sum(S* out, const S* in, long stride, const S* w, int wstride, int n, long len) {
  bool first = true;
  for (int j = 0; j < n; ++j) {
    const S wj = w[static_cast<long>(j) * wstride];
    if (wj == S(0)) continue;
    const S* ij = in + j * stride;
    if (first)
      for (long e = 0; e < len; ++e) out[e] = wj * ij[e];
    else
      for (long e = 0; e < len; ++e) out[e] += wj * ij[e];
    first = false;
  }
  if (first) std::fill(out, out + len, S(0));
}

}  // namespace

template <class S>
void sinkhorn_forward(S* M, S* X, const S* R, int n, int iters) {
  const int nn = n * n;
  S top = R[0];
  for (int e = 1; e < nn; ++e) top = std::max(top, R[e]);
  for (int e = 0; e < nn; ++e) X[e] = S(portable::exp_nonpos(double(R[e] - top)));
  for (int s = 1; s <= 2 * iters; ++s) {
    const S* in = X + static_cast<long>(s - 1) * nn;
    S* out = X + static_cast<long>(s) * nn;
    if (s % 2 == 1) {  // rows
      for (int i = 0; i < n; ++i) {
        S r = 0;
        for (int j = 0; j < n; ++j) r += in[i * n + j];
        for (int j = 0; j < n; ++j) out[i * n + j] = in[i * n + j] / r;
      }
    } else {  // columns
      for (int j = 0; j < n; ++j) {
        S c = 0;
        for (int i = 0; i < n; ++i) c += in[i * n + j];
        for (int i = 0; i < n; ++i) out[i * n + j] = in[i * n + j] / c;
      }
    }
  }
  std::copy(X + static_cast<long>(2 * iters) * nn, X + static_cast<long>(2 * iters + 1) * nn, M);
}

// Y = X / r row by row (r_i = sum_j X_ij): dX_ij = (dY_ij - sum_k dY_ik Y_ik) / r_i;
// columns likewise. Then X_0 = exp(R - max R): dR = dX_0 X_0 (the shift by
// the max changes no output, so it passes no gradient).
template <class S>
void sinkhorn_backward(S* dR, const S* dM, const S* X, int n, int iters, S* scratch) {
  const int nn = n * n;
  S* g = scratch;
  S* next = scratch + nn;
  std::copy(dM, dM + nn, g);
  for (int s = 2 * iters; s >= 1; --s) {
    const S* in = X + static_cast<long>(s - 1) * nn;
    const S* out = X + static_cast<long>(s) * nn;
    if (s % 2 == 1) {
      for (int i = 0; i < n; ++i) {
        S r = 0, gy = 0;
        for (int j = 0; j < n; ++j) {
          r += in[i * n + j];
          gy += g[i * n + j] * out[i * n + j];
        }
        for (int j = 0; j < n; ++j) next[i * n + j] = (g[i * n + j] - gy) / r;
      }
    } else {
      for (int j = 0; j < n; ++j) {
        S c = 0, gy = 0;
        for (int i = 0; i < n; ++i) {
          c += in[i * n + j];
          gy += g[i * n + j] * out[i * n + j];
        }
        for (int i = 0; i < n; ++i) next[i * n + j] = (g[i * n + j] - gy) / c;
      }
    }
    std::swap(g, next);
  }
  for (int e = 0; e < nn; ++e) dR[e] += g[e] * X[e];
}

template <class S>
void Hyper<S>::configure(HyperKind kind, int n, int iters, int U, int T, int d) {
  kind_ = kind;
  const bool on = kind != HyperKind::none;
  n_ = on ? n : 0;
  iters_ = kind == HyperKind::mhc ? iters : 0;
  U_ = on ? U : 0;
  len_ = on ? static_cast<long>(T) * d : 0;
  const long un = static_cast<long>(U_) * n_, unn = un * n_;
  for (VecWorkspace<S>* v : {&read_, &write_, &dread_, &dwrite_, &a_, &b_}) v->resize(un);
  for (VecWorkspace<S>* v : {&res_, &dres_, &m_}) v->resize(unn);
  sk_.resize(kind == HyperKind::mhc ? unn * (2 * iters_ + 1) : 0);
  H_.resize((U_ + 1) * n_ * len_);
  dH_.resize(H_.size());
  x_.resize(U_ * len_);
  y_.resize(U_ * len_);
  dx_.resize(len_);
  dy_.resize(len_);
  da_.resize(n_);
  db_.resize(n_);
  dm_.resize(static_cast<long>(n_) * n_);
  sk_grad_.resize(2L * n_ * n_);
  gain_p_.assign(static_cast<size_t>(n_) * n_, 0.0);
  gain_next_.assign(gain_p_.size(), 0.0);
  if (!on) return;
  const bool hc = kind == HyperKind::hc;
  const S big = S(kMhcInitLogit);
  for (int k = 1; k <= U_; ++k) {
    const int home = (k - 1) % n_;
    for (int i = 0; i < n_; ++i) {
      read_param(k)[i] = hc ? S(i == home ? 1 : 0) : (i == home ? big : -big);
      write_param(k)[i] = hc ? S(1) : S(0);
      for (int j = 0; j < n_; ++j) res_param(k)[i * n_ + j] = hc ? S(i == j ? 1 : 0) : (i == j ? S(0) : -big);
    }
  }
  zero_grad();
  prepare();
}

template <class S>
void Hyper<S>::zero_grad() {
  dread_.setZero();
  dres_.setZero();
  dwrite_.setZero();
}

template <class S>
void Hyper<S>::prepare() {
  if (kind_ == HyperKind::hc) {
    std::copy(read_.data(), read_.data() + read_.size(), a_.data());
    std::copy(res_.data(), res_.data() + res_.size(), m_.data());
    std::copy(write_.data(), write_.data() + write_.size(), b_.data());
    return;
  }
  const long nn = static_cast<long>(n_) * n_;
  for (long e = 0; e < read_.size(); ++e) a_.data()[e] = S(sigmoid(double(read_.data()[e])));
  for (long e = 0; e < write_.size(); ++e) b_.data()[e] = S(2.0 * sigmoid(double(write_.data()[e])));
  for (int k = 1; k <= U_; ++k)
    sinkhorn_forward(m_.data() + (k - 1) * nn, sk_.data() + (k - 1) * nn * (2 * iters_ + 1), res_param(k), n_, iters_);
}

template <class S>
void Hyper<S>::begin(const S* h0) {
  for (int i = 0; i < n_; ++i) std::copy(h0, h0 + len_, stream(0, i));
}

template <class S>
const S* Hyper<S>::read(int k) {
  weighted_sum(x(k), stream(k - 1, 0), len_, a(k), 1, n_, len_);
  return x(k);
}

// H^k_i = sum_j M_ij H^{k-1}_j + b_i y_k: the mix's nonzero terms in order of
// j, then b_i y_k (with M = I, b = 1: H^{k-1}_i + y_k, Pre-LN's sum).
template <class S>
void Hyper<S>::write(int k) {
  const S* yk = y(k);
  for (int i = 0; i < n_; ++i) {
    S* out = stream(k, i);
    weighted_sum(out, stream(k - 1, 0), len_, m(k) + i * n_, 1, n_, len_);
    const S bi = b(k)[i];
    if (bi != S(0))
      for (long e = 0; e < len_; ++e) out[e] += bi * yk[e];
  }
}

template <class S>
void Hyper<S>::skip(int k) {
  std::copy(stream(k - 1, 0), stream(k - 1, 0) + n_ * len_, stream(k, 0));
}

template <class S>
void Hyper<S>::set_all(int k, const S* h) {
  for (int i = 0; i < n_; ++i) std::copy(h, h + len_, stream(k, i));
}

template <class S>
void Hyper<S>::shift(int k, const S* h) {
  mean(k, dx_.data());  // scratch: dx_ is only used within one unit's backward
  for (long e = 0; e < len_; ++e) dx_.data()[e] = h[e] - dx_.data()[e];
  for (int i = 0; i < n_; ++i) {
    S* s = stream(k, i);
    for (long e = 0; e < len_; ++e) s[e] += dx_.data()[e];
  }
}

template <class S>
void Hyper<S>::mean(int k, S* out) const {
  const S* H = H_.data() + static_cast<long>(k) * n_ * len_;
  const S inv = S(1) / S(n_);
  for (long e = 0; e < len_; ++e) out[e] = inv * pairwise<S>(0, n_, [&](int i) { return H[i * len_ + e]; });
}

template <class S>
void Hyper<S>::grad_sum(int k, S* out) const {
  const S* dH = dH_.data() + static_cast<long>(k) * n_ * len_;
  for (long e = 0; e < len_; ++e) out[e] = pairwise<S>(0, n_, [&](int i) { return dH[i * len_ + e]; });
}

template <class S>
void Hyper<S>::backward_begin(const S* dtop) {
  const S inv = S(1) / S(n_);
  for (int i = 0; i < n_; ++i) {
    S* g = dstream(U_, i);
    for (long e = 0; e < len_; ++e) g[e] = inv * dtop[e];
  }
}

template <class S>
const S* Hyper<S>::backward_write(int k) {
  const S* yk = y(k);
  // dy_k = sum_i b_i dH^k_i; db_i = <y_k, dH^k_i>.
  weighted_sum(dy_.data(), dstream(k, 0), len_, b(k), 1, n_, len_);
  for (int i = 0; i < n_; ++i) db_(i) = S(dot(yk, dstream(k, i), len_));
  // dM_ij = <H^{k-1}_j, dH^k_i>; dH^{k-1}_j = sum_i M_ij dH^k_i.
  for (int i = 0; i < n_; ++i)
    for (int j = 0; j < n_; ++j) dm_(i * n_ + j) = S(dot(stream(k - 1, j), dstream(k, i), len_));
  for (int j = 0; j < n_; ++j) weighted_sum(dstream(k - 1, j), dstream(k, 0), len_, m(k) + j, n_, n_, len_);
  dx_.setZero();
  return dy_.data();
}

template <class S>
void Hyper<S>::backward_read(int k) {
  const S* g = dx_.data();
  const S* ak = a(k);
  for (int j = 0; j < n_; ++j) {
    da_(j) = S(dot(stream(k - 1, j), g, len_));
    if (ak[j] == S(0)) continue;
    S* dj = dstream(k - 1, j);
    for (long e = 0; e < len_; ++e) dj[e] += ak[j] * g[e];
  }
  S* dr = dread_param(k);
  S* dw = dwrite_param(k);
  const long nn = static_cast<long>(n_) * n_;
  if (kind_ == HyperKind::hc) {
    for (int i = 0; i < n_; ++i) {
      dr[i] += da_(i);
      dw[i] += db_(i);
    }
    for (long e = 0; e < nn; ++e) dres_param(k)[e] += dm_(e);
    return;
  }
  // a = sigmoid(p): da/dp = a (1 - a); b = 2 sigmoid(q): db/dq = b (1 - b / 2).
  for (int i = 0; i < n_; ++i) {
    const S ai = a(k)[i], bi = b(k)[i];
    dr[i] += da_(i) * ai * (S(1) - ai);
    dw[i] += db_(i) * bi * (S(1) - bi / S(2));
  }
  sinkhorn_backward(dres_param(k), dm_.data(), sk_.data() + (k - 1) * nn * (2 * iters_ + 1), n_, iters_,
                    sk_grad_.data());
}

template <class S>
void Hyper<S>::composite_gain(double& fwd, double& bwd) const {
  fwd = bwd = std::numeric_limits<double>::quiet_NaN();
  if (kind_ == HyperKind::none) return;
  const int n = n_;
  std::vector<double>& P = gain_p_;
  std::vector<double>& next = gain_next_;
  std::fill(P.begin(), P.end(), 0.0);
  for (int i = 0; i < n; ++i) P[i * n + i] = 1.0;
  for (int k = 1; k <= U_; ++k) {  // P <- M_k P
    const S* M = m(k);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double v = 0;
        for (int r = 0; r < n; ++r) v += double(M[i * n + r]) * P[r * n + j];
        next[i * n + j] = v;
      }
    P.swap(next);
  }
  // the largest of |sums|, NaN as soon as one sum is NaN
  auto largest = [](double top, double sum) {
    const double a = std::abs(sum);
    return std::isnan(top) || std::isnan(a) ? std::numeric_limits<double>::quiet_NaN() : std::max(top, a);
  };
  fwd = bwd = 0;
  for (int i = 0; i < n; ++i) {
    double row = 0, col = 0;
    for (int j = 0; j < n; ++j) {
      row += P[i * n + j];
      col += P[j * n + i];
    }
    fwd = largest(fwd, row);
    bwd = largest(bwd, col);
  }
}

template void sinkhorn_forward(float*, float*, const float*, int, int);
template void sinkhorn_forward(double*, double*, const double*, int, int);
template void sinkhorn_backward(float*, const float*, const float*, int, int, float*);
template void sinkhorn_backward(double*, const double*, const double*, int, int, double*);
template class Hyper<float>;
template class Hyper<double>;

}  // namespace resnorm
