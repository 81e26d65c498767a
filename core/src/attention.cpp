// The attention sublayer: softmax, head split and merge, forward next to
// backward (see attention.h).
#include "resnorm/attention.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "resnorm/kernels.h"
#include "resnorm/lanes.h"
#include "resnorm/ngpt.h"
#include "resnorm/norms.h"
#include "resnorm/portable_math.h"

namespace resnorm {

template <class S>
void AttnScratch<S>::resize(int T, int d, bool train, int segment) {
  const int seg = segment > 0 ? segment : T;
  for (Workspace<S>* m : {&dctx, &dq, &dk, &dv, &staging}) m->resize(T, d);
  for (VecWorkspace<S>* v : {&hctx, &hdq, &hdk, &hdv}) v->resize(static_cast<long>(T) * d);
  dscores.resize(seg, seg);
  if (!train) gram.resize(T, 2 * d);
}

namespace {

// (T, d) row-major <-> (H, T, dh) head-major: head h's columns h dh .. (h+1) dh - 1.
// A row's dh entries are copied by vectors (kernels.h), not std::copy: at the
// training's dh = 4 a memmove call per row costs more than the copy.
template <class S>
inline void copy_row(S* out, const S* in, int dh) {
  constexpr int W = kernels::Vec<S>::lanes;
  int i = 0;
  for (; i + W <= dh; i += W) kernels::store(out + i, kernels::load(in + i));
  for (; i < dh; ++i) out[i] = in[i];
}
template <class S>
void split_heads(S* out, const S* in, int T, int d, int H) {
  const int dh = d / H;
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h)
      copy_row(out + (static_cast<long>(h) * T + t) * dh, in + static_cast<long>(t) * d + h * dh, dh);
}
template <class S>
void merge_heads(S* out, const S* in, int T, int d, int H) {
  const int dh = d / H;
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h)
      copy_row(out + static_cast<long>(t) * d + h * dh, in + (static_cast<long>(h) * T + t) * dh, dh);
}
// max |P[i][j]| over the scores softmax_forward reads: j < keys (0: every j),
// and j <= i when causal.
template <class S>
S max_abs_scores(const S* P, int T, bool causal, int keys) {
  const int kn = keys > 0 && keys < T ? keys : T;
  S mx = 0;
  for (int i = 0; i < T; ++i) {
    const S* p = P + static_cast<long>(i) * T;
    const int jn = causal ? std::min(i + 1, kn) : kn;
    for (int j = 0; j < jn; ++j) {
      const S a = std::abs(p[j]);
      mx = a > mx || a != a ? a : mx;  // a NaN score makes the maximum NaN
    }
  }
  return mx;
}
template <class S>
void add_into(S* y, const S* x, long n) {
  for (long i = 0; i < n; ++i) y[i] += x[i];
}

// p[j] = exp(p[j] - mx) for j < n: portable_math.h's exp in double (the
// same bits natively and in WebAssembly); for training in float, lanes.h's
// float exp, four at a time.
template <class S>
void softmax_exps(S* p, int n, S mx, bool train) {
  if constexpr (std::is_same_v<S, float>) {
    if (train) {
      lanes::by_lanes<2, 1, 1>(n, {p}, {p}, [mx](auto lanes_n, const auto& o, const auto& x) {
        constexpr int N = decltype(lanes_n)::value;
        lanes::F4 e[N];
        for (int i = 0; i < N; ++i) e[i] = kernels::load(x[0] + 4 * i) - mx;
        lanes::exp_nonpos(e);
        for (int i = 0; i < N; ++i) kernels::store(o[0] + 4 * i, e[i]);
      });
      return;
    }
  }
  for (int j = 0; j < n; ++j) p[j] = S(portable::exp_nonpos(double(p[j] - mx)));
}

}  // namespace

