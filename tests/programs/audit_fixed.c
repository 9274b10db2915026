/* audit_fixed.c: the account of audit.c with the fee computed on the
 * opening balance, as the books assume: the correct twin.
 *
 * Whatever order the deposit and the fee land in, the balance ends at 140;
 * no forced run may fail the audit.
 *
 * cbtools-expect: correct
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
   deposited = true;                        // cb: write deposited
   pthread_mutex_unlock(&acct_lock);
   return NULL;
}

static void *fee(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&acct_lock);
   balance -= 100 / 10;                     /* 10% of the opening balance */
   charged = true;                          // cb: write charged
   pthread_mutex_unlock(&acct_lock);
   return NULL;
}

static void *auditor(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&acct_lock);
   if (deposited && charged && balance != 100 + 50 - 10) { // cb: read deposited
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
