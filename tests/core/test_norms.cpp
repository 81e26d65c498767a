// LayerNorm and RMSNorm alone (norms.h, norms.cpp): forward invariants, the
// constant vector, the scale invariance of the Jacobian, J(a x) = J(x) / a,
// and Norm's input-only backward.
#include <catch2/catch.hpp>
#include <cmath>

#include "resnorm/norms.h"
#include "resnorm/weights.h"

using namespace resnorm;

namespace {

constexpr int T = 5, d = 16;

Mat<double> random_tokens(uint64_t key, double scale = 1.0, double shift = 0.0) {
  return (gaussian_matrix(key, T, d).array() * scale + shift).matrix();
}

// Jacobian of one token's norm output with respect to its input, (d, d), via backward.
Eigen::MatrixXd jacobian(NormKind kind, const Eigen::VectorXd& x, double eps) {
  Eigen::VectorXd gamma = Eigen::VectorXd::Ones(d), beta = Eigen::VectorXd::Zero(d);
  Eigen::VectorXd y(d), dg(d), db(d);
  double mean, rstd;
  if (kind == NormKind::layernorm)
    layernorm_forward(y.data(), &mean, &rstd, x.data(), gamma.data(), beta.data(), 1, d, eps);
  else
    rmsnorm_forward(y.data(), &rstd, x.data(), gamma.data(), 1, d, eps);
  Eigen::MatrixXd J(d, d);
  for (int i = 0; i < d; ++i) {
    Eigen::VectorXd dy = Eigen::VectorXd::Unit(d, i), dx = Eigen::VectorXd::Zero(d);
    if (kind == NormKind::layernorm)
      layernorm_backward(dx.data(), dg.data(), db.data(), dy.data(), x.data(), gamma.data(), &mean, &rstd, 1, d);
    else
      rmsnorm_backward(dx.data(), dg.data(), dy.data(), x.data(), gamma.data(), &rstd, 1, d);
    J.row(i) = dx.transpose();  // row i: d y_i / d x
  }
  return J;
}

}  // namespace

TEST_CASE("LayerNorm gives each token zero mean and unit variance", "[norms]") {
  for (double scale : {1e-2, 1.0, 1e3}) {
    Mat<double> x = random_tokens(1, scale, 3.0 * scale), y(T, d);
    Vecx<double> g = Vecx<double>::Ones(d), b = Vecx<double>::Zero(d), mean(T), rstd(T);
    layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), g.data(), b.data(), T, d);
    for (int t = 0; t < T; ++t) {
      const double var_in = (x.row(t).array() - x.row(t).mean()).square().mean();
      const double var_out = (y.row(t).array() - y.row(t).mean()).square().mean();
      CHECK(std::abs(y.row(t).mean()) < 1e-12);
      // Exactly var / (var + eps): the eps inside the root is the only deviation from 1.
      CHECK(var_out == Approx(var_in / (var_in + kEps)).epsilon(1e-12));
      // Unit variance up to eps / var: 1e-4 for any token with var >= 0.1.
      if (var_in >= 0.1) CHECK(std::abs(var_out - 1.0) <= kEps / var_in + 1e-12);
    }
  }
}

TEST_CASE("RMSNorm gives each token unit mean square, without centering", "[norms]") {
  Mat<double> x = random_tokens(2, 2.0, 1.0), y(T, d);
  Vecx<double> g = Vecx<double>::Ones(d), rstd(T);
  rmsnorm_forward(y.data(), rstd.data(), x.data(), g.data(), T, d);
  for (int t = 0; t < T; ++t) {
    const double ms_in = x.row(t).array().square().mean();
    CHECK(y.row(t).array().square().mean() == Approx(ms_in / (ms_in + kEps)).epsilon(1e-12));
    // No re-centering: the mean keeps its sign and relative size.
    CHECK(y.row(t).mean() == Approx(x.row(t).mean() * rstd(t)).epsilon(1e-12));
  }
}

TEST_CASE("a constant vector through LayerNorm gives beta, and no NaN anywhere", "[norms]") {
  Mat<double> x = Mat<double>::Constant(T, d, 2.5), y(T, d), dx = Mat<double>::Zero(T, d);
  Vecx<double> g = gaussian_matrix(3, d, 1), b = gaussian_matrix(4, d, 1), mean(T), rstd(T);
  Vecx<double> dg = Vecx<double>::Zero(d), db = Vecx<double>::Zero(d);
  layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), g.data(), b.data(), T, d);
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < d; ++i) CHECK(y(t, i) == b(i));  // exactly: x - mean is exactly 0
  CHECK(rstd(0) == Approx(1.0 / std::sqrt(kEps)));       // eps keeps 1/sqrt(0) away
  Mat<double> dy = random_tokens(5);
  layernorm_backward(dx.data(), dg.data(), db.data(), dy.data(), x.data(), g.data(), mean.data(), rstd.data(), T, d);
  CHECK(dx.allFinite());
  CHECK(dg.allFinite());
  // The zero vector through RMSNorm: output 0, finite gradient.
  Mat<double> z = Mat<double>::Zero(T, d);
  rmsnorm_forward(y.data(), rstd.data(), z.data(), g.data(), T, d);
  CHECK(y.isZero(0));
  dx.setZero();
  rmsnorm_backward(dx.data(), dg.data(), dy.data(), z.data(), g.data(), rstd.data(), T, d);
  CHECK(dx.allFinite());
}

