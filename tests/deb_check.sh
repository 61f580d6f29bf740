#!/usr/bin/env bash
# `cpack -G DEB` builds wacamp_VERSION_ARCH.deb from the build; lintian finds no error in it (its
# warnings are printed); it holds what the README's "Install" says; unpacked with dpkg -x into a
# scratch root, its wacamp runs, its gzipped man page renders and its unit starts /usr/bin/wacamp.
# Exits 77 (ctest: skipped) when a tool is missing; scripts/setup.sh installs them.
#   tests/deb_check.sh BUILD_DIR
set -euo pipefail
need() {
    command -v "$1" >/dev/null 2>&1 || { echo "skipped: $1 is not installed" >&2; exit 77; }
}
for tool in cpack dpkg-deb dpkg-shlibdeps file lintian man; do need "$tool"; done
build_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
    echo "deb check: $*" >&2
    exit 1
}

# Packaged in a directory of its own: runs in parallel share no staging tree.
cpack --config "$build_dir/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1 ||
    fail "cpack failed: $(cat "$work/cpack.log")"
debs=("$work"/out/*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
    fail "cpack did not make one .deb: ${debs[*]}"
fi
deb=${debs[0]}

version=$(dpkg-deb -f "$deb" Version)
[ "${deb##*/}" = "wacamp_${version}_$(dpkg-deb -f "$deb" Architecture).deb" ] ||
    fail "${deb##*/} is not named as Debian names packages (wacamp_VERSION_ARCH.deb)"
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends == *"libc6 (>= "* ]] || fail "Depends was not worked out by dpkg-shlibdeps: '$depends'"
description=$(dpkg-deb -f "$deb" Description)
[ "$(wc -l <<<"$description")" -gt 1 ] || fail "the Description has no long description"

# Exit status 1 on an error (E:); the warnings (W:) are shown, not failed on.
lint=$(lintian --fail-on error "$deb" 2>&1) || fail "lintian finds errors: $lint"
! grep -q '^E: ' <<<"$lint" || fail "lintian finds errors: $lint"
warnings=$(grep '^W: ' <<<"$lint" || true)
[ -z "$warnings" ] || printf 'lintian warnings:\n%s\n' "$warnings"

contents=$(dpkg-deb -c "$deb")
paths=$(awk '{ print $6 }' <<<"$contents")
doc=usr/share/doc/wacamp
for f in usr/bin/wacamp usr/share/man/man1/wacamp.1.gz usr/share/bash-completion/completions/wacamp \
    usr/share/zsh/vendor-completions/_wacamp usr/share/fish/vendor_completions.d/wacamp.fish \
    lib/systemd/system/wacamp@.service lib/systemd/system/wacamp@.timer \
    $doc/copyright $doc/changelog.Debian.gz $doc/README.md $doc/docs/ledger.md \
    $doc/examples/campaigns/sample-text.yaml $doc/examples/samples/recipients.csv usr/share/wacamp/rate-card.csv; do
    grep -qxF "./$f" <<<"$paths" || fail "the package has no /$f"
done
! grep -qE '^\./usr/lib/systemd/|\.1$' <<<"$paths" ||
    fail "the package has a unit under /usr/lib or an uncompressed man page"

root=$work/root
dpkg -x "$deb" "$root"
said=$("$root/usr/bin/wacamp" --version) || fail "the packaged wacamp --version failed"
[[ $version == "${said#wacamp }-"* ]] ||
    fail "the package's version $version is not wacamp's own ($said) and a revision"
[[ $(file -b "$root/usr/bin/wacamp") == *", stripped"* ]] || fail "the packaged binary is not stripped"
grep -q '^ExecStart=/usr/bin/wacamp run ' "$root/lib/systemd/system/wacamp@.service" ||
    fail "the packaged unit does not start /usr/bin/wacamp"
grep -qx 'License: Expat' "$root/$doc/copyright" || fail "the copyright file names no license"
changes=$(gzip -dc "$root/$doc/changelog.Debian.gz")
[[ $changes == "wacamp ($version) "* ]] || fail "changelog.Debian.gz does not start with this version"
MANWIDTH=100 man --warnings -l "$root/usr/share/man/man1/wacamp.1.gz" \
    >"$work/wacamp.txt" 2>"$work/warnings" || fail "man failed on the packaged page"
[ ! -s "$work/warnings" ] || fail "man warns: $(cat "$work/warnings")"
grep -q "wacamp run" "$work/wacamp.txt" || fail "the packaged man page does not show the commands"
echo "deb check: ok (${deb##*/})"
