// Forward and backward of a stack of wrapped MLP sublayers (see model.h).
#include "resnorm/model.h"

#include <Eigen/QR>
#include <cmath>

#include "resnorm/kernels.h"
#include "resnorm/norms.h"
#include "resnorm/rng.h"

namespace resnorm {

// ---------------------------------------------------------------- presets

Recipe recipe(Arch arch, int N) {
  Recipe r;
  Wrapping& w = r.wrap;
  switch (arch) {
    case Arch::plain: w.skip = false; break;
    case Arch::residual: break;
    case Arch::post_ln: w.outer = NormKind::layernorm; break;
    case Arch::post_rms: w.outer = NormKind::rmsnorm; break;
    case Arch::pre_ln: w.in = NormKind::layernorm; break;
    case Arch::pre_rms: w.in = NormKind::rmsnorm; break;
    case Arch::sandwich:
      w.in = NormKind::rmsnorm;
      w.out = NormKind::rmsnorm;
      break;
    case Arch::deepnorm:
      w.outer = NormKind::layernorm;
      w.alpha = std::pow(2.0 * N, 0.25);
      r.scale.w1 = r.scale.w2 = std::pow(8.0 * N, -0.25);
      break;
    case Arch::gpt2:
      w.in = NormKind::layernorm;
      r.scale.w2 = 1.0 / std::sqrt(double(N));
      break;
  }
  return r;
}

// ---------------------------------------------------------------- random tensors

Mat<double> gaussian_matrix(uint64_t key, int rows, int cols) {
  NormalRng rng(key);
  Mat<double> m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = rng.normal();
  return m;
}

Mat<double> orthogonal_matrix(uint64_t key, int rows, int cols) {
  const int big = std::max(rows, cols), small = std::min(rows, cols);
  Eigen::MatrixXd g = gaussian_matrix(key, big, small);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(big, small);  // (big, small)
  // Sign convention of R's diagonal, so Q is unique for a given G.
  for (int j = 0; j < small; ++j)
    if (qr.matrixQR()(j, j) < 0) q.col(j) = -q.col(j);
  const double scale = std::sqrt(double(rows) * cols / small);
  Mat<double> w(rows, cols);
  if (rows >= cols) w = scale * q;
  else w = scale * q.transpose();
  return w;
}

Mat<double> input_stream(uint32_t seed, int T, int d) {
  return gaussian_matrix(stream_key({seed, uint64_t(Stream::input), uint64_t(T), uint64_t(d)}), T, d);
}

Mat<double> readout(uint32_t seed, int T, int d) {
  Mat<double> z = gaussian_matrix(stream_key({seed, uint64_t(Stream::readout), uint64_t(T), uint64_t(d)}), T, d);
  return z / z.norm();
}

template <class S>
void WeightBank<S>::prepare(uint32_t seed, int d, int m, Init init, int depth) {
  if (seed != seed_ || d != d_ || m != m_ || init != init_) {
    layers_.clear();
    seed_ = seed;
    d_ = d;
    m_ = m;
    init_ = init;
  }
  while (static_cast<int>(layers_.size()) < depth) {
    const uint64_t l = layers_.size() + 1;
    const uint64_t k1 = stream_key({seed, uint64_t(Stream::w1), l, uint64_t(d), uint64_t(m), uint64_t(init)});
    const uint64_t k2 = stream_key({seed, uint64_t(Stream::w2), l, uint64_t(d), uint64_t(m), uint64_t(init)});
    MlpBase<S> b;
    if (init == Init::gaussian) {
      b.B1 = gaussian_matrix(k1, d, m).cast<S>();
      b.B2 = gaussian_matrix(k2, m, d).cast<S>();
    } else {
      b.B1 = orthogonal_matrix(k1, d, m).cast<S>();
      b.B2 = orthogonal_matrix(k2, m, d).cast<S>();
    }
    layers_.push_back(std::move(b));
  }
}

// ---------------------------------------------------------------- norms

template <class S>
void Norm<S>::resize(NormKind k, int T, int d) {
  kind = k;
  if (k == NormKind::none) return;
  gamma = Vecx<S>::Ones(d);
  beta = Vecx<S>::Zero(d);
  dgamma = Vecx<S>::Zero(d);
  dbeta = Vecx<S>::Zero(d);
  mean.resize(T);
  rstd.resize(T);
}

template <class S>
void Norm<S>::forward(S* y, const S* x, int T, int d) {
  if (kind == NormKind::layernorm)
    layernorm_forward(y, mean.data(), rstd.data(), x, gamma.data(), beta.data(), T, d);
  else
    rmsnorm_forward(y, rstd.data(), x, gamma.data(), T, d);
}

template <class S>
void Norm<S>::backward(S* dx, const S* dy, const S* x, int T, int d) {
  if (kind == NormKind::layernorm)
    layernorm_backward(dx, dgamma.data(), dbeta.data(), dy, x, gamma.data(), mean.data(), rstd.data(), T, d);
  else
    rmsnorm_backward(dx, dgamma.data(), dy, x, gamma.data(), rstd.data(), T, d);
}

template <class S>
void Norm<S>::zero_grad() {
  if (kind == NormKind::none) return;
  dgamma.setZero();
  dbeta.setZero();
}

// ---------------------------------------------------------------- MLP sublayer

namespace {

template <class S>
inline S gelu(S x) {
  return S(0.5) * x * (S(1) + std::erf(x * S(0.70710678118654752440)));
}
template <class S>
inline S gelu_grad(S x) {
  const S cdf = S(0.5) * (S(1) + std::erf(x * S(0.70710678118654752440)));
  const S pdf = S(0.39894228040143267794) * std::exp(S(-0.5) * x * x);
  return cdf + x * pdf;
}

// sum_ij A_ij B_ij in double.
template <class S>
double frob_dot(const Mat<S>& a, const Mat<S>& b) {
  double s = 0;
  const S* pa = a.data();
  const S* pb = b.data();
  for (long i = 0; i < a.size(); ++i) s += double(pa[i]) * double(pb[i]);
  return s;
}

template <class S>
double sq_norm(const S* x, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += double(x[i]) * double(x[i]);
  return s;
}

}  // namespace

template <class S>
Mlp<S>::Mlp(int T, int d, int m) : T_(T), d_(d), m_(m) {
  p.resize(T, m);
  a.resize(T, m);
  dp.resize(T, m);
  gram_in.resize(T, T);
  gram_out.resize(T, T);
}

template <class S>
void Mlp<S>::set_weights(const MlpBase<S>* b, S w1_scale, S w2_scale, Activation activation) {
  base = b;
  s1 = w1_scale;
  s2 = w2_scale;
  act = activation;
}

// p = s1 x B1 (T,m);  a = phi(p);  y = s2 a B2 (T,d)
template <class S>
void Mlp<S>::forward(S* y, const S* x) {
  kernels::gemm_nn(x, base->B1.data(), p.data(), T_, d_, m_, s1);
  const long n = static_cast<long>(T_) * m_;
  const S* pp = p.data();
  S* pa = a.data();
  switch (act) {
    case Activation::relu:
      for (long i = 0; i < n; ++i) pa[i] = pp[i] > S(0) ? pp[i] : S(0);
      break;
    case Activation::gelu:
      for (long i = 0; i < n; ++i) pa[i] = gelu(pp[i]);
      break;
    case Activation::tanh:
      for (long i = 0; i < n; ++i) pa[i] = std::tanh(pp[i]);
      break;
    case Activation::linear:
      for (long i = 0; i < n; ++i) pa[i] = pp[i];
      break;
  }
  kernels::gemm_nn(pa, base->B2.data(), y, T_, m_, d_, s2);
}

// da = s2 dy B2^T;  dp = da * phi'(p);  dx = s1 dp B1^T.
// ||dW2||_F^2 = <a a^T, dy dy^T>, ||dW1||_F^2 = <x x^T, dp dp^T>: (T,T) Gram
// matrices instead of the (m,d) gradients themselves.
template <class S>
void Mlp<S>::backward(S* dx, const S* dy, const S* x, bool materialize) {
  kernels::gemm_nt(dy, base->B2.data(), dp.data(), T_, d_, m_, s2);
  const long n = static_cast<long>(T_) * m_;
  const S* pp = p.data();
  const S* pa = a.data();
  S* g = dp.data();
  switch (act) {
    case Activation::relu:
      for (long i = 0; i < n; ++i) g[i] = pp[i] > S(0) ? g[i] : S(0);
      break;
    case Activation::gelu:
      for (long i = 0; i < n; ++i) g[i] *= gelu_grad(pp[i]);
      break;
    case Activation::tanh:
      for (long i = 0; i < n; ++i) g[i] *= S(1) - pa[i] * pa[i];
      break;
    case Activation::linear:
      break;
  }
  kernels::gemm_nt(g, base->B1.data(), dx, T_, m_, d_, s1);

  kernels::gemm_nt(pa, pa, gram_in.data(), T_, m_, T_, S(1));
  kernels::gemm_nt(dy, dy, gram_out.data(), T_, d_, T_, S(1));
  w2_grad_sq = frob_dot(gram_in, gram_out);
  kernels::gemm_nt(x, x, gram_in.data(), T_, d_, T_, S(1));
  kernels::gemm_nt(g, g, gram_out.data(), T_, m_, T_, S(1));
  w1_grad_sq = frob_dot(gram_in, gram_out);

  if (materialize) {
    Eigen::Map<const Mat<S>> X(x, T_, d_), DY(dy, T_, d_);
    dW1.resize(d_, m_);
    dW2.resize(m_, d_);
    dW1.noalias() = X.transpose() * dp;
    dW2.noalias() = a.transpose() * DY;
  }
}

// ---------------------------------------------------------------- the stack

template <class S>
void Model<S>::configure(const Config& cfg, Arch arch, const WeightBank<S>& bank) {
  const int L = cfg.depth, T = cfg.tokens, d = cfg.width, m = cfg.hidden();
  const bool resized = (L != L_ || T != T_ || d != d_ || m != m_);
  const bool new_inputs = resized || cfg.seed != cfg_.seed || units_.empty();
  cfg_ = cfg;
  arch_ = arch;
  L_ = L;
  T_ = T;
  d_ = d;
  m_ = m;
  const Recipe rec = recipe(arch, L);
  if (resized) {
    units_.clear();
    units_.resize(L);
    for (Unit<S>& u : units_) {
      u.f = std::make_unique<Mlp<S>>(T, d, m);
      u.x.resize(T, d);
      u.y.resize(T, d);
      u.u.resize(T, d);
      u.s.resize(T, d);
    }
    H_.resize(static_cast<long>(L + 1) * T * d);
    dH_.resize(static_cast<long>(L + 1) * T * d);
    out_.resize(T, d);
    ds_.resize(T, d);
    dy_.resize(T, d);
    dx_.resize(T, d);
  }
  if (new_inputs) {
    h0_ = input_stream(cfg.seed, T, d).cast<S>();
    r_ = readout(cfg.seed, T, d).cast<S>();
  }
  const double c = (cfg.activation == Activation::relu || cfg.activation == Activation::gelu) ? 2.0 : 1.0;
  const S s1 = S(std::sqrt(c / d) * rec.scale.w1);
  const S s2 = S(cfg.gain / std::sqrt(double(m)) * rec.scale.w2);
  for (int l = 1; l <= L; ++l) {
    Unit<S>& u = units_[l - 1];
    u.wrap = rec.wrap;
    u.in.resize(rec.wrap.in, T, d);
    u.out.resize(rec.wrap.out, T, d);
    u.outer.resize(rec.wrap.outer, T, d);
    static_cast<Mlp<S>&>(*u.f).set_weights(&bank.layer(l), s1, s2, cfg.activation);
  }
  final_.resize(cfg.final_norm, T, d);
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
  std::copy(h0_.data(), h0_.data() + h0_.size(), h(0));
  for (int l = 1; l <= L_; ++l) forward_unit(units_[l - 1], h(l), h(l - 1));
  return loss_from_top();
}

template <class S>
double Model<S>::forward_from(int l0, const S* hl) {
  std::copy(hl, hl + static_cast<long>(T_) * d_, h(l0));
  for (int l = l0 + 1; l <= L_; ++l) forward_unit(units_[l - 1], h(l), h(l - 1));
  return loss_from_top();
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
  for (int l = L_; l >= 1; --l) backward_unit(units_[l - 1], dh(l - 1), dh(l), h(l - 1), materialize);
}

template <class S>
ArchResult Model<S>::result() const {
  ArchResult r;
  r.arch = arch_;
  const long n = static_cast<long>(T_) * d_;
  r.grad_norm.resize(L_ + 1);
  r.stream_rms.resize(L_ + 1);
  r.update_ratio.resize(L_);
  r.w1_grad_norm.resize(L_);
  r.w2_grad_norm.resize(L_);
  for (int l = 0; l <= L_; ++l) {
    r.grad_norm[l] = std::sqrt(sq_norm(dH_.data() + l * n, n));
    r.stream_rms[l] = std::sqrt(sq_norm(H_.data() + l * n, n) / double(n));
  }
  for (int l = 1; l <= L_; ++l) {
    const Unit<S>& u = units_[l - 1];
    const Mlp<S>& f = static_cast<const Mlp<S>&>(*u.f);
    r.update_ratio[l - 1] = u.update_ratio;
    r.w1_grad_norm[l - 1] = std::sqrt(f.w1_grad_sq);
    r.w2_grad_norm[l - 1] = std::sqrt(f.w2_grad_sq);
  }
  for (int l = 0; l <= L_ && r.first_nonfinite < 0; ++l) {
    bool finite = std::isfinite(r.grad_norm[l]) && std::isfinite(r.stream_rms[l]);
    if (l >= 1)
      finite = finite && std::isfinite(r.update_ratio[l - 1]) && std::isfinite(r.w1_grad_norm[l - 1]) &&
               std::isfinite(r.w2_grad_norm[l - 1]);
    if (!finite) r.first_nonfinite = l;
  }
  return r;
}

template struct Norm<float>;
template struct Norm<double>;
template class Mlp<float>;
template class Mlp<double>;
template class WeightBank<float>;
template class WeightBank<double>;
template class Model<float>;
template class Model<double>;

}  // namespace resnorm
