// The attention sublayer (attention.cpp): its gradients against central finite
// differences in double (fd.h), the softmax and the causal mask, alone and in a
// whole transformer stack.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fd.h"
#include "helpers.h"
#include "resnorm/attention.h"
#include "resnorm/model.h"
#include "resnorm/rng.h"

using namespace resnorm;

namespace {

struct AttnFixture {
  int T, d, H;
  AttnBase<double> base;
  Attention<double> att;
  Mat<double> x, r, y, dx;  // (T, d); loss = <r, attention(x)>
  double sq, sk, sv, so;

  AttnFixture(int T_, int d_, int H_, bool causal, uint64_t seed) : T(T_), d(d_), H(H_), att(T_, d_, H_, causal) {
    base.Bq = gaussian_matrix(stream_key({seed, 1}), d, d);
    base.Bk = gaussian_matrix(stream_key({seed, 2}), d, d);
    base.Bv = gaussian_matrix(stream_key({seed, 3}), d, d);
    base.Bo = gaussian_matrix(stream_key({seed, 4}), d, d);
    // Scales away from 1/sqrt(d) and distinct, so a swapped scale cannot pass;
    // scores of order 1-2, so the softmax is far from uniform.
    const double f = 1.0 / std::sqrt(double(d));
    sq = 1.3 * f;
    sk = 1.1 * f;
    sv = 0.8 * f;
    so = 0.9 * f;
    att.weights = {&base, sq, sk, sv, so};
    x = 1.2 * gaussian_matrix(stream_key({seed, 5}), T, d);
    r = gaussian_matrix(stream_key({seed, 6}), T, d);
    y.resize(T, d);
    dx.resize(T, d);
  }
  double loss() {
    att.forward(y.data(), x.data());
    return (r.array() * y.array()).sum();
  }
};

void check_attention_alone(int T, int d, int H, bool causal) {
  AttnFixture fx(T, d, H, causal, 100 + 10 * H + causal);
  fx.loss();
  fx.att.backward(fx.dx.data(), fx.r.data(), fx.x.data(), true);
  const Mat<double> dx = fx.dx;
  // d loss / d B = s d loss / d W.
  const Mat<double> dBq = fx.att.dWq * fx.sq, dBk = fx.att.dWk * fx.sk, dBv = fx.att.dWv * fx.sv,
                    dBo = fx.att.dWo * fx.so;
  // Gram-trick norms equal the materialized ones.
  CHECK(std::sqrt(fx.att.wq_grad_sq) == Approx(fx.att.dWq.norm()).epsilon(1e-10));
  CHECK(std::sqrt(fx.att.wk_grad_sq) == Approx(fx.att.dWk.norm()).epsilon(1e-10));
  CHECK(std::sqrt(fx.att.wv_grad_sq) == Approx(fx.att.dWv.norm()).epsilon(1e-10));
  CHECK(std::sqrt(fx.att.wo_grad_sq) == Approx(fx.att.dWo.norm()).epsilon(1e-10));

  fd::Report report("attention alone heads=" + std::to_string(H) + " causal=" + std::to_string(causal));
  auto fd_over = [&](Mat<double>& p, const Mat<double>& g, const char* what) {
    const fd::Check c = report.add(what, fd::tensor(p.data(), p.size(), g.data(), [&] { return fx.loss(); }));
    INFO(c.line(what) << " heads=" << H << " causal=" << causal);
    CHECK(c.max_ref > 0);
    CHECK(c.rel() < fd::kTol);
  };
  fd_over(fx.x, dx, "dx");
  fd_over(fx.base.Bq, dBq, "dW_Q");
  fd_over(fx.base.Bk, dBk, "dW_K");
  fd_over(fx.base.Bv, dBv, "dW_V");
  fd_over(fx.base.Bo, dBo, "dW_O");
}

}  // namespace

TEST_CASE("attention alone: dx and dW_Q, dW_K, dW_V, dW_O equal central finite differences", "[attention]") {
  for (int heads : {1, 2, 4, 8})
    for (bool causal : {true, false}) {
      DYNAMIC_SECTION("heads=" << heads << " causal=" << causal) { check_attention_alone(5, 8, heads, causal); }
    }
}

