#!/usr/bin/env bash
# The regression gate: REF's wacamp beside the working tree's, measured by the working tree's
# benchmark code in one run, alternating, PAIRS pairs, medians and ratios (working ÷ REF).
#   bench/compare.sh REF [SIZE…]     (default sizes: 100000 1000000)
# - throughput (messages/s) and CPU per message (µs, user+sys ÷ messages) of THROUGHPUT_N
#   recipients at the nginx stand-in, unlimited rate, 32 in flight, the account ledger off and on
#   (on: the default ledger in a fresh XDG_STATE_HOME each run; n/a for a build without a ledger);
# - at each SIZE, the wall time and peak RSS of every command bench/commands.sh measures: the dry
#   run, the real run (contact deletion at the end), a rerun of the complete campaign, resume,
#   delete-contacts, report in each format.
# - template campaigns (message.type: template, bench_write_template_campaign over the same
#   generated list with two more columns): at each SIZE the template dry run's wall time and peak
#   RSS; the template run's messages/s and CPU per message (THROUGHPUT_N recipients, ledger off),
#   and, per binary, its ratio to the same binary's text run (ledger off) of the same pairs. A build
#   that refuses a template campaign (`validate` against the stand-in's template list) gets n/a.
# Each binary gets campaign files it accepts: `account:` only where the build knows the key,
# `per_second: unlimited` or 100000, `--preview 0` on the dry run only where the option exists.
# Each pair runs every measure once with each binary, REF first in odd pairs and the working tree
# first in even ones. A ratio within ±3 % prints as 1.0×. The table goes to stdout and to
# bench/out/compare-REF.md.
#
# REF (any commit: a tag, a branch, a SHA) is built once per commit, the `wacamp` target only, from
# `git archive` in ${XDG_CACHE_HOME:-~/.cache}/wacamp-bench/SHA/ (kept and reused).
# Environment, besides lib.sh's (WACAMP names the working tree's binary and builds nothing):
#   PAIRS=5              pairs of runs
#   THROUGHPUT_N=200000  recipients of each throughput run
#   WACAMP_REF=PATH      REF's binary, built elsewhere (REF then only names it in the table)
#   COMMANDS=0           leave out the per-size commands of bench/commands.sh (the throughput rows
#                        and the template dry runs remain): a quicker look at the send path
set -euo pipefail
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
    echo "usage: bench/compare.sh REF [SIZE…]   (env: PAIRS=5 THROUGHPUT_N=200000 WACAMP= WACAMP_REF=)" >&2
    exit 2
fi
ref=$1
shift
given_wacamp=${WACAMP:-}
. "$(dirname "$0")/lib.sh"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)
pairs=${PAIRS:-5}
n=${THROUGHPUT_N:-200000}
ref_sha=$(git rev-parse --verify --quiet "$ref^{commit}") || bench_die "$ref names no commit of this repository"

bench_setup nginx=nginx-light

# compare_build_ref: builds REF's wacamp target in the cache (once per commit: a second call only
# asks ninja, which finds it up to date) unless WACAMP_REF names a binary. Sets WACAMP_REF.
compare_build_ref() {
    if [ -n "${WACAMP_REF:-}" ]; then
        [ -x "$WACAMP_REF" ] || bench_die "no wacamp binary at WACAMP_REF=$WACAMP_REF"
        return 0
    fi
    local cache=${XDG_CACHE_HOME:-$HOME/.cache}/wacamp-bench/$ref_sha
    if [ ! -d "$cache/src" ]; then
        rm -rf "$cache/src.partial"
        mkdir -p "$cache/src.partial"
        git archive "$ref_sha" | tar -x -C "$cache/src.partial"
        mv "$cache/src.partial" "$cache/src"
    fi
    echo "bench: building $ref ($ref_sha) in $cache/build (log: $cache/build.log)" >&2
    if ! { cmake -S "$cache/src" -B "$cache/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWACAMP_TESTS=OFF &&
        cmake --build "$cache/build" --target wacamp -j "$(nproc)"; } >"$cache/build.log" 2>&1; then
        tail -20 "$cache/build.log" >&2
        bench_die "the build of $ref failed (log: $cache/build.log)"
    fi
    WACAMP_REF=$cache/build/src/wacamp
}
compare_build_ref

