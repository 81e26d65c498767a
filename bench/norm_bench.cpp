// LayerNorm against RMSNorm (core/include/resnorm/norms.h), forward and
// backward, over widths d = 64 .. 4096, float. Each call normalizes T tokens
// with T d = 65536 (256 KB per tensor, so every width touches the same bytes).
// The kernels and the sampling loop are the core's (resnorm/norm_timing.h,
// which the papers page's RMSNorm claim runs too): the four kernels
// interleaved sample by sample, so a noisy neighbour slows all four alike.
//
// Native:  resnorm_norm_bench [--samples N] [--widths 64,128,...]   -> one JSON line
// Wasm:    the same file built by bench/wasm/build.sh; bench/run.js calls
//          norm_bench_setup(d), then norm_bench_time(which, inner) in the same loop.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "resnorm/norm_timing.h"

namespace {

constexpr int kElements = 65536;

std::unique_ptr<resnorm::NormKernels> g_bench;

}  // namespace

extern "C" {
// Allocates the buffers for width d; returns T (tokens per call).
int norm_bench_setup(int d) {
  g_bench = std::make_unique<resnorm::NormKernels>(d, std::max(1, kElements / d));
  return g_bench->tokens();
}
// ms for `inner` calls of kernel `which` (0 LN forward, 1 LN backward, 2 RMS
// forward, 3 RMS backward) at the width of the last setup.
double norm_bench_time(int which, int inner) {
  return g_bench && which >= 0 && which < resnorm::kNumNormKernels
             ? g_bench->time_ms(static_cast<resnorm::NormKernel>(which), inner)
             : -1.0;
}
}

#ifndef __EMSCRIPTEN__
// The sampling loop of bench/run.js's wasm side, natively: the core's
// time_norms() per width; median, p10 and p90 of ms per call.
int main(int argc, char** argv) {
  int samples = 31;
  std::vector<int> widths = {64, 128, 256, 512, 1024, 2048, 4096};
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string key = argv[i];
    if (key == "--samples")
      samples = std::clamp(std::atoi(argv[i + 1]), resnorm::kMinTimingSamples, resnorm::kMaxTimingSamples);
    if (key == "--widths") {
      widths.clear();
      std::string s = argv[i + 1];
      size_t p = 0;
      while (p < s.size()) {
        widths.push_back(std::atoi(s.c_str() + p));
        p = s.find(',', p);
        if (p == std::string::npos) break;
        ++p;
      }
    }
  }
  const char* names[4] = {"ln_fwd", "ln_bwd", "rms_fwd", "rms_bwd"};
  std::printf("{\"elements\": %d, \"samples\": %d, \"rows\": [", kElements, samples);
  for (size_t w = 0; w < widths.size(); ++w) {
    const int d = widths[w], T = std::max(1, kElements / std::max(1, d));
    resnorm::NormTiming r;
    const resnorm::Status st = resnorm::time_norms(d, T, samples, &r);
    if (!st.ok()) {
      std::fprintf(stderr, "resnorm_norm_bench: %s\n", st.message.c_str());
      return 2;
    }
    std::printf("%s{\"d\": %d, \"T\": %d", w ? ", " : "", d, T);
    for (int k = 0; k < 4; ++k)
      std::printf(", \"%s\": {\"median_ms\": %.6f, \"p10_ms\": %.6f, \"p90_ms\": %.6f}", names[k],
                  r.kernel[k].median_ms, r.kernel[k].p10_ms, r.kernel[k].p90_ms);
    std::printf("}");
  }
  std::printf("]}\n");
  return 0;
}
#endif
