#!/bin/sh
# bench-z3.sh [EVENTS]: cost of the Z3 feasibility check (issue 5).
#  1. build/tools/z3-bench runs the check on every candidate cbpredict finds,
#     on the test programs' traces (recorded here) and on a synthetic trace
#     (default 2000 events, 4 threads): kept/dropped/undecided, time per query.
#  2. Once `cbpredict --z3` exists: plain cbpredict against cbpredict --z3 on
#     the same traces, and the ratio.  (Skipped, with a note, until then.)
# Prints one line per trace: NAME: N candidates, K kept, D dropped, U undecided,
# X ms per query; then the ratio lines.
set -eu
cd "$(dirname "$0")/.."
N=${1:-2000}
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/cbz3bench.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT
[ -x build/tools/z3-bench ] || make -s build/tools/z3-bench

traces=""
for p in rww flag condvar wrw rwr_locked barrier; do
    [ -x "build/programs/$p" ] || continue
    bin/cbtrace record -o "$TMPD/$p.pb" -- "build/programs/$p" >/dev/null 2>&1 || true
    [ -s "$TMPD/$p.pb" ] && traces="$traces $p"
done
build/tools/cb-gen-trace -n "$N" -t 4 -v 50 -k 10 -o "$TMPD/generated.pb"
traces="$traces generated"

for name in $traces; do
    out=$(build/tools/z3-bench -T 2000 -w 1000 "$TMPD/$name.pb")
    printf '%s\n' "$out" | awk -v n="$name" '
      /candidates:/ { c=$4; k=$6; d=$9; u=$12 }
      /per query/   { for (i=1;i<=NF;i++) if ($i=="per" && $(i+1)=="query") q=$(i-2) }
      END { printf "z3 %s: %s candidates, %s kept, %s dropped, %s undecided, %s ms per query\n", n, c, k, d, u, q }'
done

if bin/cbpredict --help 2>/dev/null | grep -q -- '--z3'; then
    for name in $traces; do
        s=$(date +%s.%N)
        bin/cbpredict --max 0 -o "$TMPD/s" "$TMPD/$name.pb" >/dev/null
        m=$(date +%s.%N)
        bin/cbpredict --z3 --max 0 -o "$TMPD/s" "$TMPD/$name.pb" >/dev/null
        e=$(date +%s.%N)
        awk -v n="$name" -v s="$s" -v m="$m" -v e="$e" 'BEGIN {
          a = m - s; b = e - m; if (a <= 0) a = 1e-9;
          printf "cbpredict %s: %.3f s plain, %.3f s with --z3, ratio %.1f\n", n, a, b, b / a }'
    done
else
    echo "cbpredict --z3: not wired yet (see /work/notes/z3-integration.md); skipped"
fi
