#!/bin/sh
# Stack memory shared between threads (vgtool/cb_stacks.c): main keeps a
# counter in a local, passes its address to two workers, and counts with
# them.  Every thread's accesses to it must be in the trace, main's too, at
# -O0 (frame-pointer-relative) and at -O2 (stack-pointer-relative, which the
# tool instruments only once some stack memory was shared); the stack
# memory that no other thread touched (loop counters, the workers' own
# locals) must stay out.
. "$(dirname "$0")/../tap.sh"

N=5
cat >"$TMP/stackcount.c" <<EOF
/* stackcount.c: three threads count in main's local counter, under a lock.
 * The workers count once, meet main at a barrier (so that the counter has
 * been shared before main touches it), then count on. */
#include <pthread.h>
#include <stdio.h>
#define N $N
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t ready;
static void count(long *counter)
{
   pthread_mutex_lock(&lock);
   (*counter)++;                   /* worker count */
   pthread_mutex_unlock(&lock);
}
static void *worker(void *arg)
{
   for (int i = 0; i < N; i++) {
      count(arg);
      if (i == 0)
         pthread_barrier_wait(&ready);
   }
   return NULL;
}
int main(void)
{
   long counter = 0;
   pthread_t t[2];
   pthread_barrier_init(&ready, NULL, 3);
   for (int i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, worker, &counter);
   pthread_barrier_wait(&ready);
   for (int i = 0; i < N; i++) {
      pthread_mutex_lock(&lock);
      counter++;                   /* main count */
      pthread_mutex_unlock(&lock);
   }
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   printf("%ld\n", counter);       /* main total */
   return counter != 3 * N;
}
EOF
src=$TMP/stackcount.c
line_of() { grep -n "$1" "$src" | head -1 | cut -d: -f1; }
main_line=$(line_of 'main count')
total_line=$(line_of 'main total')

for opt in O0 O2; do
   prog=$TMP/stackcount-$opt
   if ! cc -$opt -g -pthread -o "$prog" "$src" 2>"$TMP/cc.err"; then
      ok "$opt: the test program builds" false
      sed 's/^/#   /' "$TMP/cc.err"
      continue
   fi
   tr=$TMP/$opt.pb
   s=0
   timeout -k 5 120 cbtrace record -o "$tr" -- "$prog" >"$tr.out" 2>"$tr.err" || s=$?
   is "$s" 0 "$opt: recorded run exits 0"
   is "$(cat "$tr.out")" "$((3 * N))" "$opt: the program counted to $((3 * N))"
   cbtrace dump --header "$tr" >"$tr.dump" 2>"$tr.dump.err"
   d=$tr.dump
   # The counter, by the name the source gives it (the debug information
   # describes locals too, while main waits in its frame).
   addr=$(awk '$2 == "T2" && $3 == "write" { print $4; exit }' "$d")
   is "$addr" counter "$opt: a worker's write to main's counter is recorded, named counter"
   like "$(grep '^# variable: .* counter ' "$d")" \
      "^# variable: 0x[0-9a-f]+ counter \\(local, declared at stackcount.c:[0-9]+\\)" \
      "$opt: the trace names main's local as such"
   [ -n "$addr" ] || continue
   for t in T1 T2 T3; do
      n=$(awk -v t=$t -v a="$addr" '$2 == t && $3 == "write" && $4 == a' "$d" | wc -l)
      is "$n" "$N" "$opt: $t wrote the counter $N times"
   done
   is "$(awk -v a="$addr" '$3 == "write" && $4 == a { print $8 }' "$d" | sort -n | tr '\n' ' ')" \
      "$(seq 1 $((3 * N)) | tr '\n' ' ')" \
      "$opt: the writes of the counter are 1..$((3 * N)), each once: no increment lost"
   like "$(grep -E "^[0-9]+ T1 write $addr " "$d" | head -1)" "@ ([^ ]*/)?stackcount.c:$main_line in main" \
      "$opt: main's increments are at stackcount.c:$main_line in main"
   like "$(grep -E "^[0-9]+ T1 read $addr " "$d")" "= $((3 * N)) @ ([^ ]*/)?stackcount.c:$total_line in main" \
      "$opt: main's read of the total $((3 * N)) is recorded"
   # Nothing else of any stack: every access to stack memory (a named
   # local, or an address the debug information did not describe) is on a
   # 16-byte line that two threads touched.
   lonely=$(awk '/^# variable: .*\(local/ { local[$4] = $3; next }
                 ($3 == "read" || $3 == "write") &&
                 ($4 ~ /^0x/ || $4 in local) {
                    a = ($4 in local) ? local[$4] : $4
                    line = substr(a, 1, length(a) - 1)
                    if (!((line, $2) in seen)) { seen[line, $2] = 1; users[line]++ }
                    acc[NR] = line; txt[NR] = $0 }
                 END { for (i in acc) if (users[acc[i]] < 2) print txt[i] }' "$d" | head -3)
   is "$lonely" "" "$opt: no access to stack memory that only one thread touched"
done

# The first shared stack line makes the tool translate afresh at the next
# entry into client code (cb_stacks_runs_on); when that entry is a
# wrapper's call of the real function (a thread's last free() on its way
# out), the block must run then, or Valgrind's scheduler asserts
# "trc[0] != VG_TRC_INNER_COUNTERZERO" (trial 7: 4 recordings in 6 of this
# program crashed with two busy loops beside them).  With the same load,
# 6 recordings in 6 must end.
cat >"$TMP/busyshare.c" <<'EOF'
/* Two workers spin, one adds to a local of main's now and then. */
#include <pthread.h>
static int shared;
static void work(int n) { volatile unsigned w = 0; for (int k = 0; k < n; k++) w += k; }
static void *a(void *x) { (void)x; for (int i = 0; i < 3; i++) { work(30000); shared++; } return 0; }
static void *b(void *x) { for (int i = 0; i < 3; i++) { long s = shared; work(35000); *(long *)x += s; } return 0; }
int main(void)
{
   long t = 0;
   pthread_t x, y;
   pthread_create(&x, 0, a, 0);
   pthread_create(&y, 0, b, &t);
   pthread_join(x, 0);
   pthread_join(y, 0);
   return t < 0;
}
EOF
if cc -O2 -g -pthread -o "$TMP/busyshare" "$TMP/busyshare.c" 2>"$TMP/cc.err"; then
   timeout 120 sh -c 'while :; do :; done' & spin1=$!
   timeout 120 sh -c 'while :; do :; done' & spin2=$!
   ended=0
   for i in 1 2 3 4 5 6; do
      timeout -k 5 120 cbtrace record -o "$TMP/busy.pb" -- "$TMP/busyshare" \
         >/dev/null 2>"$TMP/busy.err" && ended=$((ended + 1))
      grep -q 'Assertion' "$TMP/busy.err" && sed -n 2p "$TMP/busy.err" | sed 's/^/# /'
   done
   kill "$spin1" "$spin2" 2>/dev/null
   is "$ended" 6 "a shared stack line met by a wrapper's real call: 6 of 6 recordings end"
else
   ok "the busy-share program builds" false
fi
done_testing