template <class S>
void softmax_forward(S* P, int T, bool causal, bool train, int keys) {
  const int kn = keys > 0 && keys < T ? keys : T;
  for (int i = 0; i < T; ++i) {
    S* p = P + static_cast<long>(i) * T;
    const int jn = causal ? std::min(i + 1, kn) : kn;  // masked j > i or j >= keys: exp(-inf) = 0
    S mx = p[0];
    for (int j = 1; j < jn; ++j) mx = p[j] > mx ? p[j] : mx;
    softmax_exps(p, jn, mx, train);
    S sum = 0;
    for (int j = 0; j < jn; ++j) sum += p[j];
    for (int j = 0; j < jn; ++j) p[j] /= sum;
    for (int j = jn; j < T; ++j) p[j] = S(0);
  }
}

template <class S>
void softmax_backward(S* dP, const S* P, int T, S scale, bool lower) {
  for (int i = 0; i < T; ++i) {
    const S* p = P + static_cast<long>(i) * T;
    S* g = dP + static_cast<long>(i) * T;
    const int jn = lower ? i + 1 : T;
    S dot = 0;
    for (int j = 0; j < jn; ++j) dot += g[j] * p[j];
    for (int j = 0; j < jn; ++j) g[j] = p[j] * (g[j] - dot) * scale;  // masked: p = 0, so 0
    for (int j = jn; j < T; ++j) g[j] = S(0);
  }
}

template <class S>
Attention<S>::Attention(int T, int d, int heads, bool causal_mask, std::shared_ptr<AttnScratch<S>> scratch, bool train,
                        int segment)
    : causal(causal_mask), train_(train), scratch_(std::move(scratch)) {
  if (!scratch_) scratch_ = std::make_shared<AttnScratch<S>>();
  reshape(T, d, heads, segment);
}

template <class S>
void Attention<S>::set_qk_norm(QkNorm kind) {
  qk_norm = kind;
  const bool on = kind != QkNorm::none;
  const long rows = on ? static_cast<long>(H_) * T_ : 0, n = rows * dh_;
  for (VecWorkspace<S>* v : {&gq, &gk, &dgq, &dgk, &zero_bias_}) v->resize(on ? dh_ : 0);
  for (VecWorkspace<S>* v : {&q_raw_, &k_raw_}) v->resize(n);
  for (VecWorkspace<S>* v : {&q_mean_, &q_rstd_, &k_mean_, &k_rstd_}) v->resize(rows);
  if (!on) return;
  gq.setOnes();
  gk.setOnes();
  dgq.setZero();
  dgk.setZero();
  zero_bias_.setZero();
}

template <class S>
void Attention<S>::set_v_norm(bool on) {
  v_norm = on;
  const long rows = on ? static_cast<long>(H_) * T_ : 0;
  for (VecWorkspace<S>* v : {&gv, &dgv}) v->resize(on ? dh_ : 0);
  v_raw_.resize(rows * dh_);
  for (VecWorkspace<S>* v : {&v_mean_, &v_rstd_}) v->resize(rows);
  if (!on) return;
  zero_bias_.resize(dh_);
  zero_bias_.setZero();
  gv.setOnes();
  dgv.setZero();
}

template <class S>
void Attention<S>::set_ngpt(bool on) {
  ngpt = on;
  for (VecWorkspace<S>* v : {&sqk, &dsqk}) v->resize(on ? d_ : 0);
  if (!on) return;
  const long rows = static_cast<long>(H_) * T_;
  for (VecWorkspace<S>* v : {&q_raw_, &k_raw_}) v->resize(rows * dh_);
  for (VecWorkspace<S>* v : {&q_rstd_, &k_rstd_}) v->resize(rows);
  std::fill(sqk.data(), sqk.data() + d_, S(ngpt_stored_init(d_)));
  dsqk.setZero();
}

