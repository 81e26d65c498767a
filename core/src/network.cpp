// The model a training run trains: embedding, the stack, the head, forward
// next to backward (see network.h).
#include "resnorm/network.h"

#include <algorithm>
#include <cmath>

#include "resnorm/kernels.h"
#include "resnorm/rng.h"

namespace resnorm {
namespace {

// Every tensor of the stack in one fixed order, block by block (attention's
// W_Q, W_K, W_V, W_O, QK-norm's gamma_q and gamma_k, HybridNorm's gamma_v, then W1, W2, then each unit's norms and
// gate, then the block's averaging weights, or its units' Attention Residuals queries and gains), then the final
// norm: fn(name, values, gradient, size, block, matrix); Hyper-Connections' weights with each unit's. The gradients
// are the training stack's own: the sublayers' dW, the norms' dgamma, dbeta (and DyT's dalpha), the gates' dgate,
// the dmix rows.
template <class S, class Fn>
void for_each_stack_tensor(Model<S>& m, Fn fn) {
  const int L = m.depth(), P = m.sublayers_per_block();
  auto norms = [&](Norm<S>& nm, const std::string& where, int block) {
    if (nm.kind == NormKind::none) return;
    fn("gamma." + where, nm.gamma.data(), nm.dgamma.data(), nm.gamma.size(), block, false);
    if (nm.kind == NormKind::layernorm || nm.kind == NormKind::batchnorm || nm.kind == NormKind::dyt)
      fn("beta." + where, nm.beta.data(), nm.dbeta.data(), nm.beta.size(), block, false);
    // DyT's alpha, like gamma and beta no matrix: no weight decay.
    if (nm.kind == NormKind::dyt) fn("alpha." + where, nm.alpha.data(), nm.dalpha.data(), 1, block, false);
  };
  for (int l = 1; l <= L; ++l) {
    const std::string at = "[" + std::to_string(l) + "]";
    if (P == 2) {
      Attention<S>& a = m.attention(l);
      auto& base = const_cast<AttnBase<S>&>(*a.weights.base);
      fn("W_Q" + at, base.Bq.data(), a.dWq.data(), base.Bq.size(), l, true);
      fn("W_K" + at, base.Bk.data(), a.dWk.data(), base.Bk.size(), l, true);
      fn("W_V" + at, base.Bv.data(), a.dWv.data(), base.Bv.size(), l, true);
      fn("W_O" + at, base.Bo.data(), a.dWo.data(), base.Bo.size(), l, true);
      // QK-norm's gains, like a norm's gamma no matrix: no weight decay.
      if (a.qk_norm != QkNorm::none) {
        fn("gamma_q" + at, a.gq.data(), a.dgq.data(), a.gq.size(), l, false);
        fn("gamma_k" + at, a.gk.data(), a.dgk.data(), a.gk.size(), l, false);
      }
      if (a.v_norm) fn("gamma_v" + at, a.gv.data(), a.dgv.data(), a.gv.size(), l, false);  // HybridNorm's V norm
      if (a.ngpt) fn("s_qk" + at, a.sqk.data(), a.dsqk.data(), a.sqk.size(), l, false);    // nGPT's, no matrix
    }
    Mlp<S>& f = m.mlp(l);
    auto& base = const_cast<MlpBase<S>&>(*f.weights.base);
    fn("W1" + at, base.B1.data(), f.dW1.data(), base.B1.size(), l, true);
    fn("W2" + at, base.B2.data(), f.dW2.data(), base.B2.size(), l, true);
    if (f.sv.size() > 0) fn("s_v" + at, f.sv.data(), f.dsv.data(), f.sv.size(), l, false);  // nGPT's, no matrix
    for (int j = 0; j < P; ++j) {
      Unit<S>& u = m.unit(l, j);
      const std::string unit = "[unit " + std::to_string((l - 1) * P + j + 1) + "]";
      norms(u.in, "in" + unit, l);
      norms(u.out, "out" + unit, l);
      norms(u.outer, "outer" + unit, l);
      if (u.wrap.gate != Gate::none) fn("gate" + unit, u.gate.data(), u.dgate.data(), u.gate.size(), l, false);
      // nGPT's alpha_s (d), no matrix: no weight decay.
      if (u.wrap.sphere) fn("ngpt_alpha" + unit, u.alpha.data(), u.dalpha.data(), u.alpha.size(), l, false);
      // Hyper-Connections' read, mix and write weights of the unit (mHC: their
      // logits), no matrices: no weight decay, as for gamma and beta.
      if (m.hyper_on()) {
        Hyper<S>& hc = m.hyper();
        const int k = (l - 1) * P + j + 1, n = hc.n();
        const bool mhc = hc.kind() == HyperKind::mhc;
        fn((mhc ? "mhc_pre" : "hc_read") + unit, hc.read_param(k), hc.dread_param(k), n, l, false);
        fn((mhc ? "mhc_res" : "hc_mix") + unit, hc.res_param(k), hc.dres_param(k), long(n) * n, l, false);
        fn((mhc ? "mhc_post" : "hc_write") + unit, hc.write_param(k), hc.dwrite_param(k), n, l, false);
      }
    }
    // w_{l,0..l}: how block l's stream averages h_0 and the outputs of blocks 1..l.
    if (m.dense()) fn("dwa" + at, m.mix_row(l), m.dmix_row(l), l + 1, l, false);
    // Attention Residuals: each unit's query w_k and key gain g_k, no matrix: no weight decay.
    for (int j = 0; m.has_attn_res() && j < P; ++j) {
      const int k = (l - 1) * P + j + 1;
      const std::string unit = "[unit " + std::to_string(k) + "]";
      AttnRes<S>& ar = m.attn_res();
      fn("attn_res.query" + unit, ar.query(k), ar.dquery(k), m.d(), l, false);
      fn("attn_res.gain" + unit, ar.gain(k), ar.dgain(k), m.d(), l, false);
    }
  }
  norms(m.final_norm(), "final", L + 1);
}

// nGPT: which vectors of a parameter lie along the embedding dimension (ngpt.h),
// by its name: the columns of W_Q, W_K, W_V, W1 and U, the rows of W_O, W2,
// the embedding and the positions; none for the rest.
UnitAxis sphere_axis(const std::string& name) {
  auto starts = [&name](const char* p) { return name.rfind(p, 0) == 0; };
  if (starts("W_Q[") || starts("W_K[") || starts("W_V[") || starts("W1[") || name == "unembedding")
    return UnitAxis::cols;
  if (starts("W_O[") || starts("W2[") || name == "embedding" || name == "positions") return UnitAxis::rows;
  return UnitAxis::none;
}

template <class S>
void fill_normal(S* x, long n, uint64_t key, double sd) {
  NormalRng r(key);
  for (long i = 0; i < n; ++i) x[i] = S(sd * r.normal());
}

}  // namespace

template <class S>
Network<S>::Network(const TrainConfig& tc, Arch arch, const TaskData& task)
    : arch_(arch),
      language_(task.language()),
      L_(tc.depth),
      d_(tc.width),
      V_(task.vocab()),
      T_(task.context()),
      positions_(tc.positions),
      bn_(batchnorm(tc)),
      pads_counted_(tc.bn_pads == BnPads::count),
      padded_(task.padded()) {
  const bool transformer = tc.block == Block::transformer;
  seg_ = language_ ? T_ : 1;
  per_pass_ = !language_ && !transformer ? tc.batch : (bn_ ? tc.batch : 1);
  rows_ = per_pass_ * seg_;
  const Config cfg = stack_config(tc, arch, rows_);
  bank_.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, transformer);
  model_.configure(cfg, arch, bank_, true, transformer && per_pass_ > 1 ? seg_ : 0);
  if (bn_) model_.use_batchnorm();
  model_.rows().momentum = tc.bn_momentum;
  // W = s B into the bank, then s = 1: the bank's matrices are the parameters.
  for (int l = 1; l <= L_; ++l) {
    Mlp<S>& f = model_.mlp(l);
    MlpBase<S>& b = bank_.mutable_layer(l);
    b.B1 *= f.weights.s1;
    b.B2 *= f.weights.s2;
    f.weights.s1 = f.weights.s2 = S(1);
    if (transformer) {
      Attention<S>& a = model_.attention(l);
      AttnBase<S>& ab = bank_.mutable_attention_layer(l);
      ab.Bq *= a.weights.sq;
      ab.Bk *= a.weights.sk;
      ab.Bv *= a.weights.sv;
      ab.Bo *= a.weights.so;
      a.weights.sq = a.weights.sk = a.weights.sv = a.weights.so = S(1);
    }
  }
  const uint64_t seed = tc.seed;
  if (language_) {
    const int E = task.embedding_rows();  // V, and the pad token's row when padded
    embedding_.resize(E, d_);
    fill_normal(embedding_.data(), embedding_.size(),
                stream_key({seed, uint64_t(Stream::embedding), uint64_t(E), uint64_t(d_)}), std::sqrt(0.5));
    positions_table_.resize(T_, d_);
    if (positions_ == Positions::learned) {
      fill_normal(positions_table_.data(), positions_table_.size(),
                  stream_key({seed, uint64_t(Stream::positions), uint64_t(T_), uint64_t(d_)}), std::sqrt(0.5));
    } else {
      for (int t = 0; t < T_; ++t)
        for (int i = 0; i < d_; ++i) {
          const double freq = std::pow(10000.0, -double(i - i % 2) / d_);
          positions_table_(t, i) = S(i % 2 == 0 ? std::sin(t * freq) : std::cos(t * freq));
        }
      // nGPT: fixed rows of unit norm, like the embedding's (ngpt.h)
      if (arch == Arch::ngpt) normalize_unit(positions_table_.data(), T_, d_, true);
    }
    unembedding_.resize(d_, V_);
    fill_normal(unembedding_.data(), unembedding_.size(),
                stream_key({seed, uint64_t(Stream::unembedding), uint64_t(d_), uint64_t(V_)}),
                1.0 / std::sqrt(double(d_)));
    logits_.resize(rows_, V_);
    dlogits_.resize(rows_, V_);
    exps_.resize(V_);
    dembedding_ = Mat<S>::Zero(E, d_);
    dunembedding_ = Mat<S>::Zero(d_, V_);
    if (arch == Arch::ngpt) {  // s_z = sqrt(d) s, s = 1 / sqrt(d) at init (ngpt.h)
      sz_ = Vecx<S>::Constant(V_, S(ngpt_stored_init(d_)));
      dsz_ = Vecx<S>::Zero(V_);
      raw_logits_.resize(rows_, V_);
    }
    add("embedding", embedding_.data(), dembedding_.data(), embedding_.size(), 0, true);
    if (positions_ == Positions::learned) {
      dpositions_ = Mat<S>::Zero(T_, d_);
      add("positions", positions_table_.data(), dpositions_.data(), positions_table_.size(), 0, true);
    }
  } else {
    readout_w_.resize(d_);
    fill_normal(readout_w_.data(), d_, stream_key({seed, uint64_t(Stream::unembedding), uint64_t(d_), 1}),
                1.0 / std::sqrt(double(d_)));
    dreadout_w_ = Vecx<S>::Zero(d_);
    logits_.resize(rows_, 1);
    dlogits_.resize(rows_, 1);
  }
  for_each_stack_tensor(model_, [&](const std::string& n, S* w, S* g, long size, int block, bool matrix) {
    add(n, w, g, size, block, matrix);
  });
  if (language_)
    add("unembedding", unembedding_.data(), dunembedding_.data(), unembedding_.size(), L_ + 1, true);
  else
    add("readout", readout_w_.data(), dreadout_w_.data(), d_, L_ + 1, true);
  if (sz_.size() > 0) add("s_z", sz_.data(), dsz_.data(), V_, L_ + 1, false);
  if (arch == Arch::ngpt) {
    for (Param<S>& p : params_) {
      p.unit = sphere_axis(p.name);
      p.cols = p.name == "embedding" || p.name == "positions" ? d_ : p.name == "unembedding" ? V_ : 0;
    }
    const int m = model_.mlp(1).sv.size();
    for (Param<S>& p : params_)
      if (p.unit != UnitAxis::none && p.cols == 0) p.cols = p.name.rfind("W1[", 0) == 0 ? m : d_;
    normalize_sphere();
  }
  const int U = model_.units();
  sums_.stream_sq.assign(L_ + 1, 0.0);
  sums_.grad_sq.assign(L_ + 1, 0.0);
  sums_.update_sq.assign(U, 0.0);
  sums_.skip_sq.assign(U, 0.0);
}

