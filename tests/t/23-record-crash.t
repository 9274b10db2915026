#!/bin/sh
# A program that segfaults mid-run: `cbtrace record` passes the signal on
# (exit 139) and the trace of everything before the crash stays readable.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

check_recorded_program crash

d=$TMP/crash.pb.dump
if [ -s "$d" ]; then
   # Both workers counted three times under the lock before the crash.
   for t in T2 T3; do
      n=$(awk -v t=$t '$2 == t && $3 == "write" && $4 == "counter"' "$d" | wc -l)
      is "$n" 3 "crash: $t wrote counter 3 times before the crash"
   done
   # The trace says how it ended: stats must still work on it.
   s=0
   cbtrace stats "$TMP/crash.pb" >"$TMP/stats" 2>"$TMP/stats.err" || s=$?
   is "$s" 0 "crash: cbtrace stats reads the trace of a crashed run"
   like "$(cat "$TMP/stats")" "^threads: 3" "crash: stats counts 3 threads"
   # The tool outlives its client's segfault and ends the trace properly, so
   # nothing is lost (a SIGKILL of the whole run would cut the last chunk).
   like "$(cat "$TMP/stats")" "^truncated: no" "crash: the trace of a segfaulting run is whole"
fi
done_testing
