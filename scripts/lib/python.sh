# The Python side of the collector tests and benchmarks: a virtual environment under
# .build/python with the pinned packages of Tests/collector/requirements.txt (real Segment and
# PostHog clients, pytest, the FastAPI baseline), and the system tools they drive (wrk, nginx).
# shellcheck shell=bash

# tally_python_env: creates or updates .build/python; prints nothing, exports TALLY_PYTHON (its
# interpreter). Fast when the environment already matches the requirements (a stamp holds their hash).
tally_python_env() {
    local root venv requirements stamp hash python
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    venv="$root/.build/python"
    requirements="$root/Tests/collector/requirements.txt"
    stamp="$venv/.requirements.sha256"
    # The system's own interpreter before whatever python3 comes first on PATH: the FastAPI
    # baseline is measured on the Python a server would run. Debian's 3.11 ran the baseline
    # 15-30 % faster than this machine's pyenv build of 3.11 (compiled without
    # --enable-optimizations), which had flattered serve/baseline (docs/collector.md, 2026-11-24).
    python=/usr/bin/python3
    [ -x "$python" ] || python=$(command -v python3 || true)
    if [ -z "$python" ]; then
        tally_apt_install python3 python3-venv
        python=/usr/bin/python3
    fi
    hash=$({ cat "$requirements"; readlink -f "$python"; } | sha256sum | cut -d' ' -f1)
    export TALLY_PYTHON="$venv/bin/python"
    if [ -x "$TALLY_PYTHON" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; then return 0; fi
    tally_log "preparing the Python environment (.build/python from $python, Tests/collector/requirements.txt)"
    # Made afresh whenever the stamp differs (new requirements or another interpreter): a venv keeps
    # the interpreter and compiled packages it was made with.
    rm -rf "$venv"
    mkdir -p "$root/.build"
    # Debian's python3 lacks ensurepip until python3-venv is installed.
    "$python" -m venv "$venv" 2>/dev/null || {
        rm -rf "$venv"
        command -v dpkg-query >/dev/null 2>&1 && tally_apt_install python3-venv
        "$python" -m venv "$venv"
    }
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" >&2
    echo "$hash" >"$stamp"
}

# tally_collector_tools: wrk (the benchmark's load generator) and nginx (the TLS proxy test), from
# Debian's packages when missing.
tally_collector_tools() {
    command -v dpkg-query >/dev/null 2>&1 || return 0
    tally_apt_install wrk nginx-light openssl
}

# tally_browser_tools: headless Chromium and its driver (the dashboard tests), from Debian's packages.
tally_browser_tools() {
    command -v dpkg-query >/dev/null 2>&1 || return 0
    tally_apt_install chromium chromium-driver
}
