#!/usr/bin/env bash
# `cmake --install BUILD_DIR --prefix TMP` lays out what the README's "Install" says, and the
# installed binary runs an installed sample campaign's validate.
#   tests/install_check.sh BUILD_DIR
set -euo pipefail
build_dir=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
fail() {
    echo "install check: $*" >&2
    exit 1
}
for f in bin/wacamp share/doc/wacamp/README.md share/doc/wacamp/docs/ledger.md \
    share/doc/wacamp/examples/campaigns/sample-text.yaml share/doc/wacamp/examples/samples/recipients.csv \
    share/doc/wacamp/examples/campaigns/sample-do-not-contact.yaml share/doc/wacamp/examples/samples/do-not-contact.csv \
    share/bash-completion/completions/wacamp share/zsh/vendor-completions/_wacamp \
    share/fish/vendor_completions.d/wacamp.fish share/man/man1/wacamp.1 share/wacamp/rate-card.csv; do
    [ -e "$prefix/$f" ] || fail "$f is not installed"
done
[ -x "$prefix/bin/wacamp" ] || fail "bin/wacamp is not executable"
version=$("$prefix/bin/wacamp" --version) || fail "the installed wacamp --version failed"
grep -q '^wacamp ' <<<"$version" || fail "the installed wacamp --version says nothing"
# The examples keep their relative paths: a sample validates from the installed tree.
XDG_STATE_HOME=$prefix/state WACAMP_BASE_URL=http://127.0.0.1:9 WACAMP_API_KEY=install-check-key \
    "$prefix/bin/wacamp" validate "$prefix/share/doc/wacamp/examples/campaigns/sample-do-not-contact.yaml" \
    >"$prefix/validate.out" || fail "the installed sample does not validate: $(cat "$prefix/validate.out")"
grep -q "suppressed 2" "$prefix/validate.out" || fail "the installed do-not-contact list was not read"
# The installed binary finds its default rate card beside its prefix, not in the source tree: a
# template campaign's validate (--offline: no template list) prices its rows with it.
XDG_STATE_HOME=$prefix/state WACAMP_BASE_URL=http://127.0.0.1:9 WACAMP_API_KEY=install-check-key \
    "$prefix/bin/wacamp" validate "$prefix/share/doc/wacamp/examples/campaigns/sample-template.yaml" --offline \
    >"$prefix/validate-template.out" 2>&1 || fail "the installed template sample does not validate: $(cat "$prefix/validate-template.out")"
grep -q "(rate card $prefix/share/wacamp/rate-card.csv, effective " "$prefix/validate-template.out" ||
    fail "the installed wacamp does not price with its installed rate card: $(cat "$prefix/validate-template.out")"
# `man wacamp` finds the installed page (where man-db is installed).
if command -v man >/dev/null 2>&1; then
    page=$(MANPATH=$prefix/share/man MANWIDTH=100 man wacamp 2>/dev/null) || fail "man wacamp failed"
    grep -q "wacamp run" <<<"$page" || fail "man wacamp does not show the page"
fi
echo "install check: ok ($prefix)"
