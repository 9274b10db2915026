#!/bin/sh
# A schedule's prefix keeps the recorded order (predict/prefix_order.c,
# vgtool/cb_porder.c).  Two workers spin on a `ready` flag (a C11 atomic)
# while main fills a table, then count themselves served with a read and a
# write in two critical sections (an atomicity violation).  At -O2, the
# work in the start routine.  In the recorded run the workers spin
# hundreds of thousands of times; a prefix that ran them freely let a
# worker use up its count of spins before main set the flag, and the
# forced run left the recorded path: every schedule on `served` was
# infeasible, or passed once and failed the next time.  Now each is forced
# three times: the same verdict each time, none infeasible, and the bug
# found.  The twin (one critical section) passes every forced run.
# Main fills the table only once both workers have looked at the flag:
# when a fast machine let main finish before either worker ran, the
# recording had no spin to keep in order (CI saw that once).
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || ! command -v cbpredict >/dev/null; then
   echo "Bail out! the tool or cbpredict is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi

cat > "$TMP/warmup.c" <<'EOF'
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#define N 4096
static int table[N];
static atomic_int ready, started;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long served;
static void *worker(void *arg)
{
   long id = (long)arg, sum = 0;
   int looked = 0;
   while (!atomic_load_explicit(&ready, memory_order_acquire))
      if (!looked++)
         atomic_fetch_add(&started, 1);
   for (int i = 0; i < N; i += 512)
      sum += table[i];
#ifdef FIXED
   pthread_mutex_lock(&lock);
   served++;
   pthread_mutex_unlock(&lock);
#else
   pthread_mutex_lock(&lock);
   long s = served;
   pthread_mutex_unlock(&lock);
   pthread_mutex_lock(&lock);
   served = s + 1;
   pthread_mutex_unlock(&lock);
#endif
   return (void *)(sum + id);
}
int main(void)
{
   pthread_t t[2];
   for (long i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   while (atomic_load(&started) < 2)
      ;
   for (int r = 0; r < 40; r++)
      for (int i = 0; i < N; i++)
         table[i] = (table[i] * 31 + i + r) & 0xffff;
   atomic_store_explicit(&ready, 1, memory_order_release);
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   if (served != 2) {
      fprintf(stderr, "served %ld, want 2\n", served);
      return 1;
   }
   return 0;
}
EOF
cc -O2 -g -pthread -o "$TMP/warmup" "$TMP/warmup.c" &&
cc -O2 -g -pthread -DFIXED -o "$TMP/warmup_fixed" "$TMP/warmup.c" ||
   { echo "Bail out! cannot build warmup.c"; exit 1; }

D=$TMP/warmup.d
mkdir -p "$D"
cbtrace record -o "$D/trace.pb" -- "$TMP/warmup" >"$D/record.out" 2>&1
TABLE=$(cbpredict -o "$D/s" "$D/trace.pb" 2>&1)
ids=$(printf '%s\n' "$TABLE" | sed -n 's/^\(s[0-9]*\) *[A-Z]* *served .*/\1/p')
ok "schedules against served are predicted" [ -n "$ids" ]
with=
for id in $ids; do
   cbtrace dump "$D/s/$id.pb" | grep -Eq "waits? keeps? the recorded order" && with="$with $id"
done
ok "schedules against served carry the prefix's recorded order ($with)" [ -n "$with" ]
[ -n "$with" ] || { printf '%s\n' "$TABLE"; for id in $ids; do
   cbtrace dump "$D/s/$id.pb" | sed -n '1,/^tail/p'; done; } | sed 's/^/# /'

agree=yes infeasible=no failed=no
for id in $ids; do
   runs=""
   for k in 1 2 3; do
      cbreplay --schedule "$D/s/$id.pb" --variant 0 --timeout 20 \
         -- "$TMP/warmup" >"$D/$id.$k.out" 2>&1
      runs="$runs$?"
   done
   echo "# $id: $runs"
   case $runs in *3*) grep -h "infeasible:" "$D/$id".*.out | sed 's/^/# /' >&2 ;; esac
   case $runs in 111) failed=yes ;; 000) ;; *) agree=no ;; esac
   case $runs in *3*) infeasible=yes ;; esac
done
is "$infeasible" no "no forced run of a schedule against served is infeasible"
is "$agree" yes "each schedule gives the same verdict in three forced runs"
is "$failed" yes "the lost update of served is found"

D=$TMP/fixed.d
mkdir -p "$D"
cbtrace record -o "$D/trace.pb" -- "$TMP/warmup_fixed" >"$D/record.out" 2>&1
cbpredict -o "$D/s" "$D/trace.pb" >"$D/predict.out" 2>&1
OUT=$(cbreplay --all "$D/s" --timeout 20 -- "$TMP/warmup_fixed" 2>&1)
is $? 0 "warmup_fixed: every forced run passes (no false positive)"

done_testing
