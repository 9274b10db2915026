#!/bin/sh
# A lost wake-up's order violation ranks by what it forces, not by the
# value its read sees (predict/rank_seen.c).  tests/data/poolstop.c clears
# its shutdown flag without the pool's mutex; the candidate that holds a
# worker after its check of the flag (the held tail F_HELD), while
# shutdown clears it and broadcasts, reads the flag set, as every round
# of the worker did, and was ranked after every other (blind trial 18's
# thread pool: 26th of 31 at -O0, past cbtest's budget).  It must be
# among the first three, at -O0 and -O2.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || ! command -v cbpredict >/dev/null; then
   echo "Bail out! the tool or cbpredict is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/pipeline.sh"

check=$(grep -n 'while (pool.count == 0 && pool.running)' "$TOP/tests/data/poolstop.c" | cut -d: -f1)
clear=$(grep -n '^    pool.running = 0;$' "$TOP/tests/data/poolstop.c" | tail -1 | cut -d: -f1)
cb_build_data poolstop.c poolstop
cb_build_data poolstop.c poolstop_O0 -O0
for v in poolstop poolstop_O0; do
   for try in 1 2 3 4 5; do
      cbtrace record -o "$TMP/$v.pb" -- "$TMP/$v" >/dev/null 2>&1 && break
      diag "$v: the recorded run failed (try $try)"
   done
   cbpredict -o "$TMP/$v.s" "$TMP/$v.pb" >"$TMP/$v.out" 2>&1
   row=$(grep -E "^s[0-9]+ +ORD +pool\.running +poolstop\.c:$clear +poolstop\.c:$check " "$TMP/$v.out" | head -1)
   id=${row%% *}
   n=${id#s}
   ok "$v: the held worker's order violation on the flag ranks among the first three (${id:-none})" \
      [ "${n:-99}" -le 3 ]
   [ "${n:-99}" -le 3 ] || head -8 "$TMP/$v.out" | sed 's/^/#   /' >&2
done

done_testing
