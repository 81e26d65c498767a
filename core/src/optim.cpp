// The optimizers, the schedule and clipping (see optim.h).
#include "resnorm/optim.h"

#include <algorithm>
#include <cmath>

namespace resnorm {

double learning_rate(const TrainConfig& tc, int64_t t) {
  const double lr = tc.lr, W = tc.warmup;
  if (t <= tc.warmup) return lr * double(t) / W;
  const double p = double(t - tc.warmup - 1) / std::max(1.0, double(tc.steps) - W);
  switch (tc.schedule) {
    case Schedule::constant: return lr;
    case Schedule::linear: return lr * std::max(0.0, 1.0 - p);
    case Schedule::cosine: return lr * 0.5 * (1.0 + std::cos(3.14159265358979323846 * std::min(1.0, p)));
    case Schedule::inverse_sqrt: return lr * std::sqrt(std::max(W, 1.0) / double(t));
  }
  return lr;
}

template <class S>
double clip_gradients(std::vector<Param<S>>& params, double clip) {
  double sq = 0;
  for (const Param<S>& p : params) sq += sq_norm(p.g, p.n);
  const double norm = std::sqrt(sq);
  if (clip > 0 && norm > clip) {
    const double s = clip / norm;
    for (Param<S>& p : params)
      for (long i = 0; i < p.n; ++i) p.g[i] = S(double(p.g[i]) * s);
  }
  return norm;
}

template <class S>
Optim<S>::Optim(const TrainConfig& tc, const std::vector<Param<S>>& params)
    : kind_(tc.optimizer),
      momentum_(tc.momentum),
      beta1_(tc.beta1),
      beta2_(tc.beta2),
      eps_(tc.eps),
      wd_(tc.weight_decay) {
  for (const Param<S>& p : params) {
    m_.push_back(Vecx<S>::Zero(p.n));
    if (kind_ != Optimizer::sgd) v_.push_back(Vecx<S>::Zero(p.n));
  }
}

template <class S>
void Optim<S>::update(std::vector<Param<S>>& params, double lr) {
  ++t_;
  const double c1 = 1.0 - std::pow(beta1_, double(t_)), c2 = 1.0 - std::pow(beta2_, double(t_));
  for (size_t k = 0; k < params.size(); ++k) {
    Param<S>& p = params[k];
    // nGPT's vectors kept at unit norm (network.h's UnitAxis) take no weight decay (ngpt.h).
    const bool decays = p.matrix && p.unit == UnitAxis::none;
    const double l2 = (decays && kind_ != Optimizer::adamw) ? wd_ : 0.0;
    const double decoupled = (decays && kind_ == Optimizer::adamw) ? wd_ : 0.0;
    S* m = m_[k].data();
    if (kind_ == Optimizer::sgd) {
      for (long i = 0; i < p.n; ++i) {
        const double g = double(p.g[i]) + l2 * double(p.w[i]);
        const double v = momentum_ * double(m[i]) + g;
        m[i] = S(v);
        p.w[i] = S(double(p.w[i]) - lr * v);
      }
      continue;
    }
    S* v = v_[k].data();
    for (long i = 0; i < p.n; ++i) {
      const double w = double(p.w[i]);
      const double g = double(p.g[i]) + l2 * w;
      const double mi = beta1_ * double(m[i]) + (1.0 - beta1_) * g;
      const double vi = beta2_ * double(v[i]) + (1.0 - beta2_) * g * g;
      m[i] = S(mi);
      v[i] = S(vi);
      p.w[i] = S(w - lr * ((mi / c1) / (std::sqrt(vi / c2) + eps_) + decoupled * w));
    }
  }
}

template double clip_gradients(std::vector<Param<float>>&, double);
template double clip_gradients(std::vector<Param<double>>&, double);
template class Optim<float>;
template class Optim<double>;

}  // namespace resnorm
