#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit and end-to-end) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "${CI:-}" = "true" ]; then export WACAMP_WERROR=ON; fi
bash scripts/build.sh
ctest --test-dir "${WACAMP_BUILD_DIR:-build}" --output-on-failure -j 2 --timeout 300
# CI also fuzzes the parsers briefly (docs/hostile-input.md); WACAMP_FUZZ_SECONDS=0 skips it.
if [ "${CI:-}" = "true" ] && [ "${WACAMP_FUZZ_SECONDS:-20}" != "0" ]; then
  bash scripts/fuzz.sh "${WACAMP_FUZZ_SECONDS:-20}"
fi
