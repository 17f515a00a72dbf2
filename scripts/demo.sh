#!/usr/bin/env bash
# The main job on the embedded default store: ingest the Examples sample (validated against the
# Examples tracking plans) into the file store (./tally-data, or $TALLY_DATA_DIR) and print the
# per-feature summary. Running it again stores nothing twice: the summary stays the same.
# A release build, as scripts/install.sh makes: the rates in the report are what users get.
#   scripts/demo.sh [tally ingest options]      e.g. --report json
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
tally_find_swift
swift build -c release --product tally >&2
tally=.build/release/tally
# Exit code 0 with a few rejects: the sample holds some deliberately bad lines.
"$tally" ingest Examples/sample/events.ndjson --registry Examples/registry "$@"
echo
# The same store as the ingest: its --data-dir if one was passed, else the file store even when a
# DATABASE_URL from deploy/local/postgres.sh is still set.
store=(--store file)
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
        --data-dir) store=(--data-dir "${args[i + 1]:-}") ;;
        --data-dir=*) store=(--data-dir "${args[i]#--data-dir=}") ;;
    esac
done
"$tally" summary --by feature "${store[@]}"
