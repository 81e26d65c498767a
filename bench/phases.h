// bench/phases.h: where one recompute spends its time, natively and in wasm.
//
// Profiler::recompute() runs what Engine::simulate runs (configure, forward,
// backward, result per arch) with the lower-level Model API and times each phase.
// Profiler::kernels() and norms() replay only the matrix products or only the
// norm calls of one recompute, with the same shapes and counts, so
//   elementwise + metrics = forward + backward + result - kernels - norms
// (activations, the skip sums, the update-ratio norms, copies, the metrics).
// Shared by bench/native_bench.cpp (--phases) and bench/wasm/profile.cpp.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "resnorm/config.h"
#include "resnorm/kernels.h"
#include "resnorm/model.h"
#include "resnorm/norms.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
inline double bench_now_ms() { return emscripten_get_now(); }
#else
#include <chrono>
inline double bench_now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
#endif

namespace bench {

using namespace resnorm;

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Medians (ms per recompute) over `reps` rounds, after one warm-up round. Each
// round runs one recompute phase by phase, then the kernel replay, then the norm
// replay, so a burst of load from a neighbour lands on all three alike.
struct Phases {
  double configure = 0, forward = 0, backward = 0, result = 0, total = 0;
  double kernels = 0, norms = 0;  // replays (see above)
};

#define BENCH_NOINLINE __attribute__((noinline))

// One out-of-line copy of each kernel, as in the engine's build (where gemm_nn,
// gemm_nt and gram are functions of their own): inlining four products into one
// replay loop would give the compiler (and V8) a different function to optimize.
BENCH_NOINLINE inline void replay_nn(const float* A, const float* B, float* C, int M, int K, int N, float s) {
  kernels::gemm_nn(A, B, C, M, K, N, s);
}
BENCH_NOINLINE inline void replay_nt(const float* A, const float* B, float* C, int M, int K, int N, float s) {
  kernels::gemm_nt(A, B, C, M, K, N, s);
}
BENCH_NOINLINE inline void replay_gram(const float* A, float* C, int M, int K) { kernels::gram(A, C, M, K); }

class Profiler {
 public:
  explicit Profiler(const Config& cfg) : cfg_(cfg) {
    T_ = cfg.tokens;
    d_ = cfg.width;
    m_ = cfg.hidden();
    bank_.prepare(cfg.seed, d_, m_, cfg.init, cfg.depth);
    for (size_t i = 0; i < cfg.archs.size(); ++i) models_.push_back(std::make_unique<Model<float>>());
    x_.assign(T_ * d_, 0.5f);
    p_.resize(T_ * m_);
    a_.assign(T_ * m_, 0.25f);
    y_.resize(T_ * d_);
    dy_.assign(T_ * d_, 0.1f);
    dp_.assign(T_ * m_, 0.1f);
    dx_.resize(T_ * d_);
    g1_.resize(T_ * T_);
    g2_.resize(T_ * T_);
    nx_.resize(T_ * d_);
    for (int i = 0; i < T_ * d_; ++i) nx_[i] = float((i * 37) % 101) / 50.0f - 1.0f;
    for (Arch arch : cfg.archs) {
      const Recipe rec = recipe(arch, cfg.depth);
      for (int l = 0; l < cfg.depth; ++l)
        for (NormKind k : {rec.wrap.in, rec.wrap.out, rec.wrap.outer})
          if (k != NormKind::none) norm_calls_.push_back(k);
      if (cfg.final_norm != NormKind::none) norm_calls_.push_back(cfg.final_norm);
    }
    ln_.resize(NormKind::layernorm, T_, d_);
    rms_.resize(NormKind::rmsnorm, T_, d_);
  }

