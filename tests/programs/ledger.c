/* ledger.c: two accounts with a lock each, a teller moving money between
 * them, and an auditor that reads them one lock at a time.
 *
 * The teller takes both locks and moves 10 from checking to savings,
 * three times.  The auditor locks checking, reads it, unlocks, then does
 * the same for savings, and compares the sum with the 200 the bank holds.
 * Each read is locked, yet the two together are not: a transfer that
 * lands between them is counted half (checking before, savings after) and
 * the books are off by 10 (main's check of the audit fails).
 *
 * Natively the auditor, started first, reads both before the teller
 * starts.  Forcing the teller's write of savings (f) before the auditor's
 * read of it (e1 = e2) splits a transfer every time; so does the teller's
 * section forced between the auditor's two (RWR on the two balances,
 * predict/two_vars.c), which names both.  Built -O2: the balance updates
 * are one add instruction each.
 *
 * cbtools-expect: bug RWR|ORD -
 * cbtools-cflags: -O2
 * cbtools-threads: 3
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

struct account {
   pthread_mutex_t lock;
   long balance;
};

static struct account checking = { PTHREAD_MUTEX_INITIALIZER, 100 };
static struct account savings = { PTHREAD_MUTEX_INITIALIZER, 100 };
static long audited;

static void *teller(void *arg)
{
   (void)arg;
   for (int i = 0; i < 3; i++) {
      pthread_mutex_lock(&checking.lock);
      pthread_mutex_lock(&savings.lock);
      checking.balance -= 10;                // cb: write checking.balance [f]
      savings.balance += 10;                 // cb: write savings.balance [f]
      pthread_mutex_unlock(&savings.lock);
      pthread_mutex_unlock(&checking.lock);
   }
   return NULL;
}

static void *auditor(void *arg)
{
   (void)arg;
   long total = 0;
   pthread_mutex_lock(&checking.lock);
   total += checking.balance;                // cb: read checking.balance [e1 e2]
   pthread_mutex_unlock(&checking.lock);
   pthread_mutex_lock(&savings.lock);
   total += savings.balance;                 // cb: read savings.balance [e1 e2]
   pthread_mutex_unlock(&savings.lock);
   audited = total;
   return NULL;
}

int main(void)
{
   pthread_t a, t;
   pthread_create(&a, NULL, auditor, NULL);
   pthread_create(&t, NULL, teller, NULL);
   pthread_join(a, NULL);
   pthread_join(t, NULL);
   if (audited != 200) {
      fprintf(stderr, "ledger: the audit counted %ld, the bank holds 200\n", audited);
      return 1;
   }
   return 0;
}