TEST_CASE("softmax rows sum to 1 and the causal mask zeroes j > i exactly", "[attention]") {
  for (bool causal : {true, false}) {
    AttnFixture fx(6, 8, 2, causal, 7);
    fx.loss();
    for (int h = 0; h < 2; ++h) {
      const double* P = fx.att.probs(h);
      for (int i = 0; i < 6; ++i) {
        double sum = 0;
        for (int j = 0; j < 6; ++j) {
          const double p = P[i * 6 + j];
          sum += p;
          if (causal && j > i)
            CHECK(p == 0.0);
          else
            CHECK(p > 0.0);
        }
        CHECK(sum == Approx(1.0).epsilon(1e-14));
      }
    }
    // Token 0 attends only to itself under the mask: its context is exactly V_0.
    if (causal) CHECK(fx.att.probs(0)[0] == 1.0);
  }
  // P against a reference written out from the definition (std::exp, the
  // head columns taken from Q = sq x Bq directly), to round-off.
  for (int heads : {1, 2, 4}) {
    for (bool causal : {true, false}) {
      const int T = 6, d = 8, dh = d / heads;
      AttnFixture fx(T, d, heads, causal, 40 + heads);
      fx.loss();
      const Mat<double> Q = fx.sq * fx.x * fx.base.Bq, K = fx.sk * fx.x * fx.base.Bk;
      double worst = 0;
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < T; ++i) {
          const int jn = causal ? i + 1 : T;
          std::vector<double> s(jn);
          double mx = -1e300, sum = 0;
          for (int j = 0; j < jn; ++j) {
            s[j] = Q.row(i).segment(h * dh, dh).dot(K.row(j).segment(h * dh, dh)) / std::sqrt(double(dh));
            mx = std::max(mx, s[j]);
          }
          for (int j = 0; j < jn; ++j) sum += (s[j] = std::exp(s[j] - mx));
          for (int j = 0; j < jn; ++j) worst = std::max(worst, std::abs(fx.att.probs(h)[i * T + j] - s[j] / sum));
        }
      INFO("heads=" << heads << " causal=" << causal);
      CHECK(worst < 1e-14);
    }
  }
}

TEST_CASE("causal: a token's output depends only on the tokens before it", "[attention]") {
  // Attention alone: changing token 2 leaves the outputs of tokens 0 and 1 bit-identical.
  for (bool causal : {true, false}) {
    AttnFixture fx(4, 8, 4, causal, 21);
    fx.loss();
    const Mat<double> y0 = fx.y;
    for (int i = 0; i < 8; ++i) fx.x(2, i) += 0.5;
    fx.loss();
    if (causal) {
      CHECK(fx.y.row(0) == y0.row(0));
      CHECK(fx.y.row(1) == y0.row(1));
    } else {
      CHECK_FALSE(fx.y.row(0) == y0.row(0));
    }
    CHECK_FALSE(fx.y.row(2) == y0.row(2));
  }
  // The whole stack (norms and MLPs act per token): the same holds at every layer.
  for (Arch arch : all_archs()) {
    Config cfg = test::small_transformer();
    cfg.depth = 4;
    cfg.tokens = 4;
    WeightBank<float> bank;
    bank.prepare(cfg.seed, cfg.width, cfg.hidden(), cfg.init, cfg.depth, true);
    Model<float> m;
    m.configure(cfg, arch, bank);
    m.forward();
    Mat<float> top0 = Eigen::Map<Mat<float>>(m.h(cfg.depth), cfg.tokens, cfg.width);
    for (int i = 0; i < cfg.width; ++i) m.input()(2, i) += 0.5f;
    m.forward();
    Mat<float> top1 = Eigen::Map<Mat<float>>(m.h(cfg.depth), cfg.tokens, cfg.width);
    INFO(name(arch));
    CHECK(top1.topRows(2) == top0.topRows(2));
    CHECK_FALSE(top1.row(2) == top0.row(2));
  }
}
