#!/bin/sh
# Thread identity, end to end: thread ids past 16 bits, stable thread paths
# (two parents creating children in the other order replay the same
# schedule), the expected event at each forced step (a schedule expecting
# the wrong kind is a divergence, judged so), and prediction memory that
# does not grow with the square of the threads.
. "$(dirname "$0")/../tap.sh"

MK=$TOP/build/tests/replay_mkschedule
if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$MK" ]; then
   echo "Bail out! the tool or build/tests is not built (make check-deps builds everything: this is a regression, not a reason to skip)"; exit 1
fi

# ---- two parents, each creating a child -----------------------------------
# T2 (A) and T3 (B) each sleep as argv says (and 100 ms more, so that main
# has created both before either creates its child, even on a loaded
# machine), then create a child; A's child logs 'a', B's 'b'; the program
# passes when 'a' came first.
cat > "$TMP/ids.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char order[3];
static int n;
static void *child(void *name) {
   pthread_mutex_lock(&m);
   order[n++] = *(const char *)name;
   pthread_mutex_unlock(&m);      /* the child's last counted event */
   return NULL;
}
static void *parent(void *arg) {
   const char **a = arg;
   usleep((100 + atoi(a[1])) * 1000);  /* main creates both parents first */
   pthread_t c;
   pthread_create(&c, NULL, child, (void *)a[0]);
   pthread_join(c, NULL);
   return NULL;
}
int main(int argc, char **argv) {
   const char *pa[2] = {"a", argc > 1 ? argv[1] : "0"};
   const char *pb[2] = {"b", argc > 2 ? argv[2] : "0"};
   pthread_t ta, tb;
   pthread_create(&ta, NULL, parent, pa);
   pthread_create(&tb, NULL, parent, pb);
   pthread_join(ta, NULL);
   pthread_join(tb, NULL);
   printf("%s\n", order);
   return order[0] == 'a' ? 0 : 1;
}
EOF
cc -g -pthread -o "$TMP/ids" "$TMP/ids.c" || { echo "Bail out! cannot build ids.c"; exit 1; }
IDS=$TMP/ids
unlock_line=$(grep -n 'the child.s last counted event' "$TMP/ids.c" | cut -d: -f1)

cbtrace record -o "$TMP/r1.pb" -- "$IDS" 0 300 >/dev/null 2>&1
is $? 0 "record with A's child created first: exit 0"
hdr=$(cbtrace dump --header "$TMP/r1.pb")
like "$hdr" '^# thread: T4 = 1\.1\.1$' "dump --header: T4 is A's first child (1.1.1)"
like "$hdr" '^# thread: T5 = 1\.2\.1$' "dump --header: T5 is B's first child (1.2.1)"
cbtrace record -o "$TMP/r2.pb" -- "$IDS" 300 0 >/dev/null 2>&1
like "$(cbtrace dump --header "$TMP/r2.pb")" '^# thread: T4 = 1\.2\.1$' \
     "in the other order global ids swap: T4 is B's child (what replay must not follow)"

