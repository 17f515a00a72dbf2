#!/usr/bin/env bash
# PostgreSQL load benchmarks on a throwaway cluster, each next to its baseline on the same table
# and data, medians of 5 runs (the machine is noisy):
#   tally ingest --sink postgres (NDJSON, validated, with rollups)   vs   psql \copy of the same rows as CSV
#   the same                                                          vs   Python json.loads + psycopg cursor.copy()
#   scripts/bench-postgres.sh [EVENTS]        (default 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
source scripts/lib/postgres.sh
tally_find_swift
tally_install_system_packages
python3 -c "import psycopg" 2>/dev/null || pip install -q "psycopg[binary]" >&2
swift build -c release --product tally >&2
events="${1:-200000}"
work=$(mktemp -d /tmp/tally-bench-pg.XXXXXX)
chmod 755 "$work"
trap 'tally_pg_stop; rm -rf "$work"' EXIT
tally_pg_start "$work/postgres"
url="$TALLY_TEST_DATABASE_URL"
tally=.build/release/tally
"$tally" generate --events "$events" > "$work/events.ndjson"
python3 Benchmarks/postgres/ndjson_to_csv.py "$work/events.ndjson" "$work/events.csv"
"$tally" migrate --database-url "$url" >/dev/null 2>&1
columns="event_id, occurred_at, name, feature, properties, sent_at, received_at, user_id, anonymous_id, session_id, context, schema_version"
reset() { psql "$url" -qc "TRUNCATE tally.events, tally.rollup_hourly, tally.daily_actors" >/dev/null; }
seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); echo "$end - $start" | bc; }
median() { printf '%s\n' "$@" | sort -g | sed -n 3p; }
tally_runs=(); copy_runs=(); python_runs=(); bare_runs=(); counts_runs=()
for _ in 1 2 3 4 5; do
    reset; tally_runs+=("$(seconds "$tally" ingest "$work/events.ndjson" --sink postgres --database-url "$url" --quiet --data-dir "$work/data")")
    reset; bare_runs+=("$(seconds "$tally" ingest "$work/events.ndjson" --sink postgres --database-url "$url" --quiet --data-dir "$work/data" --no-rollups)")
    reset; counts_runs+=("$(seconds "$tally" ingest "$work/events.ndjson" --sink postgres --database-url "$url" --quiet --data-dir "$work/data" --no-user-sets)")
    reset; copy_runs+=("$(seconds psql "$url" -qc "\\copy tally.events ($columns) FROM '$work/events.csv' CSV")")
    reset; python_runs+=("$(seconds python3 Benchmarks/postgres/psycopg_load.py "$url" "$work/events.ndjson")")
done
t=$(median "${tally_runs[@]}"); c=$(median "${copy_runs[@]}"); p=$(median "${python_runs[@]}"); b=$(median "${bare_runs[@]}"); h=$(median "${counts_runs[@]}")
mb=$(du -m "$work/events.ndjson" | cut -f1)
echo "NDJSON → PostgreSQL, $events events ($mb MB), medians of 5, same table and data"
printf '  tally ingest --sink postgres   %6.2f s  (validated, rollups kept)\n' "$t"
printf '  psql \\copy of the rows as CSV  %6.2f s  → tally throughput %.2f× of \\copy  (target ≥ 0.8×)\n' "$c" "$(echo "$c / $t" | bc -l)"
printf '  Python json + psycopg copy()   %6.2f s  → tally wall time %.2f× of it  (target ≤ 0.8×)\n' "$p" "$(echo "$t / $p" | bc -l)"
printf '  tally without rollup upkeep    %6.2f s  → rollups add %.0f%% to ingest time  (target ≤ 15%%)\n' "$b" "$(echo "($t / $b - 1) * 100" | bc -l)"
printf '    of which hourly counts       %6.2f s  → %.0f%%; the exact per-day user sets the rest\n' "$h" "$(echo "($h / $b - 1) * 100" | bc -l)"
