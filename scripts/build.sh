#!/usr/bin/env bash
# Configures and builds wacamp into build/ (Release with debug info). Set WACAMP_WERROR=ON
# to turn warnings into errors (CI does), WACAMP_SANITIZE=ON for ASan/UBSan. Arguments go to
# `cmake --build`: `scripts/build.sh --target wacamp` builds the binary only, not the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${WACAMP_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWACAMP_WERROR="${WACAMP_WERROR:-OFF}" -DWACAMP_SANITIZE="${WACAMP_SANITIZE:-OFF}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" "$@"
