// tests/core/helpers.h: small helpers several test files share.
#pragma once

#include <catch2/catch.hpp>
#include <vector>

#include "resnorm/engine.h"

namespace test {

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

}  // namespace test
