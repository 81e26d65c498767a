// The hand-vectorized products against Eigen, on every shape class the tiles
// and tails can meet (rows odd and even, columns below, at and above a tile).
#include <catch2/catch.hpp>

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
        Mat<S> C(M, N), D(M, N), E(M, N);
        kernels::gemm_nn(A.data(), B.data(), C.data(), M, K, N, S(0.5));
        kernels::gemm_nt(A.data(), Bt.data(), D.data(), M, K, N, S(0.5));
        kernels::gemm_tn(At.data(), B.data(), E.data(), M, K, N, S(0.5));
        // A^T B from A's transpose: the same sums as gemm_nn, in the same order.
        REQUIRE(E == C);
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
