#!/usr/bin/env bash
# ClickHouse (throwaway two-shard cluster) next to PostgreSQL (throwaway cluster) on the same events:
#   tally ingest --store clickhouse   vs   --store postgres       events/s, CPU per event of tally and of the server
#   tally report funnel / retention on each store             wall time (medians of 3)
#   tally serve --store clickhouse    vs   --store postgres       events/s under the collector benchmark's load (wrk)
#   scripts/bench.sh --part clickhouse [EVENTS]     (default 200000; --quick: 20000)
#   TALLY_BENCH_BIN=.build/debug/tally skips the release build (figures then say little about tally's CPU).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/common.sh
source scripts/lib/postgres.sh
source scripts/lib/clickhouse.sh
events="${1:-200000}"
[ "$events" = "--quick" ] && events=20000
tally="${TALLY_BENCH_BIN:-}"
if [ -z "$tally" ]; then
    tally_find_swift
    swift build -c release --product tally >&2
    tally=.build/release/tally
fi
work=$(mktemp -d /tmp/tally-bench-ch.XXXXXX)
chmod 755 "$work"
serve_pid=""
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; tally_ch_stop; tally_pg_stop; rm -rf "$work"' EXIT
tally_pg_start "$work/postgres" >/dev/null
tally_ch_start "$work/clickhouse" >/dev/null
pg="$TALLY_TEST_DATABASE_URL"
ch="$TALLY_CH_URL,$TALLY_CH_URL2"
"$tally" migrate --database-url "$pg" >/dev/null
"$tally" migrate --clickhouse --clickhouse-url "$ch" >/dev/null
"$tally" generate --events "$events" >"$work/events.ndjson"
echo "ClickHouse $TALLY_CH_VERSION (2 shards) vs PostgreSQL $(psql "$pg" -Atc 'SHOW server_version'), $events events"

# CPU seconds (user+sys) of the processes whose pids are given, from /proc.
cpu_of() {
    local total=0 pid ticks
    for pid in "$@"; do
        ticks=$({ sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null || true; } | awk '{ t = $12 + $13 + $14 + $15 } END { print t + 0 }')
        total=$((total + ticks))
    done
    echo "$total"
}
# The servers' processes: both shards (their threads count in their own times), or the postmaster
# and its backends.
server_pids() {
    local postmaster
    case "$1" in
        clickhouse) echo "$(cat "$TALLY_CH_ROOT/shard1/server.pid") $(cat "$TALLY_CH_ROOT/shard2/server.pid")" ;;
        postgres)
            postmaster=$(head -1 "$TALLY_PG_ROOT/data/postmaster.pid")
            echo "$postmaster" $(pgrep -P "$postmaster")
            ;;
    esac
}
hz=$(getconf CLK_TCK)

ingest() {  # STORE: wall, events/s, tally CPU µs/event, server CPU µs/event
    local store="$1" before after start end user_sys
    # shellcheck disable=SC2046
    before=$(cpu_of $(server_pids "$store"))
    start=$(date +%s.%N)
    if [ "$store" = clickhouse ]; then
        user_sys=$( { /usr/bin/time -f '%U %S' "$tally" ingest "$work/events.ndjson" --quiet --store clickhouse \
            --clickhouse-url "$ch" --data-dir "$work/dl-ch" >/dev/null; } 2>&1 | tail -1)
    else
        user_sys=$( { /usr/bin/time -f '%U %S' "$tally" ingest "$work/events.ndjson" --quiet --store postgres \
            --database-url "$pg" --data-dir "$work/dl-pg" >/dev/null; } 2>&1 | tail -1)
    fi
    end=$(date +%s.%N)
    # shellcheck disable=SC2046
    after=$(cpu_of $(server_pids "$store"))
    python3 - "$store" "$events" "$start" "$end" "$user_sys" "$before" "$after" "$hz" <<'PY'
import sys
store, events, start, end, user_sys, before, after, hz = sys.argv[1:]
events = int(events); wall = float(end) - float(start)
tally_cpu = sum(map(float, user_sys.split()))
server_cpu = (int(after) - int(before)) / int(hz)
print(f"  ingest {store:10s} {wall:6.2f} s  {events / wall:9.0f} events/s  tally {tally_cpu / events * 1e6:5.1f} µs/event"
      f"  server {server_cpu / events * 1e6:5.1f} µs/event")
PY
}
echo "ingest (first load):"
ingest postgres
ingest clickhouse
# Bytes on disk per event (both shards; PostgreSQL's events partitions with their indexes).
ch_bytes=0
for node in "$TALLY_CH_URL" "$TALLY_CH_URL2"; do
    b=$(curl -sf "$node/" --data-binary "SELECT sum(bytes) FROM system.parts WHERE database = 'tally' AND table = 'events_local' AND active")
    ch_bytes=$((ch_bytes + b))