template <class S>
void Attention<S>::reshape(int T, int d, int heads, int segment) {
  seg_ = segment > 0 ? segment : T;
  for (VecWorkspace<S>* b : {&q, &k, &v}) b->resize(static_cast<long>(T) * d);
  att.resize(static_cast<long>(heads) * T * seg_);
  ctx.resize(T, d);
  if (train_)
    for (Mat<S>* m : {&dWq, &dWk, &dWv, &dWo}) *m = Mat<S>::Zero(d, d);
  scratch_->resize(T, d, train_, segment);
  T_ = T;
  d_ = d;
  H_ = heads;
  dh_ = d / heads;
}

// Q = sq x Bq, K = sk x Bk, V = sv x Bv (T,d), split into heads (H,T,dh);
// per head S = Q_h K_h^T / sqrt(dh) (T,T), P = softmax(S) (masked), ctx_h = P V_h (T,dh);
// y = so ctx Bo (T,d).
template <class S>
void Attention<S>::forward(S* y, const S* x) {
  const int T = T_, d = d_, H = H_, dh = dh_;
  AttnScratch<S>& w = *scratch_;
  S* row = w.staging.data();  // (T, d) staging for the head split
  const bool qkn = qk_norm != QkNorm::none;
  kernels::gemm_nn(x, weights.base->Bq.data(), row, T, d, d, weights.sq);
  split_heads(qkn || ngpt ? q_raw_.data() : q.data(), row, T, d, H);
  kernels::gemm_nn(x, weights.base->Bk.data(), row, T, d, d, weights.sk);
  split_heads(qkn || ngpt ? k_raw_.data() : k.data(), row, T, d, H);
  if (ngpt) {  // Q_h, K_h <- s_qk,h Norm(.) row by row
    const double c = ngpt_scale_factor(d);
    sphere_scale_forward(q.data(), q_rstd_.data(), q_raw_.data(), sqk.data(), c, H, T, dh);
    sphere_scale_forward(k.data(), k_rstd_.data(), k_raw_.data(), sqk.data(), c, H, T, dh);
  }
  if (qkn) {  // every head's every row of Q and K over its dh features: (H T) rows of dh
    layernorm_forward(q.data(), q_mean_.data(), q_rstd_.data(), q_raw_.data(), gq.data(), zero_bias_.data(), H * T, dh);
    layernorm_forward(k.data(), k_mean_.data(), k_rstd_.data(), k_raw_.data(), gk.data(), zero_bias_.data(), H * T, dh);
  }
  kernels::gemm_nn(x, weights.base->Bv.data(), row, T, d, d, weights.sv);
  split_heads(v_norm ? v_raw_.data() : v.data(), row, T, d, H);
  if (v_norm)  // every head's every row of V over its dh features
    layernorm_forward(v.data(), v_mean_.data(), v_rstd_.data(), v_raw_.data(), gv.data(), zero_bias_.data(), H * T, dh);
  const S scale = S(ngpt ? std::sqrt(double(dh)) : 1.0 / std::sqrt(double(dh)));  // nGPT: sqrt(dh)
  const bool lower = train_ && causal;  // training leaves out the masked zeros (kernels.h)
  const int n = seg_, G = T / seg_;
  S largest = 0;
  for (int h = 0; h < H; ++h)
    for (int g = 0; g < G; ++g) {
      const long off = (static_cast<long>(h) * T + static_cast<long>(g) * n) * dh;
      S* P = att.data() + (static_cast<long>(h) * G + g) * n * n;
      // scores (n,n); causal: the masked ones are not computed (softmax_forward does not read them)
      kernels::gemm_nt(q.data() + off, k.data() + off, P, n, dh, n, scale, causal);
      const S m = max_abs_scores(P, n, causal, keys(g));
      largest = m > largest || m != m ? m : largest;
      softmax_forward(P, n, causal, train_, keys(g));
      kernels::gemm_nn(P, v.data() + off, w.hctx.data() + off, n, n, dh, S(1), lower);  // (n,dh)
    }
  max_logit = double(largest);
  merge_heads(ctx.data(), w.hctx.data(), T, d, H);
  kernels::gemm_nn(ctx.data(), weights.base->Bo.data(), y, T, d, d, weights.so);
}

