#!/bin/sh
# cbreplay with the real tool, on schedules written by hand (no cbpredict):
# the lost update of rww.c forced (fails, every time, with the same counted
# events), the harmless order (passes), an infeasible plan (ends infeasible
# within the stall limit), the deadlock of deadlock.c forced (the tool ends
# it at once: deadlock), and --all over the lot.
. "$(dirname "$0")/../tap.sh"

MK=$TOP/build/tests/replay_mkschedule
EV=$TOP/build/tests/replay_events
RWW=$TOP/build/programs/rww
DL=$TOP/build/programs/deadlock

# Does the tool follow a plan?  An empty plan on a trivial program must be
# released and pass.
cat > "$TMP/a.c" <<'EOF'
int main(void) { return 0; }
EOF
cc -o "$TMP/a" "$TMP/a.c"
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ]; then
   echo "Bail out! the tool is not built (lib/cbtools) (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
"$MK" -o "$TMP/empty.pb" --program "$TMP/a"
probe=$(cbreplay -v --timeout 60 --schedule "$TMP/empty.pb" -- "$TMP/a" 2>&1)
if [ $? != 0 ] || ! printf '%s\n' "$probe" | grep -q "tool: released"; then
   echo "Bail out! the tool has no replay mode yet (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
if [ ! -x "$RWW" ] || [ ! -x "$DL" ]; then
   echo "Bail out! tests/programs not built (rww, deadlock) (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

# rww.c, as recorded: T1 creates T2 and T3 (counted 0, 1); each teller reads
# balance (its counted event 0, rww.c:28) and writes it (1, rww.c:29).
# The lost update: T2 reads, T3 reads and writes, T2 writes.
mkdir "$TMP/s"
"$MK" -o "$TMP/s/s1.pb" --id 1 --program "$RWW" --prefix 2,0,0 \
   --tail 2:1,3:2,2:1 --pattern RWW --variable balance \
   --e1 2:0:read:rww.c:28:deposit:100 --f 3:1:write:rww.c:29:deposit:120 \
   --e2 2:1:write:rww.c:29:deposit:110
# The same threads in the harmless order.
"$MK" -o "$TMP/s/s2.pb" --id 2 --program "$RWW" --prefix 2,0,0 \
   --tail 2:2,3:2 --pattern RWW --variable balance \
   --e1 2:0:read:rww.c:28:deposit:100 --f 3:1:write:rww.c:29:deposit:120 \
   --e2 2:1:write:rww.c:29:deposit:110
# A turn for thread 9, which never exists.
"$MK" -o "$TMP/s/s3.pb" --id 3 --program "$RWW" --prefix 2,0,0 --tail 9:1,2:1

out=$(cbreplay --schedule "$TMP/s/s1.pb" -- "$RWW" 2>"$TMP/err")
is $? 1 "rww lost update forced: exit 1"
like "$out" "^s1 +RWW +balance +rww.c:28 +rww.c:29 +rww.c:29 +failed \(exit 1\) +yes" \
     "table: failed, the violation happened"
like "$(cat "$TMP/err")" "a deposit was lost" "the program's own check failed"
like "$out" "reproduce: cbreplay --schedule $TMP/s/s1.pb -- $RWW" "reproduce command"

out=$(cbreplay --schedule "$TMP/s/s2.pb" -- "$RWW")
is $? 0 "rww in the harmless order: exit 0"
like "$out" "passed +no" "harmless order: passed, no violation"

out=$(cbreplay --stall-ms 500 --timeout 60 --schedule "$TMP/s/s3.pb" -- "$RWW")
is $? 3 "a turn for a thread that never exists: infeasible, exit 3"
like "$out" "s3 infeasible: " "infeasible: the tool's reason"

