#!/usr/bin/env bash
# PostgreSQL load benchmarks on a throwaway cluster, each next to its baseline on the same table
# and data, in interleaved rounds (the machine is noisy, so ratios are taken within each round and
# their median reported; TALLY_BENCH_VERBOSE=1 prints every run):
#   tally ingest --store postgres (NDJSON, validated, with rollups)   vs   psql \copy of the same rows as CSV
#   the same                                                          vs   Python json.loads + psycopg cursor.copy()
#     (7 rounds, or $TALLY_BENCH_ROUNDS)
#   the same                                                          vs   tally ingest without rollup upkeep,
#                                                                          and without the actor sets by event name
#     (15 rounds, or $TALLY_BENCH_PAIRS; with 500 users, then with 100,000)
#   tally summary --by feature from the rollups                        vs   the raw GROUP BY (--exact)
#   scripts/bench.sh --part postgres [EVENTS] [SUMMARY_EVENTS]     (defaults 200000 and 1000000; the 10M
#                                                            figure: SUMMARY_EVENTS=10000000, ~3 min)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/common.sh
source scripts/lib/postgres.sh
tally_find_swift
tally_install_system_packages
python3 -c "import psycopg" 2>/dev/null || pip install -q "psycopg[binary]" >&2
swift build -c release --product tally >&2
events="${1:-200000}"
summary_events="${2:-1000000}"
work=$(mktemp -d /tmp/tally-bench-pg.XXXXXX)
chmod 755 "$work"
trap 'tally_pg_stop; rm -rf "$work"' EXIT
tally_pg_start "$work/postgres"
url="$TALLY_TEST_DATABASE_URL"
tally=.build/release/tally
"$tally" generate --events "$events" > "$work/events.ndjson"
python3 Benchmarks/postgres/ndjson_to_csv.py "$work/events.ndjson" "$work/events.csv"
"$tally" migrate --database-url "$url" >/dev/null 2>&1
# Every run loads the same 200k rows into emptied tables: autovacuum would then vacuum and analyze
# what one run loaded during whichever run came next (measured: ±20 % on single runs), so it is off
# here, and each reset ends with a CHECKPOINT so that no run pays for its predecessor's writes.
psql "$url" -qc "ALTER SYSTEM SET autovacuum = off" -c "SELECT pg_reload_conf()" >/dev/null
columns="event_id, occurred_at, name, feature, properties, sent_at, received_at, user_id, anonymous_id, session_id, context, schema_version"
reset() { psql "$url" -qc "TRUNCATE tally.events, tally.rollup_hourly, tally.daily_actor_sets" -c CHECKPOINT >/dev/null; }
seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); echo "$end - $start" | bc; }
median() { quantile 0.5 "$@"; }
# quantile Q VALUES…: the value at fraction Q of the sorted values (nearest rank).
quantile() { local q="$1"; shift; printf '%s\n' "$@" | sort -g | awk -v q="$q" '{ v[NR] = $1 } END { i = int(q * (NR - 1) + 1.5); if (i > NR) i = NR; print v[i] }'; }
input="$work/events.ndjson"
ingest() { "$tally" ingest "$input" --store postgres --database-url "$url" --quiet --data-dir "$work/data" "$@"; }
# run_round N VARIANT…: times each variant on emptied tables, back to back, into $t (tally ingest),
# $b (without rollup upkeep), $h (hourly counts only), $n (without the actor sets by event name),
# $c (psql \copy) or $p (psycopg); odd rounds
# in the order given and even rounds in the reverse, so that no variant always follows the same one.
run_round() {
    local round="$1" variant index
    shift
    local variants=("$@")
    for ((index = 0; index < ${#variants[@]}; index++)); do
        variant="${variants[index]}"
        [ $((round % 2)) = 0 ] && variant="${variants[${#variants[@]} - 1 - index]}"
        reset
        case "$variant" in
            t) t=$(seconds ingest) ;;
            b) b=$(seconds ingest --no-rollups) ;;
            h) h=$(seconds ingest --no-user-sets) ;;
            n) n=$(seconds ingest --no-name-sets) ;;
            c) c=$(seconds psql "$url" -qc "\\copy tally.events ($columns) FROM '$work/events.csv' CSV") ;;
            p) p=$(seconds python3 Benchmarks/postgres/psycopg_load.py "$url" "$work/events.ndjson") ;;
        esac
    done
}
# Ratios are taken within a round and their median reported, so that a slow period of this noisy
# machine affects both sides of a ratio alike.
rounds="${TALLY_BENCH_ROUNDS:-7}"
tally_runs=(); copy_runs=(); python_runs=(); copy_ratio=(); python_ratio=()
for round in $(seq "$rounds"); do
    run_round "$round" t c p
    tally_runs+=("$t"); copy_runs+=("$c"); python_runs+=("$p")
    copy_ratio+=("$(echo "$c / $t" | bc -l)"); python_ratio+=("$(echo "$t / $p" | bc -l)")
