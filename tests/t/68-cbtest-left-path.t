#!/bin/sh
# After a first confirmed failure in a run that left its schedule's path
# ("whether this violation led to it is not known"), cbtest forces a few
# more schedules so that one whose violation is seen to happen comes
# first (cbtest_pipeline.c, runs_to_keep).  Blind trial 17's seat booking
# (tests/data/seats.c, -O2 and -O0: a seat checked with atomic_load and
# taken with atomic_store) stopped at such an RWR all the same: its run
# misread main's count of seats taken, a variable no schedule touches, so
# the crash rule ("force the schedules on what was misread") took the
# turn and found none.  Now the left-path rule still applies: the order
# violation on the seat, seen to happen, is the first bug.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$TOP/bin/cbtest" ]; then
   echo "Bail out! the tool or cbtest is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/pipeline.sh"

cb_build_data seats.c seats
cb_build_data seats.c seats_O0 -O0
for v in seats seats_O0; do
   cb_cbtest $v --timeout 10 --max-runs 25
   OUT=$(cat "$TMP/$v.d/stdout")
   is "$RC" 1 "$v: a bug is confirmed (exit 1)"
   top=$(printf '%s\n' "$OUT" | grep -m1 '^   BUG ')
   like "$top" "^   BUG [A-Z]+ on seats\\[[0-9]+\\]\\.taken: the forced run failed$" \
      "$v: the first bug is on a seat, its violation seen to happen ($top)"
   [ "$RC" = 1 ] || printf '%s\n' "$OUT" | sed 's/^/#   /' | head -20 >&2
done

done_testing
