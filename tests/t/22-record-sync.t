#!/bin/sh
# Records the synchronisation programs (condition variable, barrier, nested
# locks, a deadlock-prone pair, a flag hand-off) and checks their dumps.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

for p in condvar barrier nested deadlock flag; do
   check_recorded_program "$p"
done

# condvar: the consumer really waited, as unlock, wait, lock of the mutex
# (cb_wire.h), and the producer's signal lies between its lock and unlock.
d=$TMP/condvar.pb.dump
if [ -s "$d" ]; then
   waiter=$(awk '$3 == "wait" { print $2; exit }' "$d")
   seq=$(awk -v t="$waiter" '$2 == t && ($3 == "lock" || $3 == "unlock" || $3 == "wait") { print $3 }' "$d" | tr '\n' ',')
   is "$seq" "lock,unlock,wait,lock,unlock," "condvar: the consumer locks, waits (unlock, wait, lock), unlocks"
   like "$(grep -E ' wait filled' "$d" | head -1)" " wait filled lock( |$)" \
      "condvar: the wait names its mutex"
fi

# barrier: each worker enters before it leaves, and no worker leaves before
# both have entered.
d=$TMP/barrier.pb.dump
if [ -s "$d" ]; then
   order=$(awk '$3 == "barrier-enter" || $3 == "barrier-leave" { print $3 }' "$d" | tr '\n' ' ')
   is "$order" "barrier-enter barrier-enter barrier-leave barrier-leave " \
      "barrier: both enter before either leaves"
   like "$(grep -E ' barrier-enter ' "$d" | head -1)" " barrier-enter phase count 2" \
      "barrier: the barrier is named, with its count"
fi

# nested: each worker takes outer, then inner, releases inner, then outer.
d=$TMP/nested.pb.dump
if [ -s "$d" ]; then
   for t in T2 T3; do
      seq=$(awk -v t=$t '$2 == t && ($3 == "lock" || $3 == "unlock") { print $3, $4 }' "$d" | tr '\n' ',')
      is "$seq" "lock outer,lock inner,unlock inner,unlock outer," "nested: $t locks outer, inner, then unlocks inner, outer"
   done
fi
done_testing
