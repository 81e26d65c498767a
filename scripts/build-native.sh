#!/usr/bin/env bash
# Native engine, CLI and Catch2 tests into build/native.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/native/CMakeCache.txt ] || cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$(nproc)"