template <class S>
void Network<S>::normalize_sphere() {
  for (Param<S>& p : params_)
    if (p.unit != UnitAxis::none) normalize_unit(p.w, p.n / p.cols, p.cols, p.unit == UnitAxis::rows);
}

template <class S>
Param<S>& Network<S>::add(const std::string& name, S* w, S* g, long n, int block, bool matrix) {
  params_.push_back(Param<S>{name, w, g, n, block, matrix});
  return params_.back();
}

// Forward of one pass from model_.input() (rows_, d), block skip_block (if
// any) replaced by the identity, adding to the stream and update sums when asked.
template <class S>
void Network<S>::pass(int skip_block, bool sums) {
  const int P = model_.sublayers_per_block(), U = model_.units();
  const long n = static_cast<long>(rows_) * d_;
  model_.forward_begin();
  if (sums) sums_.stream_sq[0] += sq_norm(model_.stream(0), n);
  for (int k = 1; k <= U; ++k) {
    if ((k - 1) / P + 1 == skip_block) {
      model_.skip_step(k);
    } else {
      model_.forward_step(k);
      if (sums) {
        const Unit<S>& u = model_.unit_at(k);
        const double a = u.wrap.skip ? u.wrap.alpha : 1.0;
        sums_.update_sq[k - 1] += sq_norm(u.branch_output(), n);
        sums_.skip_sq[k - 1] += a * a * sq_norm(u.skip_input(model_.stream(k - 1)), n);
      }
    }
    if (sums && k % P == 0) sums_.stream_sq[k / P] += sq_norm(model_.stream(k), n);
  }
  if (sums && P == 2)  // transformer blocks: the passes' largest attention logit, a NaN kept
    for (int l = 1; l <= model_.depth(); ++l) {
      if (l == skip_block) continue;  // a skipped block's attention did not run
      const double m = model_.attention(l).max_logit;
      if (std::isnan(sums_.max_logit)) break;
      if (m > sums_.max_logit || std::isnan(m)) sums_.max_logit = m;
    }
  model_.forward_end();
}