# What each build accepts: bin, rate, account (1 when it knows `account:`), preview (1 when its
# dry run takes `--preview 0`, which turns the preview off).
label() { [ "$1" = ref ] && echo "REF" || echo "working"; }
declare -A bin rate account preview
bin[ref]=$WACAMP_REF
bin[work]=$WACAMP
notes=()
for which in ref work; do
    if bench_accepts "${bin[$which]}" "per_second: unlimited"; then
        rate[$which]=unlimited
    else
        rate[$which]=100000
        notes+=("the $(label "$which") build refuses \`per_second: unlimited\`: its campaigns say \`per_second: 100000\`.")
    fi
    account[$which]=0
    if bench_accepts "${bin[$which]}" "per_second: 1" "account: {ledger: off}"; then
        account[$which]=1
    else
        notes+=("the $(label "$which") build knows no \`account:\` key (no ledger): its campaigns leave the key out, and its \"ledger on\" rows are n/a.")
    fi
    preview[$which]=0
    if "${bin[$which]}" run --help 2>/dev/null | grep -q -- '--preview'; then
        preview[$which]=1
    fi
done

samples=$bench_work/samples.tsv
: >"$samples"
# Messages/s of each text (ledger off) and template run, per binary and pair: the template ÷ text
# ratios.
per_pair=$bench_work/per_pair.tsv
: >"$per_pair"
# sample MEASURE WHICH VALUE DECIMALS: one measurement, kept for the medians.
sample() {
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$samples"
}

# run_or_die NAME WHICH ARGS…: runs WHICH's wacamp with ARGS under bench_time; dies unless it exits 0.
run_or_die() {
    local name=$1 which=$2
    shift 2
    bench_time "$name" "${bin[$which]}" "$@"
    [ "$T_RC" = 0 ] || { tail -5 "$bench_work/$name.err" >&2; bench_die "$(label "$which") $name exited $T_RC"; }
}

# throughput WHICH LEDGER PAIR: one unlimited run of THROUGHPUT_N recipients against nginx, with the
# ledger off or on (a fresh state dir); checks that the log holds them all sent.
throughput() {
    local which=$1 ledger=$2 pair=$3 dir=$bench_work/t-$1-$2-$3 sent
    mkdir -p "$dir"
    bench_write_campaign "$dir/c.yaml" "$NGINX_URL" "$bench_work/t.csv" "$dir/log.jsonl" \
        "per_second: ${rate[$which]}, burst: 1, concurrency: 32"
    [ "$ledger" = on ] || [ "${account[$which]}" = 0 ] || echo "account: {ledger: off}" >>"$dir/c.yaml"
    XDG_STATE_HOME=$dir/state run_or_die "throughput-$which-$ledger-$pair" "$which" run "$dir/c.yaml" --yes --no-progress
    sent=$(python3 bench/log_stats.py counts "$dir/log.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sent"])')
    [ "$sent" = "$n" ] || bench_die "$(label "$which"): the result log records $sent sent, not $n"
    sample "throughput, ledger $ledger (messages/s)" "$which" "$(bench_calc "$n / $T_WALL")" 0
    [ "$ledger" = on ] || printf 'text\t%s\t%s\t%s\n' "$which" "$pair" "$(bench_calc "$n / $T_WALL")" >>"$per_pair"
    sample "CPU per message, ledger $ledger (µs)" "$which" "$(bench_calc "($T_USER + $T_SYS) * 1e6 / $n")" 1
    rm -rf "$dir"
}

