// tests/core/helpers.h: small helpers several test files share.
#pragma once

#include <array>
#include <catch2/catch.hpp>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "resnorm/engine.h"
#include "resnorm/train_results.h"

// glibc's mallinfo2 counts the heap in use; under AddressSanitizer malloc is
// ASan's, which it does not see, so the sanitizer build skips these checks.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RESNORM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define RESNORM_ASAN 1
#endif
#if defined(__GLIBC__) && !defined(RESNORM_ASAN)
#include <malloc.h>
#define RESNORM_HAVE_MALLINFO2 (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
#else
#define RESNORM_HAVE_MALLINFO2 0
#endif

namespace test {

#if RESNORM_HAVE_MALLINFO2
// Bytes of the heap in use: what an engine or trainer holds is the difference across its making.
inline double heap_in_use() {
  const struct mallinfo2 mi = mallinfo2();
  return double(mi.uordblks) + double(mi.hblkhd);
}
#endif

// One arch of cfg through a fresh engine; the config must be valid.
template <class S = float>
resnorm::ArchResult run(resnorm::Config cfg, resnorm::Arch arch) {
  cfg.archs = {arch};
  resnorm::Engine<S> engine;
  resnorm::Results res;
  resnorm::Status st = engine.simulate(cfg, &res);
  REQUIRE(st.ok());
  return res.archs[0];
}

// Least-squares slope of y over x.
inline double slope(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
  mx /= x.size();
  my /= y.size();
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size(); ++i) sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx);
  return sxy / sxx;
}

// The small transformer stack of the attention tests: 3 blocks, d = 8, m = 16,
// T = 3, 2 heads, gain 0.9, seed 13 (relu, gaussian, causal, no final norm).
inline resnorm::Config small_transformer() {
  resnorm::Config cfg;
  cfg.block = resnorm::Block::transformer;
  cfg.depth = 3;
  cfg.width = 8;
  cfg.expansion = 2;  // m = 16
  cfg.tokens = 3;
  cfg.heads = 2;
  cfg.gain = 0.9;
  cfg.seed = 13;
  return cfg;
}

// cfg through two fresh engines, then through the first again with its caches warm.
inline std::array<resnorm::Results, 3> simulate_thrice(const resnorm::Config& cfg) {
  resnorm::Engine<float> a, b;
  std::array<resnorm::Results, 3> r;
  REQUIRE(a.simulate(cfg, &r[0]).ok());
  REQUIRE(b.simulate(cfg, &r[1]).ok());
  REQUIRE(a.simulate(cfg, &r[2]).ok());
  return r;
}

// The listed arrays of every arch are the same bits in all three results.
inline void check_same_bits(const std::array<resnorm::Results, 3>& r,
                            std::initializer_list<std::vector<double> resnorm::ArchResult::*> fields) {
  for (size_t i = 0; i < r[0].archs.size(); ++i)
    for (auto field : fields) {
      const std::vector<double>&x = r[0].archs[i].*field, &y = r[1].archs[i].*field, &z = r[2].archs[i].*field;
      REQUIRE(x.size() == y.size());
      CHECK(std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0);
      CHECK(std::memcmp(x.data(), z.data(), x.size() * sizeof(double)) == 0);
    }
}

// The same bits, or both NaN.
inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }

// Two runs' logs: the same steps, losses, norms and ratios, bit for bit.
inline void check_same_logs(const std::vector<resnorm::TrainLog>& a, const std::vector<resnorm::TrainLog>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].step == b[i].step);
    CHECK(same_bits(a[i].train_loss, b[i].train_loss));
    CHECK(same_bits(a[i].heldout_loss, b[i].heldout_loss));
    CHECK(same_bits(a[i].grad_norm_global, b[i].grad_norm_global));
    CHECK(same_bits(a[i].output_change, b[i].output_change));
    CHECK(a[i].grad_norm == b[i].grad_norm);
    CHECK(a[i].update_ratio == b[i].update_ratio);
  }
}

}  // namespace test
