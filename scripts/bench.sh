#!/usr/bin/env bash
# The performance figures, each next to its baseline in the same run (release build).
#   scripts/bench.sh           full run (15 rounds)
#   scripts/bench.sh --quick   a smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
tally_find_swift
swift build -c release --product tally-bench >&2
.build/release/tally-bench "$@"
