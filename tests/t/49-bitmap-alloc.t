#!/bin/sh
# A bitmap allocator's check-then-act (tests/data/bitalloc.c, trial 12's
# program): alloc() takes the first clear bit of a snapshot of the map
# with a fetch-or whose result it never looks at (`lock or`), so two
# threads can take the same slot.  Valgrind's serial scheduling keeps the
# map at 0 and 1, and on the build before the map was taken for a
# hand-made lock (a locked instruction reads 0 and writes 1, its holder's
# writes 0): 25 forced runs passed.  Now the tool records that the
# fetch-or's old value never reaches the program (rmw-op, cb_wire.h
# enum cb_rmw_class) and such a store takes no lock (trace/spinlocks.c).
# -O2 and -O0 are confirmed, the twin that tests the fetch-or's result is
# clean, and a spin lock built on a tested fetch-or (tests/data/orlock.c,
# `lock bts`) is still the program's own lock.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$TOP/bin/cbtest" ]; then
   echo "Bail out! the tool or cbtest is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/pipeline.sh"

cb_build_data bitalloc.c bitalloc
cb_build_data bitalloc.c bitalloc_O0 -O0
cb_build_data bitalloc.c bitalloc_fixed -DFIXED
cb_build_data orlock.c orlock

# The recording: what each locked instruction on the map is.
cbtrace record -o "$TMP/bitalloc.pb" -- "$TMP/bitalloc" >/dev/null 2>&1
D=$(cbtrace dump "$TMP/bitalloc.pb")
like "$D" " write slot_map size 8 = [0-9]+ rmw-op @ bitalloc.c:[0-9]+ in slot_alloc" \
   "the recording: alloc's fetch-or is an op whose old value is thrown away"
like "$D" " write slot_map size 8 = [0-9]+ rmw-op @ bitalloc.c:[0-9]+ in slot_free" \
   "free's fetch-and too"
like "$(cbtrace stats "$TMP/bitalloc.pb")" "lock words: 0" "the map is no lock word"

cbtrace record -o "$TMP/orlock.pb" -- "$TMP/orlock" >/dev/null 2>&1
like "$(cbtrace dump "$TMP/orlock.pb")" " write lk size 4 = 1 rmw-fetch-op @ orlock.c:[0-9]+ in take" \
   "orlock: the tested fetch-or (lock bts) returns its old value"
like "$(cbtrace stats "$TMP/orlock.pb")" "lock words: 1" "orlock: its word is still a lock"

cb_bug_and_twin bitalloc "bitalloc: slot [0-9]+ was handed to thread [0-9] and thread [0-9] at once"

done_testing
