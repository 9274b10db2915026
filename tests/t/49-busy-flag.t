#!/bin/sh
# A busy flag checked with atomic_load and then set with atomic_store
# (tests/data/busyflag.c; blind trial 16's connection pool claimed its
# connections so on a rare path).  gcc compiles a sequentially consistent
# atomic_store to `xchg`, a locked instruction that reads 0 and writes 1,
# and its holder's store of 0 releases it: on the build before the flag
# was taken for a hand-made lock (trace/spinlocks.c), its check-then-set
# was never predicted and cbtest called the program clean.  Now the tool
# records that nothing reads the exchange's old value (rmw-store,
# vgtool/cb_rmw.c) and such a store takes no lock.  -O2 and -O0 are
# confirmed, the twin that claims the flag with a compare-and-swap is
# clean, and a spin lock taken by test-and-set (tests/programs/spinstock.c)
# is still the program's own lock at both levels.
. "$(dirname "$0")/../tap.sh"

if [ ! -x "$TOP/lib/cbtools/cbtools-amd64-linux" ] || [ ! -x "$TOP/bin/cbtest" ]; then
   echo "Bail out! the tool or cbtest is not built (make check builds everything: this is a regression, not a reason to skip)"; exit 1
fi
. "$TOP/tests/lib/pipeline.sh"

cb_build_data busyflag.c busyflag
cb_build_data busyflag.c busyflag_O0 -O0
cb_build_data busyflag.c busyflag_fixed -DFIXED

# The recording: the flag's stores are exchanges whose old value is dropped.
for v in busyflag busyflag_O0; do
   cbtrace record -o "$TMP/$v.pb" -- "$TMP/$v" >/dev/null 2>&1
   like "$(cbtrace dump "$TMP/$v.pb")" " write refreshing size 4 = 1 rmw-store @ busyflag.c:[0-9]+ in refresh" \
      "$v: the flag's atomic_store is an exchange whose old value is thrown away"
   like "$(cbtrace stats "$TMP/$v.pb")" "lock words: 0" "$v: the flag is no lock word"
done

# A claim whose store's value the optimiser knew (`mov $1,%ecx; xchg
# %ecx,(%rdx)`: the IR's new value is a constant), as in trial 16's
# connection pool at -O2, where the build before still said exchange.
cat > "$TMP/claim.c" <<'EOF'
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
struct conn { int gen; atomic_int in_use; atomic_int users; };
static struct conn conns[2];
static long overlaps;
__attribute__((noinline)) static struct conn *claim(int last)
{
   struct conn *c = &conns[last];
   if (atomic_load(&c->in_use) != 0)
      return NULL;
   atomic_store(&c->in_use, 1);
   if (atomic_fetch_add(&c->users, 1) != 0)
      overlaps++;
   return c;
}
static void *client(void *arg)
{
   for (int i = 0; i < 10; i++) {
      struct conn *c = claim((int)(long)arg);
      if (c) {
         atomic_fetch_sub(&c->users, 1);
         atomic_store(&c->in_use, 0);
      }
   }
   return NULL;
}
int main(void)
{
   pthread_t t[2];
   for (long i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, client, (void *)i);
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   printf("%ld overlaps\n", overlaps);
   return 0;
}
EOF
cc -O2 -g -pthread -o "$TMP/claim" "$TMP/claim.c" || { echo "Bail out! cannot build claim.c"; exit 1; }
cbtrace record -o "$TMP/claim.pb" -- "$TMP/claim" >/dev/null 2>&1
like "$(cbtrace dump "$TMP/claim.pb")" " write conns\[0\]\.in_use size 4 = 1 rmw-store @ claim.c:12 in claim" \
   "claim: a constant stored by xchg, its old value dropped, is a store"
# (Its users count, taken from 0 to 1 by a tested fetch-add and back by
# its holder, looks like a lock word: a reference count does, README.)

# A computed value stored by xchg (`add $1,%ecx; xchg %ecx,active`) right
# before another atomic's `lock xadd`, whose retry exit comes two
# instructions later: blind trial 20's slot limiter at -O2, where the scan
# for a read of %ecx stopped at that CAS and its exit and kept the store an
# exchange, a lock word's acquire; nothing was predicted.
cat > "$TMP/limit.c" <<'EOF'
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#define MAXCONN 1
static atomic_int active, holders;
static long over, served[2], refused[2];
static unsigned sum[2];
static unsigned work(unsigned h)
{
   for (int i = 0; i < 40; i++)
      h = (h ^ (h >> 11)) * 0x9e3779b1u;
   return h;
}
static int take(void)
{
   int n = atomic_load(&active);
   if (n >= MAXCONN)
      return 0;
   atomic_store(&active, n + 1);
   return 1;
}
static void *client(void *arg)
{
   int id = (int)(long)arg;
   for (int i = 0; i < 20; i++) {
      if (take()) {
         if (atomic_fetch_add(&holders, 1) + 1 > MAXCONN)
            over++;
         sum[id] += work((unsigned)i + 1u);
         served[id]++;
         atomic_fetch_sub(&holders, 1);
         atomic_fetch_sub(&active, 1);
      } else {
         sum[id] += work((unsigned)i);
         refused[id]++;
      }
   }
   return NULL;
}
int main(void)
{
   pthread_t t[2];
   for (long i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, client, (void *)i);
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   printf("%ld over\n", over);
   return over != 0;
}
EOF
cc -O2 -g -pthread -o "$TMP/limit" "$TMP/limit.c" || { echo "Bail out! cannot build limit.c"; exit 1; }
cbtrace record -o "$TMP/limit.pb" -- "$TMP/limit" >/dev/null 2>&1
like "$(cbtrace dump "$TMP/limit.pb")" " write active size 4 = 1 rmw-store @ limit.c:19 in take" \
   "limit: a computed value stored by xchg before another atomic's lock xadd is a store"

# A spin lock whose test-and-set result is tested is still a lock.
for o in O0 O2; do
   cc -$o -g -pthread -o "$TMP/spinstock_$o" "$TOP/tests/programs/spinstock_fixed.c" ||
      { echo "Bail out! cannot build spinstock_fixed"; exit 1; }
   cbtrace record -o "$TMP/spinstock_$o.pb" -- "$TMP/spinstock_$o" >/dev/null 2>&1
   like "$(cbtrace dump "$TMP/spinstock_$o.pb")" " write office size 1 = 1 rmw-exchange @ " \
      "spinstock -$o: the test-and-set keeps its old value"
   like "$(cbtrace stats "$TMP/spinstock_$o.pb")" "lock words: 1" "spinstock -$o: its flag is a lock"
done

cb_bug_and_twin busyflag "busyflag: 2 refreshers at once" "BUG [A-Z]+ on refreshing" "the bug is on the busy flag"

done_testing
