#!/bin/sh
# A test that fails in each recorded run is predicted from the last of
# them (cbtest_pipeline.c, predict_failed_run), and the violations that
# happened in that run rank first (predict/rank_failed.c): the bug is named
# where "failed natively: not predicted" named nothing.  tests/data/
# napcount.c is the textbook `tmp = counter; usleep(50); counter = tmp + 1`,
# which loses updates in every run under Valgrind; beside it a log count
# under its mutex, whose WWR across two critical sections also happened in
# the failing run and is not the bug.  Its forced runs exit 1 as the
# recorded runs did: cbpredict --recorded-failed makes that a failure (by
# default the recorded run's own exit code passes).  Only the violations
# that happened in the failing run are forced: the twin built to expect
# one update too many fails in every run for a reason of its own, and no
# race is named for it (exit 3, where its first-ranked order violation on
# the log count was a bug before); none of its cures (the orders of its
# last failing run forced the other way round) cures it.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$TOP/bin/cbtest" ]; then
   echo "Bail out! the tool or cbtest is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/pipeline.sh"

cb_build_data napcount.c napcount
cb_build_data napcount.c napcount_O0 -O0
cb_build_data napcount.c napcount_fixed -DFIXED
for v in napcount napcount_O0; do
   cb_cbtest $v --timeout 10 --max-runs 10
   OUT=$(cat "$TMP/$v.d/stdout")
   is "$RC" 1 "$v: a bug is confirmed (exit 1)"
   top=$(printf '%s\n' "$OUT" | grep -m1 '^   BUG ')
   like "$OUT" "said: +napcount: lost updates" "$v: in the program's words"
   # A recording that passed (rare) is predicted as any other.
   if grep -q "each of 5 recorded runs failed" "$TMP/$v.d/stdout"; then
      like "$top" "^   BUG RWW on counter: the forced run failed" "$v: the first bug is the lost update ($top)"
      like "$OUT" "it fails on its own too \\(exit 1: napcount: lost updates[^)]*each of 5 recorded runs failed" \
         "$v: it says the test fails on its own"
      like "$(cat "$TMP/$v.d/rep/report.json")" '"failed_in_each_recording": *true' \
         "$v: report.json says it failed in each recording"
      like "$(cat "$TMP/$v.d/rep/tests/001-$v/predict.out")" \
         "the recorded run failed \\(exit 1\\); [0-9]+ of the violations happened in it" \
         "$v: cbpredict ranked what happened in the failing run first"
   else
      diag "$v: a recording passed"
      like "$top" "^   BUG [A-Z]+ on counter: the forced run failed" "$v: the first bug is on the counter ($top)"
      for c in "says it fails on its own" "report.json says so" "cbpredict ranked the failing run's shapes"; do
         skip "$v: $c: a recording passed, so it was not predicted from a failing one"
      done
   fi
   [ "$RC" = 1 ] || printf '%s\n' "$OUT" | sed 's/^/#   /' | head -20 >&2
done
# The reproduce command fails every time: exit 1 is the failure.
cmd=$(sed -n 's/^ *reproduce: //p' "$TMP/napcount.d/stdout" | head -1)
fails=0
for i in 1 2 3; do
   sh -c "$cmd" >/dev/null 2>&1
   [ $? = 1 ] && fails=$((fails + 1))
done
is "$fails" 3 "the reproduce command fails 3 times of 3"
cb_cbtest napcount_fixed --timeout 10 --max-runs 10
is "$RC" 0 "napcount_fixed: clean (exit 0)"
cb_build_data napcount.c napcount_miscount -DFIXED -DMISCOUNT
cb_cbtest napcount_miscount --timeout 10 --max-runs 10
OUT=$(cat "$TMP/napcount_miscount.d/stdout")
is "$RC" 3 "napcount_miscount: failed natively (exit 3), no bug"
like "$OUT" "failed natively \\(exit 1: napcount: lost updates: counter is 20, expected 21; each of 8 recorded runs failed\\); (predicted from the last of those runs|none of the orders of the last of those runs, forced the other way round, let it pass)" \
   "napcount_miscount: in the program's words, predicted from the last run (its cures: none cures it)"
like "$OUT" "cures? \\(orders of the failing run the other way round\\): 0 cured" \
   "napcount_miscount: its orders forced the other way round, none cured"
unlike "$OUT" "BUG" "napcount_miscount: no race blamed"

done_testing
