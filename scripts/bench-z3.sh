#!/bin/sh
# bench-z3.sh [EVENTS]: what `cbpredict --z3` costs against plain cbpredict
# (issue 5), on the same traces:
#   - every program of tests/programs/ (recorded here once), one line each
#     and a line for all of them together;
#   - a generated trace with many candidates (build/tools/cb-gen-trace, 4
#     threads, 50 variables, 10 locks; default 2000 events: about 70
#     candidates, half of them impossible).
# Each line: wall time plain and with --z3, the ratio, the queries asked,
# dropped and undecided, and the solver's milliseconds per query (from
# cbpredict's own summary).  Times are one run each on a shared machine:
# read them as orders of magnitude.
set -eu
cd "$(dirname "$0")/.."
N=${1:-2000}
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/cbz3bench.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT
[ -x bin/cbpredict ] && [ -x build/tools/cb-gen-trace ] ||
   make -s bin/cbpredict build/tools/cb-gen-trace
if ! bin/cbpredict --help | grep -q -- '--z3'; then
   echo "bench-z3: this cbpredict has no --z3"; exit 1
fi

now() { date +%s.%N; }

# measure NAME TRACE: one line; appends "plain z3 queries solver_ms" to
# $TMPD/sum when NAME is a test program.
measure() {
   s=$(now)
   bin/cbpredict -o "$TMPD/s" "$2" >/dev/null
   m=$(now)
   bin/cbpredict --z3 -o "$TMPD/s" "$2" >"$TMPD/z3.out"
   e=$(now)
   line=$(grep '^cbpredict: z3:' "$TMPD/z3.out")
   cands=$(printf '%s\n' "$line" | sed -n 's/.* z3: \([0-9]*\) candidates.*/\1/p')
   asked=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) asked.*/\1/p')
   dropped=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) dropped as impossible.*/\1/p')
   undec=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) undecided.*/\1/p')
   mspq=$(printf '%s\n' "$line" | sed -n 's/.*; \([0-9.]*\) ms per query.*/\1/p')
   awk -v n="$1" -v s="$s" -v m="$m" -v e="$e" -v c="$cands" -v a="$asked" \
       -v d="$dropped" -v u="$undec" -v q="$mspq" 'BEGIN {
      p = m - s; z = e - m; if (p <= 0) p = 1e-9;
      printf "z3 %-12s %5.3f s plain, %6.3f s --z3, ratio %6.1f; %d candidates, %d asked, %d dropped, %d undecided, %.1f ms per query\n",
             n, p, z, z / p, c, a, d, u, q }'
   if [ "$3" = program ]; then
      awk -v s="$s" -v m="$m" -v e="$e" -v a="$asked" -v q="$mspq" \
          'BEGIN { printf "%.6f %.6f %d %.3f\n", m - s, e - m, a, a * q }' >>"$TMPD/sum"
   fi
}

: >"$TMPD/sum"
for src in tests/programs/*.c; do
   p=$(basename "$src" .c)
   [ -x "build/programs/$p" ] || continue
   case $p in crash|deadlock) continue ;; esac  # a crash, a hang: no timing
   bin/cbtrace record -o "$TMPD/$p.pb" -- "build/programs/$p" >/dev/null 2>&1 || true
   [ -s "$TMPD/$p.pb" ] && measure "$p" "$TMPD/$p.pb" program
done
awk '{ p += $1; z += $2; a += $3; ms += $4; n++ } END {
   if (!n) { print "z3 programs: none recorded (make programs)"; exit }
   if (p <= 0) p = 1e-9;
   printf "z3 all %d programs: %.3f s plain, %.3f s --z3, ratio %.1f; %d queries, %.1f ms per query\n",
          n, p, z, z / p, a, a ? ms / a : 0 }' "$TMPD/sum"

build/tools/cb-gen-trace -n "$N" -t 4 -v 50 -k 10 -o "$TMPD/generated.pb"
measure "generated-$N" "$TMPD/generated.pb" generated
