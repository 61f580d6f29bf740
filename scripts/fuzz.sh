#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (clang, ASan, UBSan) into build-fuzz/ and runs
# each for SECONDS (default 60), seeded from tests/hostile/, samples/ and campaigns/. Fails when
# a harness finds a crash, a leak, undefined behaviour or a hang; the input that did it is kept
# in build-fuzz/artifacts/ (replay it with: build-fuzz/tests/fuzz/fuzz_NAME ARTIFACT).
# The corpus each run grows is kept in build-fuzz/corpus/ for the next run.
#   bash scripts/fuzz.sh [SECONDS] [HARNESS...]     HARNESS: csv_reader campaign_file result_log json_scan
#                                                   response_body
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(csv_reader campaign_file result_log json_scan response_body)
build_dir=${WACAMP_FUZZ_BUILD_DIR:-build-fuzz}

bash scripts/setup.sh clang-14 libclang-rt-14-dev
# Warnings are the GCC build's business; this one must only build.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
  -DWACAMP_FUZZ=ON -DWACAMP_SANITIZE=ON -DWACAMP_TESTS=OFF -DWACAMP_WERROR=OFF >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target "${harnesses[@]/#/fuzz_}"

# Seed corpora: the hostile corpus and the project's own examples, per input kind.
seeds() {
  case "$1" in
    csv_reader) echo tests/hostile/csv samples ;;
    campaign_file) echo tests/hostile/yaml campaigns ;;
    result_log) echo tests/hostile/logs ;;
    json_scan) echo tests/hostile/logs tests/fuzz/json_scan_seeds ;;
    response_body) echo tests/fuzz/response_body_seeds ;;
  esac
}

# A small quarantine and short allocation stacks: ASan's bookkeeping otherwise grows past the
# memory limit over a long run (and halves the speed). Replaying an artifact uses the defaults.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64:malloc_context_size=5}

failed=()
for h in "${harnesses[@]}"; do
  corpus="$build_dir/corpus/$h"
  artifacts="$build_dir/artifacts/$h"
  mkdir -p "$corpus" "$artifacts"
  echo "fuzz: $h for ${seconds}s"
  # -timeout: an input taking over 120 s is a hang. The slowest legitimate input is a log naming
  # the highest row there may be (100,000,000): replay and the harness walk every row up to it,
  # 1 s in a release build, 53 s under ASan and UBSan. -rss_limit_mb: memory must stay bounded.
  options=(-max_total_time="$seconds" -timeout=120 -rss_limit_mb=2048 -max_len=65536
           -print_final_stats=1 -artifact_prefix="$artifacts/" -dict="tests/fuzz/$h.dict")
  # shellcheck disable=SC2046
  if ! "$build_dir/tests/fuzz/fuzz_$h" "${options[@]}" "$corpus" $(seeds "$h") \
      >"$build_dir/fuzz_$h.log" 2>&1; then
    failed+=("$h")
    tail -n 60 "$build_dir/fuzz_$h.log"
  fi
  grep -E '^stat::number_of_executed_units|^Done [0-9]+ runs' "$build_dir/fuzz_$h.log" | sed "s/^/  /" || true
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $build_dir/artifacts/)" >&2
  exit 1
fi
echo "fuzz: no crash in ${harnesses[*]}"
