// LayerNorm against RMSNorm, timed (norm_timing.h): the result's structure and
// the refusals by field. Never a speed: the times are this machine's.
#include <catch2/catch.hpp>
#include <cmath>

#include "resnorm/norm_timing.h"

using namespace resnorm;

TEST_CASE("time_norms: finite positive medians for all four kernels, the ratios from them", "[norm_timing]") {
  NormTiming r;
  REQUIRE(time_norms(64, 32, 5, &r).ok());
  CHECK(r.width == 64);
  CHECK(r.tokens == 32);
  CHECK(r.samples == 5);
  CHECK(r.inner >= 1);
  for (int k = 0; k < kNumNormKernels; ++k) {
    INFO(kNormKernelNames[k]);
    const KernelTime& t = r.kernel[k];
    CHECK(std::isfinite(t.median_ms));
    CHECK(t.median_ms > 0);
    CHECK(t.p10_ms <= t.median_ms);
    CHECK(t.median_ms <= t.p90_ms);
  }
  const double lnf = r[NormKernel::ln_forward].median_ms, lnb = r[NormKernel::ln_backward].median_ms;
  const double rmf = r[NormKernel::rms_forward].median_ms, rmb = r[NormKernel::rms_backward].median_ms;
  CHECK(r.forward_ratio == Approx(rmf / lnf));
  CHECK(r.backward_ratio == Approx(rmb / lnb));
  CHECK(r.total_ratio == Approx((rmf + rmb) / (lnf + lnb)));
}

TEST_CASE("time_norms: a width that is no multiple of the vector lanes, and one token", "[norm_timing]") {
  NormTiming r;
  REQUIRE(time_norms(7, 1, kMinTimingSamples, &r).ok());
  for (const KernelTime& t : r.kernel) CHECK((std::isfinite(t.median_ms) && t.median_ms > 0));
}

TEST_CASE("NormKernels: the kernels leave finite outputs behind", "[norm_timing]") {
  NormKernels k(33, 3);
  CHECK(k.width() == 33);
  CHECK(k.tokens() == 3);
  for (int i = 0; i < kNumNormKernels; ++i) {
    const double ms = k.time_ms(static_cast<NormKernel>(i), 3);
    CHECK(std::isfinite(ms));
    CHECK(ms >= 0);
  }
}

TEST_CASE("time_norms: bad input is refused naming its field", "[norm_timing]") {
  NormTiming r;
  auto field = [&](double w, double t, double s) { return time_norms(w, t, s, &r).field; };
  CHECK(field(0, 8, 5) == "width");
  CHECK(field(kMaxTimingWidth + 1, 8, 5) == "width");
  CHECK(field(64.5, 8, 5) == "width");
  CHECK(field(NAN, 8, 5) == "width");
  CHECK(field(64, 0, 5) == "tokens");
  CHECK(field(64, kMaxTimingTokens + 1, 5) == "tokens");
  CHECK(field(64, INFINITY, 5) == "tokens");
  CHECK(field(64, 8, kMinTimingSamples - 1) == "samples");
  CHECK(field(64, 8, kMaxTimingSamples + 1) == "samples");
  CHECK(field(64, 8, 2.5) == "samples");
  // Over the element cap: a budget refusal with the most tokens that fit.
  const Status st = time_norms(kMaxTimingWidth, kMaxTimingTokens, 5, &r);
  CHECK(st.field == "tokens");
  CHECK(std::string(st.code()) == "budget");
  CHECK(st.max_fit == Approx(double(kMaxTimingElements / kMaxTimingWidth)));
  CHECK(st.message.rfind("tokens: ", 0) == 0);
  // A refused call leaves the result alone.
  NormTiming before;
  before.width = -7;
  CHECK_FALSE(time_norms(0, 1, 5, &before).ok());
  CHECK(before.width == -7);
}