TEST_CASE("a float constant vector gives beta in the engine's float path too", "[norms]") {
  Mat<float> x = Mat<float>::Constant(T, d, -7.25f), y(T, d);
  Vecx<float> g = Vecx<float>::Constant(d, 1.5f), b = Vecx<float>::LinSpaced(d, -1.f, 1.f), mean(T), rstd(T);
  layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), g.data(), b.data(), T, d);
  for (int i = 0; i < d; ++i) CHECK(y(0, i) == b(i));
}

TEST_CASE("the norm Jacobian scales as 1/a: J(a x) = J(x) / a", "[norms]") {
  Eigen::VectorXd x = gaussian_matrix(6, d, 1);
  for (NormKind kind : {NormKind::layernorm, NormKind::rmsnorm}) {
    const Eigen::MatrixXd J1 = jacobian(kind, x, 0.0);
    for (double a : {1e-3, 0.5, 7.0, 1e4}) {
      // With eps = 0 the invariance is exact up to round-off.
      const Eigen::MatrixXd Ja = jacobian(kind, a * x, 0.0);
      CHECK((Ja * a - J1).norm() / J1.norm() < 1e-12);
      // With the engine's eps = 1e-5 it holds to O(eps / var): var(a x) >= 0.25 a^2
      // here, so the deviation is below 1e-5 / (0.25 a^2) (checked for a >= 0.5).
      if (a >= 0.5) {
        const Eigen::MatrixXd Je = jacobian(kind, a * x, kEps), J1e = jacobian(kind, x, kEps);
        CHECK((Je * a - J1e).norm() / J1e.norm() < 4 * kEps / std::min(1.0, a * a) + 4 * kEps);
      }
    }
    if (kind == NormKind::layernorm) {
      // LayerNorm projects out the mean direction: J 1 = 0.
      CHECK((J1 * Eigen::VectorXd::Ones(d)).norm() < 1e-12 * J1.norm());
    }
  }
}

TEST_CASE("Norm::backward_input gives backward's dx bit for bit and leaves dgamma, dbeta alone", "[norms]") {
  for (NormKind kind : {NormKind::layernorm, NormKind::rmsnorm}) {
    Norm<float> n;
    n.resize(kind, T, d);
    n.gamma.map() = (gaussian_matrix(7, d, 1).array() * 0.3 + 1.0).cast<float>();
    n.beta.map() = (gaussian_matrix(8, d, 1).array() * 0.2).cast<float>();
    const Mat<float> x = random_tokens(9, 2.0, 0.5).cast<float>(), dy = random_tokens(10).cast<float>();
    Mat<float> y(T, d), dx = Mat<float>::Zero(T, d), dx_input = Mat<float>::Zero(T, d);
    n.forward(y.data(), x.data(), T, d);
    n.backward(dx.data(), dy.data(), x.data(), T, d);
    const Vecx<float> dgamma = n.dgamma.map(), dbeta = n.dbeta.map();
    n.backward_input(dx_input.data(), dy.data(), x.data(), T, d);
    INFO(name(kind));
    CHECK(dx_input == dx);
    CHECK(n.dgamma.map() == dgamma);
    CHECK(n.dbeta.map() == dbeta);
    CHECK_FALSE(dgamma.isZero(0));
  }
}

TEST_CASE("BatchNorm gives each feature zero mean and unit variance over the counted rows only", "[norms][batchnorm]") {
  const int rows = 8;
  const Mat<double> x = (gaussian_matrix(77, rows, d).array() * 3.0 + 1.5).matrix();
  Eigen::VectorXd gamma = Eigen::VectorXd::Ones(d), beta = Eigen::VectorXd::Zero(d);
  Mat<double> y(rows, d), y2(rows, d);
  Eigen::VectorXd mean(d), rstd(d), var(d), mean2(d), rstd2(d), var2(d);
  const uint8_t counted[rows] = {1, 1, 1, 1, 1, 0, 0, 1};
  batchnorm_forward(y.data(), mean.data(), rstd.data(), var.data(), x.data(), gamma.data(), beta.data(), counted, rows,
                    d);
  for (int i = 0; i < d; ++i) {
    double m = 0, v = 0;
    for (int r = 0; r < rows; ++r) m += counted[r] ? y(r, i) : 0.0;
    m /= 6;
    for (int r = 0; r < rows; ++r) v += counted[r] ? (y(r, i) - m) * (y(r, i) - m) : 0.0;
    v /= 6;
    CHECK(std::abs(m) < 1e-12);
    CHECK(v == Approx(var(i) / (var(i) + kEps)).epsilon(1e-12));
  }
  // The rows outside the statistics move none of them: change them, the same statistics.
  Mat<double> x2 = x;
  x2.row(5).setConstant(100.0);
  x2.row(6).setConstant(-7.0);
  batchnorm_forward(y2.data(), mean2.data(), rstd2.data(), var2.data(), x2.data(), gamma.data(), beta.data(), counted,
                    rows, d);
  CHECK(mean2 == mean);
  CHECK(rstd2 == rstd);
  CHECK(y2.row(0) == y.row(0));
}
