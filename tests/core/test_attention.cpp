// The attention sublayer (attention.cpp): its gradients against central finite
// differences in double (fd.h), the softmax and the causal mask, alone and in a
// whole transformer stack.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "attn_fixture.h"
#include "fd.h"
#include "helpers.h"
#include "resnorm/attention.h"
#include "resnorm/model.h"
#include "resnorm/rng.h"

using namespace resnorm;
using test::AttnFixture;

namespace {

void check_attention_alone(int T, int d, int H, bool causal) {
  AttnFixture fx(T, d, H, causal, 100 + 10 * H + causal);
  fx.check_gradients("attention alone heads=" + std::to_string(H) + " causal=" + std::to_string(causal));
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
