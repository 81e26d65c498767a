#include "resnorm/engine.h"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <utility>

#include "resnorm/rng.h"

namespace resnorm {

template <class S>
Status Engine<S>::simulate(const Config& cfg, Results* out) {
  Status st = validate(cfg);
  if (!st.ok()) return st;
  bank_.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, cfg.block == Block::transformer);
  while (models_.size() < cfg.archs.size()) models_.push_back(std::make_unique<Model<S>>());
  out->config = cfg;
  out->archs.resize(cfg.archs.size());
  const size_t n = cfg.archs.size();
  for (size_t i = 0; i < n; ++i) models_[i]->configure(cfg, cfg.archs[i], bank_);
  // The models in lockstep, unit by unit: each unit's weights (96 kB per
  // transformer block at d = 64, 9 MB for 96 blocks) are read by every arch
  // while in cache. Each model's arithmetic is exactly forward(), backward().
  const int units = models_[0]->units();
  for (size_t i = 0; i < n; ++i) models_[i]->forward_begin();
  for (int k = 1; k <= units; ++k)
    for (size_t i = 0; i < n; ++i) models_[i]->forward_step(k);
  for (size_t i = 0; i < n; ++i) {
    models_[i]->forward_end();
    models_[i]->backward_begin();
  }
  for (int k = units; k >= 1; --k)
    for (size_t i = 0; i < n; ++i) models_[i]->backward_step(k);
  for (size_t i = 0; i < n; ++i) out->archs[i] = models_[i]->result();
  return Status::Ok();
}

template <class S>
Status Engine<S>::paths(const Config& cfg, int samples, uint32_t path_seed, PathResults* out) {
  Status st = validate(cfg);
  if (!st.ok()) return st;
  if (samples < 1 || samples > kMaxPathSamples)
    return {"samples", "samples: " + std::to_string(samples) + " is out of range (allowed 1.." +
                           std::to_string(kMaxPathSamples) + ")"};
  const int P = cfg.sublayers_per_block();
  const int U = cfg.depth * P;
  if (U > kMaxPathUnits)
    return {"depth", "depth: " + std::to_string(cfg.depth) + " is out of range for path sampling (allowed 1.." +
                         std::to_string(kMaxPathUnits / P) + " with " + name(cfg.block) + " blocks)"};
  bank_.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, cfg.block == Block::transformer);
  while (models_.size() < cfg.archs.size()) models_.push_back(std::make_unique<Model<S>>());
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
    {
      const long n = static_cast<long>(cfg.tokens) * cfg.width;
      double s = 0;
      for (long i = 0; i < n; ++i) s += double(m.dh(0)[i]) * double(m.dh(0)[i]);
      r.full_norm = std::sqrt(s);
    }
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

template class Engine<float>;
template class Engine<double>;

}  // namespace resnorm
