#!/bin/sh
# bench-record.sh: what recording costs, measured in one run against
# `valgrind --tool=none` (the floor: Valgrind itself).
#
#  - memory-heavy: tests/bench/memheavy.c, 4 threads, one read and one
#    write a step; beside it Helgrind (a tool people already use on such
#    programs).  Targets (issue 2): record at most 2x none and below
#    Helgrind; at most 8 trace bytes per event.
#  - lock-heavy: tests/bench/lockheavy.c, 8 threads take one mutex,
#    200,000 acquisitions in all; switch-heavy: tests/bench/switchheavy.c,
#    4 threads hand a token round through a condition variable and
#    semaphores, 40,000 hand-offs.  Here the cost is per synchronisation
#    call and per thread switch, not per memory access.  Target (issue 13):
#    as close to 1.5x none as can be.  Valgrind's start-up is most of
#    these runs (about 0.3 s for none), so the lines also give the cost
#    per call or hand-off over none.  Each is run CB_BENCH_REPEAT times
#    (default 3), none and record in turn, and the medians are printed.
#
# Usage: scripts/bench-record.sh [--mem | --sync] [STEPS_PER_THREAD]
#   (default both parts; memheavy's steps default to 10,000,000).
# Needs `make` (bin/cbtrace, lib/cbtools) and build/bench/* (`make bench`
# builds both).  Prints `name value unit` lines and a summary line, e.g.
#   record: 2.1 s, none: 1.3 s, ratio 1.6x, helgrind: 9.0 s, bytes/event 5.2
#   record_lockheavy_vs_none 2.10 ratio
# A measurement, never a test: the machine is shared and noisy.

cd "$(dirname "$0")/.." || exit 2
parts="mem sync"
case $1 in
   --mem) parts=mem; shift ;;
   --sync) parts=sync; shift ;;
esac
steps=${1:-10000000}
repeat=${CB_BENCH_REPEAT:-3}
case $repeat in ''|*[!0-9]*|0) echo "bench-record: CB_BENCH_REPEAT must be a positive number" >&2; exit 2 ;; esac
[ -x /usr/bin/time ] || { echo "bench-record: needs /usr/bin/time (GNU time)" >&2; exit 2; }
for prog in build/bench/memheavy build/bench/lockheavy build/bench/switchheavy; do
   if [ ! -x bin/cbtrace ] || [ ! -x "$prog" ]; then
      echo "bench-record: bin/cbtrace or $prog is missing: run make bench" >&2
      exit 2
   fi
done
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

# The total event count of a trace: the first line of stats that names
# events and carries a number ("events: 80000123", ...).
events_of() {
   bin/cbtrace stats "$1" >"$work/stats" 2>&1
   awk 'tolower($0) ~ /^[ \t]*(total )?events[ \t:=]/ {
           for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }' "$work/stats"
}

# median: of the numbers on stdin, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

mem_part() {
   prog=build/bench/memheavy
   echo "program: $prog $steps (4 threads, one read and one write a step)"
   native=$(run native "$prog" "$steps") || return 1
   none=$(run none valgrind --tool=none -q "$prog" "$steps") || return 1
   record=$(run record bin/cbtrace record -o "$work/trace.pb" -- "$prog" "$steps") || return 1
   helgrind=$(run helgrind valgrind --tool=helgrind -q "$prog" "$steps") || return 1

   bytes=$(stat -c %s "$work/trace.pb")
   events=$(events_of "$work/trace.pb")
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
}

# cpu_run NAME CMD...: runs one command under /usr/bin/time; prints its
# wall and CPU (user + system, every process) seconds.
cpu_run() {
   name=$1; shift
   if ! /usr/bin/time -f "%e %U %S" -o "$work/$name.time" "$@" \
         >"$work/$name.out" 2>"$work/$name.err"; then
      echo "bench-record: $name failed: $*" >&2
      sed 's/^/  /' "$work/$name.err" | tail -5 >&2
      return 1
   fi
   awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$work/$name.time"
}

# sync_one NAME OPS UNIT: the lock- or switch-heavy program NAME, OPS
# operations (acquisitions, hand-offs) in all, CB_BENCH_REPEAT rounds of
# none then record; the medians of wall time and of CPU time (which the
# load other programs put on the machine disturbs less).
sync_one() {
   name=$1 ops=$2 unit=$3 prog=build/bench/$1
   : >"$work/$name.rounds"
   i=0
   while [ $i -lt "$repeat" ]; do
      i=$((i + 1))
      none=$(cpu_run "$name-none" valgrind --tool=none -q "$prog" "$ops") || return 1
      record=$(cpu_run "$name-record" bin/cbtrace record -o "$work/$name.pb" -- "$prog" "$ops") || return 1
      echo "$none $record" >>"$work/$name.rounds"
   done
   events=$(events_of "$work/$name.pb")
   echo "program: $prog $ops ($repeat rounds, medians; ${events:-?} events recorded)"
   # Rounds: none wall, none CPU, record wall, record CPU.
   m() { awk "{ print $1 }" "$work/$name.rounds" | median; }
   awk -v n="$name" -v u="$unit" -v a="$(m '$1')" -v b="$(m '$3')" \
       -v r="$(m '($1 > 0 ? $3 / $1 : 0)')" -v x="$(m "(\$3 - \$1) * 1e6 / $ops")" \
       -v ac="$(m '$2')" -v bc="$(m '$4')" -v rc="$(m '($2 > 0 ? $4 / $2 : 0)')" 'BEGIN {
      printf "record_%s_none_seconds %.2f s\n", n, a
      printf "record_%s_seconds %.2f s\n", n, b
      printf "record_%s_vs_none %.2f ratio\n", n, r
      printf "record_%s_us_per_%s_over_none %.2f us\n", n, u, x
      printf "record_%s_none_cpu_seconds %.2f s\n", n, ac
      printf "record_%s_cpu_seconds %.2f s\n", n, bc
      printf "record_%s_cpu_vs_none %.2f ratio\n", n, rc
   }'
}

status=0
for part in $parts; do
   case $part in
      mem) mem_part || status=1 ;;
      sync) sync_one lockheavy 200000 acquisition || status=1
            sync_one switchheavy 40000 handoff || status=1 ;;
   esac
done
exit $status
