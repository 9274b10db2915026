#!/bin/sh
# A critical section seen half done by a lock-free fast path
# (tests/data/oneshot.c, -O2): complete() stores `ready` and then
# `result` under the lock; a waiter's fast path reads `ready` without it
# and takes `result` at once.  The waiters look before main has its
# result, so in the recorded run they read ready = 0, take the lock, read
# it again and wait.  Two things the build before lacked:
#  - an order violation between the fast path's read and complete()'s
#    store: a thread's latest read of `ready` (the locked check) took the
#    slot of its unlocked one, and only whole critical sections were
#    swapped (predict/orders.c);
#  - the tail that stops complete() between its two stores, its lock
#    held, while the waiter runs its fast path (F_HELD for a write,
#    predict/held_check.c).
# On the build before, 25 forced runs passed.  The twin stores the result
# first: clean.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$TOP/bin/cbtest" ]; then
   echo "Bail out! the tool or cbtest is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/json.sh"
. "$TOP/tests/lib/pipeline.sh"

cb_build_data oneshot.c oneshot
cb_build_data oneshot.c oneshot_fixed -DFIXED
for v in oneshot oneshot_fixed; do
   cb_cbtest $v --timeout 10 --max-runs 25
   eval "rc_$v=\$RC"
done
OUT=$(cat "$TMP/oneshot.d/stdout")
J=$TMP/oneshot.d/rep/report.json
like "$(cbtrace dump "$TMP/oneshot.d/rep/tests/001-oneshot/trace.pb")" " read job.ready size 4 = 0 @ oneshot.c:[0-9]+ in (await|waiter)" \
   "the recorded run: a waiter's fast path read ready = 0"
is "$rc_oneshot" 1 "oneshot: a bug is confirmed (exit 1)"
like "$OUT" "^   BUG ORD on job.ready: the forced run failed" "oneshot: the order violation on ready"
like "$OUT" "said: +oneshot: waiter [0-9] got 0" "oneshot: a waiter took the result before it was stored"
run=$(jget "$J" '$d->{bugs}[0]{schedules}[0]{id} // $d->{bugs}[0]{schedules}[0]')
like "$(cat "$TMP/oneshot.d/rep/tests/001-oneshot/replay-$run.out" 2>/dev/null)" "no further, its locks held" \
   "oneshot: in the tail that stops complete() between its stores, its lock held ($run)"
is "$rc_oneshot_fixed" 0 "oneshot_fixed: clean (exit 0)"
[ "$rc_oneshot" = 1 ] || printf '%s\n' "$OUT" | sed 's/^/#   /' | head -20

done_testing
