/* transfer.c: an auditor that reads two accounts while a transfer is
 * half done.
 *
 * Each account has its own lock.  The transfer moves 50 from checking to
 * savings: it takes from checking under checking's lock, then adds to
 * savings under savings' lock.  The auditor reads checking, then savings,
 * each under its own lock, and checks that the bank still holds 200.  The
 * update of the pair is not atomic: an auditor that reads checking after
 * the withdrawal and savings before the deposit counts 150 and fails.
 *
 * Natively the auditor starts long after the transfer is done.  Forcing the
 * auditor's read of savings (f) before the transfer's deposit (e1 = e2: it
 * ran first in the recorded run), with the withdrawal already made, shows
 * the half-done transfer every time.
 *
 * cbtools-expect: bug ORD savings
 * cbtools-threads: 3
 * cbtools-blocks: transfer audit
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

static int checking = 100, savings = 100;
static pthread_mutex_t checking_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t savings_lock = PTHREAD_MUTEX_INITIALIZER;

static void *transfer(void *arg)
{
   int amount = (int)(long)arg;
   pthread_mutex_lock(&checking_lock);
   checking -= amount;                       // cb: write checking
   pthread_mutex_unlock(&checking_lock);
   pthread_mutex_lock(&savings_lock);
   savings += amount;                        // cb: write savings [e1 e2]
   pthread_mutex_unlock(&savings_lock);
   return NULL;
}

static void *audit(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&checking_lock);
   int c = checking;                         // cb: read checking
   pthread_mutex_unlock(&checking_lock);
   pthread_mutex_lock(&savings_lock);
   int s = savings;                          // cb: read savings [f]
   pthread_mutex_unlock(&savings_lock);
   if (c + s != 200) {
      fprintf(stderr, "transfer: the audit counted %d, expected 200\n", c + s);
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
      fprintf(stderr, "transfer: checking %d savings %d, expected 50 150\n",
              checking, savings);
      return 1;
   }
   return 0;
}
