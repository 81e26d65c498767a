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

#include <cstring>

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
template <class S>
inline typename Vec<S>::type splat(S s) {
  typename Vec<S>::type v = {};
  return v + s;
}
template <class S>
inline S hsum(typename Vec<S>::type v) {
  S s = 0;
  for (int i = 0; i < Vec<S>::lanes; ++i) s += v[i];
  return s;
}

// One 2-row by 4-vector tile of C = scale * A B (rows i, i+1; columns j..).
template <class S, int R>
inline void nn_tile(const S* A, const S* B, S* C, int K, int N, int i, int j, S scale) {
  typedef typename Vec<S>::type V;
  constexpr int W = Vec<S>::lanes;
  V acc[R][4] = {};
  for (int k = 0; k < K; ++k) {
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

// Column tail of C = scale * A B: one vector, then single columns.
template <class S>
inline void nn_tail(const S* A, const S* B, S* C, int M, int K, int N, int j0, S scale) {
  typedef typename Vec<S>::type V;
  constexpr int W = Vec<S>::lanes;
  int j = j0;
  for (; j + W <= N; j += W)
    for (int i = 0; i < M; ++i) {
      V acc = {};
      for (int k = 0; k < K; ++k) acc += splat(A[static_cast<long>(i) * K + k]) * load(B + static_cast<long>(k) * N + j);
      store(C + static_cast<long>(i) * N + j, acc * scale);
    }
  for (; j < N; ++j)
    for (int i = 0; i < M; ++i) {
      S acc = 0;
      for (int k = 0; k < K; ++k) acc += A[static_cast<long>(i) * K + k] * B[static_cast<long>(k) * N + j];
      C[static_cast<long>(i) * N + j] = acc * scale;
    }
}

// C[M x N] = scale * A[M x K] B[K x N].
template <class S>
void gemm_nn(const S* A, const S* B, S* C, int M, int K, int N, S scale) {
  constexpr int TW = 4 * Vec<S>::lanes;
  const int Nt = N - N % TW;
  for (int j = 0; j < Nt; j += TW) {
    int i = 0;
    for (; i + 2 <= M; i += 2) nn_tile<S, 2>(A, B, C, K, N, i, j, scale);
    if (i < M) nn_tile<S, 1>(A, B, C, K, N, i, j, scale);
  }
  if (Nt < N) nn_tail(A, B, C, M, K, N, Nt, scale);
}

// C[M x N] = scale * A[M x K] B[N x K]^T: dot products of rows of A with rows of B.
template <class S>
void gemm_nt(const S* A, const S* B, S* C, int M, int K, int N, S scale) {
  typedef typename Vec<S>::type V;
  constexpr int W = Vec<S>::lanes;
  const int Kv = K - K % W;
  for (int i = 0; i < M; i += 2) {
    const int R = (i + 1 < M) ? 2 : 1;
    const S* a0 = A + static_cast<long>(i) * K;
    const S* a1 = A + static_cast<long>(i + R - 1) * K;
    for (int j = 0; j < N; j += 4) {
      const int J = (N - j < 4) ? N - j : 4;
      V acc[2][4] = {};
      const S* b[4];
      for (int c = 0; c < 4; ++c) b[c] = B + static_cast<long>(j + (c < J ? c : 0)) * K;
      for (int k = 0; k < Kv; k += W) {
        V x0 = load(a0 + k), x1 = load(a1 + k);
        for (int c = 0; c < 4; ++c) {
          V y = load(b[c] + k);
          acc[0][c] += x0 * y;
          acc[1][c] += x1 * y;
        }
      }
      for (int r = 0; r < R; ++r) {
        const S* a = r ? a1 : a0;
        for (int c = 0; c < J; ++c) {
          S s = hsum<S>(acc[r][c]);
          for (int k = Kv; k < K; ++k) s += a[k] * b[c][k];
          C[static_cast<long>(i + r) * N + j + c] = s * scale;
        }
      }
    }
  }
}

}  // namespace resnorm::kernels
