#!/usr/bin/env bash
# Builds the DocC documentation of Tracking, TallyPipeline, TallyPipelineTesting, TallyPostgres and TallyDelivery into
# .build/docs/<Target>.doccarchive (open them with `docc preview`, or host them as static sites),
# failing on any DocC warning (a broken symbol link, an unknown article). scripts/test.sh runs it.
#
#   scripts/docs.sh                        extracts the symbol graphs itself (a build of its own)
#   scripts/docs.sh --symbol-graphs DIR    uses those a build already emitted (-emit-symbol-graph)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
tally_find_swift
docc=$(dirname "$(command -v swift)")/docc
[ -x "$docc" ] || docc=$(command -v docc)
if [ "${1:-}" = --symbol-graphs ]; then
    graphs="${2:?usage: scripts/docs.sh [--symbol-graphs DIR]}"
else
    swift package dump-symbol-graph >/dev/null
    graphs=$(ls -d .build/*/symbolgraph | head -1)
fi
for target in Tracking TallyPipeline TallyPipelineTesting TallyPostgres TallyDelivery; do
    work=.build/docs/symbolgraph-$target
    rm -rf "$work" && mkdir -p "$work"
    cp "$graphs/$target".symbols.json "$work"/
    cp "$graphs/$target"@*.symbols.json "$work"/ 2>/dev/null || true
    "$docc" convert "$(echo Sources/*/"$target/$target.docc")" --additional-symbol-graph-dir "$work" \
        --fallback-display-name "$target" --fallback-bundle-identifier "org.tally.$target" \
        --output-path ".build/docs/$target.doccarchive" --warnings-as-errors >/dev/null
    echo "documentation: .build/docs/$target.doccarchive"
done