# template_throughput WHICH PAIR: one unlimited template run of THROUGHPUT_N recipients against
# nginx, the ledger off; checks that the log holds them all sent.
template_throughput() {
    local which=$1 pair=$2 dir=$bench_work/tt-$1-$2 sent
    mkdir -p "$dir"
    bench_write_template_campaign "$dir/c.yaml" "$NGINX_URL" "$bench_work/tt.csv" "$dir/log.jsonl" \
        "per_second: ${rate[$which]}, burst: 1, concurrency: 32"
    [ "${account[$which]}" = 0 ] || echo "account: {ledger: off}" >>"$dir/c.yaml"
    XDG_STATE_HOME=$dir/state run_or_die "template-throughput-$which-$pair" "$which" run "$dir/c.yaml" --yes --no-progress
    sent=$(python3 bench/log_stats.py counts "$dir/log.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sent"])')
    [ "$sent" = "$n" ] || bench_die "$(label "$which"): the template run's log records $sent sent, not $n"
    sample "template throughput, ledger off (messages/s)" "$which" "$(bench_calc "$n / $T_WALL")" 0
    sample "template CPU per message, ledger off (µs)" "$which" "$(bench_calc "($T_USER + $T_SYS) * 1e6 / $n")" 1
    printf 'template\t%s\t%s\t%s\n' "$which" "$pair" "$(bench_calc "$n / $T_WALL")" >>"$per_pair"
    rm -rf "$dir"
}

# template_dry_run WHICH SIZE PAIR: the template dry run of SIZE rows (the list of
# $bench_work/tt-SIZE.csv); checks that its log holds a record per row.
template_dry_run() {
    local which=$1 size=$2 pair=$3 dir=$bench_work/td-$1-$2-$3 args logged
    mkdir -p "$dir"
    bench_write_template_campaign "$dir/c.yaml" "$NGINX_URL" "$bench_work/tt-$size.csv" "$dir/log.jsonl" \
        "per_second: ${rate[$which]}, burst: 1, concurrency: 32"
    [ "${account[$which]}" = 0 ] || echo "account: {ledger: off}" >>"$dir/c.yaml"
    args=(run "$dir/c.yaml" --dry-run --no-progress)
    [ "${preview[$which]}" = 0 ] || args+=(--preview 0)
    run_or_die "template-dry-run-$which-$size-$pair" "$which" "${args[@]}"
    logged=$(grep -c '"status":"dry_run"' "$dir/log.dry-run.jsonl" || true)
    [ "$logged" = "$size" ] || bench_die "$(label "$which"): the template dry run's log records $logged dry_run rows, not $size"
    sample "template dry run, $size rows: wall time (s)" "$which" "$T_WALL" 3
    sample "template dry run, $size rows: peak RSS (MiB)" "$which" "$(bench_calc "$T_RSS / 1024")" 1
    rm -rf "$dir"
}

commands=(dry_run run rerun resume delete_contacts report_text report_csv report_json report_html)
# commands WHICH SIZE PAIR: every command of bench/commands.sh in turn on a campaign of SIZE rows.
commands() {
    local which=$1 size=$2 pair=$3 dir=$bench_work/c-$1-$2-$3 command args account_line=
    mkdir -p "$dir"
    bench_make_csv "$size" "$dir/r.csv"
    [ "${account[$which]}" = 0 ] || account_line="account: {ledger: off}"
    bench_write_cleanup_campaign "$dir" "$NGINX_URL" "per_second: ${rate[$which]}, burst: 1, concurrency: 32" "$account_line"
    for command in "${commands[@]}"; do
        case $command in
        dry_run)
            args=(run "$dir/c.yaml" --dry-run --no-progress)
            [ "${preview[$which]}" = 0 ] || args+=(--preview 0)
            ;;
        run | rerun) args=(run "$dir/c.yaml" --yes --no-progress) ;;
        resume) args=(resume "$dir/log.jsonl" --no-progress) ;;
        delete_contacts) args=(delete-contacts "$dir/log.jsonl") ;;
        report_*) args=(report "$dir/log.jsonl" --format "${command#report_}" --output "$dir/report.${command#report_}") ;;
        esac
        run_or_die "$command-$which-$size-$pair" "$which" "${args[@]}"
        sample "$command, $size rows: wall time (s)" "$which" "$T_WALL" 3
        sample "$command, $size rows: peak RSS (MiB)" "$which" "$(bench_calc "$T_RSS / 1024")" 1
        rm -f "$dir"/report.*
    done
    rm -rf "$dir"
}

