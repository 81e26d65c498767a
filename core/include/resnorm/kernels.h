// resnorm/kernels.h: the two small matrix products every layer spends its time in.
//
// Written with GCC/Clang generic vectors of 16 bytes, so the same source is
// SSE natively and v128 (f32x4 / f64x2) under emcc -msimd128, and plain
// scalar code where neither is enabled. Eigen 3.4 has no WebAssembly SIMD
// path, which is why these are not Eigen products.
//
// All matrices are dense row-major with the leading dimension equal to the
// column count. The order of every sum depends only on the shapes, so a
// result is bit-identical from run to run.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace resnorm::kernels {

template <class S>
struct Vec;
template <>
struct Vec<float> {
  typedef float type __attribute__((vector_size(16)));
  static constexpr int lanes = 4;
};
template <>
struct Vec<double> {
  typedef double type __attribute__((vector_size(16)));
  static constexpr int lanes = 2;
};

template <class S>
inline typename Vec<S>::type load(const S* p) {
  typename Vec<S>::type v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class S>
inline void store(S* p, typename Vec<S>::type v) {
  std::memcpy(p, &v, sizeof v);
}
// Broadcast by lane initialisation: `zero + s` would cost an add (0.0 + s is not s for s = -0.0).
inline Vec<float>::type splat(float s) { return Vec<float>::type{s, s, s, s}; }
inline Vec<double>::type splat(double s) { return Vec<double>::type{s, s}; }
// (v0 + v2) + (v1 + v3) for float, v0 + v1 for double: the pairing of sum4().
inline float hsum(Vec<float>::type v) { return (v[0] + v[2]) + (v[1] + v[3]); }
inline double hsum(Vec<double>::type v) { return v[0] + v[1]; }

// Causal attention's (T, T) operands are lower triangular: the probabilities
// and their gradient are exactly 0 above the diagonal. The `lower` variants
// below leave out the products with those zeros. For finite values that is
// the same result bit for bit: a product with 0 is +-0, and adding +-0 to a
// sum that started at +0 changes nothing; only an infinite or NaN factor of a
// left-out zero would have made a difference (NaN).

// One R-row by 4-vector tile of C = scale * A B (rows i.., columns j..), over k < kend.
template <class S, int R>
inline void nn_tile(const S* A, const S* B, S* C, int K, int N, int i, int j, S scale, int kend) {
  typedef typename Vec<S>::type V;
  constexpr int W = Vec<S>::lanes;
  V acc[R][4] = {};
  for (int k = 0; k < kend; ++k) {
    const S* b = B + static_cast<long>(k) * N + j;
    V b0 = load(b), b1 = load(b + W), b2 = load(b + 2 * W), b3 = load(b + 3 * W);
    for (int r = 0; r < R; ++r) {
      V a = splat(A[static_cast<long>(i + r) * K + k]);
      acc[r][0] += a * b0;
      acc[r][1] += a * b1;
      acc[r][2] += a * b2;
      acc[r][3] += a * b3;
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < 4; ++v) store(C + static_cast<long>(i + r) * N + j + v * W, acc[r][v] * scale);
}

// Column tail of C = scale * A B: one vector, then single columns (lower: row i over k <= i).
template <class S>
inline void nn_tail(const S* A, const S* B, S* C, int M, int K, int N, int j0, S scale, bool lower) {
  typedef typename Vec<S>::type V;
  constexpr int W = Vec<S>::lanes;
  int j = j0;
  for (; j + W <= N; j += W)
    for (int i = 0; i < M; ++i) {
      const int kend = lower ? i + 1 : K;
      V acc = {};
      for (int k = 0; k < kend; ++k)
        acc += splat(A[static_cast<long>(i) * K + k]) * load(B + static_cast<long>(k) * N + j);
      store(C + static_cast<long>(i) * N + j, acc * scale);
    }
  for (; j < N; ++j)
    for (int i = 0; i < M; ++i) {
      const int kend = lower ? i + 1 : K;
      S acc = 0;
      for (int k = 0; k < kend; ++k) acc += A[static_cast<long>(i) * K + k] * B[static_cast<long>(k) * N + j];
      C[static_cast<long>(i) * N + j] = acc * scale;
    }
}

// C[M x N] = scale * A[M x K] B[K x N]. lower: A is lower triangular (M = K),
// and row i's sum stops at its tile's last row.
template <class S>
void gemm_nn(const S* A, const S* B, S* C, int M, int K, int N, S scale, bool lower = false) {
  constexpr int TW = 4 * Vec<S>::lanes;
  const int Nt = N - N % TW;
  for (int j = 0; j < Nt; j += TW) {
    int i = 0;
    for (; i + 2 <= M; i += 2) nn_tile<S, 2>(A, B, C, K, N, i, j, scale, lower ? i + 2 : K);
    if (i < M) nn_tile<S, 1>(A, B, C, K, N, i, j, scale, lower ? i + 1 : K);
  }
  if (Nt < N) nn_tail(A, B, C, M, K, N, Nt, scale, lower);
}

// One R-row by 4-vector tile of C += A^T B (rows i.., columns j..): the
// products of A's column i + r with B's rows k = kbegin.., added to C in row order.
template <class S, int R>
inline void tn_tile(const S* A, const S* B, S* C, int M, int K, int N, int i, int j, int kbegin) {
  typedef typename Vec<S>::type V;
  constexpr int W = Vec<S>::lanes;
  V acc[R][4];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < 4; ++v) acc[r][v] = load(C + static_cast<long>(i + r) * N + j + v * W);
  for (int k = kbegin; k < M; ++k) {
    const S* b = B + static_cast<long>(k) * N + j;
    V b0 = load(b), b1 = load(b + W), b2 = load(b + 2 * W), b3 = load(b + 3 * W);
    for (int r = 0; r < R; ++r) {
      V a = splat(A[static_cast<long>(k) * K + i + r]);
      acc[r][0] += a * b0;
      acc[r][1] += a * b1;
      acc[r][2] += a * b2;
      acc[r][3] += a * b3;
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < 4; ++v) store(C + static_cast<long>(i + r) * N + j + v * W, acc[r][v]);
}

// C[K x N] += A[M x K]^T B[M x N]: the weight gradient x^T dy of a layer,
// summed over the M rows. Every element of C gets its M products added one
// by one in row order, so calls over consecutive row blocks of A and B give
// the bits of one call over all of them. lower: A is lower triangular (M = K),
// and C's row i sums over A's rows from its tile's first row on.
template <class S>
void gemm_tn(const S* A, const S* B, S* C, int M, int K, int N, bool lower = false) {
  typedef typename Vec<S>::type V;
  constexpr int W = Vec<S>::lanes;
  constexpr int TW = 4 * W;
  const int Nt = N - N % TW;
  for (int j = 0; j < Nt; j += TW) {
    int i = 0;
    for (; i + 2 <= K; i += 2) tn_tile<S, 2>(A, B, C, M, K, N, i, j, lower ? i : 0);
    if (i < K) tn_tile<S, 1>(A, B, C, M, K, N, i, j, lower ? i : 0);
  }
  int j = Nt;
  for (; j + W <= N; j += W)
    for (int i = 0; i < K; ++i) {
      S* c = C + static_cast<long>(i) * N + j;
      V acc = load(c);
      for (int k = lower ? i : 0; k < M; ++k)
        acc += splat(A[static_cast<long>(k) * K + i]) * load(B + static_cast<long>(k) * N + j);
      store(c, acc);
    }
  for (; j < N; ++j)
    for (int i = 0; i < K; ++i) {
      S acc = C[static_cast<long>(i) * N + j];
      for (int k = lower ? i : 0; k < M; ++k) acc += A[static_cast<long>(k) * K + i] * B[static_cast<long>(k) * N + j];
      C[static_cast<long>(i) * N + j] = acc;
    }
}

// Lane sums of four vectors, by shuffles: {sum a, sum b, sum c, sum d}.
// Float: one vector; double: two. The order of additions is fixed, and
// hsum() below adds lanes in the same pairing, so both paths agree bit for bit.
inline Vec<float>::type sum4(Vec<float>::type a, Vec<float>::type b, Vec<float>::type c, Vec<float>::type d) {
  typedef Vec<float>::type V;
  V ab = __builtin_shufflevector(a, b, 0, 4, 1, 5) + __builtin_shufflevector(a, b, 2, 6, 3, 7);
  V cd = __builtin_shufflevector(c, d, 0, 4, 1, 5) + __builtin_shufflevector(c, d, 2, 6, 3, 7);
  return __builtin_shufflevector(ab, cd, 0, 1, 4, 5) + __builtin_shufflevector(ab, cd, 2, 3, 6, 7);
}
struct Double4 {
  Vec<double>::type lo, hi;
};
inline Double4 sum4(Vec<double>::type a, Vec<double>::type b, Vec<double>::type c, Vec<double>::type d) {
  return {__builtin_shufflevector(a, b, 0, 2) + __builtin_shufflevector(a, b, 1, 3),
          __builtin_shufflevector(c, d, 0, 2) + __builtin_shufflevector(c, d, 1, 3)};
}
inline void store4(float* p, Vec<float>::type v, float scale) { store(p, v * scale); }
inline void store4(double* p, Double4 v, double scale) {
  store(p, v.lo * scale);
  store(p + 2, v.hi * scale);
}

// One R-row by C-column tile of C = scale * A B^T: R x C dot products of
// length K, vectorized over k, each reduced across lanes at the end.
template <class S, int R, int C>
inline void nt_tile(const S* A, const S* B, S* Cm, int K, int N, int i, int j, S scale) {
  typedef typename Vec<S>::type V;
  constexpr int W = Vec<S>::lanes;
  const int Kv = K - K % W;
  const S* a[R];
  const S* b[C];
  for (int r = 0; r < R; ++r) a[r] = A + static_cast<long>(i + r) * K;
  for (int c = 0; c < C; ++c) b[c] = B + static_cast<long>(j + c) * K;
  // Zeroed element by element: `= {}` on the array compiles to a rep stos
  // per tile with GCC, which cost a sixth of the kernel's time at K = 64.
  V acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = V{};
  for (int k = 0; k < Kv; k += W) {
    V x[R];
    for (int r = 0; r < R; ++r) x[r] = load(a[r] + k);
    for (int c = 0; c < C; ++c) {
      V y = load(b[c] + k);
      for (int r = 0; r < R; ++r) acc[r][c] += x[r] * y;
    }
  }
  for (int r = 0; r < R; ++r) {
    S* out = Cm + static_cast<long>(i + r) * N + j;
    if constexpr (C == 4) {
      if (Kv == K) {  // the common case: four lane sums at once, one store
        store4(out, sum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]), scale);
        continue;
      }
    }
    for (int c = 0; c < C; ++c) {
      S s = hsum(acc[r][c]);
      for (int k = Kv; k < K; ++k) s += a[r][k] * b[c][k];
      out[c] = s * scale;
    }
  }
}

