#!/usr/bin/env bash
# Formats the tree: Prettier for JS, CSS and HTML, clang-format for C++.
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  change nothing, fail naming every unformatted file
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t cxx < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.h' '*.hpp' '*.cc')
if [ "${1:-}" = --check ]; then
  status=0
  npx prettier --check --log-level warn . || status=1
  bad=()
  for f in "${cxx[@]}"; do
    [ -f "$f" ] || continue
    clang-format --style=file "$f" | cmp -s - "$f" || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    printf 'clang-format: not formatted: %s\n' "${bad[@]}" >&2
    status=1
  fi
  [ $status -eq 0 ] || echo "format: run 'npm run format' to fix" >&2
  exit $status
fi
npx prettier --write --log-level warn .
[ ${#cxx[@]} -eq 0 ] || clang-format --style=file -i "${cxx[@]}"
