#!/usr/bin/env bash
# Builds what bench/run.js measures, beyond `npm run build:wasm` (the shipped WASM SIMD build):
#   build/bench-v2      native, -O3 -march=x86-64-v2 (SSE4.2, 128-bit vectors): resnorm_bench, resnorm_norm_bench
#   build/bench-v2-clang  the same with clang++ (the LLVM inside emcc), and resnorm_train_bench
#                         (bench/train_bench.cpp: the core's Trainer, for the training table)
#   build/bench-native  native, -O3 -march=native
#   build/wasm-scalar   the engine as WebAssembly without -msimd128
#   build/bench-wasm    bench-only wasm modules (norms, profile, the peak of bench/peak_simd.cpp): bench/wasm/build.sh
#   dist/               the page (vite build), for part 2; if it does not build, part 2 says why
# Each step is incremental; a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
for variant in "bench-v2 -march=x86-64-v2" "bench-native -march=native"; do
  dir=build/${variant%% *}
  flags=${variant#* }
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DRESNORM_TESTS=OFF -DRESNORM_ARCH_FLAGS="$flags" >/dev/null
  fi
  echo "bench: $dir ($flags)"
  # Eigen's AVX-512 headers warn under -march=native: the log keeps them, a failure shows them.
  cmake --build "$dir" -j"$jobs" --target resnorm_bench resnorm_norm_bench >"$dir/bench-build.log" 2>&1 ||
    { tail -40 "$dir/bench-build.log"; exit 1; }
done
# The same sources with clang, the compiler inside emcc (Debian's emscripten uses
# the system's clang): native code from the very LLVM that builds the wasm.
if command -v clang++ >/dev/null; then
  dir=build/bench-v2-clang
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DRESNORM_TESTS=OFF -DRESNORM_ARCH_FLAGS=-march=x86-64-v2 \
      -DCMAKE_CXX_COMPILER=clang++ >/dev/null
  fi
  echo "bench: $dir (clang++, -march=x86-64-v2)"
  cmake --build "$dir" -j"$jobs" --target resnorm_bench resnorm_norm_bench >"$dir/bench-build.log" 2>&1 ||
    { tail -40 "$dir/bench-build.log"; exit 1; }
  # The training harness, linked against the core library just built, with that build's
  # flags (CMakeLists.txt: -O3 -DNDEBUG, -ffp-contract=off, the arch flags).
  train=$dir/resnorm_train_bench
  if [ ! -f "$train" ] || [ bench/train_bench.cpp -nt "$train" ] || [ bench/isa.h -nt "$train" ] ||
    [ "$dir/libresnorm_core.a" -nt "$train" ]; then
    echo "bench: $train"
    clang++ -std=c++17 -O3 -DNDEBUG -ffp-contract=off -Wall -Wextra -march=x86-64-v2 -Icore/include \
      -I/usr/include/eigen3 bench/train_bench.cpp "$dir/libresnorm_core.a" -o "$train"
  fi
else
  echo "bench: no clang++ (it comes with Debian's emscripten); the native-v2-clang contender will be skipped"
fi
echo "bench: build/wasm-scalar"
mkdir -p build/wasm-scalar
RESNORM_WASM_SIMD=OFF bash scripts/build-wasm.sh build/wasm-scalar >build/wasm-scalar/bench-build.log 2>&1 ||
  { tail -40 build/wasm-scalar/bench-build.log; exit 1; }
echo "bench: build/bench-wasm"
bash bench/wasm/build.sh
echo "bench: dist/ (the page)"
if ! npm run --silent build:web; then
  echo "bench: the page did not build; part 2 (browser) will report it as skipped"
fi
