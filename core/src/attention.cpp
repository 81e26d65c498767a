// The attention sublayer: softmax, head split and merge, forward next to
// backward (see attention.h).
#include "resnorm/attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "resnorm/kernels.h"
#include "resnorm/lanes.h"

namespace resnorm {

template <class S>
void AttnScratch<S>::resize(int T, int d, bool train) {
  for (Mat<S>* m : {&dctx, &dq, &dk, &dv, &staging}) m->resize(T, d);
  for (Vecx<S>* v : {&hctx, &hdq, &hdk, &hdv}) v->resize(static_cast<long>(T) * d);
  dscores.resize(T, T);
  if (!train) gram.resize(T, 2 * d);
}

namespace {

// (T, d) row-major <-> (H, T, dh) head-major: head h's columns h dh .. (h+1) dh - 1.
template <class S>
void split_heads(S* out, const S* in, int T, int d, int H) {
  const int dh = d / H;
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < T; ++t) {
      const S* src = in + static_cast<long>(t) * d + h * dh;
      std::copy(src, src + dh, out + (static_cast<long>(h) * T + t) * dh);
    }
}
template <class S>
void merge_heads(S* out, const S* in, int T, int d, int H) {
  const int dh = d / H;
  for (int h = 0; h < H; ++h)
    for (int t = 0; t < T; ++t) {
      const S* src = in + (static_cast<long>(h) * T + t) * dh;
      std::copy(src, src + dh, out + static_cast<long>(t) * d + h * dh);
    }
}
template <class S>
void add_into(S* y, const S* x, long n) {
  for (long i = 0; i < n; ++i) y[i] += x[i];
}

// exp(x) for x <= 0 (a softmax argument s - max s), from + - * floor and an
// exact power-of-two scale only, in double: the same bits natively and in
// WebAssembly. (libm's expf differs between glibc and Emscripten's musl in
// the last place, and a saturated softmax in a growing residual stream
// amplifies that to 1e-3; with this, relu and linear stacks stay bit-identical
// across the two, as the MLP-only ones are.) Cody-Waite reduction x = k ln2 + r,
// |r| <= ln2/2, then Taylor to r^13 (truncation < 4e-18 relative): accurate to a
// few ulp of double, so also smooth enough for the finite-difference tests.
// Below -708 the result (< 1e-307, against the row's max term exp(0) = 1) is 0.
inline double exp_nonpos(double x) {
  if (!(x >= -708.0)) return x != x ? x : 0.0;                                             // NaN propagates
  const double k = std::floor(x * 1.4426950408889634 + 0.5);                               // nearest integer to x / ln2
  const double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;  // ln2 = hi + lo
  double p = 1.0 / 6227020800.0;                                                           // 1/13!
  for (double c : {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0,
                   1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0})
    p = p * r + c;
  // 2^k for -1022 <= k <= 0, built from its exponent bits (exact).
  const uint64_t bits = static_cast<uint64_t>(static_cast<int64_t>(k) + 1023) << 52;
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// exp_nonpos() of both lanes, operation for operation, so each lane has the
// scalar's bits. floor(y) for |y| < 2^51 is r - (r > y) with r = (y + 1.5 2^52)
// - 1.5 2^52, y rounded to an integer; 2^k is (k + 1023 + 2^52)'s low mantissa
// bits shifted into the exponent.
inline kernels::Vec<double>::type exp_nonpos(kernels::Vec<double>::type x) {
  typedef kernels::Vec<double>::type V;
  using kernels::splat, lanes::bits, lanes::value;
  const V y = x * 1.4426950408889634 + 0.5;
  const V round = splat(0x1.8p52);
  V k = (y + round) - round;
  k -= value<double>((k > y) & bits<double>(splat(1.0)));
  const V r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
  V p = splat(1.0 / 6227020800.0);
  for (double c : {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0,
                   1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0})
    p = p * r + c;
  const V e = p * value<double>(bits<double>(k + (0x1p52 + 1023.0)) << 52);
  const lanes::Mask<double> in_range = x >= splat(-708.0);
  return lanes::select<double>(in_range, e, value<double>((x != x) & bits<double>(x)));
}

// p[j] = exp(p[j] - mx) for j < n: exp_nonpos() in double, two lanes at a
// time; for training in float, lanes.h's float exp, four at a time.
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
  int j = 0;
  for (; j + 2 <= n; j += 2) {
    const kernels::Vec<double>::type e =
        exp_nonpos(kernels::Vec<double>::type{double(p[j] - mx), double(p[j + 1] - mx)});
    p[j] = S(e[0]);
    p[j + 1] = S(e[1]);
  }
  if (j < n) p[j] = S(exp_nonpos(double(p[j] - mx)));
}

}  // namespace

