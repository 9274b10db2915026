#!/bin/sh
# cbpredict on every program of tests/programs/, recorded by the real tool
# (issue 3's end-to-end test).  What each must give comes from its markers
# (tests/lib/README.md):
#   bug PATTERN VAR  a predicted violation of that pattern on that variable
#                    whose e1, f and e2 are the source's [e1], [f], [e2] lines;
#   NAME_locked      (correct, the lock-protected NAME.c) no violation names
#                    the variable NAME.c's marker says is buggy.
# Every table row must also have a schedule file.
. "$(dirname "$0")/../tap.sh"
. "$TOP/tests/lib/programs.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || ! command -v cbpredict >/dev/null; then
   echo "Bail out! the tool or cbpredict is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

# rows TABLE PATTERNS VAR: the table's rows of one of those patterns (one,
# or several joined by '|') and that variable ('-': any), as "E1-LINE
# F-LINE E2-LINE" (file name dropped).  A heap variable's name holds spaces
# ("heap block of 8 bytes from a.c:38", which ends in a FILE:LINE too): the
# locations are the first three FILE:LINE fields followed by the threads.
rows() {
   awk -v pat="$2" -v var="$3" '
      function loc(x) { return x ~ /:[0-9]+$/ }
      function ln(x) { sub(/^.*:/, "", x); return x }
      /^s[0-9]+ / && index("|" pat "|", "|" $2 "|") {
         i = 4
         while (i + 3 <= NF && !(loc($i) && loc($(i + 1)) && loc($(i + 2)) &&
                                 $(i + 3) ~ /^T[0-9]+\/T[0-9]+$/))
            i++
         if (i + 3 > NF) next
         v = $3
         for (k = 4; k < i; k++) v = v " " $k
         if (var == "-" || v == var) print ln($i), ln($(i + 1)), ln($(i + 2))
      }' "$1"
}

# in_list WORD LIST: WORD is one of the words of LIST.
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

# record_predict: records $name into $d and predicts; sets rc, nrows
# (the table's rows) and nfiles (schedule files).
record_predict() {
   rm -rf "$d/s"
   cb_record "$name" "$d/trace.pb"
   rc=0
   cbpredict -o "$d/s" "$d/trace.pb" >"$d/table" 2>"$d/err" || rc=$?
   nrows=$(grep -c '^s[0-9]* ' "$d/table")
   nfiles=$(ls "$d/s" 2>/dev/null | grep -c '^s[0-9]*\.pb$')
}

# found_row TABLE: 1 if a row of $pat on $var has the source's e1, f and
# e2 lines ($e1, $f, $e2), else 0.
found_row() {
   found=0
   while read -r l1 lf l2; do
      [ -n "$l2" ] || continue # no rows: an empty line, which no list holds
      in_list "$l1" "$e1" && in_list "$lf" "$f" && in_list "$l2" "$e2" && found=1
      # An ORD puts one section before another that ran first in the
      # recording; which ran first is the scheduler's choice (a loaded
      # machine starts the second thread first now and then), and the
      # other order is the same bug predicted from the other side.
      [ "$pat" = ORD ] && in_list "$l1" "$f" && in_list "$lf" "$e1" &&
         in_list "$l2" "$f" && found=1
   done <<ROWS
$(rows "$1" "$pat" "$var")
ROWS
   echo $found
}

