// Training one architecture: the step loop with its metrics, the lesion
// study, the gates, and the trainer's side of its saved state (see trainer.h).
#include "resnorm/trainer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "resnorm/recipes.h"
#include "resnorm/results.h"

namespace resnorm {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

double mean_pairwise_cosine(const Mat<double>& x) {
  const long n = x.rows();
  if (n < 2) return kNaN;
  Vecx<double> norms = x.rowwise().norm();
  double sum = 0;
  for (long i = 0; i < n; ++i)
    for (long j = i + 1; j < n; ++j) {
      const double den = norms(i) * norms(j);
      sum += den > 0 ? x.row(i).dot(x.row(j)) / den : (norms(i) == norms(j) ? 1.0 : 0.0);
    }
  return sum / (0.5 * double(n) * double(n - 1));
}

}  // namespace

template <class S>
Status Trainer<S>::configure(const TrainConfig& tc, Arch arch, double held) {
  Status st = check_train(tc);
  if (st.ok() && held > 0) {
    TrainConfig one = tc;
    one.archs = {arch};
    st = check_train(one, held);
  }
  if (!st.ok()) return st;
  tc_ = tc;
  arch_ = arch;
  task_ = std::make_unique<TaskData>(tc);
  net_ = std::make_unique<Network<S>>(tc, arch, *task_);
  optim_ = std::make_unique<Optim<S>>(tc, net_->params());
  first_nonfinite_ = -1;
  net_->set_mode(BnMode::eval);
  net_->run(task_->heldout()[0], false);
  contribution_init_ = contributions();
  return Status::Ok();
}

template <class S>
std::vector<double> Trainer<S>::contributions() const {
  const LayerSums& s = net_->sums();
  const int P = tc_.block == Block::transformer ? 2 : 1;
  std::vector<double> c(tc_.depth, 0.0);
  for (int l = 0; l < tc_.depth; ++l) {
    double sq = 0;
    for (int j = 0; j < P; ++j) {
      const int k = l * P + j;
      const double r = s.skip_sq[k] > 0 ? std::sqrt(s.update_sq[k] / s.skip_sq[k]) : 0.0;
      sq += r * r;
    }
    c[l] = std::sqrt(sq);
  }
  return c;
}

template <class S>
double Trainer<S>::heldout_loss(long* correct, long* scored, Outputs* first, BnMode mode) {
  net_->set_mode(mode);
  double total = 0;
  *correct = 0;
  *scored = 0;
  Outputs rest;
  for (const Batch& b : task_->heldout()) {
    Outputs* out = (first && &b == &task_->heldout().front()) ? first : &rest;
    const long n = b.scored();
    total += net_->run(b, false, 0, out, false) * double(n);
    *correct += out->correct;
    *scored += n;
  }
  // Between measurements the network rests in eval mode (the running statistics), whatever mode this one
  // used, so whatever reads it next (a lesion, the held-out items, a saved model's check) sees eval mode.
  net_->set_mode(BnMode::eval);
  return total / double(*scored);
}