  // What Engine::simulate does, phase by phase: {configure, forward, backward, result}.
  BENCH_NOINLINE void recompute(int rep, double out[4]) {
    cfg_.gain = (rep % 2) ? 1.0 : 1.0 + 1e-3;  // as a slider would
    out[0] = out[1] = out[2] = out[3] = 0;
    for (size_t i = 0; i < cfg_.archs.size(); ++i) {
      Model<float>& m = *models_[i];
      const double t0 = bench_now_ms();
      m.configure(cfg_, cfg_.archs[i], bank_);
      const double t1 = bench_now_ms();
      sink_ = sink_ + m.forward();
      const double t2 = bench_now_ms();
      m.backward();
      const double t3 = bench_now_ms();
      ArchResult res = m.result();
      const double t4 = bench_now_ms();
      sink_ = sink_ + res.grad_norm[0];
      out[0] += t1 - t0;
      out[1] += t2 - t1;
      out[2] += t3 - t2;
      out[3] += t4 - t3;
    }
  }

  // The matrix products of one recompute, as Mlp::forward/backward call them:
  // x W1 and hidden W2; dy W2^T and dpre W1^T; the Gram matrices of hidden, dy, x, dpre.
  BENCH_NOINLINE double kernels() {
    const int T = T_, d = d_, m = m_;
    const float s1 = 0.1f, s2 = 0.1f;
    const double t0 = bench_now_ms();
    for (size_t arch = 0; arch < cfg_.archs.size(); ++arch)
      for (int l = 1; l <= cfg_.depth; ++l) {
        const float* B1 = bank_.layer(l).B1.data();
        const float* B2 = bank_.layer(l).B2.data();
        replay_nn(x_.data(), B1, p_.data(), T, d, m, s1);
        replay_nn(a_.data(), B2, y_.data(), T, m, d, s2);
        replay_nt(dy_.data(), B2, dp_.data(), T, d, m, s2);
        replay_nt(dp_.data(), B1, dx_.data(), T, m, d, s1);
        replay_gram(a_.data(), g1_.data(), T, m);
        replay_gram(dy_.data(), g2_.data(), T, d);
        replay_gram(x_.data(), g1_.data(), T, d);
        replay_gram(dp_.data(), g2_.data(), T, m);
      }
    const double t1 = bench_now_ms();
    sink_ = sink_ + p_[0] + y_[0] + dx_[0] + g1_[0] + g2_[0];
    return t1 - t0;
  }

  // Every norm the recipes place (and the final norm), forward and backward, at (T, d).
  BENCH_NOINLINE double norms() {
    const double t0 = bench_now_ms();
    for (NormKind k : norm_calls_) {
      Norm<float>& n = (k == NormKind::layernorm) ? ln_ : rms_;
      n.forward(y_.data(), nx_.data(), T_, d_);
      n.backward(dx_.data(), dy_.data(), nx_.data(), T_, d_);
    }
    const double t1 = bench_now_ms();
    sink_ = sink_ + y_[0] + dx_[0];
    return norm_calls_.empty() ? 0.0 : t1 - t0;
  }

 private:
  Config cfg_;
  int T_, d_, m_;
  WeightBank<float> bank_;
  std::vector<std::unique_ptr<Model<float>>> models_;
  std::vector<float> x_, p_, a_, y_, dy_, dp_, dx_, g1_, g2_, nx_;
  std::vector<NormKind> norm_calls_;
  Norm<float> ln_, rms_;
  volatile double sink_ = 0;
};

inline Phases profile(const Config& cfg, int reps) {
  Profiler prof(cfg);
  std::vector<double> c, f, b, r, t, k, n;
  for (int rep = 0; rep <= reps; ++rep) {
    double ph[4];
    prof.recompute(rep, ph);
    const double kt = prof.kernels();
    const double nt = prof.norms();
    if (rep == 0) continue;  // warm-up
    c.push_back(ph[0]);
    f.push_back(ph[1]);
    b.push_back(ph[2]);
    r.push_back(ph[3]);
    t.push_back(ph[0] + ph[1] + ph[2] + ph[3]);
    k.push_back(kt);
    n.push_back(nt);
  }
  Phases p;
  p.configure = median(c);
  p.forward = median(f);
  p.backward = median(b);
  p.result = median(r);
  p.total = median(t);
  p.kernels = median(k);
  p.norms = median(n);
  return p;
}

}  // namespace bench
