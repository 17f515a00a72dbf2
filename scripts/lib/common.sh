# Shared by scripts/*.sh and deploy/local: toolchain discovery and system packages.
# shellcheck shell=bash

# Each line says how long the script has run (bash's SECONDS), so a slow stage shows in CI logs.
tally_log() { printf '\033[1m==> [%d:%02d] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

# Puts a Swift toolchain on PATH (this machine kind ships one at /opt/swift).
tally_find_swift() {
    if command -v swift >/dev/null 2>&1; then return 0; fi
    for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        if [ -x "$candidate/swift" ]; then
            export PATH="$candidate:$PATH"
            return 0
        fi
    done
    echo "error: no Swift toolchain found; install Swift 6 (https://swift.org/install) and re-run" >&2
    return 1
}

# Installs Debian packages that are missing, with sudo when not root.
tally_apt_install() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    tally_log "installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
        { $sudo apt-get update >/dev/null && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends "${missing[@]}" >/dev/null; }
}

# What tally needs to build and test: libpq for the PostgreSQL store, a server for its tests.
tally_install_system_packages() {
    if command -v dpkg-query >/dev/null 2>&1; then
        tally_apt_install postgresql libpq-dev pkg-config zlib1g-dev
    fi
}