template <class S>
void Network<S>::embed(const Batch& b, int first) {
  for (int j = 0; j < per_pass_; ++j) {
    const int item = first + j;
    if (item >= b.size) {  // a pass with fewer items than it holds: zero rows, counted nowhere
      model_.input().middleRows(long(j) * seg_, seg_).setZero();
      continue;
    }
    if (language_) {
      // h_0 = E[tokens] + P  (T, d)
      const int32_t* tok = b.tokens.data() + static_cast<long>(item) * T_;
      for (int t = 0; t < T_; ++t)
        model_.input().row(long(j) * T_ + t) = embedding_.row(tok[t]) + positions_table_.row(t);
    } else {
      for (int i = 0; i < d_; ++i) model_.input()(j, i) = S(b.x(item, i));
    }
  }
}

template <class S>
void Network<S>::layout(const Batch& b, int first) {
  PassRows& pr = model_.rows();
  pr.mode = mode_;
  if (!padded_ && !bn_) return;  // every key and every row
  pr.segment = seg_;
  pr.keys.assign(per_pass_, seg_);
  if (language_)
    for (int j = 0; j < per_pass_ && first + j < b.size; ++j) pr.keys[j] = b.length_of(first + j);
  if (!bn_) return;
  // Rows in the statistics: every row of a present item up to the batch's
  // longest, its pads after its own length only when pads count (a sequence
  // alone, in sequence mode, has none).
  pr.counted.assign(rows_, 0);
  const bool pads = pads_counted_ && mode_ != BnMode::sequence;
  for (int j = 0; j < per_pass_ && first + j < b.size; ++j) {
    const int own = language_ ? b.length_of(first + j) : 1, longest = language_ ? b.length : 1;
    for (int t = 0; t < seg_; ++t) pr.counted[long(j) * seg_ + t] = t < own || (pads && t < longest);
  }
}

