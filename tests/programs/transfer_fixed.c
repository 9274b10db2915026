/* transfer_fixed.c: transfer.c with one lock over both accounts.  Correct.
 *
 * The transfer holds bank_lock across the withdrawal and the deposit, and
 * the auditor holds it across both reads, so the auditor sees the accounts
 * either before the transfer or after it, and always counts 200.
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: transfer audit
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

static int checking = 100, savings = 100;
static pthread_mutex_t bank_lock = PTHREAD_MUTEX_INITIALIZER;

static void *transfer(void *arg)
{
   int amount = (int)(long)arg;
   pthread_mutex_lock(&bank_lock);           // cb: lock bank_lock
   checking -= amount;                       // cb: write checking
   savings += amount;                        // cb: write savings
   pthread_mutex_unlock(&bank_lock);         // cb: unlock bank_lock
   return NULL;
}

static void *audit(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&bank_lock);
   int c = checking;                         // cb: read checking
   int s = savings;                          // cb: read savings
   pthread_mutex_unlock(&bank_lock);
   if (c + s != 200) {
      fprintf(stderr, "transfer_fixed: the audit counted %d, expected 200\n",
              c + s);
      return (void *)1;
   }
   return NULL;
}

int main(void)
{
   pthread_t mover, auditor;
   void *bad;
   pthread_create(&mover, NULL, transfer, (void *)50L);
   pthread_create(&auditor, NULL, audit, NULL);
   pthread_join(mover, NULL);
   pthread_join(auditor, &bad);
   if (bad)
      return 1;
   if (checking != 50 || savings != 150) {
      fprintf(stderr, "transfer_fixed: checking %d savings %d, expected 50 150\n",
              checking, savings);
      return 1;
   }
   return 0;
}
