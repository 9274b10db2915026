/* ledger_fixed.c: ledger.c with an auditor that holds both locks, in the
 * teller's order, while it reads the two balances: no transfer can land
 * between the reads.
 *
 * cbtools-expect: correct
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
      checking.balance -= 10;
      savings.balance += 10;                 // cb: write savings.balance
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
   pthread_mutex_lock(&savings.lock);
   total += checking.balance;
   total += savings.balance;                 // cb: read savings.balance
   pthread_mutex_unlock(&savings.lock);
   pthread_mutex_unlock(&checking.lock);
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
