// Bench-only wasm entry points (not shipped): where a recompute spends its
// time inside the WebAssembly build (bench/phases.h), for bench/run.js.
//   profile_run(archMask, depth, width, tokens, expansion, reps)
//   profile_value(i): 0 configure, 1 forward, 2 backward, 3 result, 4 total,
//                     5 kernels, 6 norms (ms per recompute, medians)
// archMask: bit i set = resnorm::Arch(i) in the config, in enum order.
#include "../phases.h"

namespace {
double g_out[7];
}

extern "C" {
int profile_run(int arch_mask, int depth, int width, int tokens, int expansion, int reps) {
  resnorm::Config cfg;
  cfg.archs.clear();
  for (int i = 0; i < 32; ++i)
    if (arch_mask & (1 << i)) cfg.archs.push_back(static_cast<resnorm::Arch>(i));
  cfg.depth = depth;
  cfg.width = width;
  cfg.tokens = tokens;
  cfg.expansion = expansion;
  if (!resnorm::validate(cfg).ok()) return 0;
  bench::Phases p = bench::profile(cfg, reps);
  const double v[7] = {p.configure, p.forward, p.backward, p.result, p.total, p.kernels, p.norms};
  for (int i = 0; i < 7; ++i) g_out[i] = v[i];
  return 1;
}
double profile_value(int i) { return (i >= 0 && i < 7) ? g_out[i] : 0.0; }
}