template <class S>
void Network<S>::head(const Batch& b, int first, double N, bool grads, long* correct, double& loss) {
  const S* top = model_.output();
  if (!language_) {
    kernels::gemm_nn(top, readout_w_.data(), logits_.data(), rows_, d_, 1, S(1));  // yhat (rows, 1)
    // (yhat - y)^2 / N;  dyhat = 2 (yhat - y) / N
    for (int r = 0; r < rows_; ++r) {
      if (first + r >= b.size) {
        dlogits_(r, 0) = S(0);
        continue;
      }
      const double e = double(logits_(r, 0)) - b.y[first + r];
      loss += e * e;
      if (grads) dlogits_(r, 0) = S(2 * e / N);
    }
    return;
  }
  kernels::gemm_nn(top, unembedding_.data(), logits_.data(), rows_, d_, V_, S(1));  // (rows, V)
  if (sz_.size() > 0) {  // nGPT: z = s_z (out U), s_z = sqrt(d) s
    raw_logits_ = logits_;
    const double c = ngpt_scale_factor(d_);
    for (int r = 0; r < rows_; ++r)
      for (int v = 0; v < V_; ++v) logits_(r, v) *= S(c * double(sz_(v)));
  }
  // Cross-entropy per scored position, in double: lse - logit[target];
  // dlogits = (softmax - onehot) / N.
  for (int r = 0; r < rows_; ++r) {
    const int item = first + r / T_, t = r % T_;
    const int32_t* tgt = item < b.size ? b.targets.data() + static_cast<long>(item) * T_ : nullptr;
    const S* z = logits_.data() + static_cast<long>(r) * V_;
    S* dz = dlogits_.data() + static_cast<long>(r) * V_;
    if (!tgt || tgt[t] < 0) {
      if (grads) std::fill(dz, dz + V_, S(0));
      continue;
    }
    int best = 0;
    double mx = double(z[0]);
    for (int v = 1; v < V_; ++v)
      if (double(z[v]) > mx) mx = double(z[v]), best = v;
    double sum = 0;
    for (int v = 0; v < V_; ++v) sum += exps_[v] = std::exp(double(z[v]) - mx);
    loss += mx + std::log(sum) - double(z[tgt[t]]);
    if (correct && best == tgt[t]) ++*correct;
    if (grads)
      for (int v = 0; v < V_; ++v) dz[v] = S((exps_[v] / sum - (v == tgt[t] ? 1.0 : 0.0)) / N);
  }
}

