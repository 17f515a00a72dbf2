#!/usr/bin/env bash
# Report benchmarks, each next to its baseline on the same data in one run (release build, a
# throwaway PostgreSQL cluster): 10M events of 500k actors, funnel-shaped sessions over 90 days
# (Benchmarks/reports/generate.py), loaded with `tally ingest --sink postgres` and into a file
# store, then interleaved rounds of
#   a 4-step ordered funnel, 7-day window, PostgreSQL   vs  array_agg + a PL/pgSQL state machine
#                                                           (and, in the first round, chained LEFT
#                                                           JOIN LATERALs): Benchmarks/reports/funnel_*.sql
#   daily first-time retention, 30 periods, PostgreSQL  vs  the raw-events SQL (retention.sql)
#   a 90-day daily trend (from tally.rollup_hourly)     vs  the same series from the raw events (trend.sql)
#   the funnel on the file store                        vs  `tally summary` over the same files (scan rate)
# tally's reports run as a tally_reader member (read-only transactions). Each round prints
# nothing; the end prints medians, the spread (min–max), the median of the per-round ratios, and
# the CPU time (the command's own plus PostgreSQL's backends, from /proc) beside it: the machine
# is small and shared, so CPU time is the steadier figure. The counts of each report and its
# baseline are compared in the first round, and a difference stops the run.
#   scripts/bench.sh --part reports            10M events, 500k actors, 5 rounds
#   scripts/bench.sh --part reports --quick    1M events, 50k actors, 3 rounds
#   TALLY_BENCH_EVENTS, TALLY_BENCH_ACTORS, TALLY_BENCH_ROUNDS override them.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/common.sh
source scripts/lib/postgres.sh
tally_find_swift
tally_install_system_packages
events=10000000 actors=500000 rounds=5
if [ "${1:-}" = --quick ]; then events=1000000 actors=50000 rounds=3; fi
events="${TALLY_BENCH_EVENTS:-$events}" actors="${TALLY_BENCH_ACTORS:-$actors}" rounds="${TALLY_BENCH_ROUNDS:-$rounds}"
swift build -c release --product tally >&2
tally=$PWD/.build/release/tally
work=$(mktemp -d /tmp/tally-bench-reports.XXXXXX)
chmod 755 "$work"
trap 'tally_pg_stop; rm -rf "$work"' EXIT
tally_pg_start "$work/postgres"
admin="${TALLY_TEST_DATABASE_URL%/*}/tally_reports"
psql "$TALLY_TEST_DATABASE_URL" -qc "CREATE DATABASE tally_reports" >/dev/null
"$tally" migrate --database-url "$admin" >/dev/null 2>&1
psql "$admin" -qc "CREATE ROLE bench_reader LOGIN PASSWORD 'reader' IN ROLE tally_reader" \
    -c "ALTER ROLE bench_reader SET default_transaction_read_only = on" >/dev/null
reader="postgresql://bench_reader:reader@127.0.0.1:$TALLY_PG_PORT/tally_reports"

tally_log "generating $events events of $actors actors"
python3 Benchmarks/reports/generate.py "$events" "$actors" >"$work/events.ndjson"
mb=$(du -m "$work/events.ndjson" | cut -f1)
tally_log "loading them into PostgreSQL"
start=$(date +%s.%N)
"$tally" ingest "$work/events.ndjson" --sink postgres --database-url "$admin" --quiet --data-dir "$work/pg-data" >/dev/null
pg_load=$(echo "$(date +%s.%N) - $start" | bc)
tally_log "loading them into a file store"
"$tally" ingest "$work/events.ndjson" --data-dir "$work/store" --quiet >/dev/null
rm "$work/events.ndjson"
tally_log "VACUUM ANALYZE, and the baselines' table"
psql "$admin" -qc "VACUUM ANALYZE" >/dev/null
psql "$admin" -q -f Benchmarks/reports/funnel_setup.sql >/dev/null
store_mb=$(du -sm "$work/store" | cut -f1)

