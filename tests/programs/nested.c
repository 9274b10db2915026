/* nested.c: nested locks, always taken in the same order.  Correct.
 *
 * Each worker takes `outer`, updates `moves`, takes `inner`, updates
 * `entries`, and releases in reverse order.  Both counters are always
 * updated under their lock, so no update can be lost, and the single lock
 * order cannot deadlock.
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: record_move worker
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

volatile int moves = 0;
volatile int entries = 0;
pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t inner = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline, noclone)) void record_move(void)
{
   pthread_mutex_lock(&outer);    // cb: lock outer
   int m = moves;                 // cb: read moves
   moves = m + 1;                 // cb: write moves
   pthread_mutex_lock(&inner);    // cb: lock inner
   int e = entries;               // cb: read entries
   entries = e + 1;               // cb: write entries
   pthread_mutex_unlock(&inner);  // cb: unlock inner
   pthread_mutex_unlock(&outer);  // cb: unlock outer
}

void *worker(void *arg)
{
   (void)arg;
   record_move();
   return NULL;
}

int main(void)
{
   pthread_t t1, t2;
   pthread_create(&t1, NULL, worker, NULL);
   pthread_create(&t2, NULL, worker, NULL);
   pthread_join(t1, NULL);
   pthread_join(t2, NULL);
   if (moves != 2 || entries != 2) {
      fprintf(stderr, "nested: moves %d entries %d, expected 2 2\n", moves,
              entries);
      return 1;
   }
   return 0;
}
