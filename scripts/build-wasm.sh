#!/usr/bin/env bash
# The engine as WebAssembly SIMD (build/wasm -> wasm/dist/), with Debian's emscripten.
#   RESNORM_WASM_SIMD=OFF scripts/build-wasm.sh build/wasm-scalar   # the scalar variant
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's emcc needs Debian's node modules (acorn) on NODE_PATH.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
dir=${1:-build/wasm}
simd=${RESNORM_WASM_SIMD:-ON}
extra=()
[ "$simd" = ON ] || extra+=(-DRESNORM_WASM_DIST="$PWD/$dir/dist")
if [ ! -f "$dir/CMakeCache.txt" ]; then
  emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DRESNORM_WASM_SIMD="$simd" "${extra[@]}" >/dev/null
fi
cmake --build "$dir" -j"$(nproc)"
