#!/usr/bin/env bash
# A local PostgreSQL for development, in .tally/postgres of the repository (git-ignored), on its
# own port and socket: the same code scripts/test.sh uses for its throwaway cluster.
#
#   deploy/local/postgres.sh start     installs PostgreSQL if missing, starts it, runs tally
#                                      migrate, prints `export DATABASE_URL=…`
#   deploy/local/postgres.sh url       prints the export line again
#   deploy/local/postgres.sh stop      stops it (data kept), prints `unset DATABASE_URL`
#   deploy/local/postgres.sh destroy   stops it and deletes its data, prints `unset DATABASE_URL`
#
#   eval "$(deploy/local/postgres.sh start)"     # DATABASE_URL set in this shell
#   eval "$(deploy/local/postgres.sh stop)"      # and unset again: tally summary reads the file store
#
# $TALLY_LOCAL_PG_DIR moves the cluster (default .tally/postgres); $TALLY_BIN names the tally that
# migrates it (default: a release build of this tree).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/common.sh
source scripts/lib/postgres.sh
dir="${TALLY_LOCAL_PG_DIR:-$PWD/.tally/postgres}"
# While DATABASE_URL is set, `tally summary` reads PostgreSQL (and exits 69 once it is stopped).
leave() {
    echo "unset DATABASE_URL"
    # stdout is the unset line (for eval); the note goes to the terminal, and only says what eval cannot do.
    echo "$1 (other shells that ran the start line keep DATABASE_URL until \`unset DATABASE_URL\`)" >&2
}
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
        tally="${TALLY_BIN:-}"
        if [ -z "$tally" ]; then
            tally_find_swift >&2
            swift build -c release --product tally >&2
            tally=.build/release/tally
        fi
        "$tally" migrate --database-url "$TALLY_TEST_DATABASE_URL" >&2
        echo "export DATABASE_URL='$TALLY_TEST_DATABASE_URL'"
        ;;
    url) tally_pg_load "$dir" && echo "export DATABASE_URL='$TALLY_TEST_DATABASE_URL'" ;;
    stop)
        if [ -f "$dir/cluster.env" ]; then
            tally_pg_load "$dir" && tally_pg_stop
            leave "stopped the local PostgreSQL in $dir"
        else
            leave "no local PostgreSQL in $dir"
        fi
        ;;
    destroy)
        if [ -f "$dir/cluster.env" ]; then tally_pg_load "$dir" && tally_pg_stop; fi
        rm -rf "$dir"
        leave "deleted the local PostgreSQL in $dir"
        ;;
    *) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 64 ;;
esac
