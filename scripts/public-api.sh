#!/usr/bin/env bash
# How large each module's public API is, so that a change to it is a number in a review.
#
#   scripts/public-api.sh                    public declarations per module: lines of Sources/<Group>/<Module>
#                                            that begin with `public` or `open` (`public import` aside);
#                                            the size a review compares. Products marked *.
#   scripts/public-api.sh --list MODULE…     those declarations, as file:line
#   scripts/public-api.sh --symbols [DIR]    public symbols per module, from the compiler's symbol
#                                            graphs: also counts enum cases, `@inlinable public` and
#                                            members of public extensions, not synthesized ones.
#                                            DIR holds graphs a build emitted (-emit-symbol-graph-dir);
#                                            without it, `swift package dump-symbol-graph` makes them.
#   scripts/public-api.sh --symbols DIR MODULE…  those symbols, by kind and path
set -euo pipefail
cd "$(dirname "$0")/.."

declarations() {
    grep -rnE '^\s*(public|open) ' Sources/*/"$1" --include='*.swift' | grep -v 'public import' || true
}

products() {
    sed -nE 's/^\s*\.(library|executable)\(name: "([^"]+)".*/\2/p' Package.swift
}

modules() {
    for directory in Sources/*/*/; do
        module=$(basename "$directory")
        # Swift modules only: the C system libraries (CLibPQ, CMalloc) have no Swift sources.
        if find "$directory" -name '*.swift' -print -quit | grep -q .; then
            echo "$module"
        fi
    done
}

case "${1:-}" in
    "")
        printf '%-24s %s\n' module declarations
        total=0
        for module in $(modules); do
            count=$(declarations "$module" | wc -l)
            total=$((total + count))
            marker=" "
            products | grep -qx "$module" && marker="*"
            printf '%-24s %6d\n' "$module$marker" "$count"
        done
        printf '%-24s %6d\n' total "$total"
        echo "(* a product of the package)"
        ;;
    --list)
        shift
        [ $# -gt 0 ] || { echo "usage: scripts/public-api.sh --list MODULE..." >&2; exit 64; }
        for module in "$@"; do declarations "$module"; done
        ;;
    --symbols)
        shift
        if [ $# -gt 0 ] && [ -d "$1" ]; then
            graphs="$1"
            shift
        else
            source scripts/lib/common.sh
            tally_find_swift
            # It fails for the test-discovery modules when tests were not built; the graphs of
            # the Sources modules are written all the same.
            swift package dump-symbol-graph >/dev/null 2>&1 || true
            graphs=$(ls -d .build/*/symbolgraph 2>/dev/null | head -1)
            [ -n "$graphs" ] || { echo "error: swift package dump-symbol-graph wrote no graphs" >&2; exit 1; }
        fi
        python3 - "$graphs" "$(modules | tr '\n' ' ')" "$@" <<'PYTHON'
import glob, json, os, sys

graphs, modules, wanted = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
symbols = {module: [] for module in modules}
for path in sorted(glob.glob(os.path.join(graphs, "*.symbols.json"))):
    # Module.symbols.json, and Module@Other.symbols.json for Module's extensions of Other's types.
    module = os.path.basename(path).split(".symbols.json")[0].split("@")[0]
    if module not in symbols:
        continue
    for symbol in json.load(open(path))["symbols"]:
        if symbol["accessLevel"] not in ("public", "open"):
            continue
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        symbols[module].append((symbol["kind"]["displayName"], ".".join(symbol["pathComponents"])))
if wanted:
    for module in wanted:
        for kind, name in sorted(symbols.get(module, []), key=lambda item: item[1]):
            print(f"{module}\t{kind}\t{name}")
else:
    print(f"{'module':<24} symbols")
    for module in modules:
        print(f"{module:<24} {len(symbols[module]):6d}")
    print(f"{'total':<24} {sum(len(found) for found in symbols.values()):6d}")
PYTHON
        ;;
    -h | --help)
        awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
        ;;
    *)
        awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
        exit 64
        ;;
esac
