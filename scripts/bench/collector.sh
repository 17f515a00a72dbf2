#!/usr/bin/env bash
# The collector benchmark (release build, its own throwaway PostgreSQL), the same events each time:
#   (a) tally ingest --store postgres of an NDJSON file                       → events/s
#   (b) tally serve --store postgres under wrk (32 connections, gzip 100-event
#       NDJSON bodies cycled by Benchmarks/collector-load/post-bodies.lua)   → events/s acknowledged
#       then paced at 80 % of that rate (wrk's Lua delay())                  → p50 / p99 latency
#   (c) the FastAPI + uvicorn + psycopg baseline (Benchmarks/collector-baseline) under the same load
# with the collectors' peak RSS and CPU time per event (theirs and PostgreSQL's), medians over
# rounds, ratios serve/ingest (target ≥ 0.6) and serve/baseline (target ≥ 4). A run counts only 2xx
# answers as events (wrk's non-2xx and socket errors are failures, printed), and checks that the
# rows stored cover every acknowledged event.
#   scripts/bench.sh --part collector --quick                  (900000 events, 2 rounds, 3 s)
#   scripts/bench.sh --part collector [EVENTS] [ROUNDS] [SECONDS]   (defaults 1200000, 5, 5; more events are
#   generated when a one-second probe shows that wrk would wrap around to events already sent)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = "--quick" ]; then set -- 900000 2 3; fi  # what scripts/bench.sh --quick runs
for arg in "$@"; do
    case "$arg" in
        '' | *[!0-9]*)
            echo "usage: scripts/bench.sh --part collector [--quick | EVENTS [ROUNDS [SECONDS]]] (got '$arg')" >&2
            exit 64
            ;;
    esac
