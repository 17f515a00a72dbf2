#!/usr/bin/env bash
# Builds tally in release mode and installs it on your PATH: the speed the README's figures were
# measured at (a debug build, what a bare `swift run tally` gives, ingests several times slower).
#
#   scripts/install.sh                    → ~/.local/bin/tally
#   scripts/install.sh --prefix /usr/local    → /usr/local/bin/tally (run it with sudo if needed)
#   scripts/install.sh --dry-run          prints what it would do
#
# Without installing, `swift run -c release tally …` runs the same release build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
prefix="$HOME/.local"
dry_run=""
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
        --dry-run) dry_run=1; shift ;;
        -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "error: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
target="$prefix/bin/tally"
if [ -n "$dry_run" ]; then
    echo "swift build -c release --product tally"
    echo "install -m 755 .build/release/tally $target"
    exit 0
fi
tally_find_swift
tally_install_system_packages
tally_log "building tally (release)"
swift build -c release --product tally
mkdir -p "$prefix/bin"
install -m 755 .build/release/tally "$target"
tally_log "installed $target ($("$target" --version))"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on your PATH: export PATH=\"$prefix/bin:\$PATH\"" >&2 ;;
esac
