#!/usr/bin/env bash
# The clang build with AddressSanitizer and UndefinedBehaviorSanitizer
# (build/sanitize): the Catch2 suite `npm run test:sanitize` runs (any report
# fails the test) and the libFuzzer targets scripts/fuzz.sh runs, all linked
# from one compile of the core (instrumented for the fuzzers: RESNORM_FUZZ).
# -O1 and no NDEBUG, so Eigen's own bounds assertions are on as well; line
# tables (-gline-tables-only) give every report its file:line at less compile
# time than full -g.
#   scripts/build-sanitize.sh [target...]   default: core_tests resnorm
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build/sanitize
flags="-O1 -gline-tables-only"
if ! grep -qsx 'RESNORM_FUZZ:BOOL=ON' "$dir/CMakeCache.txt" ||
  ! grep -qsx "CMAKE_CXX_FLAGS_SANITIZE:STRING=$flags" "$dir/CMakeCache.txt"; then
  CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_CXX_FLAGS_SANITIZE="$flags" \
    -DRESNORM_SANITIZE=ON -DRESNORM_FUZZ=ON >/dev/null
fi
[ $# -gt 0 ] || set -- core_tests resnorm
cmake --build "$dir" -j"$(nproc)" --target "$@"