done
source scripts/lib/common.sh
source scripts/lib/postgres.sh
source scripts/lib/python.sh
tally_find_swift
tally_install_system_packages
tally_collector_tools
tally_python_env
swift build -c release --product tally >&2
events="${1:-1200000}"
rounds="${2:-5}"
seconds="${3:-5}"
connections=32
threads=2
tally=.build/release/tally
work=$(mktemp -d /tmp/tally-bench-collector.XXXXXX)
chmod 755 "$work"
collector_pid=""
stop_collector() {
    if [ -n "$collector_pid" ]; then
        kill -TERM "$collector_pid" 2>/dev/null || true
        wait "$collector_pid" 2>/dev/null || true
        collector_pid=""
    fi
}
trap 'stop_collector; tally_pg_stop; rm -rf "$work"' EXIT
tally_pg_start "$work/postgres"
url="$TALLY_TEST_DATABASE_URL"
"$tally" migrate --database-url "$url" >/dev/null
# As in the postgres part: every run loads into emptied tables; autovacuum would otherwise work on
# one run's rows during the next.
psql "$url" -qc "ALTER SYSTEM SET autovacuum = off" -c "SELECT pg_reload_conf()" >/dev/null
reset() { psql "$url" -qc "TRUNCATE tally.events, tally.rollup_hourly, tally.daily_actor_sets, tally.failed_events" -c CHECKPOINT >/dev/null; }
stored() { psql "$url" -tAc "SELECT count(*) FROM tally.events"; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# generate N: N events (the ingest's file) and their 100-event gzip bodies (wrk's).
generate() {
    events="$1"
    tally_log "generating $events events and their 100-event gzip bodies"
    "$tally" generate --events "$events" >"$work/events.ndjson"
    "$TALLY_PYTHON" Benchmarks/collector-load/bodies.py "$work/events.ndjson" "$work/bodies.bin" "$work/lengths.txt"
}
generate "$events"
key=$("$tally" keys add --keys "$work/keys.json" --source bench)

# start_collector serve|baseline: starts it in the background, waits for its listening line,
# sets $collector_pid and $port.
start_collector() {
    local log="$work/collector.log"
    : >"$log"
    case "$1" in
        serve) "$tally" serve --port 0 --store postgres --database-url "$url" --data-dir "$work/data" \
            --keys "$work/keys.json" 2>"$log" & ;;
        baseline) "$TALLY_PYTHON" Benchmarks/collector-baseline/serve.py --port 0 --database-url "$url" \
            --keys "$work/keys.json" --workers 2 2>"$log" & ;;
    esac
    collector_pid=$!
    for _ in $(seq 600); do
        port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$log" | head -1)
        [ -n "$port" ] && return 0
        kill -0 "$collector_pid" 2>/dev/null || break
        sleep 0.1
    done
    cat "$log" >&2
    echo "error: the $1 collector did not start" >&2
    return 1
}
# A process and its children (uvicorn's workers, PostgreSQL's backends).
family() { echo "$1" $(pgrep -P "$1"); }
# Peak resident set of the collector: the sum of VmHWM over its process and its children, in MiB.
peak_rss() {
    local total=0 pid kib
    for pid in $(family "$1"); do
        kib=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
        total=$((total + ${kib:-0}))
    done
    echo $((total / 1024))
}
# CPU time in clock ticks: of a process, the children it reaped and those alive, and so of
# PostgreSQL (the postmaster and its backends). Per event, this is the collectors' cost
# apart from how fast the host is or how much of it a closed loop of 32 connections keeps busy.
# (The fields after the command's closing parenthesis, as the command may hold spaces: utime and
# stime are then fields 12 and 13, the reaped children's cutime and cstime 14 and 15. A process
# gone meanwhile counts 0; its parent's cutime has it.)
ticks() { { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null || true; } | awk '{ t = $12 + $13 + $14 + $15 } END { print t + 0 }'; }
process_cpu() {
    local total=0 pid
    for pid in $(family "$1"); do total=$((total + $(ticks "$pid"))); done
    echo "$total"
}
postgres_cpu() { process_cpu "$(head -1 "$TALLY_PG_ROOT/data/postmaster.pid")"; }
hertz=$(getconf CLK_TCK)
# load DELAY_MS: wrk against $port; sets $rate (events/s acknowledged), $p50 / $p99 (ms), $failed
# (non-2xx answers and socket errors), $collector_us / $postgres_us (CPU µs per acknowledged event)
# and checks the stored rows.
load() {
    local out result requests non2xx errors duration rows acknowledged collector_start postgres_start
    collector_start=$(process_cpu "$collector_pid"); postgres_start=$(postgres_cpu)
    out=$(wrk -t"$threads" -c"$connections" -d"${seconds}s" --timeout 30s -s Benchmarks/collector-load/post-bodies.lua \
        "http://127.0.0.1:$port/v1/events" -- "$work/bodies.bin" "$work/lengths.txt" "$key" "$threads" "$1")
    result=$(grep '^RESULT' <<<"$out")
    requests=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$result")
    non2xx=$(sed 's/.*non2xx=\([0-9]*\).*/\1/' <<<"$result")
    errors=$(sed 's/.*errors=\([0-9]*\).*/\1/' <<<"$result")
    duration=$(sed 's/.*duration_us=\([0-9]*\).*/\1/' <<<"$result")
    p50=$(sed 's/.*p50_us=\([0-9]*\).*/\1/' <<<"$result" | awk '{ printf "%.1f", $1 / 1000 }')
    p99=$(sed 's/.*p99_us=\([0-9]*\).*/\1/' <<<"$result" | awk '{ printf "%.1f", $1 / 1000 }')
    failed=$((non2xx + errors))
    acknowledged=$(((requests - non2xx) * 100))
    collector_us=$(awk -v t=$(($(process_cpu "$collector_pid") - collector_start)) -v n="$acknowledged" -v hz="$hertz" \
        'BEGIN { printf "%.2f", n ? t * 1e6 / hz / n : 0 }')
    postgres_us=$(awk -v t=$(($(postgres_cpu) - postgres_start)) -v n="$acknowledged" -v hz="$hertz" \
        'BEGIN { printf "%.2f", n ? t * 1e6 / hz / n : 0 }')
    rate=$(awk -v n="$acknowledged" -v us="$duration" 'BEGIN { printf "%.0f", n / (us / 1e6) }')
    rows=$(stored)
    # Every acknowledged event is stored; more rows are the ≤ $connections requests in flight when
    # wrk stopped. Fewer rows than acknowledged: the bodies wrapped around (re-sends are
    # duplicates), and the figure would count them: more events are needed.
    if [ "$rows" -lt "$acknowledged" ]; then
        echo "error: $acknowledged events acknowledged but $rows stored (the bodies wrapped around: the host ran" \
            "faster than the probe measured; pass more EVENTS)" >&2
        return 1
    fi
    [ -z "${TALLY_BENCH_VERBOSE:-}" ] || echo "  $1 ms delay: $requests requests, $non2xx non-2xx, $errors errors, $rows rows, $rate events/s, p50 $p50 ms, p99 $p99 ms" >&2
}

