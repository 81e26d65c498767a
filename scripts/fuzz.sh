#!/usr/bin/env bash
# Builds the libFuzzer targets (build/fuzz, clang, ASan + UBSan) and runs each
# for a time budget: `npm run fuzz` (FUZZ_SECONDS, default 300 s each) or the
# short run of `npm test` (`scripts/fuzz.sh 20`). Each target starts from its
# seed corpus in tests/fuzz/corpus/<target>/ (read only; new inputs go to a
# scratch folder). A crash exits non-zero and leaves the input as
# build/fuzz/crash-<target>-*: turn it into a unit test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-${FUZZ_SECONDS:-300}}
dir=build/fuzz
if [ ! -f "$dir/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_CXX_FLAGS_FUZZ="-O1 -g" \
    -DRESNORM_FUZZ=ON -DRESNORM_SANITIZE=ON -DRESNORM_TESTS=OFF >/dev/null
fi
targets=(fuzz_cli_args fuzz_js_config fuzz_simulate fuzz_paths fuzz_train_state)
cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}" >"$dir/build.log" 2>&1 || { tail -30 "$dir/build.log"; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for t in "${targets[@]}"; do
  scratch=$(mktemp -d)
  log=$dir/$t.log
  if ! "$dir/tests/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$dir/crash-$t-" "$scratch" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz: $t failed; the input is in $dir/crash-$t-*"
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  echo "fuzz: $t: $runs executions in ${seconds} s, no crash"
  rm -rf "$scratch"
done
