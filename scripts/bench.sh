#!/usr/bin/env bash
# The performance figures, each next to its baseline in the same run (release build): the
# in-process benchmarks (tally-bench), then the PostgreSQL ones (scripts/bench-postgres.sh, on a
# throwaway cluster), then the HTTP collector (scripts/bench-collector.sh: tally serve under wrk
# against tally ingest and a FastAPI baseline, on a throwaway cluster of its own), then the
# reports (scripts/bench-reports.sh: funnels, retention, trends against hand-written SQL, 10M events).
#   scripts/bench.sh           full run (15 rounds; PostgreSQL: 200k events, 7 rounds and 15 for rollup
#                              upkeep, 1M-event summary)
#   scripts/bench.sh --quick   a smoke run
#   scripts/bench.sh --only memory --rss-lines 10000000   one in-process figure (no PostgreSQL part)
#   scripts/bench-postgres.sh 200000 10000000             the 10M-event summary figure (~3 min more)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
tally_find_swift
swift build -c release --product tally-bench >&2
swift build -c release --product tally >&2  # the memory benchmark runs the real CLI
.build/release/tally-bench "$@"
case " $* " in
    *" --only "*) ;;
    *" --quick "*)
        echo; TALLY_BENCH_ROUNDS=3 TALLY_BENCH_PAIRS=5 scripts/bench-postgres.sh 50000 200000
        echo; scripts/bench-collector.sh --quick
        echo; scripts/bench-reports.sh --quick ;;
    *) echo; scripts/bench-postgres.sh; echo; scripts/bench-collector.sh; echo; scripts/bench-reports.sh ;;
esac
