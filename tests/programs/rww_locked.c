/* rww_locked.c: rww.c with the block protected by a mutex.  Correct.
 *
 * deposit() reads and writes the balance while holding `lock`, so no deposit
 * can come between the read and the write.  No schedule may fail, and no
 * RWW on balance should be predicted.
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: deposit teller
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

volatile int balance = 100;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline, noclone)) void deposit(int amount)
{
   pthread_mutex_lock(&lock);   // cb: lock lock
   int seen = balance;          // cb: read balance
   balance = seen + amount;     // cb: write balance
   pthread_mutex_unlock(&lock); // cb: unlock lock
}

void *teller(void *arg)
{
   deposit((int)(long)arg);
   return NULL;
}

int main(void)
{
   pthread_t t1, t2;
   pthread_create(&t1, NULL, teller, (void *)10L);
   pthread_create(&t2, NULL, teller, (void *)20L);
   pthread_join(t1, NULL);
   pthread_join(t2, NULL);
   if (balance != 130) {
      fprintf(stderr, "rww_locked: a deposit was lost: balance %d\n", balance);
      return 1;
   }
   return 0;
}