template <class S>
void softmax_forward(S* P, int T, bool causal, bool train) {
  for (int i = 0; i < T; ++i) {
    S* p = P + static_cast<long>(i) * T;
    const int jn = causal ? i + 1 : T;  // masked j > i: exp(-inf) = 0
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
Attention<S>::Attention(int T, int d, int heads, bool causal_mask, std::shared_ptr<AttnScratch<S>> scratch, bool train)
    : causal(causal_mask), T_(T), d_(d), H_(heads), dh_(d / heads), train_(train), scratch_(std::move(scratch)) {
  const long n = static_cast<long>(T) * d;
  q.resize(n);
  k.resize(n);
  v.resize(n);
  att.resize(static_cast<long>(heads) * T * T);
  ctx.resize(T, d);
  if (train)
    for (Mat<S>* m : {&dWq, &dWk, &dWv, &dWo}) *m = Mat<S>::Zero(d, d);
  if (!scratch_) {
    scratch_ = std::make_shared<AttnScratch<S>>();
    scratch_->resize(T, d, train);
  }
}

// Q = sq x Bq, K = sk x Bk, V = sv x Bv (T,d), split into heads (H,T,dh);
// per head S = Q_h K_h^T / sqrt(dh) (T,T), P = softmax(S) (masked), ctx_h = P V_h (T,dh);
// y = so ctx Bo (T,d).
template <class S>
void Attention<S>::forward(S* y, const S* x) {
  const int T = T_, d = d_, H = H_, dh = dh_;
  AttnScratch<S>& w = *scratch_;
  S* row = w.staging.data();  // (T, d) staging for the head split
  kernels::gemm_nn(x, weights.base->Bq.data(), row, T, d, d, weights.sq);
  split_heads(q.data(), row, T, d, H);
  kernels::gemm_nn(x, weights.base->Bk.data(), row, T, d, d, weights.sk);
  split_heads(k.data(), row, T, d, H);
  kernels::gemm_nn(x, weights.base->Bv.data(), row, T, d, d, weights.sv);
  split_heads(v.data(), row, T, d, H);
  const S scale = S(1.0 / std::sqrt(double(dh)));
  const bool lower = train_ && causal;  // training leaves out the masked zeros (kernels.h)
  for (int h = 0; h < H; ++h) {
    const long off = static_cast<long>(h) * T * dh;
    S* P = att.data() + static_cast<long>(h) * T * T;
    // scores (T,T); causal: the masked ones are not computed (softmax_forward does not read them)
    kernels::gemm_nt(q.data() + off, k.data() + off, P, T, dh, T, scale, causal);
    softmax_forward(P, T, causal, train_);
    kernels::gemm_nn(P, v.data() + off, w.hctx.data() + off, T, T, dh, S(1), lower);  // (T,dh)
  }
  merge_heads(ctx.data(), w.hctx.data(), T, d, H);
  kernels::gemm_nn(ctx.data(), weights.base->Bo.data(), y, T, d, d, weights.so);
}

// dctx = so dy Bo^T (T,d); per head, with dctx_h (T,dh):
//   dP = dctx_h V_h^T (T,T);  dV_h = P^T dctx_h;  dS = P * (dP - rowsum(dP * P)) / sqrt(dh);
//   dQ_h = dS K_h;  dK_h = dS^T Q_h   (T,dh)
// dx = sq dQ Bq^T + sk dK Bk^T + sv dV Bv^T (T,d).
// ||dW_O||^2 = <ctx ctx^T, dy dy^T>, ||dW_Q||^2 = <x x^T, dQ dQ^T> (likewise K, V).
template <class S>
void Attention<S>::input_grad(S* dx, const S* dy) {
  const int T = T_, d = d_, H = H_, dh = dh_;
  const long n = static_cast<long>(T) * d;
  AttnScratch<S>& w = *scratch_;
  kernels::gemm_nt(dy, weights.base->Bo.data(), w.dctx.data(), T, d, d, weights.so);
  split_heads(w.hctx.data(), w.dctx.data(), T, d, H);
  const S scale = S(1.0 / std::sqrt(double(dh)));
  const bool lower = train_ && causal;  // training leaves out the masked zeros (kernels.h)
  S* dP = w.dscores.data();
  // dV and dK are P^T dctx and dS^T Q, summed into zeroed buffers (gemm_tn from 0 is A^T B).
  w.hdv.setZero();
  w.hdk.setZero();
  for (int h = 0; h < H; ++h) {
    const long off = static_cast<long>(h) * T * dh;
    const S* P = att.data() + static_cast<long>(h) * T * T;
    const S* dc = w.hctx.data() + off;
    kernels::gemm_nt(dc, v.data() + off, dP, T, dh, T, S(1), lower);
    kernels::gemm_tn(P, dc, w.hdv.data() + off, T, T, dh, lower);
    softmax_backward(dP, P, T, scale, lower);
    kernels::gemm_nn(dP, k.data() + off, w.hdq.data() + off, T, T, dh, S(1), lower);
    kernels::gemm_tn(dP, q.data() + off, w.hdk.data() + off, T, T, dh, lower);
  }
  merge_heads(w.dq.data(), w.hdq.data(), T, d, H);
  merge_heads(w.dk.data(), w.hdk.data(), T, d, H);
  merge_heads(w.dv.data(), w.hdv.data(), T, d, H);
  kernels::gemm_nt(w.dq.data(), weights.base->Bq.data(), dx, T, d, d, weights.sq);
  kernels::gemm_nt(w.dk.data(), weights.base->Bk.data(), w.staging.data(), T, d, d, weights.sk);
  add_into(dx, w.staging.data(), n);
  kernels::gemm_nt(w.dv.data(), weights.base->Bv.data(), w.staging.data(), T, d, d, weights.sv);
  add_into(dx, w.staging.data(), n);
}

template <class S>
void Attention<S>::backward_input(S* dx, const S* dy, const S*) {
  input_grad(dx, dy);
}

// input_grad(), then the four weight-gradient norms; x's Gram is formed once
// for W_Q, W_K and W_V.
template <class S>
void Attention<S>::backward(S* dx, const S* dy, const S* x, bool materialize) {
  const int T = T_, d = d_;
  AttnScratch<S>& w = *scratch_;
  input_grad(dx, dy);
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

template void softmax_forward(float*, int, bool, bool);
template void softmax_forward(double*, int, bool, bool);
template void softmax_backward(float*, const float*, int, float, bool);
template void softmax_backward(double*, const double*, int, double, bool);
template struct AttnScratch<float>;
template struct AttnScratch<double>;
template class Attention<float>;
template class Attention<double>;

}  // namespace resnorm
