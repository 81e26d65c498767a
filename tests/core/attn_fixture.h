// tests/core/attn_fixture.h: attention alone on a fixed input, its loss <r, attention(x)>, and the
// check of every gradient it reports against central finite differences in double. Shared by the
// attention, QK-norm and HybridNorm tests: the same weights, scales and gains for each switch.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fd.h"
#include "resnorm/attention.h"
#include "resnorm/rng.h"

namespace test {

using resnorm::Attention;
using resnorm::AttnBase;
using resnorm::Mat;
using resnorm::QkNorm;
using resnorm::VecWorkspace;

struct AttnFixture {
  int T, d, H;
  AttnBase<double> base;
  Attention<double> att;
  Mat<double> x, r, y, dx;  // (T, d); loss = <r, attention(x)>
  double sq, sk, sv, so;

  // qk: LayerNorm on each head's queries and keys (QK-norm); v_norm: on its values too (HybridNorm).
  AttnFixture(int T_, int d_, int H_, bool causal, uint64_t seed, QkNorm qk = QkNorm::none, bool v_norm = false)
      : T(T_), d(d_), H(H_), att(T_, d_, H_, causal) {
    using resnorm::gaussian_matrix;
    using resnorm::stream_key;
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
    att.set_qk_norm(qk);
    att.set_v_norm(v_norm);
    // Gains away from 1 and apart, so a swapped or missing gain cannot pass.
    resnorm::NormalRng rng(stream_key({seed, 7}));
    for (long i = 0; i < att.gq.size(); ++i) att.gq(i) = 1.0 + 0.3 * rng.normal();
    for (long i = 0; i < att.gk.size(); ++i) att.gk(i) = 0.9 + 0.3 * rng.normal();
    for (long i = 0; i < att.gv.size(); ++i) att.gv(i) = 1.1 + 0.3 * rng.normal();
    x = 1.2 * gaussian_matrix(stream_key({seed, 5}), T, d);
    r = gaussian_matrix(stream_key({seed, 6}), T, d);
    y.resize(T, d);
    dx.resize(T, d);
  }

  double loss() {
    att.forward(y.data(), x.data());
    return (r.array() * y.array()).sum();
  }

  /**
   * dx, dW_Q, dW_K, dW_V, dW_O and each gain's gradient (those the switches add) against central
   * finite differences in double; the Gram-trick norms of the weight gradients against the
   * materialized ones; backward_input gives backward's dx bits and leaves the gains' gradients alone.
   */
  void check_gradients(const std::string& what) {
    loss();
    att.backward(dx.data(), r.data(), x.data(), true);
    const Mat<double> dx_full = dx;
    // d loss / d B = s d loss / d W.
    const Mat<double> dBq = att.dWq * sq, dBk = att.dWk * sk, dBv = att.dWv * sv, dBo = att.dWo * so;
    const std::vector<double> dgq = copy_of(att.dgq), dgk = copy_of(att.dgk), dgv = copy_of(att.dgv);
    CHECK(std::sqrt(att.wq_grad_sq) == Approx(att.dWq.norm()).epsilon(1e-10));
    CHECK(std::sqrt(att.wk_grad_sq) == Approx(att.dWk.norm()).epsilon(1e-10));
    CHECK(std::sqrt(att.wv_grad_sq) == Approx(att.dWv.norm()).epsilon(1e-10));
    CHECK(std::sqrt(att.wo_grad_sq) == Approx(att.dWo.norm()).epsilon(1e-10));

    fd::Report report(what);
    auto check = [&](double* p, long n, const double* g, const char* name) {
      const fd::Check c = report.add(name, fd::tensor(p, n, g, [&] { return loss(); }));
      INFO(what << ": " << c.line(name));
      CHECK(c.max_ref > 0);
      CHECK(c.rel() < fd::kTol);
    };
    check(x.data(), x.size(), dx_full.data(), "dx");
    check(base.Bq.data(), base.Bq.size(), dBq.data(), "dW_Q");
    check(base.Bk.data(), base.Bk.size(), dBk.data(), "dW_K");
    check(base.Bv.data(), base.Bv.size(), dBv.data(), "dW_V");
    check(base.Bo.data(), base.Bo.size(), dBo.data(), "dW_O");
    if (att.gq.size()) check(att.gq.data(), att.gq.size(), dgq.data(), "dgamma_q");
    if (att.gk.size()) check(att.gk.data(), att.gk.size(), dgk.data(), "dgamma_k");
    if (att.gv.size()) check(att.gv.data(), att.gv.size(), dgv.data(), "dgamma_v");

    // backward_input: the same dx bits, the gains' gradients left as backward left them.
    Mat<double> dx_only = Mat<double>::Zero(T, d);
    loss();
    att.backward(dx.data(), r.data(), x.data(), false);
    const std::vector<double> gq_before = copy_of(att.dgq), gk_before = copy_of(att.dgk), gv_before = copy_of(att.dgv);
    att.backward_input(dx_only.data(), r.data(), x.data());
    CHECK(dx_only == dx);
    CHECK(copy_of(att.dgq) == gq_before);
    CHECK(copy_of(att.dgk) == gk_before);
    CHECK(copy_of(att.dgv) == gv_before);
  }

  static std::vector<double> copy_of(const VecWorkspace<double>& v) { return {v.data(), v.data() + v.size()}; }
};

}  // namespace test
