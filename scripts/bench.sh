#!/usr/bin/env bash
# The performance figures, each next to its baseline in the same run (release build). The front door
# to every benchmark; each part lives in scripts/bench/NAME.sh and prints its figures and ratios.
#   scripts/bench.sh                 the in-process benchmarks (tally-bench, 15 rounds), then the
#                                    postgres and collector parts with their defaults
#   scripts/bench.sh --quick         a smoke run of the same
#   scripts/bench.sh --only memory --rss-lines 10000000   one in-process figure (tally-bench options)
#   scripts/bench.sh --part NAME [ARGS]   one part, on throwaway servers of its own:
#     postgres  [EVENTS] [SUMMARY_EVENTS]   ingest vs psql \copy and psycopg, rollup upkeep, summary
#     collector [--quick | EVENTS [ROUNDS [SECONDS]]]   tally serve under wrk vs ingest and FastAPI
#     status    [EVENTS]                  tally status vs a bare count
#     baseline  [REV [ROUNDS]]            this tree's in-process figures vs an earlier revision's
#     reports   [--quick | EVENTS ACTORS [ROUNDS]]   funnels, retention, trends and the dashboard vs
#                                         hand-written SQL on 10M events (~40 min; not in the full run)
#   scripts/bench.sh --list          the parts
set -euo pipefail
cd "$(dirname "$0")/.."
parts() { for part in scripts/bench/*.sh; do basename "$part" .sh; done; }
case "${1:-}" in
    --list) parts; exit 0 ;;
    --part)
        part="${2:-}"
        if [ -z "$part" ] || [ ! -f "scripts/bench/$part.sh" ]; then
            echo "usage: scripts/bench.sh --part NAME [ARGS]; NAME is one of: $(parts | tr '\n' ' ')" >&2
            exit 64
        fi
        shift 2
        exec bash "scripts/bench/$part.sh" "$@"
        ;;
esac
source scripts/lib/common.sh
tally_find_swift
swift build -c release --product tally-bench >&2
swift build -c release --product tally >&2  # the memory benchmark runs the real CLI
.build/release/tally-bench "$@"
case " $* " in
    *" --only "*) ;;
    *" --quick "*)
        echo; TALLY_BENCH_ROUNDS=3 TALLY_BENCH_PAIRS=5 bash scripts/bench/postgres.sh 50000 200000
        echo; bash scripts/bench/collector.sh --quick ;;
    *) echo; bash scripts/bench/postgres.sh; echo; bash scripts/bench/collector.sh ;;
esac
