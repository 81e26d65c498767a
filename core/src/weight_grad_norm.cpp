// ||A^T B||_F^2 from (T, T) Gram matrices, with its double redo (see weight_grad_norm.h).
#include "resnorm/weight_grad_norm.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "resnorm/kernels.h"

namespace resnorm {
namespace {

// sum_ij A_ij B_ij in double.
template <class S>
double frob_dot(const Workspace<S>& a, const Workspace<S>& b) {
  double s = 0;
  const S* pa = a.data();
  const S* pb = b.data();
  for (long i = 0; i < a.size(); ++i) s += double(pa[i]) * double(pb[i]);
  return s;
}

// The double redo: sum_ij (sum_k a_ik a_jk) (sum_k b_ik b_jk) with a = A / max|A|,
// b = B / max|B| (so that neither huge nor tiny values leave double's range
// either), times the scales. The scaled entries and both Gram matrices are
// formed once (each Gram entry is one dot product in k order, and a_ik a_jk =
// a_jk a_ik exactly, so the mirrored half is the same number), then summed in
// (i, j) order: the same arithmetic, operation for operation, as computing each
// term in the double loop, at a fraction of the divisions and products.
// r: the float result being redone, returned as it is when A or B is not finite.
template <class S>
double grad_sq_fallback(const S* A, int Ka, const S* B, int Kb, int T, VecWorkspace<double>& wide, double r) {
  auto finite = [T](const S* X, int K) {
    for (long i = 0; i < static_cast<long>(T) * K; ++i)
      if (!std::isfinite(X[i])) return false;
    return true;
  };
  if (!finite(A, Ka) || !finite(B, Kb)) return std::isfinite(r) ? std::numeric_limits<double>::quiet_NaN() : r;
  auto maxabs = [T](const S* X, int K) {
    double m = 0;
    for (long i = 0; i < static_cast<long>(T) * K; ++i) m = std::max(m, std::abs(double(X[i])));
    return m > 0 ? m : 1.0;
  };
  const double sa = maxabs(A, Ka), sb = maxabs(B, Kb);
  double* a = wide.data();
  double* b = a + static_cast<long>(T) * Ka;
  double* ga = b + static_cast<long>(T) * Kb;
  double* gb = ga + static_cast<long>(T) * T;
  for (long i = 0; i < static_cast<long>(T) * Ka; ++i) a[i] = A[i] / sa;
  for (long i = 0; i < static_cast<long>(T) * Kb; ++i) b[i] = B[i] / sb;
  auto gram_double = [T](const double* X, int K, double* G) {
    for (int i = 0; i < T; ++i)
      for (int j = i; j < T; ++j) {
        double g = 0;
        for (int k = 0; k < K; ++k) g += X[static_cast<long>(i) * K + k] * X[static_cast<long>(j) * K + k];
        G[static_cast<long>(i) * T + j] = G[static_cast<long>(j) * T + i] = g;
      }
  };
  gram_double(a, Ka, ga);
  gram_double(b, Kb, gb);
  double sum = 0;
  for (long i = 0; i < static_cast<long>(T) * T; ++i) sum += ga[i] * gb[i];
  return sum * (sa * sa) * (sb * sb);
}

}  // namespace

template <class S>
void GramScratch<S>::resize(int T, int widest) {
  a.resize(T, T);
  b.resize(T, T);
  wide.resize(static_cast<long>(T) * widest + 2L * T * T);
}

template <class S>
double grad_sq_given(const S* A, int Ka, const S* B, int Kb, int T, GramScratch<S>& g) {
  kernels::gram(B, g.b.data(), T, Kb);
  const double r = frob_dot(g.a, g.b);
  if (std::isfinite(r) && r > 1e-60) return r;
  return grad_sq_fallback(A, Ka, B, Kb, T, g.wide, r);
}

template <class S>
double grad_sq(const S* A, int Ka, const S* B, int Kb, int T, GramScratch<S>& g) {
  kernels::gram(A, g.a.data(), T, Ka);
  return grad_sq_given(A, Ka, B, Kb, T, g);
}

template struct GramScratch<float>;
template struct GramScratch<double>;
template double grad_sq(const float*, int, const float*, int, int, GramScratch<float>&);
template double grad_sq(const double*, int, const double*, int, int, GramScratch<double>&);
template double grad_sq_given(const float*, int, const float*, int, int, GramScratch<float>&);
template double grad_sq_given(const double*, int, const double*, int, int, GramScratch<double>&);

}  // namespace resnorm
