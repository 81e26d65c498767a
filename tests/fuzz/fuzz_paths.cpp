// The path expansion (Engine::paths) on small valid configs: never crashes,
// counts are the binomial coefficients, measured <= count, and the sample
// statistics are finite or the full gradient is not.
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "resnorm/engine.h"
#include "small_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes b{data, size};
  const resnorm::Config cfg = fuzz::small_config(b);
  const int samples = 1 + b.next() % 8;
  const uint32_t path_seed = b.next();
  resnorm::Engine<float> engine;
  resnorm::PathResults out;
  if (!engine.paths(cfg, samples, path_seed, &out).ok()) std::abort();
  for (const resnorm::PathArch& a : out.archs) {
    const int U = a.units;
    if (U != cfg.depth * cfg.sublayers_per_block() || static_cast<int>(a.count.size()) != U + 1) std::abort();
    double total = 0;
    for (int k = 0; k <= U; ++k) {
      if (a.measured[k] > a.count[k] || a.measured[k] < 1) std::abort();
      total += a.count[k];
    }
    if (total != std::ldexp(1.0, U)) std::abort();  // sum of C(U, k) = 2^U
  }
  return 0;
}
