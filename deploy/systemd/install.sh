#!/usr/bin/env bash
# Installs tally's scheduled ingest on a systemd host (as root): the tally system user, the spool
# and data directories, the environment file (mode 0600, owned by tally), the spool script and
# the units (the collector's tally-serve.service is installed, not enabled). Idempotent; an
# existing /etc/tally/tally.env is kept.
#
#   deploy/systemd/install.sh [--tally /path/to/tally]     (default: .build/release/tally)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tally="$here/../../.build/release/tally"
[ "${1:-}" = "--tally" ] && tally="$2"
[ "$(id -u)" -eq 0 ] || { echo "error: run as root" >&2; exit 77; }
[ -x "$tally" ] || { echo "error: $tally not found: swift build -c release --product tally first" >&2; exit 69; }
id tally >/dev/null 2>&1 || useradd --system --home-dir /var/lib/tally --shell /usr/sbin/nologin tally
install -d -o tally -g tally -m 0750 /var/lib/tally /var/spool/tally
install -d -o tally -g tally -m 0770 /var/spool/tally/incoming
install -d -m 0755 /etc/tally /usr/local/lib/tally
install -m 0755 "$tally" /usr/local/bin/tally
install -m 0755 "$here/tally-spool-ingest" /usr/local/lib/tally/tally-spool-ingest
[ -e /etc/tally/tally.env ] || install -o tally -g tally -m 0600 "$here/tally.env.example" /etc/tally/tally.env
chown tally:tally /etc/tally/tally.env && chmod 0600 /etc/tally/tally.env
install -m 0644 "$here"/tally-ingest.{service,path,timer} "$here"/tally-serve.service "$here"/tally-dashboard.service \
    /etc/systemd/system/
[ -e /etc/tally/dashboard.env ] || install -o tally -g tally -m 0600 "$here/dashboard.env.example" /etc/tally/dashboard.env
# The collector's keys: hashes only, written by `tally keys add|rotate|revoke` as root (which keep
# this owner and mode), read by the service.
[ -e /etc/tally/keys.json ] || { echo '{"keys":[]}' >/etc/tally/keys.json; }
chown root:tally /etc/tally/keys.json && chmod 0640 /etc/tally/keys.json
if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    systemctl enable --now tally-ingest.path tally-ingest.timer
    echo "enabled tally-ingest.path and tally-ingest.timer; edit /etc/tally/tally.env (DATABASE_URL)"
    echo "the collector: tally keys add --keys /etc/tally/keys.json --source NAME, then systemctl enable --now tally-serve"
    echo "  (after tally keys add|rotate|revoke: systemctl reload tally-serve)"
    echo "the dashboard: tally keys add --keys /etc/tally/keys.json --source NAME --reader, edit /etc/tally/dashboard.env"
    echo "  (a tally_reader login), then systemctl enable --now tally-dashboard"
else
    echo "installed; systemd is not running here: enable tally-ingest.path and tally-ingest.timer on the host"
fi
