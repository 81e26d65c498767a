#!/usr/bin/env bash
# The Catch2 suite built with clang, AddressSanitizer and UndefinedBehaviorSanitizer
# (build/sanitize), run by `npm run test:sanitize`: any report fails the test.
# -O1 -g and no NDEBUG, so Eigen's own bounds assertions are on as well.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build/sanitize
if [ ! -f "$dir/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -g" \
    -DRESNORM_SANITIZE=ON >/dev/null
fi
cmake --build "$dir" -j"$(nproc)" --target core_tests resnorm
