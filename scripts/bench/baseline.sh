#!/usr/bin/env bash
# Figures of this tree next to the same figures of an earlier revision, in one run: both
# tally-bench binaries (release) take turns, round by round, and each figure is printed as the
# median over the rounds of both, with the ratio (this tree / the baseline). A change may not make
# an existing figure worse without saying so: this is how it is checked.
#
#   scripts/bench.sh --part baseline                  against 3534c4c (before nested properties)
#   scripts/bench.sh --part baseline REV [ROUNDS]     against any revision; ROUNDS alternations (default 5)
#
# The baseline is built once in .build-baseline/REV (a git worktree; ignored by git).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/common.sh
tally_find_swift
base="${1:-3534c4c}"
rounds="${2:-5}"
base_dir=".build-baseline/$(git rev-parse --short "$base")"
if [ ! -d "$base_dir" ]; then
    git worktree add --detach "$base_dir" "$base" >&2
fi
current=.build/release/tally-bench
baseline="$base_dir/.build/release/tally-bench"
tally_log "building tally-bench at $base (once: the revision does not change) and at this tree (release)"
[ -x "$baseline" ] || (cd "$base_dir" && swift build -c release --product tally-bench >&2)
swift build -c release --product tally-bench >&2

# One figure from a tally-bench run: the number after LABEL on the first line that has it.
figure() { grep -m1 -E "^  $2 " "$1" | sed -E "s/^  $2 +([0-9.]+) *(ns|µs|MB\/s).*/\1 \2/"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for round in $(seq 1 "$rounds"); do
    for side in current baseline; do
        binary=$([ "$side" = current ] && echo "$current" || echo "$baseline")
        for only in track validation ingest; do
            "$binary" --quick --only "$only" >"$work/$side-$only-$round.txt" 2>&1
        done
    done
    printf '.' >&2
done
echo >&2

# Median of the numbers on stdin (converted to ns or MB/s by unit).
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
to_base() { awk '{ if ($2 == "µs") print $1 * 1000; else print $1 }'; }

printf '%-44s %12s %12s %8s\n' "figure ($rounds alternating runs, medians)" "this tree" "$base" "ratio"
row() {
    local name="$1" only="$2" label="$3" unit="$4" mine theirs
    mine=$(for r in $(seq 1 "$rounds"); do figure "$work/current-$only-$r.txt" "$label" | to_base; done | median)
    theirs=$(for r in $(seq 1 "$rounds"); do figure "$work/baseline-$only-$r.txt" "$label" | to_base; done | median)
    printf '%-44s %9.1f %s %9.1f %s %8.3f\n' "$name" "$mine" "$unit" "$theirs" "$unit" \
        "$(awk -v a="$mine" -v b="$theirs" 'BEGIN { print a / b }')"
}
row "track() median" track "median" ns
row "decode a 381-byte NDJSON line" validation "parse" ns
row "validate a typical event" validation "validate" ns
row "ingest on one core (higher is better)" ingest "tally" "MB/s"
echo "(ratios: time figures ≤ 1.05 and MB/s ≥ 0.95 keep today's speed within 5 %)"
