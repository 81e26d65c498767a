// Attention Residuals' softmax over depth, forward next to backward (see attn_res.h).
#include "resnorm/attn_res.h"

#include <algorithm>
#include <cmath>

#include "resnorm/config.h"
#include "resnorm/portable_math.h"

namespace resnorm {

template <class S>
void AttnRes<S>::resize(int K, int T, int d, int N) {
  K_ = K;
  T_ = T;
  d_ = d;
  N_ = N <= 0 || N >= K ? K : N;
  ends_.assign(static_cast<size_t>(N_) + 1, 0);
  for (int k = 1; k <= K; ++k) ends_[block_of(k)] = k;
  offsets_.assign(static_cast<size_t>(K) + 1, 0);
  for (int k = 2; k <= K; ++k) offsets_[k] = offsets_[k - 1] + sources(k - 1);
  const long src = static_cast<long>(K + 1) * T * d;
  for (VecWorkspace<S>* b : {&vs_, &dvs_, &ns_}) b->resize(K > 0 ? src : 0);
  ps_.resize(K > 0 && !full() ? src : 0);
  rs_.resize(K > 0 ? static_cast<long>(K + 1) * T : 0);
  scratch_.resize(K + 1);
  a_.resize(K > 0 ? (offsets_[K] + sources(K)) * T : 0);
  for (VecWorkspace<S>* b : {&w_, &g_, &dw_, &dg_}) b->resize(static_cast<long>(K) * d);
  w_.setZero();
  g_.setOnes();
  zero_grad();
  dvs_.setZero();
}

// Block: slot i = p_i = p_{i-1} + v_i within a block, v_i at its first unit.
// n_i[t] = x_i[t] r_i[t], r_i[t] = 1 / sqrt(mean_c x_i[t,c]^2 + eps) of the
// slot's value x_i, the mean in double.
template <class S>
void AttnRes<S>::normalize(int i) {
  const long n0 = static_cast<long>(i) * T_ * d_;
  const long n = static_cast<long>(T_) * d_;
  if (!full()) {
    S* p = ps_.data() + n0;
    const S* vi = v(i);
    if (i >= 2 && block_of(i - 1) == block_of(i)) {
      const S* prev = p - n;
      for (long e = 0; e < n; ++e) p[e] = prev[e] + vi[e];
    } else {
      std::copy(vi, vi + n, p);
    }
  }
  for (int t = 0; t < T_; ++t) {
    const S* x = src(i) + static_cast<long>(t) * d_;
    S* y = ns_.data() + n0 + static_cast<long>(t) * d_;
    double ms = 0;
    for (int c = 0; c < d_; ++c) ms += double(x[c]) * double(x[c]);
    const S r = S(1) / std::sqrt(S(ms / d_) + S(kEps));
    rs_.data()[static_cast<long>(i) * T_ + t] = r;
    for (int c = 0; c < d_; ++c) y[c] = x[c] * r;
  }
}

// s_{k,i}[t] = sum_c w_k[c] g_k[c] n_i[t,c], in double.
template <class S>
double AttnRes<S>::logit(int k, int i, int t) {
  const S* w = query(k);
  const S* g = gain(k);
  const S* n = ns_.data() + (static_cast<long>(i) * T_ + t) * d_;
  double s = 0;
  for (int c = 0; c < d_; ++c) s += double(w[c]) * double(g[c]) * double(n[c]);
  return s;
}

// Per token: the sources(k) logits, their softmax (exp of s - max s, in
// double), then h_k[t] = sum_j a_j x_{slot j}[t] in order of j.
template <class S>
void AttnRes<S>::forward(int k, S* h) {
  const int n = sources(k);
  S* a = a_.data() + offsets_[k] * T_;
  double* s = scratch_.data();
  for (int t = 0; t < T_; ++t) {
    double mx = -INFINITY;
    for (int i = 0; i < n; ++i) {
      s[i] = logit(k, slot(k, i), t);
      if (s[i] > mx) mx = s[i];
    }
    double z = 0;
    for (int i = 0; i < n; ++i) z += (s[i] = portable::exp_nonpos(s[i] - mx));
    S* at = a + static_cast<long>(t) * n;
    for (int i = 0; i < n; ++i) at[i] = S(s[i] / z);
    S* ht = h + static_cast<long>(t) * d_;
    for (int i = 0; i < n; ++i) {
      const S ai = at[i];
      const S* vi = src(slot(k, i)) + static_cast<long>(t) * d_;
      if (i == 0)
        for (int c = 0; c < d_; ++c) ht[c] = ai * vi[c];
      else
        for (int c = 0; c < d_; ++c) ht[c] += ai * vi[c];
    }
  }
}

template <class S>
void AttnRes<S>::backward(int k, const S* dh) {
  const int n = sources(k);
  const S* a = a_.data() + offsets_[k] * T_;
  const S* w = query(k);
  const S* g = gain(k);
  S* dw = dquery(k);
  S* dg = dgain(k);
  double* da = scratch_.data();
  for (int t = 0; t < T_; ++t) {
    const S* at = a + static_cast<long>(t) * n;
    const S* dht = dh + static_cast<long>(t) * d_;
    double mean = 0;  // sum_j a_j da_j
    for (int i = 0; i < n; ++i) {
      const S* vi = src(slot(k, i)) + static_cast<long>(t) * d_;
      double dot = 0;
      for (int c = 0; c < d_; ++c) dot += double(vi[c]) * double(dht[c]);
      da[i] = dot;
      mean += double(at[i]) * dot;
    }
    for (int i = 0; i < n; ++i) {
      const S ai = at[i];
      const int si = slot(k, i);
      const double ds = double(ai) * (da[i] - mean);
      const S* ni = ns_.data() + (static_cast<long>(si) * T_ + t) * d_;
      const double r = double(rs_.data()[static_cast<long>(si) * T_ + t]);
      const double s_over_d = logit(k, si, t) / d_;
      S* dvi = dv(si) + static_cast<long>(t) * d_;
      for (int c = 0; c < d_; ++c) {
        const double u = double(w[c]) * double(g[c]);
        dvi[c] += ai * dht[c] + S(ds * r * (u - double(ni[c]) * s_over_d));
        dw[c] += S(ds * double(g[c]) * double(ni[c]));
        dg[c] += S(ds * double(w[c]) * double(ni[c]));
      }
    }
  }
  // Block: slot k's gradient is complete (only op k reads it unless unit k
  // ends its block, and then only ops above k); unit k's dv_k adds the
  // gradient of slot k + 1, already unit k + 1's dv in the same block.
  if (!full() && k < K_ && block_of(k + 1) == block_of(k)) {
    const long n2 = static_cast<long>(T_) * d_;
    S* dk = dv(k);
    const S* dn = dv(k + 1);
    for (long e = 0; e < n2; ++e) dk[e] += dn[e];
  }
}

template struct AttnRes<float>;
template struct AttnRes<double>;

}  // namespace resnorm
