// The hand-vectorized products against Eigen, on every shape class the tiles
// and tails can meet (rows odd and even, columns below, at and above a tile).
#include <catch2/catch.hpp>
#include <cstring>

#include "resnorm/kernels.h"
#include "resnorm/weights.h"

using namespace resnorm;

template <class S>
void check_shapes(double tol) {
  double worst = 0;
  for (int M : {1, 2, 3, 8, 9})
    for (int K : {1, 3, 4, 7, 16, 33})
      for (int N : {1, 2, 5, 8, 16, 17, 31, 64, 70}) {
        Mat<S> A = gaussian_matrix(M * 1000 + K, M, K).cast<S>();
        Mat<S> B = gaussian_matrix(K * 1000 + N, K, N).cast<S>();
        Mat<S> Bt = B.transpose(), At = A.transpose();
        Mat<S> C(M, N), D(M, N);
        Mat<S> E = Mat<S>::Zero(M, N);
        kernels::gemm_nn(A.data(), B.data(), C.data(), M, K, N, S(0.5));
        kernels::gemm_nt(A.data(), Bt.data(), D.data(), M, K, N, S(0.5));
        kernels::gemm_tn(At.data(), B.data(), E.data(), K, M, N);
        // A B as (A^T)^T B from zero: the same sums as gemm_nn, in the same
        // order (halving is exact, so 0.5 E has gemm_nn's bits at scale 0.5).
        REQUIRE(Mat<S>(S(0.5) * E) == C);
        Mat<double> ref = 0.5 * A.template cast<double>() * B.template cast<double>();
        const double scale = ref.cwiseAbs().maxCoeff() + 1e-30;
        const double e1 = (C.template cast<double>() - ref).cwiseAbs().maxCoeff() / scale;
        const double e2 = (D.template cast<double>() - ref).cwiseAbs().maxCoeff() / scale;
        worst = std::max({worst, e1, e2});
        INFO("M=" << M << " K=" << K << " N=" << N << " nn " << e1 << " nt " << e2);
        REQUIRE(e1 < tol);
        REQUIRE(e2 < tol);
      }
  WARN("kernels max relative difference to Eigen: " << worst);
}

TEST_CASE("gemm_nn, gemm_nt and gemm_tn equal Eigen's product", "[kernels]") {
  check_shapes<double>(1e-14);
  check_shapes<float>(2e-6);
}

// C += A^T B on the shapes above, from a nonzero C; and split into two row
// blocks it gives the bits of one call (each element adds its rows in order).
template <class S>
void check_tn(double tol) {
  for (int M : {1, 2, 3, 8, 9, 64})
    for (int K : {1, 3, 4, 7, 16})
      for (int N : {1, 2, 5, 8, 16, 17, 31, 64, 70}) {
        Mat<S> A = gaussian_matrix(M * 1000 + K + 7, M, K).cast<S>();
        Mat<S> B = gaussian_matrix(K * 1000 + N + 7, M, N).cast<S>();
        Mat<S> C0 = gaussian_matrix(N * 1000 + M + 7, K, N).cast<S>();
        Mat<S> C = C0, D = C0;
        kernels::gemm_tn(A.data(), B.data(), C.data(), M, K, N);
        Mat<double> ref =
            C0.template cast<double>() + A.template cast<double>().transpose() * B.template cast<double>();
        const double scale = ref.cwiseAbs().maxCoeff() + 1e-30;
        const double e = (C.template cast<double>() - ref).cwiseAbs().maxCoeff() / scale;
        INFO("M=" << M << " K=" << K << " N=" << N << " tn " << e);
        REQUIRE(e < tol);
        const int h = M / 2;
        kernels::gemm_tn(A.data(), B.data(), D.data(), h, K, N);
        kernels::gemm_tn(A.data() + static_cast<long>(h) * K, B.data() + static_cast<long>(h) * N, D.data(), M - h, K,
                         N);
        REQUIRE(std::memcmp(C.data(), D.data(), sizeof(S) * C.size()) == 0);
      }
}

TEST_CASE("gemm_tn adds Eigen's A^T B, and row blocks add up to one call bit for bit", "[kernels]") {
  check_tn<double>(1e-14);
  check_tn<float>(2e-6);
}