template <class S>
std::vector<TrainLog> Trainer<S>::step(int64_t n) {
  std::vector<TrainLog> logs;
  std::vector<Param<S>>& params = net_->params();
  const int L = tc_.depth;
  for (int64_t i = 0; i < n && !stopped() && steps_done() < tc_.steps; ++i) {
    const int64_t t = steps_done() + 1;
    const bool logged = t % tc_.log_every == 0 || t == tc_.steps;
    Outputs before, after;
    net_->set_mode(BnMode::eval);
    if (logged) net_->run(task_->heldout()[0], false, 0, &before, false);
    TrainLog log;
    log.step = t;
    net_->set_mode(BnMode::train_update);
    log.train_loss = net_->run(task_->train_batch(t - 1), true, 0, nullptr, logged);
    if (logged) log.max_logit = net_->sums().max_logit;  // over the batch's passes; NaN for MLP blocks
    // the stream mixing this batch ran with, before the update
    if (logged && net_->stack().hyper_on()) net_->stack().hyper().composite_gain(log.hc_gain_fwd, log.hc_gain_bwd);
    for (const Norm<S>* nm : net_->batchnorms()) {
      if (!logged) break;
      log.bn_mean_distance.push_back(nm->bn->mean_distance);
      log.bn_var_distance.push_back(nm->bn->var_distance);
    }
    std::vector<double> w_sq(L, 0.0);
    if (logged) {
      const LayerSums& s = net_->sums();
      for (int l = 0; l <= L; ++l) {
        log.grad_norm.push_back(std::sqrt(s.grad_sq[l]));
        log.stream_rms.push_back(std::sqrt(s.stream_sq[l] / (s.rows * tc_.width)));
      }
      log.contribution = contributions();
      for (const Param<S>& p : params)
        if (p.matrix && p.block >= 1 && p.block <= L) w_sq[p.block - 1] += sq_norm(p.g, p.n);
      for (double q : w_sq) log.w_grad_norm.push_back(std::sqrt(q));
    }
    log.grad_norm_global = clip_gradients(params, tc_.clip);
    log.lr = learning_rate(tc_, t);
    if (!std::isfinite(log.train_loss) || !std::isfinite(log.grad_norm_global)) {
      first_nonfinite_ = log.first_nonfinite = t;
      log.heldout_loss = log.heldout_accuracy = log.output_change = log.top_cosine = kNaN;
      log.heldout_loss_train_mode = log.heldout_loss_eval_mode = log.heldout_loss_one_seq = kNaN;
      logs.push_back(log);
      break;
    }
    std::vector<Vecx<S>> saved;
    if (logged)
      for (const Param<S>& p : params)
        if (p.matrix && p.block >= 1 && p.block <= L) saved.push_back(Eigen::Map<const Vecx<S>>(p.w, p.n));
    optim_->update(params, log.lr);
    net_->normalize_sphere();  // nGPT: its weights back on the sphere (ngpt.h); nothing for the others
    if (!logged) continue;
    std::vector<double> du(L, 0.0), w0(L, 0.0);
    size_t k = 0;
    for (const Param<S>& p : params)
      if (p.matrix && p.block >= 1 && p.block <= L) {
        const Vecx<double> before_w = saved[k++].template cast<double>();
        du[p.block - 1] += (Eigen::Map<const Vecx<S>>(p.w, p.n).template cast<double>() - before_w).squaredNorm();
        w0[p.block - 1] += before_w.squaredNorm();
      }
    for (int l = 0; l < L; ++l) log.update_ratio.push_back(w0[l] > 0 ? std::sqrt(du[l] / w0[l]) : 0.0);
    long correct = 0, scored = 0;
    log.heldout_loss = heldout_loss(&correct, &scored, &after);
    log.heldout_accuracy = task_->language() ? double(correct) / double(scored) : kNaN;
    log.heldout_loss_eval_mode = log.heldout_loss_train_mode = log.heldout_loss_one_seq = log.heldout_loss;
    if (net_->has_batchnorm()) {
      log.heldout_loss_train_mode = heldout_loss(&correct, &scored, nullptr, BnMode::train);
      log.heldout_loss_one_seq = heldout_loss(&correct, &scored, nullptr, BnMode::sequence);
    }
    log.output_change = std::sqrt((after.f - before.f).squaredNorm() / double(after.f.size()));
    log.top_cosine = mean_pairwise_cosine(after.top);
    if (!std::isfinite(log.heldout_loss)) first_nonfinite_ = log.first_nonfinite = t;
    logs.push_back(log);
  }
  return logs;
}

template <class S>
Lesion Trainer<S>::lesion() {
  Lesion les;
  // Held-out losses as heldout_loss() sums them, for the whole model and each block skipped.
  const int L = tc_.depth;
  net_->set_mode(BnMode::eval);
  std::vector<double> total(L + 1, 0.0), part;
  long scored = 0;
  for (const Batch& b : task_->heldout()) {
    net_->lesion_losses(b, part);
    const long n = b.scored();
    for (int l = 0; l <= L; ++l) total[l] += part[l] * double(n);
    scored += n;
  }
  les.base = total[0] / double(scored);
  for (int l = 1; l <= L; ++l) {
    const double loss = total[l] / double(scored);
    les.loss.push_back(loss);
    les.increase.push_back(loss - les.base);
    les.relative.push_back((loss - les.base) / les.base);
  }
  net_->run(task_->heldout()[0], false);
  les.contribution = contributions();
  les.contribution_init = contribution_init_;
  return les;
}

template <class S>
StateHeader Trainer<S>::state_header() const {
  return {arch_, tc_, sizeof(S), optim_->step(), first_nonfinite_};
}

template <class S>
std::vector<StateTensor> Trainer<S>::state_tensors() const {
  std::vector<StateTensor> t;
  auto add = [&t](S* p, long n) { t.push_back({reinterpret_cast<char*>(p), static_cast<uint64_t>(n)}); };
  for (Param<S>& p : net_->params()) add(p.w, p.n);
  for (Vecx<S>& m : optim_->first()) add(m.data(), m.size());
  for (Vecx<S>& v : optim_->second()) add(v.data(), v.size());
  for (Norm<S>* nm : net_->batchnorms()) {
    add(nm->bn->running_mean.data(), nm->bn->running_mean.size());
    add(nm->bn->running_var.data(), nm->bn->running_var.size());
  }
  return t;
}

