// resnorm/norm_timing.h: how long the engine's LayerNorm and RMSNorm kernels
// (norms.h, float) take, forward and backward, at one width and token count.
//
// RMSNorm drops LayerNorm's mean (one reduction over the features fewer, and
// no beta); this measures what that saves on the machine that runs it. The four
// kernels are timed interleaved, sample by sample, so a burst of load from a
// neighbour lands on all four alike, and each is summarized by its median.
// A measurement of this machine: nothing here is a fixed expectation.
#pragma once

#include <memory>

#include "resnorm/config.h"

namespace resnorm {

// The ranges of time_norms()'s inputs; width x tokens is also capped
// (kMaxTimingElements, four tensors of that many floats are held).
inline constexpr int kMaxTimingWidth = 4096, kMaxTimingTokens = 4096, kMaxTimingSamples = 201;
inline constexpr int kMinTimingSamples = 3;
inline constexpr long kMaxTimingElements = 1L << 20;

enum class NormKernel : int { ln_forward = 0, ln_backward = 1, rms_forward = 2, rms_backward = 3 };
inline constexpr int kNumNormKernels = 4;
inline constexpr const char* kNormKernelNames[kNumNormKernels] = {"ln_forward", "ln_backward", "rms_forward",
                                                                  "rms_backward"};

struct NormTimingBuffers;  // norm_timing.cpp

// The four kernels over fixed buffers of (tokens, width) floats with fixed
// inputs. Each kernel is its own out-of-line function, called anew for every
// repetition, as the engine calls Norm::forward/backward.
class NormKernels {
 public:
  NormKernels(int width, int tokens);  // width, tokens >= 1 (time_norms() checks the ranges)
  ~NormKernels();
  NormKernels(const NormKernels&) = delete;
  NormKernels& operator=(const NormKernels&) = delete;
  // Milliseconds for `inner` calls of kernel k. A backward first runs its own
  // forward, untimed, which refreshes the cache it reads.
  double time_ms(NormKernel k, int inner);
  int width() const;
  int tokens() const;

 private:
  std::unique_ptr<NormTimingBuffers> b_;
};

// Milliseconds per call of one kernel over the samples.
struct KernelTime {
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
};

struct NormTiming {
  int width = 0, tokens = 0, samples = 0;
  int inner = 0;                       // calls per sample (calibrated to about 2 ms per sample on LayerNorm's forward)
  KernelTime kernel[kNumNormKernels];  // by NormKernel
  // RMSNorm's median over LayerNorm's: forward, backward, and forward + backward.
  double forward_ratio = 0, backward_ratio = 0, total_ratio = 0;
  const KernelTime& operator[](NormKernel k) const { return kernel[static_cast<int>(k)]; }
};

// A warm-up round, the calibration of `inner`, then `samples` rounds of the
// four kernels in order. Refuses by field name: width 1..kMaxTimingWidth,
// tokens 1..kMaxTimingTokens, width x tokens at most kMaxTimingElements
// (field tokens, with max_fit the most tokens that fit at that width),
// samples kMinTimingSamples..kMaxTimingSamples. The doubles are what JS
// passes: refused unless whole.
Status time_norms(double width, double tokens, double samples, NormTiming* out);

}  // namespace resnorm