# Ten forced runs of the failing schedule: ten failures, one event sequence.
fails=0 same=0
for i in 1 2 3 4 5 6 7 8 9 10; do
   cbreplay --events-out "$TMP/ev$i" --schedule "$TMP/s/s1.pb" -- "$RWW" \
      >/dev/null 2>&1
   [ $? = 1 ] && fails=$((fails + 1))
   "$EV" "$TMP/ev$i" > "$TMP/seq$i" 2>/dev/null
   cmp -s "$TMP/seq1" "$TMP/seq$i" && same=$((same + 1))
done
is "$fails" 10 "10 forced runs of the lost update: 10 failures"
is "$same" 10 "10 forced runs: the same sequence of counted events"
like "$(cat "$TMP/seq1")" "T2 read rww.c:28.*
T3 read rww.c:28.*
T3 write rww.c:29.*
T2 write rww.c:29" "the sequence is the forced one"

# deadlock.c: T2 (forward) writes stage and takes a, T3 (backward) takes b
# and writes stage; once released each waits for the other's lock.
"$MK" -o "$TMP/dl.pb" --id 1 --program "$DL" --prefix 2,0,0 --tail 2:2,3:2 \
   --pattern WWW --variable stage \
   --e1 2:0:write:deadlock.c:26:forward:1 --f 3:1:write:deadlock.c:39:backward:3 \
   --e2 2:7:write:deadlock.c:33:forward:2
# A private copy (same bytes, same digest), so that the check below cannot
# see another test's run of the same program.
cp "$DL" "$TMP/dl-copy"
# --timeout 60: a run that took the timeout would be "hung", not this.
out=$(cbreplay --timeout 60 --schedule "$TMP/dl.pb" -- "$TMP/dl-copy")
is $? 6 "forced deadlock: the tool ends it at once, deadlock, exit 6"
like "$out" "BUG \(s1\): WWW .* deadlocked: each of its threads waits for another" \
     "forced deadlock: bug report"
l_b1=$(grep -n 'pthread_mutex_lock(&b);  *// cb: lock b' "$TOP/tests/programs/deadlock.c" | cut -d: -f1)
is "$(echo $l_b1 | wc -w)" 2 "deadlock.c: b is locked on two lines"
set -- $l_b1
like "$out" "^    T2 waits for lock b at deadlock.c:$1, held by T3 \(taken at deadlock.c:$2\)$" \
     "forced deadlock: T2 waits for b, which T3 took, with both lines"
like "$out" "^    T3 waits for lock a at deadlock.c:[0-9]+, held by T2 \(taken at deadlock.c:[0-9]+\)$" \
     "forced deadlock: T3 waits for a, which T2 took"
like "$out" "^    T1 waits to join T2 at deadlock.c:[0-9]+$" "forced deadlock: main waits to join"
sleep 0.3
left=$(ps -eo stat=,args= | grep -v '^Z' | grep -c -- "$TMP/[d]l-copy")
is "$left" 0 "the deadlocked program was killed"

out=$(cbreplay --schedules "$TMP/s" --all -j 2 --stall-ms 500 -- "$RWW")
is $? 1 "--all: a failure makes exit 1"
like "$out" "3 forced runs: 1 failed, 0 deadlocked, 0 hung, 1 passed, 1 infeasible" "--all: summary"

# A folder of schedules beside its trace belongs to that trace: recording
# again without predicting again makes it stale, and cbreplay says so.
mkdir -p "$TMP/stale" && cd "$TMP/stale" || exit 1
cbtrace record -o trace.pb -- "$RWW" >/dev/null 2>&1
cbpredict trace.pb >/dev/null 2>&1
cbreplay --schedule s1 -- "$RWW" >/dev/null 2>&1
is $? 1 "schedules beside their own trace: the forced run fails (the bug)"
cbtrace record -o trace.pb -- "$RWW" >/dev/null 2>&1
err=$(cbreplay --schedule s1 -- "$RWW" 2>&1 >/dev/null)
is $? 2 "the trace was recorded again: the stale schedule is refused (exit 2)"
like "$err" "^cbreplay: schedule s1 was predicted from another trace" \
     "the refusal says why"
cd "$TOP" || exit 1

done_testing
