#!/usr/bin/env bash
# Installs, with apt-get, whatever wacamp needs to build and test that is missing.
# Idempotent and quiet when everything is already there. Needs root (or sudo).
#   scripts/setup.sh [--build-only] [PACKAGE]...
# --build-only: only what building needs (deploy/Dockerfile uses it), not the tests' tools.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  libyaml-cpp-dev libcurl4-openssl-dev nlohmann-json3-dev libspdlog-dev libfmt-dev
  doctest-dev libcli11-dev libcpp-httplib-dev libphonenumber-dev libprotobuf-dev libssl-dev
  tzdata ca-certificates
  libhowardhinnant-date-dev libsqlite3-dev libsystemd-dev
  libpq-dev           # the account ledger in PostgreSQL (account/pg_*.cpp)
  prometheus-cpp-dev  # metrics (observe/)
  dpkg-dev file       # cpack -G DEB (dpkg-shlibdeps, file)
  libhiredis-dev      # the account's pace shared in Redis (pace/, account.rate_store)
  libxlsxwriter-dev   # report --format xlsx (report/xlsx.cpp)
  libsimdjson-dev     # the service's answers read fast (service/response_body.cpp)
)
test_packages=(
  redis-server        # tests: a real Redis for the shared pace (unit: pace, e2e: many runners)
  prometheus prometheus-pushgateway   # tests: promtool check metrics; a real Pushgateway
  chromium bsdutils   # tests: the HTML report in headless Chromium; script(1) for a terminal
  clang-format git    # tests: the layout check (scripts/format.sh --check)
  zsh fish man-db     # tests: the completion scripts parse, the man page renders
  systemd             # tests: systemd-analyze verify on the units
  lintian             # tests: lintian on the package
  nginx-light         # tests: an HTTP/2 front of the sandbox (e2e: http2)
  python3-h2          # tests: the HTTP/2 fault server (e2e: http2 faults)
  yamllint python3-yaml docker-compose   # tests: the deploy/ examples (lint, docker-compose config)
  postgresql          # tests: a throwaway PostgreSQL cluster for the PostgreSQL ledger
  unzip               # tests: the sheets inside report --format xlsx's workbook (e2e: report)
)
if [ "${1:-}" = "--build-only" ]; then
  shift
else
  packages+=("${test_packages[@]}")
fi
packages+=("$@")   # extra packages a caller needs (e.g. benchmarks)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "wacamp setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