hertz=$(getconf CLK_TCK)
family() { echo "$1" $(pgrep -P "$1"); }
# CPU clock ticks of a process, its live children and the children it reaped (fields after the
# command's closing parenthesis: utime, stime, cutime, cstime are 12 to 15).
ticks() { { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null || true; } | awk '{ t = $12 + $13 + $14 + $15 } END { print t + 0 }'; }
postgres_ticks() {
    local total=0 pid
    for pid in $(family "$(head -1 "$TALLY_PG_ROOT/data/postmaster.pid")"); do total=$((total + $(ticks "$pid"))); done
    echo "$total"
}
# timed OUT COMMAND…: runs it with its output in OUT; sets wall (s), cpu (its own user + system,
# s), pgcpu (PostgreSQL's, s) and rss (its peak, MiB). A failure stops the run.
timed() {
    local out="$1" before after start end user system kib
    shift
    before=$(postgres_ticks)
    start=$(date +%s.%N)
    /usr/bin/time -f '%U %S %M' -o "$work/time" "$@" >"$out" 2>"$work/stderr" ||
        { cat "$work/stderr" >&2; echo "error: failed: $*" >&2; exit 1; }
    end=$(date +%s.%N)
    after=$(postgres_ticks)
    read -r user system kib <"$work/time"
    wall=$(echo "$end - $start" | bc -l)
    cpu=$(echo "$user + $system" | bc -l)
    pgcpu=$(echo "($after - $before) / $hertz" | bc -l)
    rss=$((kib / 1024))
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f–%.3f", lo, hi }'; }

since=2026-08-24 until=2026-11-22 rsince=2026-10-23
steps=(episode_list_viewed episode_list_episode_selected player_opened player_completed)
report=("$tally" report)
funnel_args=(funnel --step "${steps[0]}" --step "${steps[1]}" --step "${steps[2]}" --step "${steps[3]}" --window 7d
    --since "$since" --until "$until")
retention_args=(retention --start app_opened --return player_opened --period day --periods 30 --since "$rsince"
    --until "$until")
trend_args=(trends --event episode_list_viewed --interval day --since "$since" --until "$until")
pg=(--store postgres --database-url "$reader")
fs=(--store file --data-dir "$work/store")
psql_vars=(-v since="$since" -v until="$until" -v step1="${steps[0]}" -v step2="${steps[1]}" -v step3="${steps[2]}"
    -v step4="${steps[3]}" -v event=episode_list_viewed -v start=app_opened -v return=player_opened -v periods=30)
baseline=(psql "$admin" -X -At -F, "${psql_vars[@]}")

# The counts of a report and its baseline, or a failure naming both.
check() {
    python3 - "$@" <<'PY'
import json, sys
from datetime import date
kind, ours, theirs = sys.argv[1], json.load(open(sys.argv[2])), [l.split(",") for l in open(sys.argv[3]).read().split()]
if kind == "funnel":
    a, b = [s["actors"] for s in ours["steps"]], [int(x) for x in theirs[0]]
elif kind == "funnel-json":
    a, b = [s["actors"] for s in ours["steps"]], [s["actors"] for s in json.load(open(sys.argv[3]))["steps"]]
elif kind == "trend":
    a = [v for v in ours["series"][0]["values"]]
    days = {row[0]: int(row[1]) for row in theirs}
    b = [days.get(start[:10], 0) for start in ours["buckets"]]
else:  # retention: (cohort day, offset) → count, zeros and unknown cells left out
    a = {(c["start"][:10], k): n for c in ours["cohorts"] for k, n in enumerate(c["counts"]) if n}
    b = {(row[0], int(row[1])): int(row[2]) for row in theirs if int(row[2])}
if a != b:
    sys.exit(f"error: {kind}: tally and the baseline differ:\n  tally    {a}\n  baseline {b}")
print(f"{kind}: equal counts", a if not isinstance(a, dict) else f"({len(a)} cells)")
PY
}

declare -A W C P R
add() { W[$1]+="$wall " C[$1]+="$cpu " P[$1]+="$pgcpu " R[$1]+="$rss "; }
tally_log "$rounds rounds"
for round in $(seq "$rounds"); do
    # Odd rounds run each report before its baseline, even rounds after.
    pair() {
        local name="$1" base="$2"
        if [ $((round % 2)) = 1 ]; then run "$name"; run "$base"; else run "$base"; run "$name"; fi
    }
    run() {
        case "$1" in
            funnel) timed "$work/funnel.json" "${report[@]}" "${funnel_args[@]}" "${pg[@]}" --no-merge --format json ;;
            funnel_merged) timed "$work/funnel-merged.json" "${report[@]}" "${funnel_args[@]}" "${pg[@]}" --format json ;;
            funnel_plpgsql) timed "$work/funnel-plpgsql.csv" "${baseline[@]}" -f Benchmarks/reports/funnel_plpgsql.sql ;;
            funnel_lateral) timed "$work/funnel-lateral.csv" "${baseline[@]}" -f Benchmarks/reports/funnel_lateral.sql ;;
            retention) timed "$work/retention.json" "${report[@]}" "${retention_args[@]}" "${pg[@]}" --no-merge --format json ;;
            retention_sql) timed "$work/retention.csv" "${baseline[@]}" -v since="$rsince" -f Benchmarks/reports/retention.sql ;;
            trend) timed "$work/trend.json" "${report[@]}" "${trend_args[@]}" "${pg[@]}" --format json ;;
            trend_raw) timed "$work/trend.csv" "${baseline[@]}" -f Benchmarks/reports/trend.sql ;;
            file_funnel) timed "$work/file-funnel.json" "${report[@]}" "${funnel_args[@]}" "${fs[@]}" --no-merge --format json ;;
            file_summary) timed "$work/summary.txt" "$tally" summary "${fs[@]}" ;;
        esac
        add "$1"
    }
    pair funnel funnel_plpgsql
    run funnel_merged
    pair retention retention_sql
    pair trend trend_raw
    pair file_funnel file_summary
    if [ "$round" = 1 ]; then
        run funnel_lateral
        check funnel "$work/funnel.json" "$work/funnel-plpgsql.csv"
        check funnel "$work/funnel.json" "$work/funnel-lateral.csv"
        check funnel-json "$work/file-funnel.json" "$work/funnel.json"
        check retention "$work/retention.json" "$work/retention.csv"
        check trend "$work/trend.json" "$work/trend.csv"
    fi
