#!/usr/bin/env bash
# Report benchmarks, each next to its baseline on the same data in one run (release build, a
# throwaway PostgreSQL cluster): 10M events of 500k actors, funnel-shaped sessions over 90 days
# (Benchmarks/reports/generate.py), loaded with `tally ingest --store postgres` and into a file
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
#   scripts/bench.sh --part reports                      10M events, 500k actors, 5 rounds
#   scripts/bench.sh --part reports --quick              1M events, 50k actors, 3 rounds
#   scripts/bench.sh --part reports EVENTS ACTORS [ROUNDS]
#   TALLY_BENCH_ONLY="funnel retention trend file dashboard clickhouse"   some of the figures only
#   TALLY_BENCH_LOADS (20), TALLY_BENCH_CLI_ROUNDS (5), TALLY_BENCH_PAGES (overview,events,funnels,
#   retention): the dashboard's loads per page, CLI runs per command, pages
#   TALLY_BENCH_KEEP=DIR   keeps the data, the cluster and the file store in DIR and reuses them
#                          in the next run of the same size (generating and loading take minutes)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/common.sh
source scripts/lib/postgres.sh
tally_find_swift
tally_install_system_packages
events=10000000 actors=500000 rounds=5
if [ "${1:-}" = --quick ]; then events=1000000 actors=50000 rounds=3; shift; fi
if [ $# -gt 0 ]; then events="$1" actors="${2:?usage: reports.sh [--quick | EVENTS ACTORS [ROUNDS]]}" rounds="${3:-$rounds}"; fi
rounds="${TALLY_BENCH_ROUNDS:-$rounds}"
only=" ${TALLY_BENCH_ONLY:-funnel retention trend file dashboard clickhouse} "
wants() { [[ "$only" == *" $1 "* ]]; }
swift build -c release --product tally >&2
tally=$PWD/.build/release/tally
if [ -n "${TALLY_BENCH_KEEP:-}" ]; then
    work="$TALLY_BENCH_KEEP"
    mkdir -p "$work"
    trap 'tally_pg_stop' EXIT
else
    work=$(mktemp -d /tmp/tally-bench-reports.XXXXXX)
    trap 'tally_pg_stop; rm -rf "$work"' EXIT
fi
chmod 755 "$work"
loaded="$work/loaded-$events-$actors"
if [ -f "$loaded" ]; then
    tally_log "reusing the $events events loaded in $work"
    tally_pg_load "$work/postgres"
    tally_pg_stop  # one left running by an interrupted run
    TALLY_PG_PORT=$(tally_pg_free_port)
    TALLY_TEST_DATABASE_URL=$(echo "$TALLY_TEST_DATABASE_URL" | sed "s/@127.0.0.1:[0-9]*/@127.0.0.1:$TALLY_PG_PORT/")
    tally_pg_launch
    admin="${TALLY_TEST_DATABASE_URL%/*}/tally_reports"
    "$tally" migrate --database-url "$admin" >/dev/null 2>&1
else
    rm -rf "$work/postgres" "$work/store" "$work/pg-data" "$work"/loaded-*
    tally_pg_start "$work/postgres"
    admin="${TALLY_TEST_DATABASE_URL%/*}/tally_reports"
    psql "$TALLY_TEST_DATABASE_URL" -qc "CREATE DATABASE tally_reports" >/dev/null
    "$tally" migrate --database-url "$admin" >/dev/null 2>&1
    psql "$admin" -qc "CREATE ROLE bench_reader LOGIN PASSWORD 'reader' IN ROLE tally_reader" \
        -c "ALTER ROLE bench_reader SET default_transaction_read_only = on" >/dev/null
fi
reader="postgresql://bench_reader:reader@127.0.0.1:$TALLY_PG_PORT/tally_reports"

if [ ! -f "$loaded" ]; then
    if [ ! -f "$work/events-$events-$actors.ndjson" ]; then
        tally_log "generating $events events of $actors actors"
        python3 Benchmarks/reports/generate.py "$events" "$actors" >"$work/events.tmp"
        mv "$work/events.tmp" "$work/events-$events-$actors.ndjson"
    fi
    input="$work/events-$events-$actors.ndjson"
    du -m "$input" | cut -f1 >"$work/ndjson-mb"
    tally_log "loading them into PostgreSQL"
    start=$(date +%s.%N)
    "$tally" ingest "$input" --store postgres --database-url "$admin" --quiet --data-dir "$work/pg-data" >/dev/null
    echo "$(date +%s.%N) - $start" | bc >"$work/pg-load-seconds"
    tally_log "loading them into a file store"
    "$tally" ingest "$input" --data-dir "$work/store" --quiet >/dev/null
    rm "$input"
    tally_log "VACUUM ANALYZE, and the baselines' table"
    psql "$admin" -qc "VACUUM ANALYZE" >/dev/null
    psql "$admin" -q -f Benchmarks/reports/funnel_setup.sql >/dev/null
    touch "$loaded"
fi
mb=$(cat "$work/ndjson-mb") pg_load=$(cat "$work/pg-load-seconds")
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
    if wants funnel; then pair funnel funnel_plpgsql; run funnel_merged; fi
    if wants retention; then pair retention retention_sql; fi
    if wants trend; then pair trend trend_raw; fi
    if wants file; then pair file_funnel file_summary; fi
    if [ "$round" = 1 ]; then
        if wants funnel; then
            run funnel_lateral
            check funnel "$work/funnel.json" "$work/funnel-plpgsql.csv"
            check funnel "$work/funnel.json" "$work/funnel-lateral.csv"
        fi
        if wants file && wants funnel; then check funnel-json "$work/file-funnel.json" "$work/funnel.json"; fi
        if wants retention; then check retention "$work/retention.json" "$work/retention.csv"; fi
        if wants trend; then check trend "$work/trend.json" "$work/trend.csv"; fi
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
if wants funnel; then
show "funnel, PostgreSQL (tally_reader, --no-merge)" funnel
show "funnel, PostgreSQL, merging identities" funnel_merged
show "baseline: array_agg + PL/pgSQL machine" funnel_plpgsql
show "baseline: chained LEFT JOIN LATERAL (1 run)" funnel_lateral
printf '  → tally %.2f× faster than PL/pgSQL (target ≥ 2×), %.2f× in CPU time; %.2f× faster than LATERAL\n' \
    "$(ratio wall funnel funnel_plpgsql)" "$(ratio cpu funnel funnel_plpgsql)" \
    "$(echo "$(median ${W[funnel_lateral]}) / $(median ${W[funnel]})" | bc -l)"
fi
if wants retention; then
show "retention, daily, 30 periods, PostgreSQL" retention
show "baseline: raw-events SQL" retention_sql
printf '  → tally %.2f× faster (target ≥ 5×), %.2f× in CPU time\n' "$(ratio wall retention retention_sql)" \
    "$(ratio cpu retention retention_sql)"
fi
if wants trend; then
show "trend, 90 days daily, from the rollups" trend
show "baseline: the raw events" trend_raw
printf '  → tally %.1f× faster (target ≥ 20×, and under 0.050 s), %.1f× in CPU time\n' "$(ratio wall trend trend_raw)" \
    "$(ratio cpu trend trend_raw)"
fi
if wants file; then
show "funnel, file store (--no-merge)" file_funnel
show "tally summary, file store" file_summary
printf '  → funnel at %.2f× the scan rate of tally summary (target ≥ 0.8×): %.0f MB/s against %.0f MB/s; peak RSS %d MiB (target ≤ 256)\n' \
    "$(ratio wall file_funnel file_summary)" "$(echo "$store_mb / $(median ${W[file_funnel]})" | bc -l)" \
    "$(echo "$store_mb / $(median ${W[file_summary]})" | bc -l)" "$(median ${R[file_funnel]})"
fi
# The dashboard: every page (20 loads, p95) against the CLI reports it shows, on the same cluster.
if wants dashboard; then
    echo
    python3 Benchmarks/reports/dashboard.py "$tally" "$reader" "$TALLY_PG_ROOT/data/postmaster.pid" \
        "${TALLY_BENCH_LOADS:-20}" "${TALLY_BENCH_CLI_ROUNDS:-5}" "${TALLY_BENCH_PAGES:-overview,events,funnels,retention}"
fi

# Moonshot: ClickHouse's windowFunnel over the same events (actor, time in µs, name), loaded into a
# throwaway local clickhouse-server, against tally's funnel on PostgreSQL measured above.
if wants clickhouse && command -v clickhouse-server >/dev/null 2>&1; then
    ch="$work/clickhouse"
    mkdir -p "$ch/data" "$ch/tmp"
    ch_port=$(tally_pg_free_port)
    cat >"$ch/config.xml" <<XML
<yandex>
    <logger><level>warning</level><log>$ch/server.log</log><errorlog>$ch/error.log</errorlog></logger>
    <tcp_port>$ch_port</tcp_port>
    <listen_host>127.0.0.1</listen_host>
    <path>$ch/data/</path>
    <tmp_path>$ch/tmp/</tmp_path>
    <users_config>$ch/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <mark_cache_size>1073741824</mark_cache_size>
</yandex>
XML
    cat >"$ch/users.xml" <<'XML'
<yandex>
    <profiles><default/></profiles>
    <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
    <quotas><default/></quotas>
</yandex>
XML
    clickhouse-server --config-file="$ch/config.xml" >"$ch/stdout.log" 2>&1 &
    ch_pid=$!
    trap 'kill "$ch_pid" 2>/dev/null || true; tally_pg_stop; [ -n "${TALLY_BENCH_KEEP:-}" ] || rm -rf "$work"' EXIT
    chq() { clickhouse-client --port "$ch_port" "$@"; }
    for _ in $(seq 60); do chq -q "SELECT 1" >/dev/null 2>&1 && break; sleep 1; done
    if [ ! -f "$ch/loaded-$events-$actors" ]; then
        tally_log "loading the events into ClickHouse"
        chq -q "DROP TABLE IF EXISTS events"
        chq -q "CREATE TABLE events (actor String, t UInt64, name String) ENGINE = MergeTree ORDER BY (actor, t)"
        psql "$admin" -X -qc "COPY (SELECT coalesce(user_id, anonymous_id),
            ((extract(epoch FROM occurred_at) * 1000000)::bigint), name FROM tally.events
            WHERE coalesce(user_id, anonymous_id) IS NOT NULL) TO STDOUT (FORMAT csv)" |
            chq -q "INSERT INTO events FORMAT CSV"
        chq -q "OPTIMIZE TABLE events FINAL"
        touch "$ch/loaded-$events-$actors"
    fi
    from_us=$(date -ud "$since" +%s)000000 to_us=$(date -ud "$until" +%s)000000
    window_us=$((7 * 86400 * 1000000))
    # windowFunnel takes DateTime or UInt32: whole seconds (events in one second may then chain in
    # another order than tally's, so the counts can differ slightly; both are printed).
    ch_sql="SELECT countIf(level >= 1), countIf(level >= 2), countIf(level >= 3), countIf(level >= 4) FROM (
        SELECT actor, windowFunnel(604800)(toUInt32(intDiv(t, 1000000)), name = '${steps[0]}' AND t < $to_us,
            name = '${steps[1]}',
            name = '${steps[2]}', name = '${steps[3]}') AS level
        FROM events WHERE t >= $from_us AND t < $to_us + $window_us
            AND name IN ('${steps[0]}', '${steps[1]}', '${steps[2]}', '${steps[3]}')
        GROUP BY actor) FORMAT CSV"
    ch_walls=() ch_cpus=()
    for round in $(seq "$rounds"); do
        before=$(ticks "$ch_pid")
        start=$(date +%s.%N)
        chq -q "$ch_sql" >"$work/clickhouse.csv"
        ch_walls+=("$(echo "$(date +%s.%N) - $start" | bc -l)")
        ch_cpus+=("$(echo "($(ticks "$ch_pid") - $before) / $hertz" | bc -l)")
    done
    echo "  ClickHouse $(chq -q 'SELECT version()') windowFunnel, the same funnel: $(printf '%.3f' "$(median "${ch_walls[@]}")") s" \
        "($(spread "${ch_walls[@]}"); server CPU $(printf '%.2f' "$(median "${ch_cpus[@]}")") s); counts $(tr -d '\n' <"$work/clickhouse.csv")" \
        "(tally: $(python3 -c 'import json,sys; print(",".join(str(s["actors"]) for s in json.load(open(sys.argv[1]))["steps"]))' "$work/funnel.json"))"
    if [ -n "${W[funnel]:-}" ]; then
        printf '  → tally at %.2f× its speed (%.3f s against %.3f s)\n' \
            "$(echo "$(median "${ch_walls[@]}") / $(median ${W[funnel]})" | bc -l)" "$(median ${W[funnel]})" "$(median "${ch_walls[@]}")"
    fi
    kill "$ch_pid"
    wait "$ch_pid" 2>/dev/null || true
fi
