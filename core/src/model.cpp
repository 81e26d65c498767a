// Forward and backward of a stack of wrapped sublayers, MLP and attention (see model.h).
#include "resnorm/model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "resnorm/kernels.h"

namespace resnorm {

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

template class Model<float>;
template class Model<double>;

}  // namespace resnorm
