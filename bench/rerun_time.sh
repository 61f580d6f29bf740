#!/usr/bin/env bash
# Wall time and peak RSS of a rerun of a complete campaign (the log replayed, nothing left to
# send), two wacamp binaries side by side on the same log: the replay's cost before and after a
# change. The campaign is that of bench/commands.sh (contact deletion included), run once by
# the second binary against the nginx stand-in. delete-contacts (nothing left to delete) too.
#   bench/rerun_time.sh OLD_WACAMP NEW_WACAMP [SIZE] [RUNS]   (default: 1000000 rows, 3 runs each)
set -euo pipefail
old=$1
new=$2
size=${3:-1000000}
runs=${4:-3}
WACAMP=$new
. "$(dirname "$0")/lib.sh"
bench_setup nginx=nginx-light
bench_start_nginx
bench_unlimited_rate
dir=$bench_work/rerun
mkdir -p "$dir"
bench_make_csv "$size" "$dir/r.csv"
bench_write_cleanup_campaign "$dir" "$NGINX_URL" "per_second: $unlimited_rate, burst: 1, concurrency: 32"
bench_time first "$new" run "$dir/c.yaml" --yes --no-progress
[ "$T_RC" = 0 ] || bench_die "the first run exited $T_RC"
printf 'first run (new, contact deletion included): %s s, %s KiB\n' "$T_WALL" "$T_RSS"
for i in $(seq "$runs"); do
    for which in old new; do
        bin=$old
        [ $which = new ] && bin=$new
        bench_time "rerun-$which-$i" "$bin" run "$dir/c.yaml" --yes --no-progress
        [ "$T_RC" = 0 ] || bench_die "the $which rerun exited $T_RC"
        printf '%s rerun %s: %s s, %s KiB\n' "$which" "$i" "$T_WALL" "$T_RSS"
        bench_time "delete-$which-$i" "$bin" delete-contacts "$dir/log.jsonl"
        [ "$T_RC" = 0 ] || bench_die "the $which delete-contacts exited $T_RC"
        printf '%s delete-contacts %s: %s s, %s KiB\n' "$which" "$i" "$T_WALL" "$T_RSS"
    done
done