done
pg_bytes=$(psql "$pg" -Atc "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid WHERE i.inhparent = 'tally.events'::regclass")
echo "  on disk: ClickHouse $((ch_bytes / events)) bytes/event, PostgreSQL $((pg_bytes / events)) bytes/event (events table and indexes)"
echo "ingest again (every event a duplicate):"
ingest postgres
ingest clickhouse

report() {  # KIND ARGS…: median wall time of 3 on each store
    for store in postgres clickhouse; do
        local times=()
        for _ in 1 2 3; do
            local start end
            start=$(date +%s.%N)
            if [ "$store" = clickhouse ]; then
                "$tally" report "$@" --since 2020-01-01 --until 2030-01-01 --store clickhouse --clickhouse-url "$ch" \
                    --format json >/dev/null
            else
                "$tally" report "$@" --since 2020-01-01 --until 2030-01-01 --store postgres --database-url "$pg" \
                    --format json >/dev/null
            fi
            end=$(date +%s.%N)
            times+=("$(python3 -c "print(f'{$end - $start:.2f}')")")
        done
        echo "  report $1 on $store: $(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p) s (median of 3)"
    done
}
names=$(head -2000 "$work/events.ndjson" | python3 -c 'import sys, json, collections; c = collections.Counter(json.loads(l)["name"] for l in sys.stdin); print(" ".join(n for n, _ in c.most_common(3)))')
read -r first second third <<<"$names"
echo "reports ($first → $second → $third):"
report funnel --step "$first" --step "$second" --step "$third" --window 1d
report retention --start "$first" --return "$second"

if command -v wrk >/dev/null 2>&1; then
    echo "tally serve under the collector benchmark's load (wrk -t2 -c32 -d10s, 100-event gzip bodies):"
    python3 Benchmarks/collector-load/bodies.py "$work/events.ndjson" "$work/bodies.bin" "$work/lengths.txt"
    key=$("$tally" keys add --keys "$work/keys.json" --source bench)
    for store in postgres clickhouse; do
        if [ "$store" = clickhouse ]; then
            "$tally" serve --port 0 --keys "$work/keys.json" --store clickhouse --clickhouse-url "$ch" 2>"$work/serve.log" &
        else
            "$tally" serve --port 0 --keys "$work/keys.json" --store postgres --database-url "$pg" 2>"$work/serve.log" &
        fi
        serve_pid=$!
        port=""
        for _ in $(seq 300); do
            port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$work/serve.log" | head -1)
            [ -n "$port" ] && break
            sleep 0.1
        done
        out=$(wrk -t2 -c32 -d10s --timeout 30s -s Benchmarks/collector-load/post-bodies.lua \
            "http://127.0.0.1:$port/v1/events" -- "$work/bodies.bin" "$work/lengths.txt" "$key" 2 0)
        result=$(grep '^RESULT' <<<"$out")
        requests=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$result")
        non2xx=$(sed 's/.*non2xx=\([0-9]*\).*/\1/' <<<"$result")
        duration=$(sed 's/.*duration_us=\([0-9]*\).*/\1/' <<<"$result")
        awk -v s="$store" -v r="$requests" -v f="$non2xx" -v us="$duration" \
            'BEGIN { printf "  serve --store %-10s %8.0f events/s acknowledged  (%d non-2xx)\n", s, (r - f) * 100 / (us / 1e6), f }'
        kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; serve_pid=""
    done
else
    echo "tally serve: wrk is missing (Debian: apt-get install wrk); skipped"
fi
