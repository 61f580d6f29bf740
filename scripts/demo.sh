#!/usr/bin/env bash
# Installs what is missing, builds, starts the sandbox on a free loopback port and runs the
# sample campaigns (text, then template) against it end to end, then shows the result.
# Only what the binary needs: the packages to build it (not the tests' tools) and the `wacamp`
# target (not the tests); scripts/test.sh installs and builds the rest. Beyond those the demo
# uses only grep, sed, seq and mktemp, which every Debian system has.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --build-only
bash scripts/build.sh --target wacamp
wacamp=build/src/wacamp
work=$(mktemp -d)
trap 'kill "$sandbox_pid" 2>/dev/null || true; wait "$sandbox_pid" 2>/dev/null || true; rm -rf "$work"' EXIT

"$wacamp" sandbox --port 0 --journal "$work/journal.jsonl" >"$work/sandbox.out" 2>"$work/sandbox.err" &
sandbox_pid=$!
for _ in $(seq 100); do
  grep -q '^listening on ' "$work/sandbox.out" 2>/dev/null && break
  sleep 0.1
done
url=$(sed -n 's/^listening on //p' "$work/sandbox.out" | head -1)
[ -n "$url" ] || { echo "the sandbox did not start:"; cat "$work/sandbox.err"; exit 1; }
echo "sandbox: $url"

export WACAMP_BASE_URL=$url WACAMP_API_KEY=sandbox-key
# A ledger of the demo's own (the account's history lives in $XDG_STATE_HOME/wacamp/ledger.sqlite):
# rehearsing against the sandbox must not mix into a real account's suppression list.
export XDG_STATE_HOME=$work/state
results=$work/sample-text.jsonl
step() { echo; echo "\$ wacamp $*"; "$wacamp" "$@"; }

step templates --base-url "$url"
step validate campaigns/sample-text.yaml
step run campaigns/sample-text.yaml --dry-run --results "$results"
step run campaigns/sample-text.yaml --yes --results "$results"
step report "$results"
# A template campaign, the usual bulk send: the template is checked against the list, then sent.
step run campaigns/sample-template.yaml --dry-run --results "$work/sample-template.jsonl"
step run campaigns/sample-template.yaml --yes --no-progress --results "$work/sample-template.jsonl"
# An account with a do-not-contact list: two of the same numbers are skipped (cause suppressed).
step run campaigns/sample-do-not-contact.yaml --yes --no-progress --results "$work/sample-do-not-contact.jsonl"
echo
echo "The sandbox received $(grep -E '/send-(message|template)' "$work/journal.jsonl" | grep -c '"outcome":"ok"') messages; nothing left this machine."
