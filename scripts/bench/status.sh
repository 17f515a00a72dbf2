#!/usr/bin/env bash
# `tally status` on PostgreSQL at 10M events (or $1), on a throwaway cluster: the events are
# generated for the Examples plans (`tally generate`, with an invalid line every 5,000 events so
# that there is drift to find) and loaded with `tally ingest --store postgres` without a registry
# (everything is stored, drifted events too). Then, three times each, medians printed:
#   tally status, all 14 days          vs   SELECT count(*) over the same events (one bare scan)
#   tally status --since the last day  vs   the same count over that day
# Not part of scripts/test.sh: the load alone takes minutes.
#   scripts/bench.sh --part status [EVENTS]
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/common.sh
source scripts/lib/postgres.sh
tally_find_swift
tally_install_system_packages
events="${1:-10000000}"
# $TALLY_BIN: a tally already built (status's time is the server's; the load is faster in release).
if [ -n "${TALLY_BIN:-}" ]; then
    tally="$TALLY_BIN"
else
    swift build -c release --product tally >&2
    tally=.build/release/tally
fi
work=$(mktemp -d /tmp/tally-bench-status.XXXXXX)
chmod 755 "$work"
trap 'tally_pg_stop; rm -rf "$work"' EXIT
tally_pg_start "$work/postgres"
url="$TALLY_TEST_DATABASE_URL"
"$tally" migrate --database-url "$url" >/dev/null
start=$(date +%s)
"$tally" generate --events "$events" --bad-every 5000 \
    | "$tally" ingest --store postgres --database-url "$url" --data-dir "$work/data" --quiet >"$work/ingest.txt" || true
echo "loaded in $(( $(date +%s) - start )) s: $(grep -E 'postgres:' "$work/ingest.txt" | tr -s ' ')"
psql "$url" -qc "VACUUM ANALYZE" >/dev/null
psql "$url" -XAtc "SELECT 'events: ' || (SELECT count(*) FROM tally.events) || ', partitions ' || pg_size_pretty(sum(pg_total_relation_size(inhrelid))) FROM pg_inherits WHERE inhparent = 'tally.events'::regclass"
seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; end=$(date +%s.%N); echo "$end - $start" | bc; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
measure() {
    local label="$1" since="$2"
    local -a status=() scan=()
    for _ in 1 2 3; do
        status+=("$(seconds "$tally" status --registry Examples/registry --database-url "$url" --since "$since" --until 2026-11-22 --format json)")
        scan+=("$(seconds psql "$url" -XAtc "SELECT count(*) FROM tally.events WHERE occurred_at >= '$since' AND occurred_at < '2026-11-22'")")
    done
    local s b
    s=$(median "${status[@]}"); b=$(median "${scan[@]}")
    printf '%-28s status %6.2f s   bare count(*) %6.2f s   ratio %5.1f×\n' "$label" "$s" "$b" "$(echo "$s / $b" | bc -l)"
}
measure "all 14 days ($events events)" 2026-11-08
measure "the last day" 2026-11-21
"$tally" status --registry Examples/registry --database-url "$url" --since 2026-11-08 --until 2026-11-22 | tail -25