# Counted events from the first recording: T1 up to its second create, T2
# and T3 up to their create, T4 all of its own.
counts=$(cbtrace dump "$TMP/r1.pb" | awk '
   $3 ~ /^(read|write|lock|unlock|wait|signal|broadcast|barrier-enter|barrier-leave|create|join|sem-post|sem-wait|release|acquire)$/ {
      c[$2]++; if ($3 == "create") at[$2] = c[$2] }
   END { print at["T1"], at["T2"], at["T3"], c["T4"] }')
set -- $counts
p1=$1 p2=$2 p3=$3 n4=$4
ok "counted events read from the trace ($counts)" test -n "$n4"

# A's child (the recorded T4) runs first, then B's: 'a' first, exit 0.
# Recorded with A first, replayed with B first.
PATHS=0:0,1:1,1:2,2:1,3:1
"$MK" -o "$TMP/s1.pb" --id 1 --program "$IDS" --prefix $p1,$p2,$p3,0,0 \
   --tail 4:$n4@unlock,5:$n4@unlock --paths $PATHS
out=$(cbreplay -v --schedule "$TMP/s1.pb" -- "$IDS" 300 0 2>&1)
is $? 0 "children created in the other order: the schedule is followed (exit 0)"
like "$out" '^ab$' "A's child ran first, as the schedule says"
unlike "$out" 'unexpected|diverged' "no divergence"

# The same schedule without thread paths follows global creation order: it
# forces B's child first and the program fails.  (Shows the test can fail.)
"$MK" -o "$TMP/s2.pb" --id 2 --program "$IDS" --prefix $p1,$p2,$p3,0,0 \
   --tail 4:$n4@unlock,5:$n4@unlock
out=$(cbreplay --schedule "$TMP/s2.pb" -- "$IDS" 300 0 2>&1)
is $? 1 "without paths the other creation order swaps the children: failed"

# ---- the expected event at each forced step -------------------------------
# Step 1 expects a write where T4's last event is its unlock.
"$MK" -o "$TMP/s3.pb" --id 3 --program "$IDS" --prefix $p1,$p2,$p3,0,0 \
   --tail 4:$n4@write,5:$n4@unlock --paths $PATHS
out=$(cbreplay -v --schedule "$TMP/s3.pb" -- "$IDS" 300 0 2>&1)
is $? 3 "a step that ends on another kind of event: infeasible (exit 3), not passed"
like "$out" "tool: unexpected 4 $((n4 - 1)) " "the tool says which event came instead"
like "$out" "s3 infeasible: diverged: T4 event $((n4 - 1)) expected write, found unlock at ids.c:$unlock_line \(while the schedule was forced\)" \
     "cbreplay says what was expected and what was found"
json=$(cbreplay --json --schedule "$TMP/s3.pb" -- "$IDS" 300 0 2>/dev/null)
like "$json" '"divergence": "diverged: T4 event' "--json carries the divergence"

# A failure stays a failure; the report says the run diverged.
"$MK" -o "$TMP/s4.pb" --id 4 --program "$IDS" --prefix $p1,$p2,$p3,0,0 \
   --tail 4:$n4@write,5:$n4@unlock
out=$(cbreplay --schedule "$TMP/s4.pb" -- "$IDS" 300 0 2>&1)
is $? 1 "a failed run that diverged: still failed"
like "$out" "s4 diverged: T4 event" "and the report says it diverged"

# ---- predicted schedules name their expectations and paths ---------------
RWW=$TOP/build/programs/rww
if [ -x "$RWW" ]; then
   cbtrace record -o "$TMP/rww.pb" -- "$RWW" >/dev/null 2>&1
   cbpredict "$TMP/rww.pb" -o "$TMP/rww.s" >/dev/null 2>&1
   out=$(cbreplay -v --all --schedules "$TMP/rww.s" --trace "$TMP/rww.pb" -- "$RWW" 2>&1)
   like "$out" 'failed' "rww's predicted schedules still find the lost update"
   unlike "$out" 'unexpected|diverged:' "and every expected event came (no false divergence)"
else
   ok "tests/programs not built (rww)" false
fi

# ---- many threads ---------------------------------------------------------
# A trace naming thread 70,000 and 70,000 + 65,536 (16-bit ids aliased them).
printf 'T1 create T70000\nT70000 start T1\nT70000 write X @a.c:1\nT135536 write X @a.c:2\n' > "$TMP/wide.txt"
"$TOP/build/tools/cb-gen-trace" --from-text "$TMP/wide.txt" -o "$TMP/wide.pb"
like "$(cbtrace dump "$TMP/wide.pb")" 'T135536 write X' "thread ids past 16 bits stay apart"

# 4,000 threads created, each writing under a lock and reading a shared
# flag, then joined: dense clocks needed 4,001 x 4,001 x 8 bytes three
# times (about 380 MB); sparse ones a few MB.
awk 'BEGIN { n = 4000
   for (k = 2; k <= n + 1; k++) print "T1 create T" k " @a.c:5"
   print "T1 write Y @a.c:3"
   for (k = 2; k <= n + 1; k++) {
      print "T" k " start T1"; print "T" k " lock M"; print "T" k " write X @a.c:11"
      print "T" k " unlock M"; print "T" k " read Y @a.c:20"; print "T" k " exit" }
   for (k = 2; k <= n + 1; k++) print "T1 join T" k " @a.c:6"
   print "T1 write Y @a.c:30" }' > "$TMP/many.txt"
"$TOP/build/tools/cb-gen-trace" --from-text "$TMP/many.txt" -o "$TMP/many.pb"
/usr/bin/time -f '%M' -o "$TMP/rss" cbpredict "$TMP/many.pb" -o "$TMP/many.s" >/dev/null 2>&1
is $? 0 "cbpredict on 4,001 threads: exit 0"
rss=$(tail -1 "$TMP/rss")
ok "cbpredict on 4,001 threads peaks under 100 MB (${rss} KB)" test "$rss" -lt 102400

done_testing