// Columns 0..ncols-1 of rows i.. of C = scale * A B^T.
template <class S, int R>
inline void nt_row(const S* A, const S* B, S* C, int K, int N, int i, S scale, int ncols) {
  int j = 0;
  for (; j + 4 <= ncols; j += 4) nt_tile<S, R, 4>(A, B, C, K, N, i, j, scale);
  switch (ncols - j) {
    case 3: nt_tile<S, R, 3>(A, B, C, K, N, i, j, scale); break;
    case 2: nt_tile<S, R, 2>(A, B, C, K, N, i, j, scale); break;
    case 1: nt_tile<S, R, 1>(A, B, C, K, N, i, j, scale); break;
    default: break;
  }
}

// C[M x N] = scale * A[M x K] B[N x K]^T: dot products of rows of A with rows
// of B. lower: only C's lower triangle is wanted (M = N, causal scores), and
// each row pair is computed up to its last row's column; the columns past
// that are not written.
template <class S>
void gemm_nt(const S* A, const S* B, S* C, int M, int K, int N, S scale, bool lower = false) {
  int i = 0;
  for (; i + 2 <= M; i += 2) nt_row<S, 2>(A, B, C, K, N, i, scale, lower ? std::min(N, i + 2) : N);
  if (i < M) nt_row<S, 1>(A, B, C, K, N, i, scale, lower ? std::min(N, i + 1) : N);
}

