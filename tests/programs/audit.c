/* audit.c: an account with a deposit, a fee and an auditor, where the fee
 * depends on whether the deposit landed first.
 *
 * Three threads start together: one deposits 50, one charges a 10% fee,
 * and an auditor that, once both are done, checks the balance against the
 * books (100 + 50 - 10% of 100).  Each step is under the account lock.
 * The fee is computed on the balance at the time it is charged, so when
 * the deposit lands first the fee is 15, not 10, and the books no longer
 * balance.  Only an auditor that runs after both sees it.
 *
 * Natively the auditor, started first, looks before either is done and
 * checks nothing.  Forcing the deposit's flag write (f) before the
 * auditor's look (e1 = e2), and every other thread on to its end before
 * the auditor goes on, makes the audit fail every time (exit 2).
 *
 * cbtools-expect: bug ORD -
 * cbtools-threads: 4
 * cbtools-blocks: auditor
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t acct_lock = PTHREAD_MUTEX_INITIALIZER;
static long balance = 100;
static bool deposited, charged;

static void *depositor(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&acct_lock);
   balance += 50;
   deposited = true;                        // cb: write deposited [f]
   pthread_mutex_unlock(&acct_lock);
   return NULL;
}

static void *fee(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&acct_lock);
   balance -= balance / 10;                 /* 10% of what is there now */
   charged = true;                          // cb: write charged [f]
   pthread_mutex_unlock(&acct_lock);
   return NULL;
}

static void *auditor(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&acct_lock);
   if (deposited && charged && balance != 100 + 50 - 10) { // cb: read deposited [e1 e2]
      fprintf(stderr, "audit: balance %ld, the books say 140\n", balance);
      exit(2);
   }
   pthread_mutex_unlock(&acct_lock);
   return NULL;
}

int main(void)
{
   pthread_t a, d, f;
   pthread_create(&a, NULL, auditor, NULL);
   pthread_create(&d, NULL, depositor, NULL);
   pthread_create(&f, NULL, fee, NULL);
   pthread_join(a, NULL);
   pthread_join(d, NULL);
   pthread_join(f, NULL);
   printf("balance %ld\n", balance);
   return 0;
}
