/* wwr_locked.c: wwr.c with the claim under a mutex.  Correct: nobody can
 * claim between a worker's write and its read.
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: claim worker
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

volatile int owner = 0;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline, noclone)) int claim(int me)
{
   pthread_mutex_lock(&lock);   // cb: lock lock
   owner = me;                  // cb: write owner
   int lost = owner != me;      // cb: read owner
   pthread_mutex_unlock(&lock); // cb: unlock lock
   return lost;
}

void *worker(void *arg)
{
   return (void *)(long)claim((int)(long)arg);
}

int main(void)
{
   pthread_t t1, t2;
   void *lost1, *lost2;
   pthread_create(&t1, NULL, worker, (void *)1L);
   pthread_create(&t2, NULL, worker, (void *)2L);
   pthread_join(t1, &lost1);
   pthread_join(t2, &lost2);
   if (lost1 || lost2) {
      fprintf(stderr, "wwr_locked: a worker lost its claim\n");
      return 1;
   }
   return 0;
}
