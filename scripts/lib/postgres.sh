# A throwaway PostgreSQL cluster: initdb in a temporary directory, its own socket directory and
# port, never the machine's own cluster on 5432. Shared by scripts/test.sh and deploy/local.
# shellcheck shell=bash

tally_pg_bindir() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    if [ -z "$dir" ] && command -v pg_ctl >/dev/null 2>&1; then dir=$(dirname "$(command -v pg_ctl)"); fi
    [ -n "$dir" ] || { echo "error: PostgreSQL server binaries not found (apt-get install -y postgresql)" >&2; return 1; }
    echo "$dir"
}

# A free TCP port on loopback, away from 5432.
tally_pg_free_port() {
    python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

# tally_pg_start DIR: creates and starts a cluster under DIR; exports TALLY_PG_* and
# TALLY_TEST_DATABASE_URL (superuser `tally_admin`, password auth over TCP).
tally_pg_start() {
    local root="$1" bindir port user=""
    bindir=$(tally_pg_bindir) || return 1
    port=$(tally_pg_free_port)
    mkdir -p "$root"
    # initdb refuses to run as root: run the server as the postgres system user then.
    if [ "$(id -u)" -eq 0 ]; then
        user=postgres
        id postgres >/dev/null 2>&1 || useradd --system --home-dir "$root" postgres
        chown -R postgres "$root"
    fi
    local password
    password="tally-test-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
    echo "$password" >"$root/pwfile"
    [ -n "$user" ] && chown postgres "$root/pwfile"
    tally_pg_run "$user" "$bindir/initdb" -D "$root/data" -U tally_admin --pwfile="$root/pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$root/initdb.log" 2>&1 ||
        { cat "$root/initdb.log" >&2; return 1; }
    mkdir -p "$root/socket"
    [ -n "$user" ] && chown postgres "$root/socket"
    export TALLY_PG_ROOT="$root" TALLY_PG_PORT="$port" TALLY_PG_BINDIR="$bindir" TALLY_PG_USER="$user"
    export TALLY_PG_SOCKET="$root/socket"
    tally_pg_launch || return 1
    export TALLY_TEST_DATABASE_URL="postgresql://tally_admin:$password@127.0.0.1:$port/postgres"
    # What scripts/pg-cluster.sh needs to find this cluster again.
    printf 'TALLY_PG_ROOT=%s\nTALLY_PG_PORT=%s\nTALLY_PG_BINDIR=%s\nTALLY_PG_USER=%s\nTALLY_PG_SOCKET=%s\nTALLY_TEST_DATABASE_URL=%s\n' \
        "$root" "$port" "$bindir" "$user" "$root/socket" "$TALLY_TEST_DATABASE_URL" >"$root/cluster.env"
    chmod 600 "$root/cluster.env"
}

# tally_pg_load DIR: exports the TALLY_PG_* variables of the cluster under DIR.
tally_pg_load() {
    [ -f "$1/cluster.env" ] || { echo "error: no cluster under $1 (start one first)" >&2; return 1; }
    set -a
    # shellcheck disable=SC1091
    source "$1/cluster.env"
    set +a
}

# tally_pg_restart MODE: restarts the current cluster (fast or immediate), same port and socket.
tally_pg_restart() {
    tally_pg_run "${TALLY_PG_USER:-}" "$TALLY_PG_BINDIR/pg_ctl" -D "$TALLY_PG_ROOT/data" -l "$TALLY_PG_ROOT/server.log" \
        -m "${1:-fast}" -w -t 60 restart >/dev/null
}

# tally_pg_launch: starts the current cluster (TALLY_PG_*) on its own port and socket. Durability
# settings are off: these clusters are throwaway (tests, local development).
tally_pg_launch() {
    tally_pg_run "$TALLY_PG_USER" "$TALLY_PG_BINDIR/pg_ctl" -D "$TALLY_PG_ROOT/data" -l "$TALLY_PG_ROOT/server.log" -w -t 60 \
        -o "-p $TALLY_PG_PORT -k $TALLY_PG_SOCKET -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >/dev/null || { cat "$TALLY_PG_ROOT/server.log" >&2; return 1; }
}

tally_pg_stop() {
    [ -n "${TALLY_PG_ROOT:-}" ] || return 0
    tally_pg_run "${TALLY_PG_USER:-}" "$TALLY_PG_BINDIR/pg_ctl" -D "$TALLY_PG_ROOT/data" -m fast -w stop >/dev/null 2>&1 || true
}

tally_pg_run() {
    local user="$1"
    shift
    if [ -n "$user" ]; then runuser -u "$user" -- "$@"; else "$@"; fi
}
