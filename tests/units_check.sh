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
# The drop-in that alerts on exit 1: installed as an example, it resets SuccessExitStatus and names
# an OnFailure= unit that exists, and the service verifies with it.
examples=$prefix/share/doc/wacamp/examples/systemd
for f in alert-on-partial-failure.conf "wacamp-alert@.service"; do
    [ -f "$examples/$f" ] || { echo "units: $f is not installed in $examples" >&2; exit 1; }
done
grep -q '^SuccessExitStatus=$' "$examples/alert-on-partial-failure.conf" ||
    { echo "units: the alert drop-in does not reset SuccessExitStatus" >&2; exit 1; }
grep -q '^OnFailure=wacamp-alert@%i.service$' "$examples/alert-on-partial-failure.conf" ||
    { echo "units: the alert drop-in names no OnFailure= unit" >&2; exit 1; }
mkdir -p "$check/wacamp@demo.service.d"
cp "$examples/alert-on-partial-failure.conf" "$check/wacamp@demo.service.d/"
cp "$examples/wacamp-alert@.service" "$check/wacamp-alert@demo.service"
MANPATH=$prefix/share/man systemd-analyze verify "$check/wacamp@demo.service" "$check/wacamp-alert@demo.service"
echo "units: ok"
