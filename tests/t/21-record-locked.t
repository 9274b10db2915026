#!/bin/sh
# Records the lock-protected (correct) versions of the pattern programs and
# checks their dumps: lock before unlock on the right mutex, accesses inside.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

for p in rwr_locked rww_locked wrw_locked wwr_locked www_locked; do
   check_recorded_program "$p"
done

# Inside each critical section: the accesses of a thread between its lock
# and its unlock of `lock` are the protected variable's, so every read or
# write of balance in rww_locked lies inside one.
d=$TMP/rww_locked.pb.dump
if [ -s "$d" ]; then
   outside=$(awk '
      $3 == "lock" { held[$2] = 1 }
      $3 == "unlock" { held[$2] = 0 }
      ($3 == "read" || $3 == "write") && $4 == "balance" && $NF == "deposit" && !held[$2] { print }
   ' "$d")
   is "$outside" "" "rww_locked: every access of balance in deposit is inside lock/unlock"
fi
done_testing
