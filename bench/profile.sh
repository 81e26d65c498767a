#!/usr/bin/env bash
# Native instruction profile of one scene under callgrind (for bench/PROFILE.md):
# which functions the instructions of steady-state recomputes are spent in,
# with inlined kernels attributed to their source (kernels.h, norms.h, ...).
#   bash bench/profile.sh [resnorm_bench flags...]     (default: the default scene)
#   CXX=clang++ bash bench/profile.sh ...               (clang 14, the compiler inside emcc)
# Builds build/bench-prof[-clang] (-O3 -g -march=x86-64-v2), runs 1 + 30 recomputes under
# callgrind and prints the per-function table of callgrind_annotate. The weight
# bank's generation (first call only) shows up as gaussian_matrix and libm's log.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "profile.sh: valgrind is not installed (apt-get install valgrind)"; exit 1; }
cxx=${CXX:-g++}
dir=build/bench-prof
[ "$cxx" = g++ ] || dir=build/bench-prof-$(basename "$cxx" | tr -d '+')
if [ ! -f "$dir/CMakeCache.txt" ]; then
  # DWARF 4: valgrind 3.19 cannot read clang 14's default DWARF 5.
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DRESNORM_TESTS=OFF -DRESNORM_ARCH_FLAGS=-march=x86-64-v2 \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS=-gdwarf-4 >/dev/null
fi
cmake --build "$dir" -j"$(nproc)" --target resnorm_bench >"$dir/bench-build.log" 2>&1 || { tail -40 "$dir/bench-build.log"; exit 1; }
out="$dir/callgrind.out"
valgrind --tool=callgrind --callgrind-out-file="$out" "$dir/resnorm_bench" --repeat 30 "$@" >/dev/null 2>"$dir/callgrind.log"
callgrind_annotate --inclusive=no --auto=no "$out" 2>/dev/null | sed -n "/file:function/,\$p" | cut -c1-200 | head -25 || true