done
# Rollup upkeep is a difference of a few percent between two runs that each vary by ±18 % here
# (measured: the same command run twice in a row), so it gets rounds of its own, more of them
# (15, or $TALLY_BENCH_PAIRS), and the middle half of the per-round ratios is printed too.
pairs="${TALLY_BENCH_PAIRS:-15}"
full_runs=(); bare_runs=(); counts_runs=(); rollup_ratio=(); counts_ratio=(); name_ratio=()
for round in $(seq "$pairs"); do
    run_round "$round" t b h n
    full_runs+=("$t"); bare_runs+=("$b"); counts_runs+=("$h")
    rollup_ratio+=("$(echo "($t / $b - 1) * 100" | bc -l)"); counts_ratio+=("$(echo "($h / $b - 1) * 100" | bc -l)")
    name_ratio+=("$(echo "($t / $n - 1) * 100" | bc -l)")
done
# The same with 100,000 users instead of 500: nearly every event is a new user-day, the costliest
# case for the per-day user sets (500 users give each user ~10 events per day and feature).
"$tally" generate --events "$events" --users 100000 > "$work/sparse.ndjson"
input="$work/sparse.ndjson"
sparse_ratio=(); sparse_name_ratio=()
for round in $(seq "$pairs"); do
    run_round "$round" t b n
    sparse_ratio+=("$(echo "($t / $b - 1) * 100" | bc -l)"); sparse_name_ratio+=("$(echo "($t / $n - 1) * 100" | bc -l)")
done
t=$(median "${tally_runs[@]}"); c=$(median "${copy_runs[@]}"); p=$(median "${python_runs[@]}")
full=$(median "${full_runs[@]}"); b=$(median "${bare_runs[@]}"); h=$(median "${counts_runs[@]}")
mb=$(du -m "$work/events.ndjson" | cut -f1)
if [ -n "${TALLY_BENCH_VERBOSE:-}" ]; then
    echo "runs: tally ${tally_runs[*]} | copy ${copy_runs[*]} | python ${python_runs[*]}"
    echo "rollup rounds: with ${full_runs[*]} | without ${bare_runs[*]} | hourly counts only ${counts_runs[*]}"
fi
echo "NDJSON → PostgreSQL, $events events ($mb MB), same table and data; times are medians, ratios the"
echo "median of the per-round ratios ($rounds rounds against the baselines, $pairs for rollup upkeep)"
printf '  tally ingest --store postgres   %6.2f s  (validated, rollups kept)\n' "$t"
printf '  psql \\copy of the rows as CSV  %6.2f s  → tally throughput %.2f× of \\copy  (target ≥ 0.8×)\n' "$c" "$(median "${copy_ratio[@]}")"
printf '  Python json + psycopg copy()   %6.2f s  → tally wall time %.2f× of it  (target ≤ 0.8×)\n' "$p" "$(median "${python_ratio[@]}")"
printf '  rollup upkeep: with %.2f s, without %.2f s → adds %.0f%% to ingest time (middle half of the rounds\n' \
    "$full" "$b" "$(median "${rollup_ratio[@]}")"
printf '    %.0f%% to %.0f%%; target ≤ 15%%); hourly counts alone %.2f s → %.0f%%, the exact per-day user sets the rest\n' \
    "$(quantile 0.25 "${rollup_ratio[@]}")" "$(quantile 0.75 "${rollup_ratio[@]}")" "$h" "$(median "${counts_ratio[@]}")"
printf '  rollup upkeep with 100,000 users (nearly every event a new user-day): adds %.0f%% (middle half %.0f%% to %.0f%%)\n' \
    "$(median "${sparse_ratio[@]}")" "$(quantile 0.25 "${sparse_ratio[@]}")" "$(quantile 0.75 "${sparse_ratio[@]}")"
printf '  of which the actor sets by event name (sql/0012): %.0f%% with 500 users (middle half %.0f%% to %.0f%%), %.0f%% with 100,000 (%.0f%% to %.0f%%)\n' \
    "$(median "${name_ratio[@]}")" "$(quantile 0.25 "${name_ratio[@]}")" "$(quantile 0.75 "${name_ratio[@]}")" \
    "$(median "${sparse_name_ratio[@]}")" "$(quantile 0.25 "${sparse_name_ratio[@]}")" "$(quantile 0.75 "${sparse_name_ratio[@]}")"

# Summaries: a database holding SUMMARY_EVENTS events over 60 days, the per-feature summary from
# the rollups and user sets against the same summary from the raw events, medians of 5.
psql "$url" -qc "CREATE DATABASE tally_summary" >/dev/null
summary_url="${url%/*}/tally_summary"
"$tally" migrate --database-url "$summary_url" >/dev/null 2>&1
"$tally" generate --events "$summary_events" --days 60 |
    "$tally" ingest --store postgres --database-url "$summary_url" --quiet --data-dir "$work/summary-data" >/dev/null
# What autovacuum (off here) would have done by the time anyone reads reports.
psql "$summary_url" -qc "VACUUM ANALYZE" >/dev/null
fast=(); slow=(); speedup=()
for _ in 1 2 3 4 5; do
    f=$(seconds "$tally" summary --by feature --database-url "$summary_url")
    r=$(seconds "$tally" summary --by feature --exact --database-url "$summary_url")
    fast+=("$f"); slow+=("$r"); speedup+=("$(echo "$r / $f" | bc -l)")
done
echo "tally summary --by feature over $summary_events events (60 days), whole command, medians of 5"
printf '  from the rollups and user sets  %6.3f s  (targets at 10M events: ≤ 0.25 s and ≥ 30×)\n' "$(median "${fast[@]}")"
printf '  raw GROUP BY (--exact)          %6.3f s  → rollups %.0f× faster\n' "$(median "${slow[@]}")" "$(median "${speedup[@]}")"