// dctx = so dy Bo^T (T,d); per head, with dctx_h (T,dh):
//   dP = dctx_h V_h^T (T,T);  dV_h = P^T dctx_h;  dS = P * (dP - rowsum(dP * P)) / sqrt(dh);
//   dQ_h = dS K_h;  dK_h = dS^T Q_h   (T,dh)
// QK-norm: dQ_h, dK_h so far are the normed Q's and K's; LayerNorm's backward
// per row takes them to the raw Q's and K's (and adds into dg_Q, dg_K);
// V-norm likewise takes dV_h to the raw V's (and adds into dg_V).
// dx = sq dQ Bq^T + sk dK Bk^T + sv dV Bv^T (T,d).
// ||dW_O||^2 = <ctx ctx^T, dy dy^T>, ||dW_Q||^2 = <x x^T, dQ dQ^T> (likewise K, V).
template <class S>
void Attention<S>::input_grad(S* dx, const S* dy, bool param_grads) {
  const int T = T_, d = d_, H = H_, dh = dh_;
  const long n = static_cast<long>(T) * d;
  AttnScratch<S>& w = *scratch_;
  kernels::gemm_nt(dy, weights.base->Bo.data(), w.dctx.data(), T, d, d, weights.so);
  split_heads(w.hctx.data(), w.dctx.data(), T, d, H);
  const S scale = S(ngpt ? std::sqrt(double(dh)) : 1.0 / std::sqrt(double(dh)));  // nGPT: sqrt(dh)
  const bool lower = train_ && causal;  // training leaves out the masked zeros (kernels.h)
  S* dP = w.dscores.data();
  // dV and dK are P^T dctx and dS^T Q, summed into zeroed buffers (gemm_tn from 0 is A^T B).
  w.hdv.setZero();
  w.hdk.setZero();
  const int sn = seg_, G = T / seg_;
  for (int h = 0; h < H; ++h)
    for (int g = 0; g < G; ++g) {
      const long off = (static_cast<long>(h) * T + static_cast<long>(g) * sn) * dh;
      const S* P = att.data() + (static_cast<long>(h) * G + g) * sn * sn;
      const S* dc = w.hctx.data() + off;
      kernels::gemm_nt(dc, v.data() + off, dP, sn, dh, sn, S(1), lower);
      kernels::gemm_tn(P, dc, w.hdv.data() + off, sn, sn, dh, lower);
      softmax_backward(dP, P, sn, scale, lower);
      kernels::gemm_nn(dP, k.data() + off, w.hdq.data() + off, sn, sn, dh, S(1), lower);
      kernels::gemm_tn(dP, q.data() + off, w.hdk.data() + off, sn, sn, dh, lower);
    }
  if (ngpt) {  // hctx is free again: the raw dQ, then the raw dK, in it (and d loss / d s)
    const double c = ngpt_scale_factor(d);
    sphere_scale_backward(w.hctx.data(), param_grads ? dsqk.data() : nullptr, w.hdq.data(), q_raw_.data(),
                          q_rstd_.data(), sqk.data(), c, H, T, dh);
    merge_heads(w.dq.data(), w.hctx.data(), T, d, H);
    sphere_scale_backward(w.hctx.data(), param_grads ? dsqk.data() : nullptr, w.hdk.data(), k_raw_.data(),
                          k_rstd_.data(), sqk.data(), c, H, T, dh);
    merge_heads(w.dk.data(), w.hctx.data(), T, d, H);
  } else if (qk_norm != QkNorm::none) {  // hctx is free again: the raw dQ, then the raw dK, in it
    w.hctx.setZero();
    layernorm_backward(w.hctx.data(), param_grads ? dgq.data() : nullptr, static_cast<S*>(nullptr), w.hdq.data(),
                       q_raw_.data(), gq.data(), q_mean_.data(), q_rstd_.data(), H * T, dh);
    merge_heads(w.dq.data(), w.hctx.data(), T, d, H);
    w.hctx.setZero();
    layernorm_backward(w.hctx.data(), param_grads ? dgk.data() : nullptr, static_cast<S*>(nullptr), w.hdk.data(),
                       k_raw_.data(), gk.data(), k_mean_.data(), k_rstd_.data(), H * T, dh);
    merge_heads(w.dk.data(), w.hctx.data(), T, d, H);
  } else {
    merge_heads(w.dq.data(), w.hdq.data(), T, d, H);
    merge_heads(w.dk.data(), w.hdk.data(), T, d, H);
  }
  if (v_norm) {  // hctx is free: the raw dV in it
    w.hctx.setZero();
    layernorm_backward(w.hctx.data(), param_grads ? dgv.data() : nullptr, static_cast<S*>(nullptr), w.hdv.data(),
                       v_raw_.data(), gv.data(), v_mean_.data(), v_rstd_.data(), H * T, dh);
    merge_heads(w.dv.data(), w.hctx.data(), T, d, H);
  } else {
    merge_heads(w.dv.data(), w.hdv.data(), T, d, H);
  }
  kernels::gemm_nt(w.dq.data(), weights.base->Bq.data(), dx, T, d, d, weights.sq);
  kernels::gemm_nt(w.dk.data(), weights.base->Bk.data(), w.staging.data(), T, d, d, weights.sk);
  add_into(dx, w.staging.data(), n);
  kernels::gemm_nt(w.dv.data(), weights.base->Bv.data(), w.staging.data(), T, d, d, weights.sv);
  add_into(dx, w.staging.data(), n);
}