template <class S>
typename Trainer<S>::HeldoutModes Trainer<S>::heldout_modes() {
  long correct = 0, scored = 0;
  HeldoutModes h;
  h.train_mode = heldout_loss(&correct, &scored, nullptr, BnMode::train);
  h.eval_mode = heldout_loss(&correct, &scored, nullptr, BnMode::eval);
  h.one_seq = heldout_loss(&correct, &scored, nullptr, BnMode::sequence);
  return h;
}

template <class S>
uint64_t Trainer<S>::state_size() const {
  return train_state_size(state_header(), state_tensors());
}

template <class S>
void Trainer<S>::write_state(const StateWriter& write) const {
  write_train_state(state_header(), state_tensors(), write);
}

template <class S>
std::string Trainer<S>::state() const {
  std::string s;
  s.reserve(state_size());
  write_state([&s](const char* p, size_t n) { s.append(p, n); });
  return s;
}

template <class S>
Status Trainer<S>::load(std::string_view blob, double held) {
  return load(
      blob.size(), [blob](uint64_t at, char* out, size_t n) { std::memcpy(out, blob.data() + at, n); }, held);
}

template <class S>
Status Trainer<S>::load(uint64_t size, const StateReader& read, double held) {
  StateHeader h;
  uint64_t tensors_at = 0;
  Status st = read_train_state_header(size, read, sizeof(S), &h, &tensors_at);
  if (!st.ok()) return st;
  // Of this trainer's own config and arch, the state is read into it in place:
  // the init, the task and the held-out set are the same, so only the tensors,
  // the step and the stop state differ. Otherwise a new trainer is made beside it.
  const bool in_place = net_ && h.arch == arch_ && train_config_text(h.config) == train_config_text(tc_);
  Trainer<S> fresh;
  if (!in_place) {
    st = fresh.configure(h.config, h.arch, held);
    if (!st.ok()) return {"state", "state: config: " + st.message};
  }
  Trainer<S>& into = in_place ? *this : fresh;
  st = read_train_state_tensors(size, read, tensors_at, sizeof(S), into.state_tensors());
  if (!st.ok()) return st;
  into.optim_->set_step(h.steps);
  into.first_nonfinite_ = h.first_nonfinite;
  if (!in_place) *this = std::move(fresh);
  return Status::Ok();
}

template <class S>
NormSamples Trainer<S>::norm_samples() {
  NormSamples out;
  net_->set_mode(BnMode::eval);
  net_->run(task_->heldout()[0], false);
  Model<S>& m = net_->stack();
  auto add = [&out](int unit, const S* in, const S* y, long n, double unscale) {
    out.units.push_back(unit);
    for (long i = 0; i < n; ++i) {
      out.input.push_back(double(in[i]));
      out.output.push_back(double(y[i]) / unscale);
    }
  };
  const long n = static_cast<long>(net_->pass_rows()) * tc_.width;
  out.rows = net_->pass_rows();
  out.width = tc_.width;
  for (int k = 1; k <= m.units(); ++k) {
    const Unit<S>& u = m.unit_at(k);
    if (u.in.kind == NormKind::none) continue;
    add(k, m.stream(k - 1), u.normed_in.data(), n, u.wrap.in_scale);
  }
  if (m.final_norm().kind != NormKind::none) add(m.units() + 1, m.h(m.depth()), m.output(), n, 1.0);
  return out;
}

template <class S>
Gates Trainer<S>::gates() const {
  Gates g;
  Model<S>& m = net_->stack();
  for (int k = 1; k <= m.units(); ++k) {
    const Unit<S>& u = m.unit_at(k);
    if (u.wrap.gate == Gate::none) continue;
    const long n = u.gate.size();
    g.width = static_cast<int>(n);
    double sum = 0;
    for (long i = 0; i < n; ++i) {
      g.values.push_back(double(u.gate.data()[i]));
      sum += std::abs(double(u.gate.data()[i]));
    }
    g.init.push_back(u.wrap.gate_init);
    g.magnitude.push_back(n > 0 ? sum / double(n) : 0.0);
  }
  return g;
}

template <class S>
std::vector<double> Trainer<S>::attn_res_weights() {
  return net_->attn_res_weights(task_->heldout());
}

template class Trainer<float>;
template class Trainer<double>;

}  // namespace resnorm
