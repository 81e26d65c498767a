// The path expansion of the backward pass (Veit et al. 2016): one path term
// of a model, and the statistics over path lengths (see paths.h).
#include "resnorm/paths.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "resnorm/engine.h"
#include "resnorm/limits.h"
#include "resnorm/model.h"
#include "resnorm/rng.h"

namespace resnorm {

// backward_unit() split in two: dsum = J_outer^T dh_out is common to both
// routes; the skip route gives alpha dsum (J_in^T c alpha dsum when the skip
// reads the normed input), the branch route J_in^T c J_f^T
// J_out^T G^T dsum (c the input scale, G the gate), with the arithmetic of
// backward_unit() (whose dh_in is their sum), through the input-only backward
// of each norm and sublayer. Dense averaging is a sum over more paths than
// the subsets of units: with weights other than its init (the identity, which
// a simulation always has) the expansion is not defined here, and the result is NaN.
// Attention Residuals' softmax weights depend on every unit's output, so a
// path does not factor through subsets of units: NaN too.
template <class S>
double Model<S>::backward_path(const std::vector<char>& through_branch) {
  if (static_cast<int>(through_branch.size()) != units()) return std::numeric_limits<double>::quiet_NaN();
  // n streams: a path runs through the streams' mixes as well as the units, not a subset of units.
  if (hyper_on()) return std::numeric_limits<double>::quiet_NaN();
  // Attention Residuals: the weights depend on every output, so paths are not a subset of units either.
  if (attn_res_on_) return std::numeric_limits<double>::quiet_NaN();
  for (int l = 1; dense_ && l <= depth_; ++l)
    for (int j = 0; j <= l; ++j)
      if (mix_row(l)[j] != S(j == l ? 1 : 0)) return std::numeric_limits<double>::quiet_NaN();
  const long n = static_cast<long>(T_) * d_;
  S* g = path_grad_[0].data();  // d loss / d (stream after unit k), along the path
  S* next = path_grad_[1].data();
  if (final_.kind != NormKind::none) {
    std::fill(g, g + n, S(0));
    final_.backward_input(g, readout_.data(), h(depth_), T_, d_);
  } else {
    std::copy(readout_.data(), readout_.data() + n, g);
  }
  for (int k = units(); k >= 1; --k) {
    Unit<S>& u = units_[k - 1];
    const S* hin = stream(k - 1);
    if (u.wrap.sphere) {  // nGPT: both routes start at J_Norm(sum)^T g and end in J_Norm(h)^T (ngpt.cpp)
      path_sphere(u, next, g, hin, through_branch[k - 1] != 0);
      std::swap(g, next);
      continue;
    }
    const S* dsum = g;
    if (u.outer.kind != NormKind::none) {
      dsum_.setZero();
      u.outer.backward_input(dsum_.data(), g, u.sum.data(), T_, d_);
      dsum = dsum_.data();
    }
    if (through_branch[k - 1]) {
      const S* dungated = dsum;
      if (u.wrap.gate != Gate::none) {
        u.gate_backward(dungated_.data(), dsum, T_, d_, false);
        dungated = dungated_.data();
      }
      const S* dbranch_raw = dungated;
      if (u.out.kind != NormKind::none) {
        dbranch_raw_.setZero();
        u.out.backward_input(dbranch_raw_.data(), dungated, u.branch_raw.data(), T_, d_);
        dbranch_raw = dbranch_raw_.data();
      }
      if (u.in.kind != NormKind::none) {
        u.f->backward_input(dbranch_in_.data(), dbranch_raw, u.normed_in.data());
        u.scale_in_gradient(dbranch_in_.data(), n);
        std::fill(next, next + n, S(0));
        u.in.backward_input(next, dbranch_in_.data(), hin, T_, d_);
      } else {
        u.f->backward_input(next, dbranch_raw, hin);
      }
    } else if (!u.wrap.skip) {
      std::fill(next, next + n, S(0));  // no skip: this path does not exist
    } else if (u.wrap.skip_normed) {    // the skip from normed_in: back through Nin
      const S alpha = S(u.wrap.alpha);
      S* dx = dbranch_in_.data();
      for (long i = 0; i < n; ++i) dx[i] = alpha * dsum[i];
      u.scale_in_gradient(dx, n);
      std::fill(next, next + n, S(0));
      u.in.backward_input(next, dx, hin, T_, d_);
    } else if (dsum == g && u.wrap.alpha == 1.0) {
      continue;  // the identity: g is already d loss / d h_in
    } else {
      const S alpha = S(u.wrap.alpha);
      for (long i = 0; i < n; ++i) next[i] = alpha * dsum[i];
    }
    std::swap(g, next);
  }
  path_grad_at_ = g == path_grad_[0].data() ? 0 : 1;
  return std::sqrt(sq_norm(g, n));
}

template double Model<float>::backward_path(const std::vector<char>&);
template double Model<double>::backward_path(const std::vector<char>&);

template <class S>
Status Engine<S>::paths(const Config& cfg, int samples, uint32_t path_seed, PathResults* out) {
  Status st = check_paths(cfg, samples);
  if (!st.ok()) return st;
  prepare(cfg);
  const int U = cfg.depth * cfg.sublayers_per_block();
  out->config = cfg;
  out->samples = samples;
  out->path_seed = path_seed;
  out->archs.assign(cfg.archs.size(), PathArch());

  // C(U, k) by Pascal's triangle: exact below 2^53, then correctly rounded sums.
  std::vector<double> count(U + 1, 0.0);
  count[0] = 1;
  for (int u = 1; u <= U; ++u)
    for (int k = u; k >= 1; --k) count[k] += count[k - 1];

  std::vector<char> mask(U);
  std::vector<int> perm(U), pick;
  pick.reserve(U);  // no allocation inside the loops below
  for (size_t a = 0; a < cfg.archs.size(); ++a) {
    Model<S>& m = *models_[a];
    m.configure(cfg, cfg.archs[a], bank_);
    m.forward();
    m.backward();
    PathArch& r = out->archs[a];
    r.arch = cfg.archs[a];
    r.units = U;
    r.count = count;
    r.measured.assign(U + 1, 0.0);
    r.mean_norm.assign(U + 1, 0.0);
    r.sd_norm.assign(U + 1, 0.0);
    r.total.assign(U + 1, 0.0);
    r.full_norm = std::sqrt(sq_norm(m.dh(0), static_cast<long>(cfg.tokens) * cfg.width));
    for (int k = 0; k <= U; ++k) {
      double sum = 0, sum_sq = 0;
      int runs = 0;
      auto run = [&](const int* idx) {
        std::fill(mask.begin(), mask.end(), char(0));
        for (int i = 0; i < k; ++i) mask[idx[i]] = 1;
        const double g = m.backward_path(mask);
        sum += g;
        sum_sq += g * g;
        ++runs;
      };
      if (count[k] <= samples) {
        // Every subset of size k, in lexicographic order.
        pick.resize(k);
        std::iota(pick.begin(), pick.end(), 0);
        while (true) {
          run(pick.data());
          int i = k - 1;
          while (i >= 0 && pick[i] == U - k + i) --i;
          if (i < 0) break;
          ++pick[i];
          for (int j = i + 1; j < k; ++j) pick[j] = pick[j - 1] + 1;
        }
      } else {
        // Uniform k-subsets: the first k entries after a partial Fisher-Yates
        // shuffle (uniform from any starting order, so perm is never reset).
        std::iota(perm.begin(), perm.end(), 0);
        uint64_t state = stream_key({path_seed, uint64_t(Stream::paths), uint64_t(U), uint64_t(k)});
        for (int s = 0; s < samples; ++s) {
          for (int i = 0; i < k; ++i) {
            const int j = i + static_cast<int>(splitmix64(state) % uint64_t(U - i));
            std::swap(perm[i], perm[j]);
          }
          run(perm.data());
        }
      }
      const double mean = sum / runs;
      r.measured[k] = runs;
      r.mean_norm[k] = mean;
      r.sd_norm[k] = runs > 1 ? std::sqrt(std::max(0.0, (sum_sq - runs * mean * mean) / (runs - 1))) : 0.0;
      r.total[k] = count[k] * mean;
    }
  }
  return Status::Ok();
}

template Status Engine<float>::paths(const Config&, int, uint32_t, PathResults*);
template Status Engine<double>::paths(const Config&, int, uint32_t, PathResults*);

std::vector<NamedArray> named_arrays(const PathArch& a) {
  return {{"count", &a.count},
          {"measured", &a.measured},
          {"mean_norm", &a.mean_norm},
          {"sd_norm", &a.sd_norm},
          {"total", &a.total}};
}

}  // namespace resnorm
