#!/usr/bin/env bash
# A throwaway PostgreSQL cluster in a directory of your choice, for tests and local development
# (the same code scripts/test.sh uses; never the machine's own cluster on 5432).
#
#   scripts/pg-cluster.sh start DIR            initdb + start; prints the connection URL
#   scripts/pg-cluster.sh url DIR              prints the URL again
#   scripts/pg-cluster.sh restart DIR [MODE]   pg_ctl restart (fast by default; immediate = crash)
#   scripts/pg-cluster.sh stop DIR             stops it (the data stays until you delete DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh
command="${1:-}"
dir="${2:-}"
[ -n "$command" ] && [ -n "$dir" ] || { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 64; }
case "$command" in
    start)
        mkdir -p "$dir"
        chmod 755 "$dir"
        tally_pg_start "$(cd "$dir" && pwd)"
        echo "$TALLY_TEST_DATABASE_URL"
        ;;
    url) tally_pg_load "$dir" && echo "$TALLY_TEST_DATABASE_URL" ;;
    restart) tally_pg_load "$dir" && tally_pg_restart "${3:-fast}" ;;
    stop) tally_pg_load "$dir" && tally_pg_stop ;;
    *) echo "error: unknown command '$command' (start, url, restart, stop)" >&2; exit 64 ;;
esac
