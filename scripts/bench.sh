#!/usr/bin/env bash
# The performance figures, each next to its baseline in the same run (release build).
#   scripts/bench.sh           full run (15 rounds)
#   scripts/bench.sh --quick   a smoke run
#   scripts/bench.sh --only memory --rss-lines 10000000   the 10M-line memory figure (~3 GB of input)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
tally_find_swift
swift build -c release --product tally-bench >&2
swift build -c release --product tally >&2  # the memory benchmark runs the real CLI
.build/release/tally-bench "$@"
