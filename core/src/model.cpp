// Forward and backward of a stack of wrapped sublayers, MLP and attention (see model.h).
#include "resnorm/model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "resnorm/kernels.h"

namespace resnorm {

// ---------------------------------------------------------------- attention sublayer

template <class S>
void AttnScratch<S>::resize(int T, int d) {
  for (Mat<S>* m : {&dctx, &dq, &dk, &dv, &tmp}) m->resize(T, d);
  for (Vecx<S>* v : {&hctx, &hdq, &hdk, &hdv}) v->resize(static_cast<long>(T) * d);
  for (Mat<S>* m : {&dp, &pt}) m->resize(T, T);
  gram.resize(T, 2 * d);
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
// out (T, T) = a^T, a (T, T).
template <class S>
void transpose_square(S* out, const S* a, int T) {
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) out[static_cast<long>(j) * T + i] = a[static_cast<long>(i) * T + j];
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

}  // namespace

template <class S>
Attention<S>::Attention(int T, int d, int heads, bool causal_mask, std::shared_ptr<AttnScratch<S>> scratch)
    : causal(causal_mask), T_(T), d_(d), H_(heads), dh_(d / heads), scr_(std::move(scratch)) {
  const long n = static_cast<long>(T) * d;
  q.resize(n);
  k.resize(n);
  v.resize(n);
  att.resize(static_cast<long>(heads) * T * T);
  ctx.resize(T, d);
  if (!scr_) {
    scr_ = std::make_shared<AttnScratch<S>>();
    scr_->resize(T, d);
  }
}

template <class S>
void Attention<S>::set_weights(const AttnBase<S>* b, S q_scale, S k_scale, S v_scale, S o_scale) {
  base = b;
  sq = q_scale;
  sk = k_scale;
  sv = v_scale;
  so = o_scale;
}

// Q = sq x Bq, K = sk x Bk, V = sv x Bv (T,d), split into heads (H,T,dh);
// per head S = Q_h K_h^T / sqrt(dh) (T,T), P = softmax(S) (masked), ctx_h = P V_h (T,dh);
// y = so ctx Bo (T,d).
template <class S>
void Attention<S>::forward(S* y, const S* x) {
  const int T = T_, d = d_, H = H_, dh = dh_;
  AttnScratch<S>& w = *scr_;
  S* row = w.tmp.data();  // (T, d) staging for the head split
  kernels::gemm_nn(x, base->Bq.data(), row, T, d, d, sq);
  split_heads(q.data(), row, T, d, H);
  kernels::gemm_nn(x, base->Bk.data(), row, T, d, d, sk);
  split_heads(k.data(), row, T, d, H);
  kernels::gemm_nn(x, base->Bv.data(), row, T, d, d, sv);
  split_heads(v.data(), row, T, d, H);
  const S scale = S(1.0 / std::sqrt(double(dh)));
  for (int h = 0; h < H; ++h) {
    const long off = static_cast<long>(h) * T * dh;
    S* P = att.data() + static_cast<long>(h) * T * T;
    kernels::gemm_nt(q.data() + off, k.data() + off, P, T, dh, T, scale);  // scores (T,T)
    for (int i = 0; i < T; ++i) {
      S* p = P + static_cast<long>(i) * T;
      const int jn = causal ? i + 1 : T;  // masked j > i: exp(-inf) = 0
      S mx = p[0];
      for (int j = 1; j < jn; ++j) mx = p[j] > mx ? p[j] : mx;
      S sum = 0;
      for (int j = 0; j < jn; ++j) {
        p[j] = S(exp_nonpos(double(p[j] - mx)));
        sum += p[j];
      }
      for (int j = 0; j < jn; ++j) p[j] /= sum;
      for (int j = jn; j < T; ++j) p[j] = S(0);
    }
    kernels::gemm_nn(P, v.data() + off, w.hctx.data() + off, T, T, dh, S(1));  // (T,dh)
  }
  merge_heads(ctx.data(), w.hctx.data(), T, d, H);
  kernels::gemm_nn(ctx.data(), base->Bo.data(), y, T, d, d, so);
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
  AttnScratch<S>& w = *scr_;
  kernels::gemm_nt(dy, base->Bo.data(), w.dctx.data(), T, d, d, so);
  split_heads(w.hctx.data(), w.dctx.data(), T, d, H);
  const S scale = S(1.0 / std::sqrt(double(dh)));
  S* dP = w.dp.data();
  S* Pt = w.pt.data();
  for (int h = 0; h < H; ++h) {
    const long off = static_cast<long>(h) * T * dh;
    const S* P = att.data() + static_cast<long>(h) * T * T;
    const S* dc = w.hctx.data() + off;
    kernels::gemm_nt(dc, v.data() + off, dP, T, dh, T, S(1));
    transpose_square(Pt, P, T);
    kernels::gemm_nn(Pt, dc, w.hdv.data() + off, T, T, dh, S(1));
    for (int i = 0; i < T; ++i) {
      const S* p = P + static_cast<long>(i) * T;
      S* g = dP + static_cast<long>(i) * T;
      S dot = 0;
      for (int j = 0; j < T; ++j) dot += g[j] * p[j];
      for (int j = 0; j < T; ++j) g[j] = p[j] * (g[j] - dot) * scale;  // masked: p = 0, so 0
    }
    kernels::gemm_nn(dP, k.data() + off, w.hdq.data() + off, T, T, dh, S(1));
    transpose_square(Pt, dP, T);
    kernels::gemm_nn(Pt, q.data() + off, w.hdk.data() + off, T, T, dh, S(1));
  }
  merge_heads(w.dq.data(), w.hdq.data(), T, d, H);
  merge_heads(w.dk.data(), w.hdk.data(), T, d, H);
  merge_heads(w.dv.data(), w.hdv.data(), T, d, H);
  kernels::gemm_nt(w.dq.data(), base->Bq.data(), dx, T, d, d, sq);
  kernels::gemm_nt(w.dk.data(), base->Bk.data(), w.tmp.data(), T, d, d, sk);
  add_into(dx, w.tmp.data(), n);
  kernels::gemm_nt(w.dv.data(), base->Bv.data(), w.tmp.data(), T, d, d, sv);
  add_into(dx, w.tmp.data(), n);
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
  AttnScratch<S>& w = *scr_;
  input_grad(dx, dy);
  kernels::gram(x, w.gram.a.data(), T, d);
  wq_grad_sq = grad_sq_given(x, d, w.dq.data(), d, T, w.gram);
  wk_grad_sq = grad_sq_given(x, d, w.dk.data(), d, T, w.gram);
  wv_grad_sq = grad_sq_given(x, d, w.dv.data(), d, T, w.gram);
  wo_grad_sq = grad_sq(ctx.data(), d, dy, d, T, w.gram);

  if (materialize) {
    Eigen::Map<const Mat<S>> X(x, T, d), DY(dy, T, d);
    for (Mat<S>* m : {&dWq, &dWk, &dWv, &dWo}) m->resize(d, d);
    dWq.noalias() = X.transpose() * w.dq;
    dWk.noalias() = X.transpose() * w.dk;
    dWv.noalias() = X.transpose() * w.dv;
    dWo.noalias() = ctx.transpose() * DY;
  }
}

// ---------------------------------------------------------------- the stack

template <class S>
void Model<S>::configure(const Config& cfg, Arch arch, const WeightBank<S>& bank) {
  const int L = cfg.depth, T = cfg.tokens, d = cfg.width, m = cfg.hidden();
  const bool transformer = cfg.block == Block::transformer;
  const int P = cfg.sublayers_per_block();
  const int heads = transformer ? cfg.heads : 0;
  const bool resized =
      (L != L_ || T != T_ || d != d_ || m != m_ || cfg.block != block_ || heads != heads_ || units_.empty());
  const bool new_inputs = resized || cfg.seed != cfg_.seed;
  cfg_ = cfg;
  arch_ = arch;
  block_ = cfg.block;
  L_ = L;
  T_ = T;
  d_ = d;
  m_ = m;
  heads_ = heads;
  P_ = P;
  const Recipe rec = recipe(arch, L, P);
  if (resized) {
    units_.clear();
    units_.resize(static_cast<size_t>(L) * P);
    attn_scratch_.reset();
    if (transformer) {
      attn_scratch_ = std::make_shared<AttnScratch<S>>();
      attn_scratch_->resize(T, d);
    }
    for (int k = 0; k < L * P; ++k) {
      Unit<S>& u = units_[k];
      if (transformer && k % P == 0)
        u.f = std::make_unique<Attention<S>>(T, d, heads, cfg.causal, attn_scratch_);
      else
        u.f = std::make_unique<Mlp<S>>(T, d, m);
      u.x.resize(T, d);
      u.y.resize(T, d);
      u.u.resize(T, d);
      u.s.resize(T, d);
    }
    H_.resize(static_cast<long>(L * P + 1) * T * d);
    dH_.resize(static_cast<long>(L * P + 1) * T * d);
    out_.resize(T, d);
    ds_.resize(T, d);
    dy_.resize(T, d);
    dx_.resize(T, d);
    pg_[0].resize(T, d);
    pg_[1].resize(T, d);
  }
  if (new_inputs) {
    h0_ = input_stream(cfg.seed, T, d).cast<S>();
    r_ = readout(cfg.seed, T, d).cast<S>();
  }
  const WeightScales ws = weight_scales(cfg, rec.scale);
  for (int l = 1; l <= L; ++l)
    for (int j = 0; j < P; ++j) {
      Unit<S>& u = unit(l, j);
      u.wrap = rec.wrap;
      u.in.resize(rec.wrap.in, T, d);
      u.out.resize(rec.wrap.out, T, d);
      u.outer.resize(rec.wrap.outer, T, d);
      if (j == P - 1) {
        static_cast<Mlp<S>&>(*u.f).set_weights(&bank.layer(l), S(ws.w1), S(ws.w2), cfg.activation);
      } else {
        Attention<S>& a = static_cast<Attention<S>&>(*u.f);
        a.set_weights(&bank.attention_layer(l), S(ws.wq), S(ws.wk), S(ws.wv), S(ws.wo));
        a.causal = cfg.causal;
      }
    }
  final_.resize(cfg.final_norm, T, d);
  if (rec.profile_alpha) profile_admin_omegas(*this);
}

template <class S>
void Model<S>::forward_unit(Unit<S>& u, S* hout, const S* hin) {
  const int T = T_, d = d_;
  const long n = static_cast<long>(T) * d;
  const S* x = hin;
  if (u.in.kind != NormKind::none) {
    u.in.forward(u.x.data(), hin, T, d);
    x = u.x.data();
  }
  u.f->forward(u.y.data(), x);
  const S* branch = u.y.data();
  if (u.out.kind != NormKind::none) {
    u.out.forward(u.u.data(), u.y.data(), T, d);
    branch = u.u.data();
  }
  S* sum = (u.outer.kind != NormKind::none) ? u.s.data() : hout;
  const S alpha = S(u.wrap.alpha);
  if (u.wrap.skip)
    for (long i = 0; i < n; ++i) sum[i] = alpha * hin[i] + branch[i];
  else
    for (long i = 0; i < n; ++i) sum[i] = branch[i];
  if (u.outer.kind != NormKind::none) u.outer.forward(hout, sum, T, d);
  const double skip_scale = u.wrap.skip ? u.wrap.alpha : 1.0;
  const double num = std::sqrt(sq_norm(branch, n)), den = skip_scale * std::sqrt(sq_norm(hin, n));
  u.update_ratio = (num == 0 && den == 0) ? 0.0 : num / den;  // a zero update to a zero stream: 0
}

template <class S>
double Model<S>::loss_from_top() {
  const long n = static_cast<long>(T_) * d_;
  const S* top = h(L_);
  if (final_.kind != NormKind::none) {
    final_.forward(out_.data(), top, T_, d_);
    top = out_.data();
  }
  double loss = 0;
  for (long i = 0; i < n; ++i) loss += double(r_.data()[i]) * double(top[i]);
  return loss;
}

template <class S>
double Model<S>::forward() {
  forward_begin();
  for (int k = 1; k <= units(); ++k) forward_step(k);
  return forward_end();
}

template <class S>
void Model<S>::forward_begin() {
  std::copy(h0_.data(), h0_.data() + h0_.size(), stream(0));
}

template <class S>
void Model<S>::forward_step(int k) {
  forward_unit(units_[k - 1], stream(k), stream(k - 1));
}

template <class S>
double Model<S>::forward_end() {
  return loss_from_top();
}

template <class S>
double Model<S>::forward_from_unit(int k0, const S* hk) {
  std::copy(hk, hk + static_cast<long>(T_) * d_, stream(k0));
  for (int k = k0 + 1; k <= units(); ++k) forward_unit(units_[k - 1], stream(k), stream(k - 1));
  return loss_from_top();
}

template <class S>
double Model<S>::forward_from(int l0, const S* hl) {
  return forward_from_unit(l0 * P_, hl);
}

// dhin must be zero on entry; it receives the skip and the branch paths.
template <class S>
void Model<S>::backward_unit(Unit<S>& u, S* dhin, const S* dhout, const S* hin, bool materialize) {
  const int T = T_, d = d_;
  const long n = static_cast<long>(T) * d;
  const S* ds = dhout;
  if (u.outer.kind != NormKind::none) {
    ds_.setZero();
    u.outer.backward(ds_.data(), dhout, u.s.data(), T, d);
    ds = ds_.data();
  }
  if (u.wrap.skip) {
    const S alpha = S(u.wrap.alpha);
    for (long i = 0; i < n; ++i) dhin[i] += alpha * ds[i];
  }
  const S* dy = ds;  // du = ds
  if (u.out.kind != NormKind::none) {
    dy_.setZero();
    u.out.backward(dy_.data(), ds, u.y.data(), T, d);
    dy = dy_.data();
  }
  const S* x = (u.in.kind != NormKind::none) ? u.x.data() : hin;
  u.f->backward(dx_.data(), dy, x, materialize);
  if (u.in.kind != NormKind::none) {
    u.in.backward(dhin, dx_.data(), hin, T, d);
  } else {
    const S* dx = dx_.data();
    for (long i = 0; i < n; ++i) dhin[i] += dx[i];
  }
}

template <class S>
void Model<S>::backward(bool materialize) {
  backward_begin();
  for (int k = units(); k >= 1; --k) backward_step(k, materialize);
}

template <class S>
void Model<S>::backward_step(int k, bool materialize) {
  backward_unit(units_[k - 1], dstream(k - 1), dstream(k), stream(k - 1), materialize);
}

template <class S>
void Model<S>::backward_begin() {
  const long n = static_cast<long>(T_) * d_;
  dH_.setZero();
  final_.zero_grad();
  for (Unit<S>& u : units_) {
    u.in.zero_grad();
    u.out.zero_grad();
    u.outer.zero_grad();
  }
  if (final_.kind != NormKind::none)
    final_.backward(dh(L_), r_.data(), h(L_), T_, d_);
  else
    std::copy(r_.data(), r_.data() + n, dh(L_));
}

// ---------------------------------------------------------------- path expansion

// backward_unit() split in two: ds = J_outer^T dh_out is common to both routes;
// the skip route gives alpha ds, the branch route J_in^T J_f^T J_out^T ds, with
// the arithmetic of backward_unit() (whose dh_in is their sum).
template <class S>
double Model<S>::backward_path(const std::vector<char>& through_branch) {
  if (static_cast<int>(through_branch.size()) != units()) return std::numeric_limits<double>::quiet_NaN();
  const long n = static_cast<long>(T_) * d_;
  S* g = pg_[0].data();  // d loss / d (stream after unit k), along the path
  S* next = pg_[1].data();
  if (final_.kind != NormKind::none) {
    std::fill(g, g + n, S(0));
    final_.backward_input(g, r_.data(), h(L_), T_, d_);
  } else {
    std::copy(r_.data(), r_.data() + n, g);
  }
  for (int k = units(); k >= 1; --k) {
    Unit<S>& u = units_[k - 1];
    const S* hin = stream(k - 1);
    const S* ds = g;
    if (u.outer.kind != NormKind::none) {
      ds_.setZero();
      u.outer.backward_input(ds_.data(), g, u.s.data(), T_, d_);
      ds = ds_.data();
    }
    if (through_branch[k - 1]) {
      const S* dy = ds;
      if (u.out.kind != NormKind::none) {
        dy_.setZero();
        u.out.backward_input(dy_.data(), ds, u.y.data(), T_, d_);
        dy = dy_.data();
      }
      if (u.in.kind != NormKind::none) {
        u.f->backward_input(dx_.data(), dy, u.x.data());
        std::fill(next, next + n, S(0));
        u.in.backward_input(next, dx_.data(), hin, T_, d_);
      } else {
        u.f->backward_input(next, dy, hin);
      }
    } else if (!u.wrap.skip) {
      std::fill(next, next + n, S(0));  // no skip: this path does not exist
    } else if (ds == g && u.wrap.alpha == 1.0) {
      continue;  // the identity: g is already d loss / d h_in
    } else {
      const S alpha = S(u.wrap.alpha);
      for (long i = 0; i < n; ++i) next[i] = alpha * ds[i];
    }
    std::swap(g, next);
  }
  pg_in_ = g == pg_[0].data() ? 0 : 1;
  return std::sqrt(sq_norm(g, n));
}

template <class S>
ArchResult Model<S>::result() const {
  ArchResult r;
  r.arch = arch_;
  const long n = static_cast<long>(T_) * d_;
  const bool transformer = block_ == Block::transformer;
  r.grad_norm.resize(L_ + 1);
  r.stream_rms.resize(L_ + 1);
  r.update_ratio.resize(L_);
  r.w1_grad_norm.resize(L_);
  r.w2_grad_norm.resize(L_);
  if (transformer)
    for (std::vector<double>* v : {&r.attn_update_ratio, &r.mlp_update_ratio, &r.wq_grad_norm, &r.wk_grad_norm,
                                   &r.wv_grad_norm, &r.wo_grad_norm})
      v->resize(L_);
  for (int l = 0; l <= L_; ++l) {
    const long at = static_cast<long>(l) * P_ * n;  // block boundary l = unit boundary l P
    r.grad_norm[l] = std::sqrt(sq_norm(dH_.data() + at, n));
    r.stream_rms[l] = std::sqrt(sq_norm(H_.data() + at, n) / double(n));
  }
  for (int l = 1; l <= L_; ++l) {
    const Unit<S>& um = units_[(l - 1) * P_ + P_ - 1];  // the block's MLP unit
    const Mlp<S>& f = static_cast<const Mlp<S>&>(*um.f);
    r.w1_grad_norm[l - 1] = std::sqrt(f.w1_grad_sq);
    r.w2_grad_norm[l - 1] = std::sqrt(f.w2_grad_sq);
    if (!transformer) {
      r.update_ratio[l - 1] = um.update_ratio;
      continue;
    }
    const Unit<S>& ua = units_[(l - 1) * P_];
    const Attention<S>& a = static_cast<const Attention<S>&>(*ua.f);
    // See ArchResult: root-sum-square of the two units' ratios.
    r.update_ratio[l - 1] = std::sqrt(ua.update_ratio * ua.update_ratio + um.update_ratio * um.update_ratio);
    r.attn_update_ratio[l - 1] = ua.update_ratio;
    r.mlp_update_ratio[l - 1] = um.update_ratio;
    r.wq_grad_norm[l - 1] = std::sqrt(a.wq_grad_sq);
    r.wk_grad_norm[l - 1] = std::sqrt(a.wk_grad_sq);
    r.wv_grad_norm[l - 1] = std::sqrt(a.wv_grad_sq);
    r.wo_grad_norm[l - 1] = std::sqrt(a.wo_grad_sq);
  }
  for (int l = 0; l <= L_ && r.first_nonfinite < 0; ++l) {
    bool finite = std::isfinite(r.grad_norm[l]) && std::isfinite(r.stream_rms[l]);
    if (l >= 1) {
      finite = finite && std::isfinite(r.update_ratio[l - 1]) && std::isfinite(r.w1_grad_norm[l - 1]) &&
               std::isfinite(r.w2_grad_norm[l - 1]);
      if (transformer)
        for (const std::vector<double>* v : {&r.attn_update_ratio, &r.mlp_update_ratio, &r.wq_grad_norm,
                                             &r.wk_grad_norm, &r.wv_grad_norm, &r.wo_grad_norm})
          finite = finite && std::isfinite((*v)[l - 1]);
    }
    if (!finite) r.first_nonfinite = l;
  }
  return r;
}

template struct AttnScratch<float>;
template struct AttnScratch<double>;
template class Attention<float>;
template class Attention<double>;
template class Model<float>;
template class Model<double>;

}  // namespace resnorm
