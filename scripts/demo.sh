#!/usr/bin/env bash
# The main job on the embedded default store: the Examples feature's events through the
# pipeline, validated against Examples/registry, into the file store (./tally-data, or
# $TALLY_DATA_DIR) and stdout.
#   scripts/demo.sh [episode-demo options]     e.g. --visits 100, --until-signal, --help
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
tally_find_swift
swift build --product episode-demo >&2
exec .build/debug/episode-demo --registry Examples/registry "$@"