template <class S>
void Attention<S>::backward_input(S* dx, const S* dy, const S*) {
  input_grad(dx, dy, false);
}

// input_grad(), then the four weight-gradient norms; x's Gram is formed once
// for W_Q, W_K and W_V.
template <class S>
void Attention<S>::backward(S* dx, const S* dy, const S* x, bool materialize) {
  const int T = T_, d = d_;
  AttnScratch<S>& w = *scratch_;
  if (!train_) {  // the simulation's gradients are this backward's alone
    dgq.setZero();
    dgk.setZero();
    dgv.setZero();
    dsqk.setZero();
  }
  input_grad(dx, dy, true);
  if (!train_) {
    kernels::gram(x, w.gram.a.data(), T, d);
    wq_grad_sq = grad_sq_given(x, d, w.dq.data(), d, T, w.gram);
    wk_grad_sq = grad_sq_given(x, d, w.dk.data(), d, T, w.gram);
    wv_grad_sq = grad_sq_given(x, d, w.dv.data(), d, T, w.gram);
    wo_grad_sq = grad_sq(ctx.data(), d, dy, d, T, w.gram);
    if (!materialize) return;
    for (Mat<S>* m : {&dWq, &dWk, &dWv, &dWo}) m->setZero(d, d);
  }
  kernels::gemm_tn(x, w.dq.data(), dWq.data(), T, d, d);  // (d, d) += x^T dQ
  kernels::gemm_tn(x, w.dk.data(), dWk.data(), T, d, d);
  kernels::gemm_tn(x, w.dv.data(), dWv.data(), T, d, d);
  kernels::gemm_tn(ctx.data(), dy, dWo.data(), T, d, d);  // += ctx^T dy
}

template void softmax_forward(float*, int, bool, bool, int);
template void softmax_forward(double*, int, bool, bool, int);
template void softmax_backward(float*, const float*, int, float, bool);
template void softmax_backward(double*, const double*, int, double, bool);
template struct AttnScratch<float>;
template struct AttnScratch<double>;
template class Attention<float>;
template class Attention<double>;

}  // namespace resnorm