template <class S>
void Network<S>::head_backward() {
  S* dout = model_.readout_matrix().data();  // (rows, d): d loss / d out, read by backward()
  const S* top = model_.output();
  if (language_ && sz_.size() > 0) {  // nGPT: ds_v += sqrt(d) sum_rows dz (out U);  d(out U) = s_z dz, in place
    const double c = ngpt_scale_factor(d_);
    for (int v = 0; v < V_; ++v) {
      double sum = 0;
      for (int r = 0; r < rows_; ++r) sum += double(dlogits_(r, v)) * double(raw_logits_(r, v));
      dsz_(v) += S(c * sum);
    }
    for (int r = 0; r < rows_; ++r)
      for (int v = 0; v < V_; ++v) dlogits_(r, v) *= S(c * double(sz_(v)));
  }
  if (language_) {
    kernels::gemm_nt(dlogits_.data(), unembedding_.data(), dout, rows_, V_, d_, S(1));  // (rows, d) = dlogits U^T
    kernels::gemm_tn(top, dlogits_.data(), dunembedding_.data(), rows_, d_, V_);        // (d, V) += out^T dlogits
  } else {
    kernels::gemm_nn(dlogits_.data(), readout_w_.data(), dout, rows_, 1, d_, S(1));  // (rows, d) = dyhat w^T
    kernels::gemm_tn(top, dlogits_.data(), dreadout_w_.data(), rows_, d_, 1);        // (d) += out^T dyhat
  }
}

template <class S>
double Network<S>::run(const Batch& b, bool grads, int skip_block, Outputs* out, bool sums) {
  const double N = double(b.scored());
  if (grads)
    for (Param<S>& p : params_) std::fill(p.g, p.g + p.n, S(0));
  for (auto* v : {&sums_.stream_sq, &sums_.grad_sq, &sums_.update_sq, &sums_.skip_sq})
    std::fill(v->begin(), v->end(), 0.0);
  sums_.rows = double(b.size) * b.length;
  sums_.max_logit = model_.sublayers_per_block() == 2 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  if (out) {
    out->f.resize(b.size, language_ ? long(T_) * V_ : 1);
    out->top.resize(b.size, language_ ? long(T_) * d_ : d_);
    out->correct = 0;
  }
  const long n = static_cast<long>(rows_) * d_;
  double loss = 0;
  for (int first = 0; first < b.size; first += per_pass_) {
    embed(b, first);
    layout(b, first);
    pass(skip_block, sums);
    head(b, first, N, grads, out ? &out->correct : nullptr, loss);
    if (out) {
      const S* top = model_.output();
      if (language_) {
        for (int j = 0; j < per_pass_ && first + j < b.size; ++j) {
          const long at = long(j) * T_;
          for (long i = 0; i < long(T_) * V_; ++i) out->f(first + j, i) = double(logits_.data()[at * V_ + i]);
          for (long i = 0; i < long(T_) * d_; ++i) out->top(first + j, i) = double(top[at * d_ + i]);
        }
      } else {
        for (int r = 0; r < rows_ && first + r < b.size; ++r) {
          out->f(first + r, 0) = double(logits_(r, 0));
          for (int i = 0; i < d_; ++i) out->top(first + r, i) = double(top[static_cast<long>(r) * d_ + i]);
        }
      }
    }
    if (!grads) continue;
    head_backward();
    model_.backward(true);
    if (sums)
      for (int l = 0; l <= L_; ++l) sums_.grad_sq[l] += sq_norm(model_.dh(l), n);
    for (int j = 0; language_ && j < per_pass_ && first + j < b.size; ++j) {
      // dE[tokens[t]] += dh_0[t];  dP[t] += dh_0[t]
      const int32_t* tok = b.tokens.data() + static_cast<long>(first + j) * T_;
      const S* dh0 = model_.dstream(0) + static_cast<long>(j) * T_ * d_;
      S* gP = positions_ == Positions::learned ? dpositions_.data() : nullptr;
      for (int t = 0; t < T_; ++t)
        for (int i = 0; i < d_; ++i) {
          dembedding_(tok[t], i) += dh0[static_cast<long>(t) * d_ + i];
          if (gP) gP[static_cast<long>(t) * d_ + i] += dh0[static_cast<long>(t) * d_ + i];
        }
    }
  }
  return loss / N;
}

