#!/usr/bin/env bash
# What `wacamp completion` and `wacamp man` generate, checked with the real tools:
#   tests/generated_check.sh bash WACAMP   completing commands, sub-commands and options in bash
#   tests/generated_check.sh zsh WACAMP    the zsh function parses (zsh -n)
#   tests/generated_check.sh fish WACAMP   the fish script parses, and fish completes from it
#   tests/generated_check.sh man WACAMP    man renders the page without warnings, every command in it
# Exits 77 (ctest: skipped) when the tool is missing; scripts/setup.sh installs them.
set -euo pipefail
mode=$1
wacamp=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
    echo "$mode: $*" >&2
    exit 1
}
need() {
    command -v "$1" >/dev/null 2>&1 || { echo "skipped: $1 is not installed" >&2; exit 77; }
}
case $mode in
bash)
    "$wacamp" completion bash >"$work/wacamp.bash"
    complete_words() {  # complete_words WORD... : what bash offers for the last word
        bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _wacamp; printf "%s\n" "${COMPREPLY[@]}"' \
            _ "$work/wacamp.bash" "$@"
    }
    cd "$work"
    [ "$(complete_words wacamp ru)" = run ] || fail "'wacamp ru' does not complete to run"
    # (Captured first: grep -q stops reading early, and pipefail would count the writer's SIGPIPE.)
    offered=$(complete_words wacamp "")
    grep -qx suppress <<<"$offered" || fail "'wacamp ' does not offer suppress"
    [ "$(complete_words wacamp run --dr)" = --dry-run ] || fail "'wacamp run --dr' does not complete"
    [ "$(complete_words wacamp suppress a)" = add ] || fail "'wacamp suppress a' does not complete to add"
    [ "$(complete_words wacamp suppress add --re)" = --reason ] || fail "'wacamp suppress add --re' does not complete"
    offered=$(complete_words wacamp sandbox --lat)
    grep -qx -- --latency <<<"$offered" || fail "option groups' options are not offered"
    [ -z "$(complete_words wacamp run --no-such)" ] || fail "an unknown option completes"
    ;;
zsh)
    need zsh
    "$wacamp" completion zsh >"$work/_wacamp"
    zsh -n "$work/_wacamp" || fail "the zsh completion does not parse"
    grep -q "^#compdef wacamp" "$work/_wacamp" || fail "no #compdef line"
    ;;
fish)
    need fish
    "$wacamp" completion fish >"$work/wacamp.fish"
    fish --no-execute "$work/wacamp.fish" || fail "the fish completion does not parse"
    offered=$(fish -c "source '$work/wacamp.fish'; complete -C 'wacamp suppress a'; complete -C 'wacamp run --dr'")
    grep -q "^add" <<<"$offered" || fail "fish does not complete 'wacamp suppress a'"
    grep -q "^--dry-run" <<<"$offered" || fail "fish does not complete 'wacamp run --dr'"
    ;;
man)
    need man
    "$wacamp" man >"$work/wacamp.1"
    MANWIDTH=100 man --warnings -l "$work/wacamp.1" >"$work/wacamp.txt" 2>"$work/warnings" || fail "man failed"
    [ ! -s "$work/warnings" ] || fail "man warns: $(cat "$work/warnings")"
    for command in run resume validate templates delete-contacts report sandbox "suppress add" "suppress import" completion; do
        grep -q "wacamp $command" "$work/wacamp.txt" || fail "the page does not describe 'wacamp $command'"
    done
    grep -q -- "--dry-run" "$work/wacamp.txt" || fail "the page does not list --dry-run"
    ;;
*) fail "unknown mode" ;;
esac
echo "$mode: ok"