bench_start_nginx

# template: 1 when the build runs template campaigns (its `validate` accepts a one-row template
# campaign, which reads the stand-in's template list).
declare -A template
for which in ref work; do
    template[$which]=0
    probe=$(mktemp -d "$bench_work/probe.XXXXXX")
    bench_make_csv 1 "$probe/r.csv" template
    bench_write_template_campaign "$probe/c.yaml" "$NGINX_URL" "$probe/r.csv" "$probe/r.jsonl" "per_second: 1"
    [ "${account[$which]}" = 0 ] || echo "account: {ledger: off}" >>"$probe/c.yaml"
    if "${bin[$which]}" validate "$probe/c.yaml" >"$probe/out" 2>&1; then
        template[$which]=1
    elif [ "$which" = work ]; then
        cat "$probe/out" >&2
        bench_die "the working tree's wacamp refuses the benchmark's template campaign"
    else
        notes+=("the REF build refuses a template campaign (\`validate\`: \"$(grep -m1 . "$probe/out" | sed "s|$probe/||g" | tr -d '`|' | cut -c1-120)\"): its template rows are n/a.")
    fi
done

bench_make_csv "$n" "$bench_work/t.csv"
bench_make_csv "$n" "$bench_work/tt.csv" template
for size in "${sizes[@]}"; do
    bench_make_csv "$size" "$bench_work/tt-$size.csv" template
done
for pair in $(seq "$pairs"); do
    order=(ref work)
    [ $((pair % 2)) = 1 ] || order=(work ref)
    echo "bench: pair $pair of $pairs (${order[*]})" >&2
    for ledger in off on; do
        for which in "${order[@]}"; do
            [ "$ledger" = off ] || [ "${account[$which]}" = 1 ] || continue
            throughput "$which" "$ledger" "$pair"
        done
        # The template runs right after the text runs they are divided by.
        [ "$ledger" = off ] || continue
        for which in "${order[@]}"; do
            [ "${template[$which]}" = 0 ] || template_throughput "$which" "$pair"
        done
    done
    for size in "${sizes[@]}"; do
        for which in "${order[@]}"; do
            [ "${COMMANDS:-1}" = 0 ] || commands "$which" "$size" "$pair"
        done
        for which in "${order[@]}"; do
            [ "${template[$which]}" = 0 ] || template_dry_run "$which" "$size" "$pair"
        done
    done
done

