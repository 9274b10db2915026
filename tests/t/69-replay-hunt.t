#!/bin/sh
# The hunt (reschedule/hunt.c, vgtool/cb_hunt.c): a schedule forced by its
# events' code instead of the recorded counts, the last try when every
# tail variant is infeasible (41-replay-verdicts.t pins when it is tried;
# this file, what it does under the real tool).  Two ordinary programs,
# -O2, the work in the start routines:
#   - futq.c: a pool completes futures; a retried job's value is stored
#     after its future says "done".  An order violation: the hunt holds
#     the first worker about to make that late store until the collector
#     has read the value;
#   - tally.c: a job count bumped after its lock was dropped, one `addq`
#     instruction: the hunt holds the first thread between that
#     instruction's load and store (split as replay splits it) until
#     another thread has written the count.
# Each hunt must fail every time it is forced, with the program's own
# message and the violation seen; the twins' hunts never fail.
. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/../lib/pipeline.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || ! command -v cbpredict >/dev/null; then
   echo "Bail out! the tool or cbpredict is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

cb_build_data futq.c futq
cb_build_data futq.c futq_fixed -DFIXED
cb_build_data tally.c tally
cb_build_data tally.c tally_fixed -DFIXED
late=$(grep -n 'stored after "done"' "$TOP/tests/data/futq.c" | cut -d: -f1)
bump=$(grep -n 'after the unlock' "$TOP/tests/data/tally.c" | cut -d: -f1)

# record_predict NAME: a recording that passed, its schedules.  futq's
# late store strikes in about one recording in three (both before and
# after the hunt; schedules predicted from a run where it struck force
# the correct order, and their hunts pass): with three tries, all three
# failed now and then under load, which was the "not understood" hunt
# that did not fail.  Recorded again, at most seven times.
record_predict() {
   D=$TMP/$1.d
   rm -rf "$D"; mkdir -p "$D"
   PASSED=
   for try in 1 2 3 4 5 6 7 8; do
      cbtrace record -o "$D/trace.pb" -- "$TMP/$1" >"$D/record.out" 2>&1 && { PASSED=1; break; }
      diag "$1: the recorded run failed (try $try): $(tail -1 "$D/record.out")"
   done
   cbpredict -o "$D/s" "$D/trace.pb" >"$D/predict.out" 2>&1
}

# hunt_runs NAME ID N: forces schedule ID's hunt N times; sets CODES (the
# exit codes), LAST (the last run's report, the last failing one's when
# one failed) and WHY (the reasons of the runs that did not fail).
hunt_runs() {
   nv=$(cbtrace dump "$TMP/$1.d/s/$2.pb" | grep -c '^tail variant')
   CODES= LAST= WHY=
   for k in $(seq "$3"); do
      out=$(cbreplay --schedule "$TMP/$1.d/s/$2.pb" --variant "$nv" --confirm 0 \
                --timeout 20 -- "$TMP/$1" 2>&1)
      rc=$?
      CODES="$CODES$rc"
      if [ "$rc" = 1 ] || [ -z "$LAST" ]; then LAST=$out; fi
      [ "$rc" = 1 ] || WHY="$WHY $(printf '%s\n' "$out" | grep -o 'infeasible: .*' | head -1)"
   done
}

# pick NAME REGEX [MAX]: the ids of the predicted rows that match.
pick() {
   sed -n "s/^\(s[0-9]*\) *$2.*/\1/p" "$TMP/$1.d/predict.out" | head -"${3:-1}"
}

record_predict futq
id=$(pick futq "ORD *futs\[[0-9]*\]\.value *futq\.c:$late ")
if [ -z "$PASSED" ]; then
   # Every recording lost a future (a loaded machine: 8 of 8 beside a
   # clean clone's make check): its forced runs exit as the recording did,
   # which is its normal, and nothing here can be checked.
   for c in predicted "fails in most forced runs" "own message" "how it was forced" "read first"; do
      skip "futq: $c: every one of 8 recordings failed"
   done
else
   ok "futq: the late store's order violation is predicted ($id)" [ -n "$id" ]
fi
if [ -n "$PASSED" ] && [ -n "$id" ]; then
   # Five runs, most of which must fail (the reasons of runs that do not
   # are printed).  The build before refuses the hunt: none.
   hunt_runs futq "$id" 5
   fails=$(printf '%s' "$CODES" | tr -cd 1 | wc -c)
   ok "futq: its hunt fails in most forced runs ($CODES)" [ "$fails" -ge 3 ]
   [ "$fails" -ge 5 ] || diag "futq: runs that did not fail:$WHY"
   like "$LAST" "futq: [0-9]+ futures returned a wrong value" "futq: the program's own message"
   like "$LAST" "forced as variant [0-9]+, by the hunt: the first thread at e1's instruction held before it" "futq: the report says how it was forced"
   like "$LAST" "the violation happened in this run: yes" "futq: the read came before the late store"
fi

record_predict tally
id=$(pick tally "RWW *stats\.done *tally\.c:$bump ")
ok "tally: the unlocked bump's lost update is predicted ($id)" [ -n "$id" ]
if [ -n "$id" ]; then
   hunt_runs tally "$id" 3
   is "$CODES" 111 "tally: its hunt fails every time (3 runs)"
   like "$LAST" "tally: [0-9]+ done, want 20000" "tally: the program's own message"
   like "$LAST" "forced as variant [0-9]+, by the hunt: the first thread past e1's instruction held until another thread's f" \
        "tally: the report says how it was forced"
   like "$LAST" "e2  T[0-9]+ write stats\.done = [0-9]+ .*tally\.c:$bump" "tally: e2 is the held thread's store"
   like "$LAST" "in this run the hunt held T[0-9]+ \\(its hold [1-4]\\) until T[0-9]+'s access" \
        "tally: the report names the threads the hunt met"
fi

# The twins: their schedules' hunts on the value and on the count (the
# count's are all under its lock there: any pattern), at most three of
# each, never fail.
for p in futq_fixed:"ORD *futs\[[0-9]*\]\.value" tally_fixed:"[A-Z]* *stats\.done"; do
   name=${p%%:*}
   record_predict "$name"
   bad=0 n=0
   for id in $(pick "$name" "${p#*:}" 3); do
      hunt_runs "$name" "$id" 2
      n=$((n + 1))
      case $CODES in *[146]*) bad=$((bad + 1)); printf '%s\n' "$LAST" | sed 's/^/#   /' ;; esac
   done
   good=$([ "$n" -ge 1 ] && [ "$bad" = 0 ] && echo yes)
   ok "$name: $n schedules' hunts forced twice, none failed, deadlocked or hung" [ "$good" = yes ]
done

done_testing