// C[M x M] = A[M x K] A^T, the Gram matrix: only the tiles reaching the
// diagonal or above are computed, the rest is mirrored. Every element is the
// same dot product, in the same order, as in gemm_nt(A, A, C, M, K, M, 1)
// (a_i[k] a_j[k] = a_j[k] a_i[k] exactly, and an element's value does not
// depend on the tile that computes it), so the result is bit-identical to it
// at about 60% of the work for M = 16.
template <class S>
void gram(const S* A, S* C, int M, int K) {
  auto row = [&](int i, auto rows) {
    constexpr int R = decltype(rows)::value;
    const int j0 = i - i % 4;  // the 4-column tile holding the diagonal
    int j = j0;
    for (; j + 4 <= M; j += 4) nt_tile<S, R, 4>(A, A, C, K, M, i, j, S(1));
    switch (M - j) {
      case 3: nt_tile<S, R, 3>(A, A, C, K, M, i, j, S(1)); break;
      case 2: nt_tile<S, R, 2>(A, A, C, K, M, i, j, S(1)); break;
      case 1: nt_tile<S, R, 1>(A, A, C, K, M, i, j, S(1)); break;
      default: break;
    }
  };
  int i = 0;
  for (; i + 2 <= M; i += 2) row(i, std::integral_constant<int, 2>());
  if (i < M) row(i, std::integral_constant<int, 1>());
  // Row r was computed from column r - r % 4 on (its pair's diagonal tile);
  // the columns before come from row c, which has column r > c.
  for (int r = 4; r < M; ++r)
    for (int c = 0; c < r - r % 4; ++c) C[static_cast<long>(r) * M + c] = C[static_cast<long>(c) * M + r];
}

}  // namespace resnorm::kernels
