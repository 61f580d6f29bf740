# Shared functions of the benchmark scripts. Sourced, not run:  . "$(dirname "$0")/lib.sh"
# Sourcing it cds to the repository, makes a temp dir ($bench_work) and sets a trap that stops
# every process started through these functions and removes the temp dir, however the script ends
# (a signal sent to the script alone acts once its current foreground command returns; Ctrl-C
# reaches that command too).
#
# Environment:
#   WACAMP=/path/to/wacamp   measure that binary, build nothing (bench/all.sh sets it after one build)
#   BUILD_DIR=DIR            where scripts/build.sh builds when WACAMP is unset (default build)
#   BENCH_OUT=DIR            where profiles and other kept outputs go (default bench/out)
#   BENCH_RECORD=FILE        also append every figure to FILE as a tab-separated row (bench/all.sh)
#   BENCH_KEEP=1             keep the temp dir (its path is printed) to look at logs afterwards
set -euo pipefail

bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$bench_root"
bench_out=${BENCH_OUT:-$bench_root/bench/out}
mkdir -p "$bench_out"
bench_work=$(mktemp -d "${TMPDIR:-/tmp}/wacamp-bench.XXXXXX")
# Every run's account ledger (on by default) lives in the temp dir: a benchmark never writes the
# ledger of a real account, and starts with an empty one.
export XDG_STATE_HOME=$bench_work/state
bench_pids=()

bench_cleanup() {
    local pid
    for pid in "${bench_pids[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    bench_pids=()
    if [ "${BENCH_KEEP:-0}" = 1 ]; then
        echo "bench: kept $bench_work" >&2
    else
        rm -rf "$bench_work"
    fi
}
trap bench_cleanup EXIT
# A signal must end the script through `exit`, so that the EXIT trap runs.
trap 'exit 130' INT
trap 'exit 143' TERM

bench_die() {
    echo "bench: $*" >&2
    exit 1
}

