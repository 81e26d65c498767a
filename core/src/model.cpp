// The stack: configure, the unit's forward next to its backward, and the step
// API the engine runs (see model.h).
#include "resnorm/model.h"

#include <algorithm>
#include <cmath>

namespace resnorm {
// gated = gate * b (b: ungated_output()): a scalar gate times every entry, a
// channel gate (d) times column i of b (T, d).
template <class S>
void Unit<S>::gate_forward(int T, int d) {
  const S* b = ungated_output();
  for (int t = 0; t < T; ++t) {
    const S* bt = b + static_cast<long>(t) * d;
    S* gt = gated.data() + static_cast<long>(t) * d;
    for (int i = 0; i < d; ++i) gt[i] = (wrap.gate == Gate::scalar ? gate(0) : gate(i)) * bt[i];
  }
}

// db = gate * dgated (written); with `grads` also dgate += the sum, over the
// entries each gate entry scales, of dgated * b, in double.
template <class S>
void Unit<S>::gate_backward(S* db, const S* dgated, int T, int d, bool grads) {
  const S* b = ungated_output();
  double scalar = 0;
  for (int i = 0; grads && wrap.gate == Gate::channel && i < d; ++i) {
    double sum = 0;
    for (int t = 0; t < T; ++t)
      sum += double(dgated[static_cast<long>(t) * d + i]) * double(b[static_cast<long>(t) * d + i]);
    dgate(i) += S(sum);
  }
  for (int t = 0; t < T; ++t) {
    const long at = static_cast<long>(t) * d;
    for (int i = 0; i < d; ++i) {
      db[at + i] = (wrap.gate == Gate::scalar ? gate(0) : gate(i)) * dgated[at + i];
      if (grads && wrap.gate == Gate::scalar) scalar += double(dgated[at + i]) * double(b[at + i]);
    }
  }
  if (grads && wrap.gate == Gate::scalar) dgate(0) += S(scalar);
}

// d loss / d Nin's output = in_scale * d loss / d normed_in, in place (n entries).
template <class S>
void Unit<S>::scale_in_gradient(S* dx, long n) const {
  if (wrap.in_scale == 1.0) return;
  const S c = S(wrap.in_scale);
  for (long i = 0; i < n; ++i) dx[i] *= c;
}

template struct Unit<float>;
template struct Unit<double>;

template <class S>
Capacity Model<S>::capacity_after(const Config& cfg) const {
  const bool transformer = cfg.block == Block::transformer;
  Capacity k = (cfg.block != block_ || units_.empty()) ? Capacity{} : capacity_;
  k.block = cfg.block;
  k.tokens = std::max(k.tokens, cfg.tokens);
  k.width = std::max(k.width, cfg.width);
  k.hidden = std::max(k.hidden, cfg.hidden());
  k.heads = transformer ? std::max(k.heads, cfg.heads) : 0;
  k.depth = std::max(k.depth, cfg.depth);
  return k;
}

template <class S>
void Model<S>::configure(const Config& cfg, Arch arch, const WeightBank<S>& bank, bool train, int segment) {
  const int L = cfg.depth, T = cfg.tokens, d = cfg.width, m = cfg.hidden();
  const bool transformer = cfg.block == Block::transformer;
  const int P = cfg.sublayers_per_block();
  const int heads = transformer ? cfg.heads : 0;
  // Another block kind, or training instead of simulating or back, starts
  // afresh. Otherwise the units kept from a deeper config are reused and new
  // ones added only past them, and every buffer is resized in the storage it
  // has (Workspace), so nothing is allocated within the capacity (the engine
  // drops the model to give it back).
  const bool afresh = cfg.block != block_ || train != train_ || units_.empty();
  const bool reshaped = afresh || T != T_ || d != d_ || m != m_ || heads != heads_;
  const bool new_inputs = reshaped || cfg.seed != cfg_.seed;
  capacity_ = capacity_after(cfg);
  cfg_ = cfg;
  arch_ = arch;
  block_ = cfg.block;
  depth_ = L;
  T_ = T;
  d_ = d;
  m_ = m;
  heads_ = heads;
  train_ = train;
  sublayers_per_block_ = P;
  const Recipe rec = recipe(arch, L, P, cfg.mix_fraction);
  if (afresh) {
    units_.clear();
    attn_scratch_.reset();
    if (transformer) attn_scratch_ = std::make_shared<AttnScratch<S>>();
  }
  if (transformer) attn_scratch_->resize(T, d, train, segment);
  for (Workspace<S>* buf :
       {&final_out_, &dsum_, &dbranch_raw_, &dbranch_in_, &dungated_, &path_grad_[0], &path_grad_[1]})
    buf->resize(T, d);
  n_units_ = L * P;
  if (n_units_ > static_cast<int>(units_.capacity())) units_.reserve(n_units_);
  for (int k = static_cast<int>(units_.size()); k < n_units_; ++k) {
    Unit<S>& u = units_.emplace_back();
    if (transformer && k % P == 0)
      u.f = std::make_unique<Attention<S>>(T, d, heads, cfg.causal, attn_scratch_, train, segment);
    else
      u.f = std::make_unique<Mlp<S>>(T, d, m, train);
  }
  const long stream_size = static_cast<long>(n_units_ + 1) * T * d;
  streams_.resize(stream_size);
  dstreams_.resize(stream_size);
  // Dense averaging: w_{l,l} = 1, every other weight 0 (the Pre-LN stack).
  dense_ = rec.dense_average;
  const long blocks_in_mix = dense_ ? static_cast<long>(L) * (L + 3) / 2 : 0;
  ys_.resize(dense_ ? static_cast<long>(L + 1) * T * d : 0);
  dys_.resize(ys_.size());
  mix_.resize(blocks_in_mix);
  dmix_.resize(blocks_in_mix);
  mix_.setZero();
  dmix_.setZero();
  for (int l = 1; dense_ && l <= L; ++l) mix_row(l)[l] = S(1);
  hyper_.configure(rec.hyper, cfg.hc_streams, cfg.sinkhorn_iters, n_units_, T, d);
  // Attention Residuals: queries 0, gains 1 (uniform weights); Full, or Block over attn_res_blocks.
  attn_res_on_ = rec.attn_res;
  attn_res_.resize(attn_res_on_ ? n_units_ : 0, T, d, cfg.attn_res_blocks);
  if (new_inputs) {
    input_ = input_stream(cfg.seed, T, d).cast<S>();
    readout_ = readout(cfg.seed, T, d).cast<S>();
  }
  const WeightScales ws = weight_scales(cfg, rec.scale);
  for (int l = 1; l <= L; ++l)
    for (int j = 0; j < P; ++j) {
      Unit<S>& u = unit(l, j);
      u.wrap = unit_wrapping(rec, l, transformer && j == 0);
      u.in.resize(u.wrap.in, T, d, cfg.dyt_alpha);
      u.out.resize(u.wrap.out, T, d, cfg.dyt_alpha);
      u.outer.resize(u.wrap.outer, T, d, cfg.dyt_alpha);
      for (Workspace<S>* cache : {&u.normed_in, &u.branch_raw, &u.branch, &u.sum}) cache->resize(T, d);
      const int gate_size = u.wrap.gate == Gate::scalar ? 1 : u.wrap.gate == Gate::channel ? d : 0;
      const bool sphere = u.wrap.sphere;
      u.gated.resize(gate_size || sphere ? T : 0, gate_size || sphere ? d : 0);
      // nGPT: alpha_s = 1 / sqrt(d) in every channel (alpha = ngpt_alpha), the row norms' caches.
      for (VecWorkspace<S>* v : {&u.alpha, &u.dalpha}) v->resize(sphere ? d : 0);
      for (VecWorkspace<S>* v : {&u.r_in, &u.r_branch, &u.r_sum}) v->resize(sphere ? T : 0);
      u.alpha_factor = sphere ? ngpt_alpha_factor(cfg.ngpt_alpha, d) : 0.0;
      std::fill(u.alpha.data(), u.alpha.data() + u.alpha.size(), S(ngpt_stored_init(d)));
      u.dalpha.setZero();
      u.gate.resize(gate_size);
      u.dgate.resize(gate_size);
      std::fill(u.gate.data(), u.gate.data() + gate_size, S(u.wrap.gate_init));
      u.dgate.setZero();
      if (j == P - 1) {
        Mlp<S>& f = static_cast<Mlp<S>&>(*u.f);
        f.reshape(T, d, m);
        f.weights = {&bank.layer(l), S(ws.w1), S(ws.w2)};
        f.activation = cfg.activation;
        f.set_ngpt(rec.ngpt);
      } else {
        Attention<S>& a = static_cast<Attention<S>&>(*u.f);
        a.reshape(T, d, heads, segment);
        a.weights = {&bank.attention_layer(l), S(ws.wq), S(ws.wk), S(ws.wv), S(ws.wo)};
        a.causal = cfg.causal;
        a.rows = rows_.get();
        // HybridNorm normalizes Q, K and V whatever qk_norm says, nGPT puts Q
        // and K on the sphere instead; others follow qk_norm.
        a.set_qk_norm(rec.qkv_norm ? QkNorm::layernorm : rec.ngpt ? QkNorm::none : cfg.qk_norm);
        a.set_v_norm(rec.qkv_norm);
        a.set_ngpt(rec.ngpt);
      }
    }
  final_.resize(cfg.final_norm, T, d, cfg.dyt_alpha);
  if (final_.bn) final_.bn->rows = rows_.get();
  if (rec.profile_alpha) profile_admin_omegas(*this);
}

template <class S>
void Model<S>::use_batchnorm() {
  auto to_bn = [this](Norm<S>& nm) {
    if (nm.kind == NormKind::none) return;
    nm.resize(NormKind::batchnorm, T_, d_);
    nm.bn->rows = rows_.get();
  };
  for (int k = 0; k < n_units_; ++k) {
    Unit<S>& u = units_[k];
    for (Norm<S>* nm : {&u.in, &u.out, &u.outer}) to_bn(*nm);
  }
  // Admin's omegas come from a forward through the norms the stack trains
  // with: profiled again through BatchNorm, with the profile input's own
  // batch statistics (train mode leaves the running statistics at init).
  if (recipe(arch_, depth_, sublayers_per_block_).profile_alpha) {
    const BnMode mode = rows_->mode;
    rows_->mode = BnMode::train;
    profile_admin_omegas(*this);
    rows_->mode = mode;
  }
}

// hin (T, d) -> hout (T, d) through the unit, filling its caches and its update ratio.
template <class S>
void Model<S>::forward_unit(Unit<S>& u, S* hout, const S* hin) {
  if (u.wrap.sphere) return forward_sphere(u, hout, hin);
  const int T = T_, d = d_;
  const long n = static_cast<long>(T) * d;
  const S* f_in = hin;
  if (u.in.kind != NormKind::none) {
    u.in.forward(u.normed_in.data(), hin, T, d);
    if (u.wrap.in_scale != 1.0) {
      const S c = S(u.wrap.in_scale);
      S* x = u.normed_in.data();
      for (long i = 0; i < n; ++i) x[i] *= c;
    }
    f_in = u.normed_in.data();
  }
  u.f->forward(u.branch_raw.data(), f_in);
  if (u.out.kind != NormKind::none) u.out.forward(u.branch.data(), u.branch_raw.data(), T, d);
  if (u.wrap.gate != Gate::none) u.gate_forward(T, d);
  const S* update = u.branch_output();
  S* sum = (u.outer.kind != NormKind::none) ? u.sum.data() : hout;
  const S alpha = S(u.wrap.alpha);
  const S* skip = u.skip_input(hin);
  if (u.wrap.skip)
    for (long i = 0; i < n; ++i) sum[i] = alpha * skip[i] + update[i];
  else
    for (long i = 0; i < n; ++i) sum[i] = update[i];
  if (u.outer.kind != NormKind::none) u.outer.forward(hout, sum, T, d);
  if (train_) return;
  const double skip_scale = u.wrap.skip ? u.wrap.alpha : 1.0;
  const double num = std::sqrt(sq_norm(update, n)), den = skip_scale * std::sqrt(sq_norm(skip, n));
  u.update_ratio = (num == 0 && den == 0) ? 0.0 : num / den;  // a zero update to a zero stream: 0
}

// dhin (T, d) += d loss / d hin from dhout = d loss / d hout, through the skip
// and the branch, in the reverse order of forward_unit(). dhin must be zero on
// entry (backward_begin() zeroes every stream gradient).
template <class S>
void Model<S>::backward_unit(Unit<S>& u, S* dhin, const S* dhout, const S* hin, bool materialize) {
  if (u.wrap.sphere) return backward_sphere(u, dhin, dhout, hin, materialize);
  const int T = T_, d = d_;
  const long n = static_cast<long>(T) * d;
  const S* dsum = dhout;
  if (u.outer.kind != NormKind::none) {
    dsum_.setZero();
    u.outer.backward(dsum_.data(), dhout, u.sum.data(), T, d);
    dsum = dsum_.data();
  }
  if (u.wrap.skip && !u.wrap.skip_normed) {
    const S alpha = S(u.wrap.alpha);
    for (long i = 0; i < n; ++i) dhin[i] += alpha * dsum[i];
  }
  const S* dungated = dsum;  // d loss / d (branch output) = d loss / d sum, before the gate
  if (u.wrap.gate != Gate::none) {
    u.gate_backward(dungated_.data(), dsum, T, d, true);
    dungated = dungated_.data();
  }
  const S* dbranch_raw = dungated;
  if (u.out.kind != NormKind::none) {
    dbranch_raw_.setZero();
    u.out.backward(dbranch_raw_.data(), dungated, u.branch_raw.data(), T, d);
    dbranch_raw = dbranch_raw_.data();
  }
  const S* f_in = (u.in.kind != NormKind::none) ? u.normed_in.data() : hin;
  u.f->backward(dbranch_in_.data(), dbranch_raw, f_in, materialize);
  if (u.wrap.skip &&
      u.wrap.skip_normed) {  // the skip's share of d loss / d normed_in, then through Nin with the branch's
    const S alpha = S(u.wrap.alpha);
    S* dx = dbranch_in_.data();
    for (long i = 0; i < n; ++i) dx[i] += alpha * dsum[i];
  }
  if (u.in.kind != NormKind::none) {
    u.scale_in_gradient(dbranch_in_.data(), n);
    u.in.backward(dhin, dbranch_in_.data(), hin, T, d);
  } else {
    const S* dx = dbranch_in_.data();
    for (long i = 0; i < n; ++i) dhin[i] += dx[i];
  }
}

// loss = <r, out>, out = FinalNorm(h_L) or h_L, summed in double.
template <class S>
double Model<S>::loss_from_top() {
  const long n = static_cast<long>(T_) * d_;
  const S* top = h(depth_);
  if (final_.kind != NormKind::none) {
    final_.forward(final_out_.data(), top, T_, d_);
    top = final_out_.data();
  }
  double loss = 0;
  for (long i = 0; i < n; ++i) loss += double(readout_.data()[i]) * double(top[i]);
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
  std::copy(input_.data(), input_.data() + input_.size(), stream(0));
  if (dense_) std::copy(input_.data(), input_.data() + input_.size(), y(0));
  if (hyper_on()) {
    hyper_.prepare();
    hyper_.begin(stream(0));
  }
  if (attn_res_on_) {
    std::copy(input_.data(), input_.data() + input_.size(), attn_res_.v(0));
    attn_res_.normalize(0);
  }
}

template <class S>
S* Model<S>::unit_output(int k) {
  if (attn_res_on_) return attn_res_.v(k);
  return dense_ && k % sublayers_per_block_ == 0 ? y(k / sublayers_per_block_) : stream(k);
}

template <class S>
void Model<S>::after_unit(int k) {
  if (dense_ && k % sublayers_per_block_ == 0) mix_forward(k / sublayers_per_block_);
  if (attn_res_on_) {
    attn_res_.normalize(k);
    attn_res_.forward(k, stream(k));
  }
}

template <class S>
void Model<S>::forward_step(int k) {
  if (hyper_on()) {
    // x_k from the streams, y_k = the unit's branch on it, H^k; stream(k) their mean.
    forward_unit(units_[k - 1], hyper_.y(k), hyper_.read(k));
    hyper_.write(k);
    hyper_.mean(k, stream(k));
    return;
  }
  forward_unit(units_[k - 1], unit_output(k), stream(k - 1));
  after_unit(k);
}

// With Attention Residuals the skipped unit's v_k is its input h_{k-1}.
template <class S>
void Model<S>::skip_step(int k) {
  const long n = static_cast<long>(T_) * d_;
  if (hyper_on()) {
    hyper_.skip(k);  // H^k = H^{k-1}
    std::copy(stream(k - 1), stream(k - 1) + n, stream(k));
    return;
  }
  std::copy(stream(k - 1), stream(k - 1) + n, unit_output(k));
  after_unit(k);
}

// x_l = sum_j w_{l,j} y_j over the terms of nonzero weight, in order of j; the
// first such term is w y_j itself (not 0 + w y_j), so w_{l,l} = 1 alone gives
// y_l bit for bit, signed zeros included.
template <class S>
void Model<S>::mix_forward(int l) {
  const long n = static_cast<long>(T_) * d_;
  const S* w = mix_row(l);
  S* x = h(l);
  bool first = true;
  for (int j = 0; j <= l; ++j) {
    if (w[j] == S(0)) continue;
    const S wj = w[j];
    const S* yj = y(j);
    if (first)
      for (long i = 0; i < n; ++i) x[i] = wj * yj[i];
    else
      for (long i = 0; i < n; ++i) x[i] += wj * yj[i];
    first = false;
  }
  if (first) std::fill(x, x + n, S(0));
}

// dx_l = dh(l) is complete here (block l + 1's backward has run). Every
// weight's gradient is computed, a zero weight's too; a zero weight passes
// nothing to its dy_j.
template <class S>
void Model<S>::mix_backward(int l) {
  const long n = static_cast<long>(T_) * d_;
  const S* dx = dh(l);
  const S* w = mix_row(l);
  S* dw = dmix_row(l);
  for (int j = 0; j <= l; ++j) {
    const S* yj = y(j);
    double dot = 0;
    for (long i = 0; i < n; ++i) dot += double(yj[i]) * double(dx[i]);
    dw[j] += S(dot);
    if (w[j] == S(0)) continue;
    const S wj = w[j];
    S* dyj = dys_.data() + static_cast<long>(j) * n;
    for (long i = 0; i < n; ++i) dyj[i] += wj * dx[i];
  }
}

template <class S>
std::vector<double> Model<S>::mix_matrix() const {
  if (!dense_) return {};
  const int L = depth_;
  std::vector<double> m(static_cast<size_t>(L) * (L + 1), 0.0);
  for (int l = 1; l <= L; ++l)
    for (int j = 0; j <= l; ++j) m[static_cast<size_t>(l - 1) * (L + 1) + j] = double(mix_.data()[mix_offset(l) + j]);
  return m;
}

template <class S>
double Model<S>::forward_end() {
  return loss_from_top();
}

template <class S>
double Model<S>::forward_from_unit(int k0, const S* hk) {
  std::copy(hk, hk + static_cast<long>(T_) * d_, stream(k0));
  if (dense_ && k0 == 0) std::copy(hk, hk + static_cast<long>(T_) * d_, y(0));  // y_0 = h_0
  if (hyper_on()) {  // at 0 every stream is h; above, every stream moves by h - their mean
    hyper_.prepare();
    if (k0 == 0)
      hyper_.set_all(0, hk);
    else
      hyper_.shift(k0, hk);
  }
  if (attn_res_on_ && k0 == 0) {  // v_0 = h_0
    std::copy(hk, hk + static_cast<long>(T_) * d_, attn_res_.v(0));
    attn_res_.normalize(0);
  }
  for (int k = k0 + 1; k <= units(); ++k) forward_step(k);
  return loss_from_top();
}

template <class S>
double Model<S>::forward_from(int l0, const S* hl) {
  return forward_from_unit(l0 * sublayers_per_block_, hl);
}

template <class S>
void Model<S>::backward(bool materialize) {
  backward_begin();
  for (int k = units(); k >= 1; --k) backward_step(k, materialize);
}

// Zeroes every stream gradient and (not for training) the norms' parameter
// gradients, then dh(L) = d loss / d h_L: r, or r through the final norm.
template <class S>
void Model<S>::backward_begin() {
  const long n = static_cast<long>(T_) * d_;
  dstreams_.setZero();
  dys_.setZero();
  attn_res_.zero_dv();
  if (!train_) {
    attn_res_.zero_grad();
    final_.zero_grad();
    for (int k = 0; k < n_units_; ++k) {
      Unit<S>& u = units_[k];
      u.in.zero_grad();
      u.out.zero_grad();
      u.outer.zero_grad();
      u.dgate.setZero();
      u.dalpha.setZero();
    }
    dmix_.setZero();
    hyper_.zero_grad();
  }
  if (final_.kind != NormKind::none)
    final_.backward(dh(depth_), readout_.data(), h(depth_), T_, d_);
  else
    std::copy(readout_.data(), readout_.data() + n, dh(depth_));
  if (hyper_on()) hyper_.backward_begin(dh(depth_));
}

template <class S>
void Model<S>::backward_step(int k, bool materialize) {
  const long n = static_cast<long>(T_) * d_;
  if (hyper_on()) {
    // dy_k and dH^{k-1} through the mix, the unit's backward to dx_k, then
    // dH^{k-1} through the read; dstream(k - 1) the sum over the streams.
    const S* dy = hyper_.backward_write(k);
    backward_unit(units_[k - 1], hyper_.dx(), dy, hyper_.x(k), materialize);
    hyper_.backward_read(k);
    hyper_.grad_sum(k - 1, dstream(k - 1));
    return;
  }
  const S* dout = dstream(k);
  if (dense_ && k % sublayers_per_block_ == 0) {
    const int l = k / sublayers_per_block_;
    mix_backward(l);
    dout = dys_.data() + static_cast<long>(l) * n;  // dy_l, complete now
  }
  if (attn_res_on_) {
    attn_res_.backward(k, dstream(k));
    dout = attn_res_.dv(k);  // dv_k, complete now
  }
  backward_unit(units_[k - 1], dstream(k - 1), dout, stream(k - 1), materialize);
  if (dense_ && k == 1) {
    S* dh0 = dstream(0);
    const S* dy0 = dys_.data();
    for (long i = 0; i < n; ++i) dh0[i] += dy0[i];  // dh_0 = dx_0 + dy_0
  }
  if (attn_res_on_ && k == 1) {
    S* dh0 = dstream(0);
    const S* dv0 = attn_res_.dv(0);
    for (long i = 0; i < n; ++i) dh0[i] += dv0[i];  // dh_0 = dstream(0) + dv_0
  }
}

template class Model<float>;
template class Model<double>;

}  // namespace resnorm
