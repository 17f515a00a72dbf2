#!/usr/bin/env bash
# The Examples feature tracked in-app: EpisodeList events through the pipeline (validated against
# Examples/registry) into the file store and stdout. SIGTERM/SIGINT stop it gracefully.
#   scripts/episode-demo.sh [--visits N | --until-signal] [--format human|ndjson]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
tally_find_swift
swift build --product episode-demo >&2
exec .build/debug/episode-demo --registry Examples/registry "$@"
