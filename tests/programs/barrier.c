/* barrier.c: two phases separated by a barrier.  Correct.
 *
 * In phase 1 each worker fills its own slot; in phase 2 each reads both
 * slots.  The barrier orders every phase-1 write before every phase-2 read,
 * so no schedule can make a worker read a slot that is not filled yet.
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: fill total worker
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

int slot[2];
pthread_barrier_t phase;

__attribute__((noinline, noclone)) void fill(int i)
{
   slot[i] = i + 1;               // cb: write slot
}

__attribute__((noinline, noclone)) int total(void)
{
   return slot[0] + slot[1];      // cb: read slot
}

void *worker(void *arg)
{
   fill((int)(long)arg);
   pthread_barrier_wait(&phase);  // cb: barrier-enter phase; barrier-leave phase
   return (void *)(long)total();
}

int main(void)
{
   pthread_t t[2];
   void *sum[2];
   pthread_barrier_init(&phase, NULL, 2);
   for (long i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], &sum[i]);
   pthread_barrier_destroy(&phase);
   if ((long)sum[0] != 3 || (long)sum[1] != 3) {
      fprintf(stderr, "barrier: sums %ld %ld, expected 3 3\n", (long)sum[0],
              (long)sum[1]);
      return 1;
   }
   return 0;
}
