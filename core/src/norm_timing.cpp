// LayerNorm against RMSNorm, timed: see resnorm/norm_timing.h.
#include "resnorm/norm_timing.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "resnorm/norms.h"

namespace resnorm {

struct NormTimingBuffers {
  int T, d;
  std::vector<float> x, y, dy, dx, gamma, beta, dgamma, dbeta, mean, rstd;
};

NormKernels::NormKernels(int width, int tokens) : b_(std::make_unique<NormTimingBuffers>()) {
  NormTimingBuffers& b = *b_;
  b.T = tokens;
  b.d = width;
  const long n = static_cast<long>(tokens) * width;
  b.x.resize(n);
  b.y.resize(n);
  b.dy.resize(n);
  b.dx.assign(n, 0.0f);
  // Fixed values in [-1, 1), no randomness: every run times the same arithmetic.
  for (long i = 0; i < n; ++i) {
    b.x[i] = float((i * 7919) % 2003) / 1001.0f - 1.0f;
    b.dy[i] = float((i * 104729) % 1009) / 504.0f - 1.0f;
  }
  b.gamma.assign(width, 1.0f);
  b.beta.assign(width, 0.0f);
  b.dgamma.assign(width, 0.0f);
  b.dbeta.assign(width, 0.0f);
  b.mean.resize(tokens);
  b.rstd.resize(tokens);
}

NormKernels::~NormKernels() = default;
int NormKernels::width() const { return b_->d; }
int NormKernels::tokens() const { return b_->T; }

// A named namespace: the core is built as a unity build, where the
// anonymous namespaces of several sources become one.
namespace norm_timing {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The q-quantile of sorted values (nearest rank below), and the median.
double quantile(const std::vector<double>& sorted, double q) {
  return sorted[static_cast<size_t>(q * static_cast<double>(sorted.size() - 1))];
}
double median(const std::vector<double>& sorted) {
  const size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

// One out-of-line function per kernel: inlining them into the timing loop
// would give the compiler (and V8) a different function to optimize than the
// engine's calls.
__attribute__((noinline)) void ln_fwd(NormTimingBuffers& b) {
  layernorm_forward(b.y.data(), b.mean.data(), b.rstd.data(), b.x.data(), b.gamma.data(), b.beta.data(), b.T, b.d);
}
__attribute__((noinline)) void ln_bwd(NormTimingBuffers& b) {
  layernorm_backward(b.dx.data(), b.dgamma.data(), b.dbeta.data(), b.dy.data(), b.x.data(), b.gamma.data(),
                     b.mean.data(), b.rstd.data(), b.T, b.d);
}
__attribute__((noinline)) void rms_fwd(NormTimingBuffers& b) {
  rmsnorm_forward(b.y.data(), b.rstd.data(), b.x.data(), b.gamma.data(), b.T, b.d);
}
__attribute__((noinline)) void rms_bwd(NormTimingBuffers& b) {
  rmsnorm_backward(b.dx.data(), b.dgamma.data(), b.dy.data(), b.x.data(), b.gamma.data(), b.rstd.data(), b.T, b.d);
}

}  // namespace norm_timing

double NormKernels::time_ms(NormKernel k, int inner) {
  NormTimingBuffers& b = *b_;
  if (k == NormKernel::ln_backward) norm_timing::ln_fwd(b);
  if (k == NormKernel::rms_backward) norm_timing::rms_fwd(b);
  const double t0 = norm_timing::now_ms();
  for (int i = 0; i < inner; ++i) switch (k) {
      case NormKernel::ln_forward: norm_timing::ln_fwd(b); break;
      case NormKernel::ln_backward: norm_timing::ln_bwd(b); break;
      case NormKernel::rms_forward: norm_timing::rms_fwd(b); break;
      case NormKernel::rms_backward: norm_timing::rms_bwd(b); break;
    }
  return norm_timing::now_ms() - t0;
}

Status time_norms(double width, double tokens, double samples, NormTiming* out) {
  Status st = check_whole("width", width, 1, kMaxTimingWidth);
  if (st.ok()) st = check_whole("tokens", tokens, 1, kMaxTimingTokens);
  if (st.ok()) st = check_whole("samples", samples, kMinTimingSamples, kMaxTimingSamples);
  if (!st.ok()) return st;
  const int d = static_cast<int>(width), T = static_cast<int>(tokens), S = static_cast<int>(samples);
  if (static_cast<long>(d) * T > kMaxTimingElements) {
    const long fit = kMaxTimingElements / d;
    return {"tokens",
            "tokens: " + std::to_string(T) + " tokens of width " + std::to_string(d) + " is " +
                std::to_string(static_cast<long>(d) * T) + " values, over the " + std::to_string(kMaxTimingElements) +
                " a timing may hold (allowed 1.." + std::to_string(fit) + ")",
            static_cast<double>(fit)};
  }

  NormKernels kernels(d, T);
  // Warm-up: every kernel's code and buffers touched once before any sample.
  for (int k = 0; k < kNumNormKernels; ++k) kernels.time_ms(static_cast<NormKernel>(k), 2);
  // Calls per sample: about 2 ms on LayerNorm's forward, so that a coarse clock
  // (a browser's performance.now) still resolves each sample. The fastest of three
  // tries, so that a burst of load during the calibration does not shrink every sample.
  double per = kernels.time_ms(NormKernel::ln_forward, 8) / 8;
  for (int i = 0; i < 2; ++i) per = std::min(per, kernels.time_ms(NormKernel::ln_forward, 8) / 8);
  const int inner = std::max(1, std::min(10000, static_cast<int>(2.0 / std::max(per, 1e-6))));

  std::vector<double> ms[kNumNormKernels];
  for (auto& v : ms) v.reserve(S);
  for (int s = 0; s < S; ++s)
    for (int k = 0; k < kNumNormKernels; ++k)
      ms[k].push_back(kernels.time_ms(static_cast<NormKernel>(k), inner) / inner);

  NormTiming r;
  r.width = d;
  r.tokens = T;
  r.samples = S;
  r.inner = inner;
  for (int k = 0; k < kNumNormKernels; ++k) {
    std::sort(ms[k].begin(), ms[k].end());
    r.kernel[k] = {norm_timing::median(ms[k]), norm_timing::quantile(ms[k], 0.1), norm_timing::quantile(ms[k], 0.9)};
  }
  const double lnf = r[NormKernel::ln_forward].median_ms, lnb = r[NormKernel::ln_backward].median_ms;
  const double rmf = r[NormKernel::rms_forward].median_ms, rmb = r[NormKernel::rms_backward].median_ms;
  r.forward_ratio = rmf / lnf;
  r.backward_ratio = rmb / lnb;
  r.total_ratio = (rmf + rmb) / (lnf + lnb);
  *out = r;
  return Status::Ok();
}

}  // namespace resnorm
