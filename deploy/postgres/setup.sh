#!/usr/bin/env bash
# Creates (or brings up to date) a tally database: the owner that runs migrations, a login role
# for ingest (member of tally_writer) and one for reports (member of tally_reader), their grants,
# per-role settings, and the tally schema through `tally migrate`. Idempotent: run it again after
# an upgrade, or to reset passwords.
#
#   deploy/postgres/setup.sh --admin-url postgresql://postgres@db-host/postgres
#
# Options (environment variables in brackets):
#   --admin-url URL     a superuser connection [TALLY_ADMIN_URL]; default: the local server as
#                       the postgres system user, through its Unix socket
#   --database NAME     the database to create [TALLY_DATABASE] (default: tally)
#   --owner NAME        owns the database and the tally schema (default: tally_owner)
#   --writer NAME       the ingest login role (default: tally_ingest)
#   --reader NAME       the reports login role (default: tally_report)
# Passwords come from TALLY_OWNER_PASSWORD, TALLY_WRITER_PASSWORD, TALLY_READER_PASSWORD; a role
# whose variable is unset keeps its password; a new role gets a random one, written to
# ./.tally-passwords (mode 600; or $TALLY_PASSWORDS_FILE) for you to move to your secret store.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
admin_url="${TALLY_ADMIN_URL:-}"
database="${TALLY_DATABASE:-tally}"
owner=tally_owner writer=tally_ingest reader=tally_report
while [ $# -gt 0 ]; do
    case "$1" in
        --admin-url) admin_url="$2"; shift 2 ;;
        --database) database="$2"; shift 2 ;;
        --owner) owner="$2"; shift 2 ;;
        --writer) writer="$2"; shift 2 ;;
        --reader) reader="$2"; shift 2 ;;
        -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "error: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
for name in "$database" "$owner" "$writer" "$reader"; do
    [[ "$name" =~ ^[a-z_][a-z0-9_]{0,62}$ ]] || { echo "error: '$name' is not a plain lower-case identifier" >&2; exit 64; }
done
command -v psql >/dev/null || { echo "error: psql not found (apt-get install -y postgresql-client)" >&2; exit 69; }
tally="${TALLY:-$(command -v tally || true)}"
for candidate in "$here/../../.build/release/tally" "$here/../../.build/debug/tally"; do
    [ -n "$tally" ] || { [ -x "$candidate" ] && tally="$candidate"; }
done
[ -n "$tally" ] || { echo "error: tally not found: install it, set TALLY=/path/to/tally, or swift build -c release" >&2; exit 69; }

# psql as the administrator, on database $1.
admin_psql() {
    local database="$1"
    shift
    if [ -n "$admin_url" ]; then psql "$(url_for "" "" "$database")" "$@"; else runuser -u postgres -- psql -d "$database" "$@"; fi
}
# The admin URL with user NAME and PASSWORD (both empty: the admin's own) on DATABASE.
url_for() {
    python3 - "$admin_url" "$1" "$2" "$3" <<'PY'
import sys, urllib.parse as u
base, user, password, database = sys.argv[1:]
p = u.urlsplit(base or "postgresql:///")
netloc = p.netloc
if user:
    host = p.hostname or ""
    if ":" in host: host = "[" + host + "]"
    netloc = u.quote(user, safe="") + ":" + u.quote(password, safe="") + "@" + host + (f":{p.port}" if p.port else "")
print(u.urlunsplit((p.scheme or "postgresql", netloc, "/" + database, p.query, "")))
PY
}

passwords_file="${TALLY_PASSWORDS_FILE:-$PWD/.tally-passwords}"
declare -A password
for role in owner writer reader; do
    variable="TALLY_$(echo "$role" | tr a-z A-Z)_PASSWORD"
    password[$role]="${!variable:-}"
done
# The owner's password is needed to run the migrations as the owner: keep or make one.
if [ -z "${password[owner]}" ] && [ -f "$passwords_file" ]; then
    password[owner]=$(sed -n "s/^$owner=//p" "$passwords_file")
fi

echo "roles: $owner (owner), $writer (ingest, tally_writer), $reader (reports, tally_reader)"
generated=()
for role in owner writer reader; do
    name="${!role}"
    exists=$(admin_psql postgres -XAtq -c "SELECT 1 FROM pg_roles WHERE rolname = '$name'")
    if [ -z "${password[$role]}" ] && [ -z "$exists" ] || { [ "$role" = owner ] && [ -z "${password[owner]}" ]; }; then
        password[$role]=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')
        generated+=("$name=${password[$role]}")
    fi
    # The password travels in the environment, not on a command line others could read in ps.
    TALLY_SETUP_PASSWORD="${password[$role]}" admin_psql postgres -XAtq -v ON_ERROR_STOP=1 -v name="$name" \
        >/dev/null <<'SQL'
\getenv pw TALLY_SETUP_PASSWORD
SELECT format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE', :'name')
WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'name') \gexec
SELECT format('ALTER ROLE %I PASSWORD %L', :'name', :'pw') WHERE :'pw' <> '' \gexec
SQL
done
if [ ${#generated[@]} -gt 0 ]; then
    (umask 077; touch "$passwords_file"; for line in "${generated[@]}"; do
        sed -i "/^${line%%=*}=/d" "$passwords_file"; echo "$line" >>"$passwords_file"; done)
    echo "new passwords written to $passwords_file (mode 600): move them to your secret store"
fi

echo "database: $database"
admin_psql postgres -XAtq -v ON_ERROR_STOP=1 -v db="$database" -v owner="$owner" -v writer="$writer" \
    -v reader="$reader" -f "$here/roles.sql" >/dev/null
admin_psql "$database" -XAtq -v ON_ERROR_STOP=1 -v db="$database" -v owner="$owner" -v writer="$writer" \
    -v reader="$reader" -f "$here/database.sql" >/dev/null

echo "schema: tally migrate as $owner"
"$tally" migrate --database-url "$(url_for "$owner" "${password[owner]}" "$database")"
admin_psql "$database" -XAtq -v ON_ERROR_STOP=1 -v writer="$writer" -v reader="$reader" >/dev/null <<'SQL'
SELECT format('GRANT tally_writer TO %I', :'writer') \gexec
SELECT format('GRANT tally_reader TO %I', :'reader') \gexec
SQL
echo "done. Connection URLs (passwords in your secret store or $passwords_file):"
echo "  ingest:  $(url_for "$writer" PASSWORD "$database")"
echo "  reports: $(url_for "$reader" PASSWORD "$database")"