template <class S>
void Network<S>::lesion_losses(const Batch& b, std::vector<double>& loss) {
  const double N = double(b.scored());
  for (auto* v : {&sums_.stream_sq, &sums_.grad_sq, &sums_.update_sq, &sums_.skip_sq})
    std::fill(v->begin(), v->end(), 0.0);
  loss.assign(L_ + 1, 0.0);
  const int P = model_.sublayers_per_block(), U = model_.units();
  for (int first = 0; first < b.size; first += per_pass_) {
    embed(b, first);
    layout(b, first);
    pass(0, false);
    head(b, first, N, false, nullptr, loss[0]);
    // Block l skipped: h_l = h_{l-1} (with dense averaging y_l = x_{l-1}, then
    // x_l averaged), then blocks l+1..L. From l = L down, each lesion
    // overwrites only the streams (and y's) above h_{l-1}, which the next one no longer reads.
    for (int l = L_; l >= 1; --l) {
      for (int k = (l - 1) * P + 1; k <= l * P; ++k) model_.skip_step(k);
      for (int k = l * P + 1; k <= U; ++k) model_.forward_step(k);
      model_.forward_end();
      head(b, first, N, false, nullptr, loss[l]);
    }
  }
  for (double& x : loss) x /= N;
}

template <class S>
std::vector<double> Network<S>::attn_res_weights(const std::vector<Batch>& batches) {
  if (!model_.has_attn_res()) return {};
  for (auto* v : {&sums_.stream_sq, &sums_.grad_sq, &sums_.update_sq, &sums_.skip_sq})
    std::fill(v->begin(), v->end(), 0.0);
  const int K = model_.units(), N = model_.attn_res().blocks();
  std::vector<double> w(static_cast<size_t>(K) * (N + 1), 0.0);
  double tokens = 0;
  for (const Batch& b : batches)
    for (int first = 0; first < b.size; first += per_pass_) {
      embed(b, first);
      layout(b, first);
      pass(0, false);
      for (int j = 0; j < per_pass_ && first + j < b.size; ++j) {
        // The item's rows: its own tokens (a language item), or its one row (teacher, one item a row).
        const int own = language_ ? b.length_of(first + j) : 1;
        const int row0 = j * seg_;
        for (int t = 0; t < own; ++t) {
          for (int k = 1; k <= K; ++k) {
            const int n = model_.attn_res().sources(k);
            const S* a = model_.attn_res().weights(k) + static_cast<long>(row0 + t) * n;
            for (int i = 0; i < n; ++i) w[static_cast<size_t>(k - 1) * (N + 1) + i] += double(a[i]);
          }
          tokens += 1;
        }
      }
    }
  if (tokens > 0)
    for (double& x : w) x /= tokens;
  return w;
}

template <class S>
std::vector<Norm<S>*> Network<S>::batchnorms() {
  std::vector<Norm<S>*> v;
  for (int k = 1; k <= model_.units(); ++k)
    for (Norm<S>* nm : {&model_.unit_at(k).in, &model_.unit_at(k).out, &model_.unit_at(k).outer})
      if (nm->kind == NormKind::batchnorm) v.push_back(nm);
  if (model_.final_norm().kind == NormKind::batchnorm) v.push_back(&model_.final_norm());
  return v;
}

template class Network<float>;
template class Network<double>;

}  // namespace resnorm
