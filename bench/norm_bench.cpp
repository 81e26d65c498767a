// LayerNorm against RMSNorm (core/include/resnorm/norms.h), forward and
// backward, over widths d = 64 .. 4096, float. Each call normalizes T tokens
// with T d = 65536 (256 KB per tensor, so every width touches the same bytes).
// The four kernels are interleaved sample by sample, so a noisy neighbour
// slows all four alike.
//
// Native:  resnorm_norm_bench [--samples N] [--widths 64,128,...]   -> one JSON line
// Wasm:    the same file built by bench/wasm/build.sh; bench/run.js calls
//          norm_bench_setup(d), then norm_bench_time(which, inner) in the same loop.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "phases.h"  // bench_now_ms, median
#include "resnorm/norms.h"

namespace {

constexpr int kElements = 65536;

// which: 0 LN forward, 1 LN backward, 2 RMS forward, 3 RMS backward. Each kernel
// is its own (not inlined) function, called anew for every repetition, as the
// engine calls Norm::forward/backward; in wasm that also means every timed call
// runs the optimized (TurboFan) code once V8 has tiered the function up.
struct NormBench {
  int T, d;
  std::vector<float> x, y, dy, dx, gamma, beta, dgamma, dbeta, mean, rstd;
  explicit NormBench(int d_) : T(std::max(1, kElements / d_)), d(d_) {
    const int n = T * d;
    x.resize(n);
    y.resize(n);
    dy.resize(n);
    dx.assign(n, 0.0f);
    for (int i = 0; i < n; ++i) {
      x[i] = float((i * 7919) % 2003) / 1001.0f - 1.0f;
      dy[i] = float((i * 104729) % 1009) / 504.0f - 1.0f;
    }
    gamma.assign(d, 1.0f);
    beta.assign(d, 0.0f);
    dgamma.assign(d, 0.0f);
    dbeta.assign(d, 0.0f);
    mean.resize(T);
    rstd.resize(T);
    ln_fwd();
  }
  __attribute__((noinline)) void ln_fwd() {
    resnorm::layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), gamma.data(), beta.data(), T, d);
  }
  __attribute__((noinline)) void ln_bwd() {
    resnorm::layernorm_backward(dx.data(), dgamma.data(), dbeta.data(), dy.data(), x.data(), gamma.data(), mean.data(),
                                rstd.data(), T, d);
  }
  __attribute__((noinline)) void rms_fwd() {
    resnorm::rmsnorm_forward(y.data(), rstd.data(), x.data(), gamma.data(), T, d);
  }
  __attribute__((noinline)) void rms_bwd() {
    resnorm::rmsnorm_backward(dx.data(), dgamma.data(), dy.data(), x.data(), gamma.data(), rstd.data(), T, d);
  }
  // ms for `inner` calls of kernel `which` (backward after its own forward, which
  // refreshes the cache it reads: both forwards write rstd).
  double time(int which, int inner) {
    if (which == 1) ln_fwd();
    if (which == 3) rms_fwd();
    const double t0 = bench_now_ms();
    for (int i = 0; i < inner; ++i) switch (which) {
        case 0: ln_fwd(); break;
        case 1: ln_bwd(); break;
        case 2: rms_fwd(); break;
        default: rms_bwd(); break;
      }
    return bench_now_ms() - t0;
  }
};

NormBench* g_bench = nullptr;

}  // namespace

extern "C" {
// Allocates the buffers for width d; returns T (tokens per call).
int norm_bench_setup(int d) {
  delete g_bench;
  g_bench = new NormBench(d);
  return g_bench->T;
}
// ms for `inner` calls of kernel `which` at the width of the last setup.
double norm_bench_time(int which, int inner) { return g_bench ? g_bench->time(which, inner) : -1.0; }
}

#ifndef __EMSCRIPTEN__
// The sampling loop of bench/run.js's wasm side, natively: calibrate `inner` to
// about 1 ms per sample on the LN forward, then `samples` rounds of the four
// kernels, interleaved; median, p10 and p90 of ms per call.
int main(int argc, char** argv) {
  int samples = 31;
  std::vector<int> widths = {64, 128, 256, 512, 1024, 2048, 4096};
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string key = argv[i];
    if (key == "--samples") samples = std::max(3, std::atoi(argv[i + 1]));
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
    const int T = norm_bench_setup(widths[w]);
    const double per = norm_bench_time(0, 8) / 8;
    const int inner = std::max(1, std::min(1000, int(1.0 / std::max(per, 1e-6))));
    std::vector<double> ms[4];
    for (int s = 0; s < samples; ++s)
      for (int k = 0; k < 4; ++k) ms[k].push_back(norm_bench_time(k, inner) / inner);
    std::printf("%s{\"d\": %d, \"T\": %d", w ? ", " : "", widths[w], T);
    for (int k = 0; k < 4; ++k) {
      std::vector<double>& v = ms[k];
      std::sort(v.begin(), v.end());
      std::printf(", \"%s\": {\"median_ms\": %.6f, \"p10_ms\": %.6f, \"p90_ms\": %.6f}", names[k], bench::median(v),
                  v[v.size() / 10], v[v.size() * 9 / 10]);
    }
    std::printf("}");
  }
  std::printf("]}\n");
  return 0;
}
#endif
