#!/usr/bin/env bash
# A local PostgreSQL for development, in .tally/postgres of the repository (git-ignored), on its
# own port and socket: the same code scripts/test.sh uses for its throwaway cluster.
#
#   deploy/local/postgres.sh start     installs PostgreSQL if missing, starts it, runs tally
#                                      migrate, prints `export DATABASE_URL=…`
#   deploy/local/postgres.sh url       prints the export line again
#   deploy/local/postgres.sh stop      stops it (data kept)
#   deploy/local/postgres.sh destroy   stops it and deletes its data
#
#   eval "$(deploy/local/postgres.sh start)"
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/common.sh
source scripts/lib/postgres.sh
dir="$PWD/.tally/postgres"
case "${1:-start}" in
    start)
        if [ -f "$dir/cluster.env" ]; then
            tally_pg_load "$dir"
            tally_pg_run "$TALLY_PG_USER" "$TALLY_PG_BINDIR/pg_ctl" -D "$dir/data" status >/dev/null 2>&1 ||
                tally_pg_launch >&2
        else
            tally_install_system_packages >&2
            mkdir -p "$dir" && chmod 755 "$PWD/.tally" "$dir"
            tally_pg_start "$dir" >&2
        fi
        tally_find_swift >&2
        swift build --product tally >&2
        .build/debug/tally migrate --database-url "$TALLY_TEST_DATABASE_URL" >&2
        echo "export DATABASE_URL='$TALLY_TEST_DATABASE_URL'"
        ;;
    url) tally_pg_load "$dir" && echo "export DATABASE_URL='$TALLY_TEST_DATABASE_URL'" ;;
    stop) tally_pg_load "$dir" && tally_pg_stop ;;
    destroy)
        if [ -f "$dir/cluster.env" ]; then tally_pg_load "$dir" && tally_pg_stop; fi
        rm -rf "$dir"
        ;;
    *) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 64 ;;
esac
