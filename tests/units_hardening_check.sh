#!/usr/bin/env bash
# The sandboxing of wacamp@.service (the unit configured in the build dir, as installed).
#   tests/units_hardening_check.sh score UNIT [MAX=2.0]
#     `systemd-analyze security --offline=yes` rates the unit, as the instance wacamp@demo, at most
#     MAX ("Overall exposure level", 0 = locked down, 10 = exposed). Needs no running systemd.
#   tests/units_hardening_check.sh run UNIT WACAMP
#     wacamp still does its job under the unit's sandbox: `systemd-run` starts WACAMP with every
#     [Service] setting of UNIT (DynamicUser, the system call filter, ProtectProc, PrivateUsers, …)
#     on a campaign of a few rows against `WACAMP sandbox` on 127.0.0.1, the ledger on; the run
#     must exit 0 and its result log hold every row sent. Needs systemd as PID 1 and root.
# Either prints "wacamp-test-skipped: REASON" and exits 77 (ctest: skipped) where it cannot run.
set -euo pipefail
# The C locale: systemd-analyze marks open settings "-" and closed ones "+" (not ✗ and ✓).
export LC_ALL=C SYSTEMD_COLORS=0 SYSTEMD_PAGER=cat
mode=${1:-}
unit=${2:-}
scratch=
sandbox_pid=
state=
cleanup() {
    [ -z "$sandbox_pid" ] || { kill "$sandbox_pid" 2>/dev/null || true; }
    [ -z "$scratch" ] || rm -rf "$scratch"
    [ -z "$state" ] || rm -rf "/var/lib/$state" "/var/lib/private/$state"
}
trap cleanup EXIT
skip() {
    echo "wacamp-test-skipped: $*"
    exit 77
}
fail() {
    echo "units hardening: $*" >&2
    exit 1
}
[ -f "$unit" ] || fail "usage: $0 score UNIT [MAX] | run UNIT WACAMP (no unit file at '$unit')"

# --- score ------------------------------------------------------------------------------------
check_score() {
    local max=${1:-2.0} out score
    command -v systemd-analyze >/dev/null 2>&1 || skip "systemd-analyze is not installed (scripts/setup.sh installs systemd)"
    scratch=$(mktemp -d)
    cp "$unit" "$scratch/wacamp@demo.service"
    if ! out=$(systemd-analyze security --no-pager --offline=yes "$scratch/wacamp@demo.service" 2>&1); then
        # systemd before 250 has no --offline: it would analyse the running manager's units.
        grep -qi 'offline' <<<"$out" && skip "this systemd-analyze has no 'security --offline'"
        echo "$out" >&2
        fail "systemd-analyze security failed"
    fi
    # "-> Overall exposure level for wacamp@demo.service: 1.2 OK :-)": the number after the colon.
    score=$(sed -nE 's/.*Overall exposure level for [^:]*: *([0-9]+(\.[0-9]+)?).*/\1/p' <<<"$out" | tail -1)
    [ -n "$score" ] || { echo "$out" >&2; fail "no 'Overall exposure level' line in systemd-analyze's output"; }
    if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s + 0 <= m + 0) }'; then
        echo "units hardening: exposure $score ≤ $max: ok"
    else
        grep -E '^- ' <<<"$out" >&2 || true
        fail "exposure level $score > $max (the settings listed above are what is left open)"
    fi
}

# --- run --------------------------------------------------------------------------------------
# service_properties NAME STATE: the [Service] settings of the unit as `-p` arguments of
# systemd-run, the instance %i as NAME and the state directory as STATE (not the real one).
service_properties() {
    local line section=
    while IFS= read -r line; do
        case $line in
        '[Service]') section=service ;;
        '['*) section= ;;
        '' | '#'*) ;;
        Type=* | ExecStart=*) ;;  # the test sets these
        *)
            [ "$section" = service ] || continue
            line=${line//%i/$1}
            case $line in
            StateDirectory=*) line=StateDirectory=$2 ;;
            Environment=XDG_STATE_HOME=*) line=Environment=XDG_STATE_HOME=/var/lib/$2 ;;
            esac
            props+=(-p "$line")
            ;;
        esac
    done <"$unit"
}

check_run() {
    local wacamp=$1 name=hardening-check dir url _ log sent rc=0
    [ -d /run/systemd/system ] || skip "PID 1 is $(cat /proc/1/comm 2>/dev/null || echo unknown), not systemd: the unit's sandbox cannot be started here"
    [ "$(id -u)" = 0 ] || skip "systemd-run of a system service needs root"
    command -v systemd-run >/dev/null 2>&1 || skip "systemd-run is not installed"
    [ -x "$wacamp" ] || fail "no wacamp binary at '$wacamp'"
    state=wacamp-hardening-check-$$
    # Out of /tmp (the unit's PrivateTmp hides it) and readable by the unit's dynamic user.
    scratch=$(mktemp -d /run/wacamp-hardening-check.XXXXXX)
    dir=$scratch
    chmod 755 "$dir"
    "$wacamp" sandbox --port 0 >"$dir/sandbox.out" 2>"$dir/sandbox.err" &
    sandbox_pid=$!
    url=
    for _ in $(seq 100); do
        url=$(sed -n 's/^listening on //p' "$dir/sandbox.out" | head -1)
        [ -n "$url" ] && break
        sleep 0.1
    done
    [ -n "$url" ] || { cat "$dir/sandbox.err" >&2; fail "the sandbox did not start"; }
    printf 'phone,name\n+919000000001,Asha\n+919000000002,Ravi\n+919000000003,Meera\n' >"$dir/r.csv"
    cat >"$dir/c.yaml" <<YAML
name: hardening-check
service: {base_url: "$url", api_key: sandbox-key, timeout: 10s}
recipients: {file: "$dir/r.csv", columns: {wa_id: phone, user_name: name}, default_country: IN}
message: {type: text, text: "Hi {{name}}, this is a check of the unit's sandbox."}
rate: {per_second: 50}
YAML
    chmod 644 "$dir/r.csv" "$dir/c.yaml"
    props=()
    service_properties "$name" "$state"
    systemd-run --quiet --wait --pipe --collect --service-type=oneshot --unit="$state" "${props[@]}" \
        "$wacamp" run "$dir/c.yaml" --yes --no-progress --results "/var/lib/$state/results/$name.jsonl" || rc=$?
    log=/var/lib/$state/results/$name.jsonl
    [ "$rc" = 0 ] || fail "wacamp under the unit's sandbox exited $rc (journalctl -u $state)"
    [ -f "$log" ] || fail "no result log at $log"
    sent=$("$wacamp" report "$log" --format json | sed -nE 's/^ *"sent": ([0-9]+),?$/\1/p' | head -1)
    [ "$sent" = 3 ] || fail "the result log records ${sent:-no} sent, not 3"
    [ -f "/var/lib/$state/wacamp/ledger.sqlite" ] || fail "no ledger in the state directory"
    echo "units hardening: wacamp ran under the unit's sandbox: 3 sent, ledger written: ok"
}

case $mode in
score) check_score "${3:-2.0}" ;;
run) check_run "${3:-}" ;;
*) fail "usage: $0 score UNIT [MAX] | run UNIT WACAMP" ;;
esac
