// tests/core/fd.h: central finite differences in double, for every gradient test.
//
// A gradient is checked tensor by tensor: each element x is moved to x + h and
// x - h (h = kStep), the loss evaluated at both, and (L(x + h) - L(x - h)) / 2h
// compared with the analytic derivative. A tensor passes when
//   max |analytic - fd| / max |fd| < kTol.
// With h = 1e-5 the central difference has truncation error ~1e-10 and
// round-off ~1e-11 relative to an O(1) loss, so 1e-6 leaves room only for real
// bugs. Where the loss has kinks (ReLU is not differentiable at 0), an element
// whose +-h crosses one is skipped and counted instead; the tests require
// almost none to be.
//
// Like llm.c's test_gpt2.c, each checked model prints one line with its
// largest difference (Report), and a failing tensor names its own in INFO.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>

namespace fd {

constexpr double kStep = 1e-5;
constexpr double kTol = 1e-6;

// The comparison over one tensor.
struct Check {
  double max_diff = 0, max_ref = 0;  // max |fd - analytic|, max |fd|
  int skipped = 0, checked = 0;
  // max |fd - analytic| / max |fd|: the number held against kTol.
  double rel() const { return max_ref > 0 ? max_diff / max_ref : max_diff; }
  // At most one element in 20 skipped at a kink.
  bool few_skipped() const { return skipped * 20 <= checked + skipped; }
  void add(double fd, double analytic) {
    max_diff = std::max(max_diff, std::abs(fd - analytic));
    max_ref = std::max(max_ref, std::abs(fd));
    ++checked;
  }
  // "dW1[3] max diff 1.2e-11 rel 3.4e-10 skipped 0", for INFO.
  std::string line(const std::string& what) const {
    std::ostringstream s;
    s << what << " max diff " << max_diff << " rel " << rel() << " skipped " << skipped;
    return s.str();
  }
};

// Is the loss still on the smooth piece it started on? Asked after each
// evaluation; empty for a loss without kinks.
using SamePiece = std::function<bool()>;

// The central difference of loss() over *x against `analytic`, added to c (or
// counted as skipped when same_piece says an evaluation crossed a kink). *x is
// restored exactly.
inline void element(double* x, double analytic, const std::function<double()>& loss, Check& c,
                    const SamePiece& same_piece = {}) {
  const double saved = *x;
  *x = saved + kStep;
  const double lp = loss();
  const bool same_p = !same_piece || same_piece();
  *x = saved - kStep;
  const double lm = loss();
  const bool same_m = !same_piece || same_piece();
  *x = saved;
  if (!same_p || !same_m) {
    ++c.skipped;
    return;
  }
  c.add((lp - lm) / (2 * kStep), analytic);
}

// Every one of the n elements at x against analytic[0..n).
inline Check tensor(double* x, long n, const double* analytic, const std::function<double()>& loss,
                    const SamePiece& same_piece = {}) {
  Check c;
  for (long i = 0; i < n; ++i) element(x + i, analytic[i], loss, c, same_piece);
  return c;
}

// The largest relative difference over the tensors of one model, printed as
// one line when the report goes out of scope:
//   fd pre_ln gelu final=none gaussian: 31 tensors, max rel 2.1e-10 (dW2[3], max diff 4.5e-11), 2 skipped
class Report {
 public:
  explicit Report(std::string label) : label_(std::move(label)) {}
  Report(const Report&) = delete;
  Report& operator=(const Report&) = delete;
  ~Report() {
    std::printf("fd %s: %d tensors, max rel %.2g (%s, max diff %.2g), %d skipped\n", label_.c_str(), tensors_,
                worst_rel_, worst_.c_str(), worst_diff_, skipped_);
  }
  // Notes c, checked as `what`, and returns it.
  const Check& add(const std::string& what, const Check& c) {
    ++tensors_;
    skipped_ += c.skipped;
    if (c.rel() >= worst_rel_) {
      worst_rel_ = c.rel();
      worst_diff_ = c.max_diff;
      worst_ = what;
    }
    return c;
  }

 private:
  std::string label_, worst_ = "-";
  int tensors_ = 0, skipped_ = 0;
  double worst_rel_ = 0, worst_diff_ = 0;
};

}  // namespace fd