out_md=$bench_out/compare-${ref//\//_}.md
working="the tree at $(git rev-parse --short HEAD)"
[ -z "$(git status --porcelain --untracked-files=no)" ] || working+=" with uncommitted changes"
if [ -n "$given_wacamp" ]; then
    working="\`$WACAMP\` (named by WACAMP; $working)"
else
    working+=" (\`$WACAMP\`)"
fi
{
    echo "# wacamp against $ref"
    echo
    echo "Produced by \`bench/compare.sh $ref ${sizes[*]}\` (PAIRS=$pairs, THROUGHPUT_N=$n) on $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo "REF: $ref, commit $(git rev-parse --short "$ref_sha") (\`$WACAMP_REF\`); working: $working."
    bench_machine
    echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "Medians of $pairs run(s) each, alternating; ratio = working ÷ REF (within ±3 %: 1.0×);" \
        "messages/s: higher is better, the rest: lower is better."
    [ "${COMMANDS:-1}" != 0 ] || notes+=("COMMANDS=0: the commands of bench/commands.sh were not measured.")
    for note in "${notes[@]}"; do echo "Note: $note"; done
    echo
    python3 - "$samples" <<'PY'
import statistics, sys
order, values, decimals = [], {}, {}
for line in open(sys.argv[1], encoding="utf-8"):
    measure, which, value, places = line.rstrip("\n").split("\t")
    if measure not in values:
        order.append(measure)
        values[measure] = {"ref": [], "work": []}
    values[measure][which].append(float(value))
    decimals[measure] = int(places)
print("| measure | REF median | working median | working ÷ REF |")
print("|---|---:|---:|---:|")
for measure in order:
    med = {w: statistics.median(v) if v else None for w, v in values[measure].items()}
    shown = {w: "n/a" if m is None else f"{m:,.{decimals[measure]}f}" for w, m in med.items()}
    if med["ref"] is None or med["work"] is None or med["ref"] == 0:
        ratio = "n/a"
    else:
        r = med["work"] / med["ref"]
        ratio = "1.0×" if abs(r - 1) <= 0.03 else f"{r:.2f}×"
    print(f"| {measure} | {shown['ref']} | {shown['work']} | {ratio} |")
PY
    echo
    python3 - "$samples" "$per_pair" "$n" "${sizes[@]}" <<'PY'
import collections, statistics, sys
samples_file, per_pair_file, n, sizes = sys.argv[1], sys.argv[2], int(sys.argv[3]), [int(s) for s in sys.argv[4:]]
values = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(samples_file, encoding="utf-8"):
    measure, which, value, _ = line.rstrip("\n").split("\t")
    values[measure][which].append(float(value))
runs = collections.defaultdict(dict)  # (which, pair) -> {kind: messages/s}
for line in open(per_pair_file, encoding="utf-8"):
    kind, which, pair, mps = line.rstrip("\n").split("\t")
    runs[(which, int(pair))][kind] = float(mps)
labels = (("work", "working"), ("ref", "REF"))
print("Template campaigns. Targets: the template dry run of 1,000,000 rows ≤ 5 s (judged when the largest size"
      " is at least 1,000,000 rows, scaled to 1,000,000) and flat in memory (peak RSS at the largest size"
      " ≤ 1.10× the smallest's);"
      f" a template run's messages/s ≥ 0.9× the same binary's text run's ({n:,} recipients, unlimited rate,"
      " 32 in flight, ledger off, nginx stand-in; the text runs are the \"throughput, ledger off\" rows).")
print()
print("| binary | template dry run, largest size | per 1,000,000 rows | ≤ 5 s? | peak RSS, smallest → largest size | ratio | flat? |"
      " text messages/s | template messages/s | template ÷ text (per pair) | ≥ 0.9×? |")
print("|---|---:|---:|---|---:|---:|---|---:|---:|---:|---|")
small, large = min(sizes), max(sizes)
for which, label in labels:
    wall = values[f"template dry run, {large} rows: wall time (s)"][which]
    text = values["throughput, ledger off (messages/s)"][which]
    if not wall:
        shown = f"{statistics.median(text):,.0f}" if text else "n/a"
        print(f"| {label} | n/a | n/a | — | n/a | n/a | — | {shown} | n/a | n/a | — |")
        continue
    t = statistics.median(wall)
    per_million = t * 1_000_000 / large
    within = ("yes" if per_million <= 5 else "no") if large >= 1_000_000 else "— (< 1,000,000 rows)"
    rss_small = statistics.median(values[f"template dry run, {small} rows: peak RSS (MiB)"][which])
    rss_large = statistics.median(values[f"template dry run, {large} rows: peak RSS (MiB)"][which])
    flat = rss_large / rss_small
    tmpl = values["template throughput, ledger off (messages/s)"][which]
    ratio = statistics.median(tmpl) / statistics.median(text)
    per_pair = ", ".join(f"{r['template'] / r['text']:.2f}" for (w, _), r in sorted(runs.items())
                         if w == which and "text" in r and "template" in r)
    print(f"| {label} | {large:,} rows: {t:.2f} s | {f'{per_million:.2f} s' if large >= 1_000_000 else '—'} | {within} |"
          f" {rss_small:.1f} → {rss_large:.1f} MiB | {flat:.2f}× | {'yes' if flat <= 1.10 else 'no'} |"
          f" {statistics.median(text):,.0f} | {statistics.median(tmpl):,.0f} | {ratio:.2f}× ({per_pair}) |"
          f" {'yes' if ratio >= 0.9 else 'no'} |")
PY
} >"$out_md"
cat "$out_md"
echo "bench: wrote $out_md" >&2