# The host's share of our CPU time (steal, from /proc/stat): other guests on a shared host. The
# ratios move with it, so a run says how busy the host was.
# (printf: mawk prints sums past 2^31 as 2.76481e+09, which shell arithmetic refuses.)
cpu_times() { awk '/^cpu /{ printf "%.0f %.0f\n", $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
read -r steal_start total_start < <(cpu_times)
# A CPU-speed probe of the host, in the baseline's own currency: one core running a fixed Python
# loop, best of three. Steal misses a busy sibling thread or a lower clock; this does not, and the
# Python baseline slows down more than tally on a slow host, so the ratio is read next to it.
probe() { "$TALLY_PYTHON" -c 'import time
best = min((lambda t: (sum(range(3_000_000)), time.perf_counter() - t)[1])(time.perf_counter()) for _ in range(3))
print(f"{best * 1000:.0f}")'; }
probe_start=$(probe)
# The events sized to this host: a run that reaches the end of the bodies wraps around to events
# already stored, and the figure would count re-sends. One second of serve under the same load
# measures the rate; the bodies then hold 1.6× what the longest run can send at it.
reset
start_collector serve
full_seconds="$seconds"; seconds=1
load 0
seconds="$full_seconds"
stop_collector
needed=$(awk -v r="$rate" -v s="$seconds" 'BEGIN { n = r * s * 1.6; printf "%.0f", (int(n / 100000) + 1) * 100000 }')
if [ "$needed" -gt "$events" ]; then
    tally_log "serve acknowledged $rate events/s in a probe: $events events would wrap around in ${seconds}s"
    generate "$needed"
fi
ingest_runs=(); serve_runs=(); baseline_runs=(); serve_ratio=(); baseline_ratio=()
serve_rss=(); baseline_rss=(); ingest_rss=(); serve_failed=0; baseline_failed=0
serve_cpu=(); serve_pg=(); baseline_cpu=(); baseline_pg=(); cpu_ratio=()
for round in $(seq "$rounds"); do
    tally_log "round $round of $rounds"
    reset
    start=$(date +%s.%N)
    ingest_kib=$("$TALLY_PYTHON" -c 'import resource, subprocess, sys
run = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if run.returncode: sys.exit(run.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \
        "$tally" ingest "$work/events.ndjson" --store postgres --database-url "$url" --quiet --data-dir "$work/ingest-data")
    end=$(date +%s.%N)
    [ "$(stored)" = "$events" ] || { echo "error: tally ingest stored $(stored) of $events" >&2; exit 1; }
    i=$(awk -v n="$events" -v s="$start" -v e="$end" 'BEGIN { printf "%.0f", n / (e - s) }')
    ingest_runs+=("$i"); ingest_rss+=("$((ingest_kib / 1024))")

    reset
    start_collector serve
    load 0
    serve_runs+=("$rate"); serve_failed=$((serve_failed + failed)); serve_rss+=("$(peak_rss "$collector_pid")")
    serve_cpu+=("$collector_us"); serve_pg+=("$postgres_us")
    stop_collector
    s="$rate"; s_us=$(echo "$collector_us + $postgres_us" | bc -l)

    reset
    start_collector baseline
    load 0
    baseline_runs+=("$rate"); baseline_failed=$((baseline_failed + failed)); baseline_rss+=("$(peak_rss "$collector_pid")")
    baseline_cpu+=("$collector_us"); baseline_pg+=("$postgres_us")
    stop_collector
    cpu_ratio+=("$(echo "($collector_us + $postgres_us) / $s_us" | bc -l)")

    serve_ratio+=("$(echo "$s / $i" | bc -l)"); baseline_ratio+=("$(echo "$s / $rate" | bc -l)")
done
s=$(median "${serve_runs[@]}"); i=$(median "${ingest_runs[@]}"); b=$(median "${baseline_runs[@]}")
read -r steal_end total_end < <(cpu_times)
probe_end=$(probe)
steal=$(awk -v s=$((steal_end - steal_start)) -v t=$((total_end - total_start)) 'BEGIN { printf "%.1f", t ? 100 * s / t : 0 }')

# 80 % of the median serve rate, paced per connection: a connection that waits P ms after each
# answer that took L ms sends 1000 / (P + L) requests a second, so C = connections × 100 events ×
# 1000 ms over P + L is the rate. L falls as the load does, so P is found by two calibration runs,
# each taking L from the rate the previous one reached: L = C / rate − P, then P = C / target − L.
target=$(awk -v s="$s" 'BEGIN { printf "%.0f", 0.8 * s }')
c=$((connections * 100 * 1000))
pause=$(awk -v c="$c" -v t="$target" 'BEGIN { printf "%.0f", c / t }')
reset
start_collector serve
for calibration in 1 2; do
    load "$pause"
    pause=$(awk -v c="$c" -v t="$target" -v r="$rate" -v p="$pause" 'BEGIN { l = c / r - p; p = c / t - l; if (p < 0) p = 0; printf "%.0f", p }')
    reset
done
paced_rates=(); paced_p50=(); paced_p99=(); paced_failed=0
for round in $(seq "$rounds"); do
    reset
    load "$pause"
    paced_rates+=("$rate"); paced_p50+=("$p50"); paced_p99+=("$p99"); paced_failed=$((paced_failed + failed))
done
paced_rss=$(peak_rss "$collector_pid")
stop_collector

echo "Collectors into PostgreSQL, the same $events generated events (tally generate); gzip NDJSON bodies of"
echo "100 events, wrk -t$threads -c$connections -d${seconds}s (Debian's wrk, Benchmarks/collector-load/post-bodies.lua);"
echo "medians of $rounds rounds, ratios the median of the per-round ratios; events/s count 2xx answers only"
printf '  tally ingest --store postgres (NDJSON file)    %8.0f events/s   peak RSS %4.0f MiB\n' "$i" "$(median "${ingest_rss[@]}")"
printf '  tally serve --store postgres (wrk)             %8.0f events/s   peak RSS %4.0f MiB   %d failed requests\n' \
    "$s" "$(median "${serve_rss[@]}")" "$serve_failed"
printf '  FastAPI + uvicorn (2 workers) + psycopg       %8.0f events/s   peak RSS %4.0f MiB   %d failed requests\n' \
    "$b" "$(median "${baseline_rss[@]}")" "$baseline_failed"
printf '  serve / ingest    %.2f×  (target ≥ 0.6×)\n' "$(median "${serve_ratio[@]}")"
printf '  serve / baseline  %.2f×  (target ≥ 4×; rounds %s)\n' "$(median "${baseline_ratio[@]}")" \
    "$(printf '%.2f ' "${baseline_ratio[@]}")"
printf '  CPU per acknowledged event (collector + PostgreSQL): serve %.2f + %.2f µs, the baseline %.2f + %.2f µs\n' \
    "$(median "${serve_cpu[@]}")" "$(median "${serve_pg[@]}")" "$(median "${baseline_cpu[@]}")" "$(median "${baseline_pg[@]}")"
printf '  CPU per acknowledged event, baseline / serve: %.2f×  (rounds %s; the events/s ratio is lower\n' \
    "$(median "${cpu_ratio[@]}")" "$(printf '%.2f ' "${cpu_ratio[@]}")"
printf '    when serve leaves cores idle)\n'
printf '  the baseline ran on %s\n' "$("$TALLY_PYTHON" -c 'import platform, sys; print(platform.python_implementation(), platform.python_version(), "from", sys._base_executable)')"
printf '  host steal during the rounds: %s %% of CPU time; Python probe %s / %s ms before / after (a fixed loop:\n' \
    "$steal" "$probe_start" "$probe_end"
printf '    the higher, the slower the host, and the more the Python baseline flatters the ratio)\n'
printf '  tally serve paced at 80 %% (%d events/s asked, %.0f served): p50 %.1f ms, p99 %.1f ms, peak RSS %d MiB, %d failed\n' \
    "$target" "$(median "${paced_rates[@]}")" "$(median "${paced_p50[@]}")" "$(median "${paced_p99[@]}")" "$paced_rss" "$paced_failed"