# bench_setup [COMMAND=PACKAGE]…: installs (through scripts/setup.sh, with apt-get) the build
# dependencies, /usr/bin/time, and the package of each COMMAND that is not on the PATH; then
# builds wacamp once with scripts/build.sh unless $WACAMP names a binary. Exports WACAMP.
bench_setup() {
    local packages=(time) spec
    for spec in "$@"; do
        command -v "${spec%%=*}" >/dev/null 2>&1 || packages+=("${spec#*=}")
    done
    bash scripts/setup.sh "${packages[@]}"
    if [ -z "${WACAMP:-}" ]; then
        local dir=${BUILD_DIR:-build}
        case $dir in /*) ;; *) dir=$bench_root/$dir ;; esac
        WACAMP_BUILD_DIR=$dir bash scripts/build.sh >/dev/null
        WACAMP=$dir/src/wacamp
    fi
    [ -x "$WACAMP" ] || bench_die "no wacamp binary at $WACAMP"
    export WACAMP
}

# bench_program NAME: prints the path of benchmark program NAME (bench/*.cpp, a target of wacamp's
# build dir configured with -DWACAMP_BENCH=ON), built or brought up to date first; prints nothing
# when it cannot be built (WACAMP names a binary outside a CMake build dir, say).
bench_program() {
    local build_dir
    build_dir=$(dirname "$(dirname "$WACAMP")")
    [ -f "$build_dir/CMakeCache.txt" ] || return 0
    if { cmake -S . -B "$build_dir" -DWACAMP_BENCH=ON && cmake --build "$build_dir" --target "$1"; } >/dev/null 2>&1; then
        echo "$build_dir/bench/$1"
    fi
}

# bench_wacamp_version: prints the version wacamp reports (for its User-Agent).
bench_wacamp_version() {
    "$WACAMP" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1
}

# bench_track PID / bench_stop PID: the trap stops tracked processes; bench_stop stops one now.
bench_track() {
    bench_pids+=("$1")
}
bench_stop() {
    local pid=$1 kept=() p
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    for p in "${bench_pids[@]}"; do
        [ "$p" = "$pid" ] || kept+=("$p")
    done
    bench_pids=("${kept[@]}")
}

# bench_start_sandbox NAME [SANDBOX OPTION]…: starts `wacamp sandbox --port 0` and waits for its
# "listening on URL" line. Sets SANDBOX_URL and SANDBOX_PID (not through $(…): a process started
# in a subshell would escape the trap). Output goes to $bench_work/NAME.out and .err.
bench_start_sandbox() {
    local name=$1
    shift
    "$WACAMP" sandbox --port 0 "$@" >"$bench_work/$name.out" 2>"$bench_work/$name.err" &
    SANDBOX_PID=$!
    bench_track "$SANDBOX_PID"
    SANDBOX_URL=
    local _
    for _ in $(seq 100); do
        SANDBOX_URL=$(sed -n 's/^listening on //p' "$bench_work/$name.out" | head -1)
        [ -n "$SANDBOX_URL" ] && return 0
        kill -0 "$SANDBOX_PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$bench_work/$name.err" >&2
    bench_die "the sandbox did not start"
}

# bench_free_port: prints a TCP port that was free on 127.0.0.1 a moment ago.
bench_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# bench_start_nginx: starts nginx with bench/nginx/standin.conf on a free port, in the foreground
# with its own prefix in the temp dir (no system configuration, no root needed), and checks that
# it answers a send the way wacamp counts as sent and serves the template list. Sets NGINX_URL and
# NGINX_PID.
bench_start_nginx() {
    local prefix=$bench_work/nginx port try _
    mkdir -p "$prefix"
    for try in 1 2 3; do  # the free port may be taken between the probe and nginx's bind
        port=$(bench_free_port)
        sed -e "s|@PORT@|$port|g" -e "s|@PREFIX@|$prefix|g" bench/nginx/standin.conf >"$prefix/standin.conf"
        nginx -p "$prefix" -c "$prefix/standin.conf" -e "$prefix/error.log" 2>>"$prefix/stderr" &
        NGINX_PID=$!
        bench_track "$NGINX_PID"
        NGINX_URL=http://127.0.0.1:$port
        for _ in $(seq 50); do
            kill -0 "$NGINX_PID" 2>/dev/null || break
            if python3 - "$NGINX_URL" 2>/dev/null <<'PY'; then
import json, sys, urllib.request
request = urllib.request.Request(sys.argv[1] + "/whatsapp-automation/wa/send-message?apiKey=k",
                                 data=b"{}", headers={"Content-Type": "application/json"})
body = json.load(urllib.request.urlopen(request, timeout=1))
listed = json.load(urllib.request.urlopen(sys.argv[1] + "/whatsapp-automation/wa/templates?apiKey=k", timeout=1))
sys.exit(0 if body["success"] and body["data"]["messageId"] and listed["data"] else 1)
PY
                return 0
            fi
            sleep 0.1
        done
        bench_stop "$NGINX_PID"
    done
    cat "$prefix/stderr" "$prefix/error.log" >&2 2>/dev/null || true
    bench_die "nginx did not start (tried $try ports)"
}

# bench_start_pg: a throwaway PostgreSQL cluster of the newest Debian server installed, on a free
# 127.0.0.1 port (user wacamp, trust), initdb and the server as the postgres user when root
# (initdb refuses root). Sets pg_bin and pg_port; the server is stopped with the bench.
bench_start_pg() {
    pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    pg_port=$(bench_free_port)
    local pg_dir=$bench_work/pg as_pg=()
    mkdir -p "$pg_dir"
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres "$pg_dir"
        chmod 755 "$bench_work"
        as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups)  # exec: the tracked pid is the server's
    fi
    "${as_pg[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -A trust -U wacamp --no-sync >"$bench_work/initdb.out" 2>&1 ||
        bench_die "initdb failed: $(cat "$bench_work/initdb.out")"
    "${as_pg[@]}" "$pg_bin/postgres" -D "$pg_dir/data" -p "$pg_port" -k "$pg_dir" -c listen_addresses=127.0.0.1 \
        >"$bench_work/postgres.out" 2>&1 &
    bench_track $!
    for _ in $(seq 100); do
        "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" && break
        sleep 0.1
    done
    "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" || bench_die "PostgreSQL did not start"
}

# bench_make_cert DIR: a self-signed EC certificate for 127.0.0.1 and localhost in DIR/cert.pem
# (its own CA: what service.ca_file names) and DIR/key.pem.
bench_make_cert() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$1/key.pem" -out "$1/cert.pem" 2>/dev/null ||
        bench_die "openssl could not make a certificate"
}

# bench_start_nginx_tls MODE [UPSTREAM_PORT]: starts nginx with bench/nginx/tls.conf on a free port
# (TLS, HTTP/2 by ALPN, HTTP/1.1 otherwise), answering the send and status-update operations at once
# (MODE standin) or proxying them to a plain-HTTP sandbox on UPSTREAM_PORT (MODE proxy), and checks
# that it answers. Sets NGINX_TLS_URL, NGINX_TLS_PID, NGINX_TLS_DIR (cert.pem: the CA to trust;
# access.log: "connection protocol status" per request).
bench_start_nginx_tls() {
    local mode=$1 upstream=${2:-9} prefix=$bench_work/nginx-tls port try _ locations
    mkdir -p "$prefix"
    bench_make_cert "$prefix"
    if [ "$mode" = proxy ]; then
        locations='        location / {
            proxy_pass http://sandbox;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }'
    else
        locations='        location = /whatsapp-automation/wa/send-message {
            default_type application/json;
            return 200 '"'"'{"success":true,"message":"Message sent successfully","data":{"messageId":"wamid.$request_id"}}'"'"';
        }
        location = /inbox/users/status-update {
            default_type application/json;
            return 200 '"'"'{"success":true,"message":"Status updated"}'"'"';
        }
        location / {
            return 404;
        }'
    fi
    for try in 1 2 3; do
        port=$(bench_free_port)
        LOCATIONS=$locations python3 - bench/nginx/tls.conf "$port" "$prefix" "$upstream" >"$prefix/tls.conf" <<'PY'
import os, sys
text = open(sys.argv[1]).read()
for key, value in (("@PORT@", sys.argv[2]), ("@PREFIX@", sys.argv[3]), ("@UPSTREAM_PORT@", sys.argv[4]),
                   ("@LOCATIONS@", os.environ["LOCATIONS"])):
    text = text.replace(key, value)
sys.stdout.write(text)
PY
        nginx -p "$prefix" -c "$prefix/tls.conf" -e "$prefix/error.log" 2>>"$prefix/stderr" &
        NGINX_TLS_PID=$!
        bench_track "$NGINX_TLS_PID"
        NGINX_TLS_URL=https://127.0.0.1:$port
        NGINX_TLS_DIR=$prefix
        for _ in $(seq 50); do
            kill -0 "$NGINX_TLS_PID" 2>/dev/null || break
            # Any answer will do (a proxied sandbox refuses the probe's key): TLS and nginx are up.
            if [ "$(curl -s --http2 --cacert "$prefix/cert.pem" -o /dev/null -w '%{http_code}' -d '{}' \
                "$NGINX_TLS_URL/whatsapp-automation/wa/send-message?apiKey=k" 2>/dev/null)" != 000 ]; then
                return 0
            fi
            sleep 0.1
        done
        bench_stop "$NGINX_TLS_PID"
    done
    cat "$prefix/stderr" "$prefix/error.log" >&2 2>/dev/null || true
    bench_die "nginx (TLS) did not start (tried $try ports)"
}

# bench_nginx_wire FROM_LINE: prints "requests connections h1 h2" of nginx's TLS access log from line
# FROM_LINE on (nginx flushes its buffered log within a second: call after a short wait).
bench_nginx_wire() {
    tail -n +"$1" "$NGINX_TLS_DIR/access.log" | awk '
        { n++; conns[$1] = 1; if ($2 == "HTTP/2.0") h2++; else h1++ }
        END { c = 0; for (k in conns) c++; printf "%d %d %d %d\n", n, c, h1, h2 }'
}

# bench_make_csv N FILE [KIND]: writes a CSV of N distinct valid Indian mobile numbers (phone,name,user_id).
# KIND template (bench_write_template_campaign's list) adds two columns, photo (a file name per row,
# the header image's link) and discount (5% to 50%); KIND text (the default) writes the three alone.
bench_make_csv() {
    python3 - "$1" "${3:-text}" >"$2" <<'PY'
import sys
n = int(sys.argv[1])
template = sys.argv[2] == "template"
out = sys.stdout
out.write("phone,name,user_id,photo,discount\n" if template else "phone,name,user_id\n")
step = 100_000
for start in range(0, n, step):
    if template:
        out.write("".join(f"+91{9000000000 + i},Person {i},u-{i},p-{i}.jpg,{5 + i % 46}%\n"
                          for i in range(start, min(n, start + step))))
    else:
        out.write("".join(f"+91{9000000000 + i},Person {i},u-{i}\n" for i in range(start, min(n, start + step))))
PY
}

# bench_write_campaign FILE BASE_URL CSV RESULTS RATE: writes a text campaign; RATE is the inside
# of the rate mapping, e.g. "per_second: 1000, burst: 1" (leave concurrency out for the default).
bench_write_campaign() {
    cat >"$1" <<YAML
name: bench
service: {base_url: "$2", api_key: sandbox-key, timeout: 30s}
recipients: {file: "$3", columns: {wa_id: phone, user_name: name}, default_country: IN}
message: {type: text, text: "Hi {{name}}, this is a benchmark message."}
rate: {$5}
results: "$4"
YAML
}

# bench_write_template_campaign FILE BASE_URL CSV RESULTS RATE: writes a template campaign over a
# CSV of bench_make_csv's KIND template: the template spring_sale (as the sandbox's: MARKETING, an
# image header, two body variables; the nginx stand-in's list holds it too), its header image a
# link per row (photo), its body the row's name and discount. RATE is the inside of the rate
# mapping. A run and a dry run read the template list first (service.api_key).
bench_write_template_campaign() {
    cat >"$1" <<YAML
name: bench-template
service: {base_url: "$2", api_key: sandbox-key, timeout: 30s}
recipients: {file: "$3", columns: {wa_id: phone, user_name: name}, default_country: IN}
message:
  type: template
  template: spring_sale
  language: en
  header: {image: "https://cdn.example.com/bench/{{photo}}"}
  body: ["{{name}}", "{{discount}}"]
rate: {$5}
results: "$4"
YAML
}

# bench_write_kind_campaign KIND FILE BASE_URL CSV RESULTS RATE: bench_write_campaign (KIND text)
# or bench_write_template_campaign (KIND template), over a CSV of bench_make_csv's same KIND.
bench_write_kind_campaign() {
    local kind=$1
    shift
    case $kind in
    text) bench_write_campaign "$@" ;;
    template) bench_write_template_campaign "$@" ;;
    *) bench_die "unknown campaign kind '$kind' (text or template)" ;;
    esac
}

# The body wacamp sends for row 1 of bench_make_csv's list with the benchmark campaign's text
# (nlohmann orders the keys).
bench_send_body='{"message":{"text":"Hi Person 0, this is a benchmark message."},"type":"text","userName":"Person 0","wa_id":"919000000000"}'

# bench_write_send_lua FILE: a wrk script sending exactly what wacamp sends (checked against a
# capture, see src/service/requests.cpp): POST with the key in the query and the apiKey header,
# its User-Agent and Accept, and bench_send_body. wrk adds Host and Content-Length.
bench_write_send_lua() {
    cat >"$1" <<LUA
wrk.method = "POST"
wrk.path = "/whatsapp-automation/wa/send-message?apiKey=sandbox-key"
wrk.headers["User-Agent"] = "wacamp/$(bench_wacamp_version)"
wrk.headers["Accept"] = "application/json"
wrk.headers["apiKey"] = "sandbox-key"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$bench_send_body'
LUA
}

# bench_write_cleanup_campaign DIR BASE_URL RATE [ACCOUNT]: DIR/c.yaml, a text campaign of DIR/r.csv
# with user_ids and contact deletion at its end (batches of 1,000), its log DIR/log.jsonl; RATE is
# the inside of the rate mapping. ACCOUNT is the campaign's `account:` line, by default the ledger
# off; an empty ACCOUNT leaves the key out (a build older than the ledger knows no `account:`).
bench_write_cleanup_campaign() {
    local account=${4-"account: {ledger: off}"}
    cat >"$1/c.yaml" <<YAML
name: bench
service: {base_url: "$2", api_key: sandbox-key, access_token: sandbox-token, timeout: 30s}
recipients: {file: "$1/r.csv", columns: {wa_id: phone, user_name: name, user_id: user_id}, default_country: IN}
message: {type: text, text: "Hi {{name}}, this is a benchmark message."}
rate: {$3}
cleanup: {delete_contacts: true, batch_size: 1000}
results: "$1/log.jsonl"
YAML
    [ -z "$account" ] || echo "$account" >>"$1/c.yaml"
}

# bench_write_tls_campaign FILE HTTP CSV RESULTS RATE: a text campaign to $NGINX_TLS_URL trusting
# $NGINX_TLS_DIR/cert.pem, with `service.http: HTTP`, the ledger off; RATE is the inside of the
# rate mapping.
bench_write_tls_campaign() {
    cat >"$1" <<YAML
name: bench-tls-h${2/./_}
service: {base_url: "$NGINX_TLS_URL", api_key: sandbox-key, timeout: 30s, ca_file: "$NGINX_TLS_DIR/cert.pem", http: "$2"}
recipients: {file: "$3", columns: {wa_id: phone, user_name: name}, default_country: IN}
message: {type: text, text: "Hi {{name}}, this is a benchmark message."}
rate: {$5}
account: {ledger: off}
results: "$4"
YAML
}

# bench_accepts BINARY RATE [EXTRA]: whether BINARY's `validate` accepts a one-row text campaign
# with RATE as the inside of its rate mapping and the YAML lines EXTRA appended (a key a build
# older than the working tree may not know: `account: {ledger: off}`, say).
bench_accepts() {
    local dir
    dir=$(mktemp -d "$bench_work/probe.XXXXXX")
    bench_make_csv 1 "$dir/r.csv"
    bench_write_campaign "$dir/c.yaml" http://127.0.0.1:9 "$dir/r.csv" "$dir/r.jsonl" "$2"
    [ -z "${3:-}" ] || echo "$3" >>"$dir/c.yaml"
    "$1" validate "$dir/c.yaml" >/dev/null 2>&1
}

# bench_unlimited_rate: sets $unlimited_rate to "unlimited" when this wacamp accepts
# `per_second: unlimited`, otherwise to 100000 (the loader's maximum), saying so on stderr.
# Not meant for $(…): it asks wacamp once per script.
bench_unlimited_rate() {
    [ -z "${unlimited_rate:-}" ] || return 0
    if bench_accepts "$WACAMP" "per_second: unlimited"; then
        unlimited_rate=unlimited
    else
        # A wacamp built before `per_second: unlimited` existed (compared against an older build).
        unlimited_rate=100000
        echo "bench: this wacamp refuses 'per_second: unlimited'; using per_second: 100000" >&2
    fi
}

# shellcheck disable=SC2034  # the T_* figures are read by the scripts that source this file
# bench_time NAME COMMAND…: runs COMMAND under /usr/bin/time, output in $bench_work/NAME.out/.err.
# Sets T_RC (its exit code), T_WALL (s, from the monotonic clock), T_USER, T_SYS (s), T_RSS (KiB).
bench_time() {
    local name=$1 start end
    shift
    start=$(date +%s.%N)
    T_RC=0
    /usr/bin/time -f '%U %S %M' -o "$bench_work/$name.time" "$@" \
        >"$bench_work/$name.out" 2>"$bench_work/$name.err" || T_RC=$?
    end=$(date +%s.%N)
    # The last line: a command ended by a signal gets a line of its own before the figures.
    read -r T_USER T_SYS T_RSS < <(tail -1 "$bench_work/$name.time")
    T_WALL=$(python3 -c "print(f'{$end - $start:.3f}')")
}

# bench_machine: prints a line naming the machine (cores, CPU, RAM, kernel, distribution).
bench_machine() {
    echo "Machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
        "$(free -m | awk '/^Mem:/ {printf "%.1f GiB RAM", $2 / 1024}'), Linux $(uname -r)," \
        "$(. /etc/os-release && echo "$PRETTY_NAME")."
}

# bench_calc EXPRESSION: prints a Python expression's value (for ratios and rates).
bench_calc() {
    python3 -c "print($1)"
}

# bench_record WHAT COMMAND RESULT REFERENCE RATIO TARGET MET: one row of bench/results.md, appended
# to $BENCH_RECORD when it is set (bench/all.sh collects them).
bench_record() {
    [ -n "${BENCH_RECORD:-}" ] || return 0
    local IFS=$'\t'
    echo "$*" >>"$BENCH_RECORD"
}

# bench_met CONDITION: prints yes or no for a Python condition.
bench_met() {
    python3 -c "print('yes' if ($1) else 'no')"
}
