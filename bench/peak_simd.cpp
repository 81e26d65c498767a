// The machine's own limit for the engine's arithmetic: the peak rate of f32x4 multiply-adds
// of one core in WebAssembly SIMD, as V8 compiles it (bench/lib/peak.js runs it in Node and
// in Chromium). WebAssembly SIMD 128 has no fused multiply-add (relaxed SIMD's
// f32x4.relaxed_madd is not in the emcc 3.1.6 the project builds with), so one multiply-add
// is f32x4.mul then f32x4.add: 2 flops per lane, 8 per pair.
//
// peak_run<N>: N independent chains acc_i = acc_i * b + c, `iters` pairs each, so
// N * iters pairs in all; the chains are independent so that N of them in flight hide the
// latency of a mul followed by an add. b < 1 keeps every chain finite; the sum of the chains
// is returned and summed by the caller, so the compiler cannot drop the loop, and without
// -ffast-math it cannot reassociate or fold it (bench/build.sh checks the loop with
// wasm-objdump: f32x4.mul and f32x4.add, N of each, no scalar f32 arithmetic).
//
// Built by bench/build.sh as a standalone module with no imports (build/bench-wasm/peak_simd.wasm):
//   emcc -O3 -msimd128 -ffp-contract=off --no-entry -sSTANDALONE_WASM ...
// Exports: peak_4, peak_8, peak_12, peak_16 (iters, seed) -> float, the chains' sum.
#include <wasm_simd128.h>

namespace {

template <int N>
float peak_run(int iters, float seed) {
  v128_t acc[N];
  for (int i = 0; i < N; ++i) acc[i] = wasm_f32x4_splat(seed + 0.01f * float(i));
  // From the seed, so that no value is a compile-time constant.
  const v128_t b = wasm_f32x4_splat(0.999f + 1e-7f * seed);
  const v128_t c = wasm_f32x4_splat(1e-3f * seed);
  for (int k = 0; k < iters; ++k) {
    for (int i = 0; i < N; ++i) acc[i] = wasm_f32x4_add(wasm_f32x4_mul(acc[i], b), c);
  }
  v128_t s = acc[0];
  for (int i = 1; i < N; ++i) s = wasm_f32x4_add(s, acc[i]);
  return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) + wasm_f32x4_extract_lane(s, 2) +
         wasm_f32x4_extract_lane(s, 3);
}

}  // namespace

extern "C" {
__attribute__((export_name("peak_4"))) float peak_4(int iters, float seed) { return peak_run<4>(iters, seed); }
__attribute__((export_name("peak_8"))) float peak_8(int iters, float seed) { return peak_run<8>(iters, seed); }
__attribute__((export_name("peak_12"))) float peak_12(int iters, float seed) { return peak_run<12>(iters, seed); }
__attribute__((export_name("peak_16"))) float peak_16(int iters, float seed) { return peak_run<16>(iters, seed); }
}
