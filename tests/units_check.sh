#!/usr/bin/env bash
# The systemd units, installed into a scratch prefix, pass `systemd-analyze verify` as an instance
# (wacamp@demo) with ExecStart pointing at the scratch prefix's binary and its man page on MANPATH.
# Exits 77 (ctest: skipped) without systemd-analyze.
#   tests/units_check.sh BUILD_DIR
set -euo pipefail
command -v systemd-analyze >/dev/null 2>&1 || { echo "skipped: systemd-analyze is not installed" >&2; exit 77; }
build_dir=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
units=$prefix/lib/systemd/system
for f in "wacamp@.service" "wacamp@.timer"; do
    [ -f "$units/$f" ] || { echo "units: $f is not installed" >&2; exit 1; }
done
grep -q '^ExecStart=/.*/wacamp run /etc/wacamp/campaigns/%i.yaml' "$units/wacamp@.service" ||
    { echo "units: ExecStart does not run the campaign by name with an absolute binary path" >&2; exit 1; }
check=$prefix/check
mkdir -p "$check"
sed -E "s|^ExecStart=[^ ]+|ExecStart=$prefix/bin/wacamp|" "$units/wacamp@.service" >"$check/wacamp@demo.service"
cp "$units/wacamp@.timer" "$check/wacamp@demo.timer"
MANPATH=$prefix/share/man systemd-analyze verify "$check/wacamp@demo.service" "$check/wacamp@demo.timer"
echo "units: ok"