for src in "$CB_PROGRAM_SRC"/*.c; do
   name=$(basename "$src" .c)
   expect=$(cb_marker "$src" expect)
   case $name in
   *_locked) buggy=$CB_PROGRAM_SRC/${name%_locked}.c ;;
   *) buggy= ;;
   esac
   case $expect in bug*) ;; *) [ -n "$buggy" ] || continue ;; esac
   why=$(cb_program_missing "$src")
   if [ -n "$why" ]; then
      skip "$name: not built: $why"
      continue
   fi
   if [ ! -x "$CB_PROGRAM_BIN/$name" ]; then
      ok "$name: built (make programs)" false
      continue
   fi
   d=$TMP/$name
   mkdir -p "$d"
   case $expect in
   bug*)
      # The variable is the rest of the marker: libc's hidden state has a
      # name of several words ("strtok's saved position (libc)").
      set -- $expect
      pat=$2
      shift 2
      var=$*
      e1=$(cb_role_lines "$src" e1 | tr '\n' ' ')
      f=$(cb_role_lines "$src" f | tr '\n' ' ')
      e2=$(cb_role_lines "$src" e2 | tr '\n' ' ')
      # A recorded run is one interleaving, and a loaded machine picks
      # others (samples.c's monitor peeking while the sampler still
      # grows the array, not after it): the bug must be predicted from
      # one of at most three recordings, as 45-replay-e2e.t allows six.
      for try in 1 2 3; do
         record_predict
         found=$(found_row "$d/table")
         [ "$found" = 1 ] && break
         [ $try = 3 ] || diag "$name: not predicted from recording $try; recording again"
      done
      is "$rc" 0 "$name: cbpredict exits 0"
      is "$nfiles" "$nrows" "$name: one schedule file per row ($nrows)"
      ok "$name: a $pat on $var at e1 line $(echo $e1), f line $(echo $f), e2 line $(echo $e2)" \
         test "$found" = 1
      [ "$found" = 1 ] || sed 's/^/#   /' "$d/table"
      ;;
   *)
      record_predict
      is "$rc" 0 "$name: cbpredict exits 0"
      is "$nfiles" "$nrows" "$name: one schedule file per row ($nrows)"
      set -- $(cb_marker "$buggy" expect)
      shift 2
      var=$*
      # ORD rows reorder whole critical sections: a prediction that
      # replay tests (45-replay-e2e.t), not an atomicity violation.
      n=$(rows "$d/table" "RWR|RWW|WRW|WWR|WWW" "$var" | grep -c .)
      is "$n" 0 "$name: no atomicity violation names $var, which the lock protects"
      [ "$n" = 0 ] || sed 's/^/#   /' "$d/table"
      ;;
   esac
done

# A hand-made spin lock (trace/spinlocks.c) is a lock: the summary says so,
# no row names its word, and the correct twin predicts nothing on the
# stock it guards (the table above checks the buggy one's ORD on stock).
for name in spinstock spinstock_fixed; do
   if [ ! -s "$TMP/$name/table" ]; then
      mkdir -p "$TMP/$name"
      cb_record "$name" "$TMP/$name/trace.pb"
      cbpredict -o "$TMP/$name/s" "$TMP/$name/trace.pb" >"$TMP/$name/table" 2>&1
   fi
   like "$(cat "$TMP/$name/table")" "1 of the locks is the program's own" \
      "$name: the atomic_flag taken by test-and-set is a lock"
   n=$(awk '/^s[0-9]+ / && $3 == "office"' "$TMP/$name/table" | wc -l)
   is "$n" 0 "$name: no violation names the lock word"
done
# (An ORD moves a whole critical section: replay tests it, 45-replay-e2e.t.)
n=$(awk '/^s[0-9]+ / && $3 == "stock" && $2 != "ORD"' "$TMP/spinstock_fixed/table" | wc -l)
is "$n" 0 "spinstock_fixed: no atomicity violation on the stock it guards"
[ "$n" = 0 ] || sed 's/^/#   /' "$TMP/spinstock_fixed/table"

# The deadlock program: a lock-order inversion (DLK) is predicted, and its
# forced run's bug report speaks of locks, not of an atomicity violation.
if [ -x "$CB_PROGRAM_BIN/deadlock" ]; then
   d=$TMP/deadlock
   mkdir -p "$d"
   cb_record deadlock "$d/trace.pb"
   cbpredict -o "$d/s" "$d/trace.pb" >"$d/table" 2>&1
   s=$(awk '/^s[0-9]+ / && $2 == "DLK" { print $1; exit }' "$d/table")
   ok "deadlock: a DLK is predicted" test -n "$s"
   # --timeout only bounds a run that went wrong (a deadlock ends at once);
   # 3 s was short on a loaded machine.
   out=$(cd "$d" && cbreplay --timeout 20 --schedule "$d/s/$s.pb" -- "$CB_PROGRAM_BIN/deadlock" 2>&1)
   like "$out" "BUG \($s\): DLK lock-order inversion on [a-z]+, a deadlock" \
      "deadlock: the report says lock-order inversion"
   unlike "$out" "atomicity|not atomic" "deadlock: and no atomicity violation"
   unlike "$out" " lock .* = [0-9]" "deadlock: no values for lock events"
   # The locks by the names the source gives them (a and b), not by
   # address: e1 takes the other lock than the schedule's variable.
   set -- $(awk '/^s[0-9]+ / && $2 == "DLK" { print $3; exit }' "$d/table")
   case $1 in a) other=b ;; *) other=a ;; esac
   like "$out" "e1 +T[0-9]+ lock +$other +at deadlock.c:" \
      "deadlock: e1 names its own lock, $other, not the variable $1"
   like "$out" "took lock $other at deadlock.c:[0-9]+ and then asked for lock $1 at" \
      "deadlock: the explanation names both locks as the source does"
fi

# A lock taken under a gate lock that is released and asked for again
# (lightswitch.c: both inversions, each with a schedule; the one through
# the gate needs the reader run on until it has let the gate go), and a
# cycle of five philosophers, longer than the four once searched.
for name in lightswitch philosophers; do
   [ -x "$CB_PROGRAM_BIN/$name" ] || { _tap_report 1 "$name: not built"; continue; }
   d=$TMP/$name
   mkdir -p "$d"
   cb_record "$name" "$d/trace.pb"
   cbpredict -o "$d/s" "$d/trace.pb" >"$d/table" 2>&1
   for s in $(awk '/^s[0-9]+ / && $2 == "DLK" { print $1 }' "$d/table"); do
      ok "$name: DLK $s has its schedule file" test -s "$d/s/$s.pb"
   done
done
is "$(awk '/^s[0-9]+ / && $2 == "DLK"' "$TMP/lightswitch/table" | wc -l)" 2 \
   "lightswitch: both inversions are predicted, none dropped"
like "$(cat "$TMP/lightswitch/table")" " 0 without a schedule replay can follow" \
   "lightswitch: synthesis dropped none"
like "$(awk '/^s[0-9]+ / && $2 == "DLK" { print $NF }' "$TMP/philosophers/table")" \
   '^T[0-9]+(/T[0-9]+){4}$' "philosophers: one DLK, a cycle of the five threads"

# A lost update through C11 atomics: each worker loads the feature mask,
# ORs its bit in and stores it back with atomic_store (an xchg at -O2,
# whose read half is glued to its write).  The pattern counts that store
# as the write it is: an RWW on the mask, its e2 an update; on the build
# before it was an RWR whose second read was the exchange's own.
cat >"$TMP/features.c" <<'EOF'
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
static atomic_uint features;
static void *enable(void *arg)
{
   unsigned bit = 1u << (unsigned long)arg;
   unsigned m = atomic_load(&features);
   atomic_store(&features, m | bit);
   return NULL;
}
int main(void)
{
   pthread_t t[2];
   for (unsigned long i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, enable, (void *)i);
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   printf("features %#x\n", atomic_load(&features));
   return atomic_load(&features) != 3;
}
EOF
cc -O2 -g -pthread -o "$TMP/features" "$TMP/features.c"
d=$TMP/features.d
mkdir -p "$d"
cbtrace record -o "$d/trace.pb" -- "$TMP/features" >/dev/null 2>&1
cbpredict -o "$d/s" "$d/trace.pb" >"$d/table" 2>&1
like "$(cbtrace dump "$d/trace.pb")" "write features size 4 = [0-9]+ rmw-store" \
   "features: atomic_store is an exchange whose old value is thrown away"
like "$(cat "$d/table")" "^s[0-9]+ +RWW +features " "features: the lost update is an RWW"
unlike "$(cat "$d/table")" "^s[0-9]+ +RWR +features " "features: no RWR whose second read is the exchange's"
s=$(awk '/^s[0-9]+ / && $2 == "RWW" { print $1; exit }' "$d/table")
out=$(cbreplay --schedule "$d/s/$s.pb" -- "$TMP/features" 2>&1)
like "$out" "e2 +T[0-9]+ update features" "features: the report calls e2 an update"

done_testing
