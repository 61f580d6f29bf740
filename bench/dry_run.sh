#!/usr/bin/env bash
# Dry run: N recipients read, validated, rendered and logged by `wacamp run --dry-run`, timed by
# hyperfine beside two references on the same file: `wc -l` (reading it) and Miller's CSV → JSON
# Lines conversion (a fast tool doing a comparable job, minus validation). Rows/s for each.
# Target: 1,000,000 rows in ≤ 5 s, i.e. ≥ 200,000 rows/s.
#   bench/dry_run.sh [N=1000000]
# KIND=template: the template campaign of bench/lib.sh (bench_write_template_campaign, its list with
# two more columns) instead of the text one; its dry run reads the template list from the nginx
# stand-in, started for it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
n=${1:-1000000}
kind=${KIND:-text}

base_url=http://127.0.0.1:9
if [ "$kind" = template ]; then
    bench_setup hyperfine=hyperfine mlr=miller nginx=nginx-light
    bench_start_nginx
    base_url=$NGINX_URL
else
    bench_setup hyperfine=hyperfine mlr=miller
fi
csv=$bench_work/recipients.csv
bench_make_csv "$n" "$csv" "$kind"
bench_write_kind_campaign "$kind" "$bench_work/campaign.yaml" "$base_url" "$csv" "$bench_work/results.jsonl" "per_second: 10"

# One run first, to check it succeeds and logs every row (hyperfine only sees the exit code).
"$WACAMP" run "$bench_work/campaign.yaml" --dry-run --yes --no-progress >/dev/null
dry_run=$(python3 bench/log_stats.py counts "$bench_work/results.dry-run.jsonl" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"].get("dry_run", 0))')
[ "$dry_run" = "$n" ] || bench_die "the dry-run log records $dry_run dry_run rows, not $n"

# No shell (-N): wc takes a few ms, which a shell's start-up would blur; hyperfine discards output.
hyperfine -N --warmup 1 --runs 3 --style basic --export-json "$bench_work/hyperfine.json" \
    -n wacamp "'$WACAMP' run '$bench_work/campaign.yaml' --dry-run --yes --no-progress" \
    -n wc "wc -l '$csv'" \
    -n mlr "mlr --icsv --ojsonl cat '$csv'" >"$bench_work/hyperfine.out"
suffix=
[ "$kind" = text ] || suffix=-$kind
cp "$bench_work/hyperfine.json" "$bench_out/dry_run$suffix-hyperfine.json"

read -r t_wacamp t_wc t_mlr < <(python3 - "$bench_work/hyperfine.json" <<'PY'
import json, sys
results = {r["command"]: r["mean"] for r in json.load(open(sys.argv[1]))["results"]}
print(results["wacamp"], results["wc"], results["mlr"])
PY
)
rows() { bench_calc "f'{$n / $1:,.0f}'"; }
printf 'dry run of %s recipients, %s campaign (hyperfine, mean of 3 after 1 warm-up)\n' "$n" "$kind"
printf '  %-44s %8.3f s  %12s rows/s\n' "wacamp run --dry-run" "$t_wacamp" "$(rows "$t_wacamp")"
printf '  %-44s %8.3f s  %12s rows/s   wacamp/wc  %s×\n' "wc -l" "$t_wc" "$(rows "$t_wc")" \
    "$(bench_calc "f'{$t_wc / $t_wacamp:.4f}'")"
printf '  %-44s %8.3f s  %12s rows/s   wacamp/mlr %s×\n' "mlr --icsv --ojsonl cat" "$t_mlr" "$(rows "$t_mlr")" \
    "$(bench_calc "f'{$t_mlr / $t_wacamp:.2f}'")"
met=$(bench_met "$n / $t_wacamp >= 200000")
printf '  target ≥ 200,000 rows/s (1,000,000 in ≤ 5 s): %s\n' "$met"
what="dry run: $n recipients validated, rendered, logged"
command="bench/dry_run.sh $n"
if [ "$kind" != text ]; then
    what="$kind $what"
    command="KIND=$kind $command"
fi
bench_record "$what" "$command" \
    "$(bench_calc "f'{$t_wacamp:.2f}'") s, $(rows "$t_wacamp") rows/s" \
    "wc -l: $(rows "$t_wc") rows/s; mlr --icsv --ojsonl cat: $(rows "$t_mlr") rows/s" \
    "$(bench_calc "f'{$t_wc / $t_wacamp:.3f}'")× wc, $(bench_calc "f'{$t_mlr / $t_wacamp:.2f}'")× mlr" \
    "≤ 5 s per 1,000,000 (≥ 200,000 rows/s)" "$met"
