#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks, and nothing when all is there.
# Called by `npm start`, `npm test` and `npm run bench`; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: compilers and libraries of the core, the wasm toolchain,
# wasm-objdump for the SIMD check, Chromium for the browser tests,
# clang-format for `npm run format:check`.
# clang and its runtime libraries for the sanitizer build and the fuzzers;
# unzip and xmllint for the SCORM package tests; pdfinfo, pdftotext and pdftoppm
# for the print tests; PyTorch (CPU, for /usr/bin/python3) for the PyTorch parity tests.
PACKAGES=(cmake g++ make libeigen3-dev catch2 emscripten wabt chromium clang-format clang libclang-rt-14-dev
  unzip libxml2-utils poppler-utils python3-torch)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages, when package-lock.json is newer than the last install.
if [ -f package-lock.json ]; then
  stamp=node_modules/.package-lock.json
  if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
    echo "setup: installing npm packages"
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
