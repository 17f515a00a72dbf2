#!/usr/bin/env bash
# The main job on the embedded default store: ingest the Examples sample (validated against the
# Examples tracking plans) into the file store (./tally-data, or $TALLY_DATA_DIR) and print the
# per-feature summary. Running it again stores nothing twice: the summary stays the same.
#   scripts/demo.sh [tally ingest options]      e.g. --report json
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
tally_find_swift
swift build --product tally >&2
tally=.build/debug/tally
# Exit code 0 with a few rejects: the sample holds some deliberately bad lines.
"$tally" ingest Examples/sample/events.ndjson --registry Examples/registry "$@"
echo
"$tally" summary --by feature
