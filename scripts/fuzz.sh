#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, in the sanitizer build:
# scripts/build-sanitize.sh) and runs each for a time budget: `npm run fuzz`
# (FUZZ_SECONDS, default 300 s each) or the short run of `npm test`
# (`scripts/fuzz.sh 20`). FUZZ_JOBS targets run at once (default: one per
# core). Each target starts from its seed corpus in tests/fuzz/corpus/<target>/
# (read only; new inputs go to a scratch folder). Every target runs even when
# one crashes; a crash exits non-zero and leaves the input as
# build/fuzz/crash-<target>-*: turn it into a unit test. Logs: build/fuzz/<target>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-${FUZZ_SECONDS:-300}}
jobs=${FUZZ_JOBS:-$(nproc)}
bin=build/sanitize/tests/fuzz
dir=build/fuzz
mkdir -p "$dir"
targets=(fuzz_cli_args fuzz_js_config fuzz_simulate fuzz_paths fuzz_train_state)
bash scripts/build-sanitize.sh "${targets[@]}" >"$dir/build.log" 2>&1 || { tail -30 "$dir/build.log"; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# Runs one target; its exit status goes to $dir/<target>.status.
run() {
  local t=$1 scratch status=0
  scratch=$(mktemp -d)
  "$bin/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$dir/crash-$t-" "$scratch" "tests/fuzz/corpus/$t" >"$dir/$t.log" 2>&1 || status=$?
  rm -rf "$scratch"
  echo "$status" >"$dir/$t.status"
}
for t in "${targets[@]}"; do
  rm -f "$dir/$t.status"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run "$t" &
done
wait

failed=0
for t in "${targets[@]}"; do
  if [ "$(cat "$dir/$t.status" 2>/dev/null)" = 0 ]; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/$t.log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz: $t: $runs executions in ${seconds} s, no crash"
  else
    tail -40 "$dir/$t.log"
    echo "fuzz: $t failed; the input is in $dir/crash-$t-*"
    failed=1
  fi
done
exit $failed
