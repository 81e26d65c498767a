#!/usr/bin/env bash
# Bench-only WebAssembly modules (never shipped), into build/bench-wasm/:
#   norm_simd.{js,wasm}    bench/norm_bench.cpp, -O3 -msimd128 (the shipped flags)
#   norm_scalar.{js,wasm}  the same without -msimd128
#   profile.{js,wasm}      bench/wasm/profile.cpp + the core sources, -O3 -msimd128
#   peak_simd.wasm         bench/peak_simd.cpp, -O3 -msimd128: a standalone module with no imports
#                          (bench/lib/peak.js instantiates it in Node and in the page)
# Plain C exports, a non-ES6 MODULARIZE build for Node (loaded with wasmBinary).
set -euo pipefail
cd "$(dirname "$0")/../.."
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
out=build/bench-wasm
mkdir -p "$out"
# The repository is "type": "module"; these outputs are CommonJS.
echo '{"type": "commonjs"}' > "$out/package.json"
common=(-O3 -std=c++17 -ffp-contract=off -DNDEBUG -Icore/include -I/usr/include/eigen3
  -sMODULARIZE=1 -sENVIRONMENT=node -sFILESYSTEM=0 -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=33554432)

# Rebuilds only when a source is newer than the output.
stale() { # out, sources...
  local o=$1; shift
  [ -f "$o" ] || return 0
  for s in "$@"; do [ "$s" -nt "$o" ] && return 0; done
  return 1
}

# The norm bench runs the core's timing kernels (norm_timing.cpp), which use the core's checks.
core_src=(core/src/*.cpp)
norm_src=(bench/norm_bench.cpp "${core_src[@]}" core/include/resnorm/*.h)
if stale "$out/norm_simd.wasm" "${norm_src[@]}"; then
  em++ "${common[@]}" -msimd128 bench/norm_bench.cpp "${core_src[@]}" -o "$out/norm_simd.js" \
    -sEXPORT_NAME=createNormBench -sEXPORTED_FUNCTIONS=_norm_bench_setup,_norm_bench_time
fi
if stale "$out/norm_scalar.wasm" "${norm_src[@]}"; then
  em++ "${common[@]}" bench/norm_bench.cpp "${core_src[@]}" -o "$out/norm_scalar.js" \
    -sEXPORT_NAME=createNormBench -sEXPORTED_FUNCTIONS=_norm_bench_setup,_norm_bench_time
fi
if stale "$out/profile.wasm" bench/wasm/profile.cpp bench/phases.h "${core_src[@]}" core/include/resnorm/*.h; then
  em++ "${common[@]}" -msimd128 bench/wasm/profile.cpp "${core_src[@]}" -o "$out/profile.js" \
    -sEXPORT_NAME=createProfile -sEXPORTED_FUNCTIONS=_profile_run,_profile_value
fi
if stale "$out/peak_simd.wasm" bench/peak_simd.cpp; then
  em++ -O3 -std=c++17 -ffp-contract=off -msimd128 --no-entry -sSTANDALONE_WASM bench/peak_simd.cpp \
    -o "$out/peak_simd.wasm"
fi
echo "bench-wasm: $(ls "$out" | tr '\n' ' ')"
