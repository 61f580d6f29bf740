#!/usr/bin/env bash
# Lays out every C and C++ file the repository tracks with clang-format (.clang-format).
#   bash scripts/format.sh           rewrites the files
#   bash scripts/format.sh --check   changes nothing; lists the files that differ and exits 1
# Exits 77 (ctest's "skipped") when clang-format is not installed: scripts/setup.sh installs it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null 2>&1; then
  echo "format: clang-format is not installed (apt-get install clang-format): skipped" >&2
  exit 77
fi
mapfile -d '' files < <(git ls-files -z -- '*.cpp' '*.hpp' '*.c' '*.h')
if [ "${1:-}" = "--check" ]; then
  # One clang-format for every file: it names each file that differs in its warnings.
  if ! report=$(clang-format --dry-run --Werror "${files[@]}" 2>&1); then
    printf 'format: not laid out as .clang-format says (run bash scripts/format.sh):\n' >&2
    printf '%s\n' "$report" | grep -oE '^[^:]+:[0-9]+:[0-9]+: error' | cut -d: -f1 | sort -u | sed 's/^/  /' >&2
    exit 1
  fi
  echo "format: ${#files[@]} files laid out as .clang-format says"
else
  clang-format -i "${files[@]}"
fi
