#!/bin/sh
# bench-record.sh: what recording costs, on a memory-heavy multithreaded
# program (tests/bench/memheavy.c), measured in one run against
# `valgrind --tool=none` (the floor: Valgrind itself) and Helgrind (a tool
# people already use on such programs).  Targets (issue 2): record at most
# 2x none and below Helgrind; at most 8 trace bytes per event.
#
# Usage: scripts/bench-record.sh [STEPS_PER_THREAD]    (default 10,000,000)
# Needs `make` (bin/cbtrace, lib/cbtools) and build/bench/memheavy
# (`make bench` builds both).  Prints one summary line at the end:
#   record: 2.1 s, none: 1.3 s, ratio 1.6x, helgrind: 9.0 s, bytes/event 5.2
# A measurement, never a test: the machine is shared and noisy.

cd "$(dirname "$0")/.." || exit 2
steps=${1:-10000000}
prog=build/bench/memheavy
if [ ! -x bin/cbtrace ] || [ ! -x "$prog" ]; then
   echo "bench-record: bin/cbtrace or $prog is missing: run make bench" >&2
   exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/cbbench.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
# elapsed START: seconds since START, two decimals.
elapsed() { echo "$(now) $1" | awk '{ printf "%.2f", $1 - $2 }'; }

# run NAME CMD...: times one command, fails loudly if it fails.
run() {
   name=$1; shift
   t0=$(now)
   if ! "$@" >"$work/$name.out" 2>"$work/$name.err"; then
      echo "bench-record: $name failed: $*" >&2
      sed 's/^/  /' "$work/$name.err" | tail -5 >&2
      return 1
   fi
   elapsed "$t0"
}

echo "program: $prog $steps (4 threads, one read and one write a step)"
native=$(run native "$prog" "$steps") || exit 1
none=$(run none valgrind --tool=none -q "$prog" "$steps") || exit 1
record=$(run record bin/cbtrace record -o "$work/trace.pb" -- "$prog" "$steps") || exit 1
helgrind=$(run helgrind valgrind --tool=helgrind -q "$prog" "$steps") || exit 1

bytes=$(stat -c %s "$work/trace.pb")
bin/cbtrace stats "$work/trace.pb" >"$work/stats" 2>&1
# The total event count: the first line of stats that names events and
# carries a number ("events: 80000123", "events 80000123", ...).
events=$(awk 'tolower($0) ~ /^[ \t]*(total )?events[ \t:=]/ {
                 for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }' "$work/stats")
if [ -z "$events" ]; then
   echo "bench-record: could not read the event count from cbtrace stats:" >&2
   sed 's/^/  /' "$work/stats" | head -20 >&2
   events=0
fi

echo "native: $native s"
echo "trace: $bytes bytes, $events events"
awk -v r="$record" -v n="$none" -v h="$helgrind" -v b="$bytes" -v e="$events" 'BEGIN {
   printf "record: %.1f s, none: %.1f s, ratio %.2fx, helgrind: %.1f s, bytes/event %s\n",
      r, n, (n > 0 ? r / n : 0), h, (e > 0 ? sprintf("%.2f", b / e) : "?")
   printf "record/helgrind: %.2fx; events/s recorded: %.0f; recording cost: %.1f ns/event over none\n",
      (h > 0 ? r / h : 0), (r > 0 ? e / r : 0), (e > 0 ? (r - n) * 1e9 / e : 0)
}'