done

# line LABEL NAME [BASELINE TARGET]: medians and spreads, the per-round wall ratio and CPU ratio.
ratio() { # the median over rounds of baseline / report, for W or CPU (own + PostgreSQL)
    local which="$1" a="$2" b="$3" i ratios=()
    local -a wa=(${W[$a]}) wb=(${W[$b]}) ca=(${C[$a]}) cb=(${C[$b]}) pa=(${P[$a]}) pb=(${P[$b]})
    for i in "${!wa[@]}"; do
        if [ "$which" = wall ]; then ratios+=("$(echo "${wb[i]} / ${wa[i]}" | bc -l)")
        else ratios+=("$(echo "(${cb[i]} + ${pb[i]}) / (${ca[i]} + ${pa[i]})" | bc -l)"); fi
    done
    median "${ratios[@]}"
}
show() {
    local label="$1" name="$2"
    printf '  %-44s %7.3f s  (%s; CPU %.2f s + PostgreSQL %.2f s; peak RSS %d MiB)\n' "$label" \
        "$(median ${W[$name]})" "$(spread ${W[$name]})" "$(median ${C[$name]})" "$(median ${P[$name]})" \
        "$(median ${R[$name]})"
}
echo "Reports over $events events of $actors actors ($mb MB of NDJSON; file store $store_mb MB), $rounds rounds;"
echo "medians (min–max), ratios are medians of the per-round ratios; loaded into PostgreSQL in $(printf '%.0f' "$pg_load") s"
show "funnel, PostgreSQL (tally_reader, --no-merge)" funnel
show "funnel, PostgreSQL, merging identities" funnel_merged
show "baseline: array_agg + PL/pgSQL machine" funnel_plpgsql
show "baseline: chained LEFT JOIN LATERAL (1 run)" funnel_lateral
printf '  → tally %.2f× faster than PL/pgSQL (target ≥ 2×), %.2f× in CPU time; %.2f× faster than LATERAL\n' \
    "$(ratio wall funnel funnel_plpgsql)" "$(ratio cpu funnel funnel_plpgsql)" \
    "$(echo "$(median ${W[funnel_lateral]}) / $(median ${W[funnel]})" | bc -l)"
show "retention, daily, 30 periods, PostgreSQL" retention
show "baseline: raw-events SQL" retention_sql
printf '  → tally %.2f× faster (target ≥ 5×), %.2f× in CPU time\n' "$(ratio wall retention retention_sql)" \
    "$(ratio cpu retention retention_sql)"
show "trend, 90 days daily, from the rollups" trend
show "baseline: the raw events" trend_raw
printf '  → tally %.1f× faster (target ≥ 20×, and under 0.050 s), %.1f× in CPU time\n' "$(ratio wall trend trend_raw)" \
    "$(ratio cpu trend trend_raw)"
show "funnel, file store (--no-merge)" file_funnel
show "tally summary, file store" file_summary
printf '  → funnel at %.2f× the scan rate of tally summary (target ≥ 0.8×): %.0f MB/s against %.0f MB/s; peak RSS %d MiB (target ≤ 256)\n' \
    "$(ratio wall file_funnel file_summary)" "$(echo "$store_mb / $(median ${W[file_funnel]})" | bc -l)" \
    "$(echo "$store_mb / $(median ${W[file_summary]})" | bc -l)" "$(median ${R[file_funnel]})"
if command -v clickhouse-server >/dev/null 2>&1; then
    echo "  ClickHouse windowFunnel: not measured by this script yet"
else
    echo "  ClickHouse windowFunnel: skipped: clickhouse-server not installed"
fi
