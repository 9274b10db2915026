/* deadlock.c: two locks taken in opposite orders: a deadlock.
 *
 * forward() takes a then b; backward() takes b then a.  Natively backward
 * sleeps first, by which time forward is long done, so the program never
 * hangs.  A schedule that lets backward take b while forward holds a (for
 * instance the WWW on `stage`: forward writes it before and after its
 * critical section, backward writes it while holding b) deadlocks both, so
 * the expected verdict of a forced run is a deadlock.
 *
 * cbtools-expect: deadlock
 * cbtools-threads: 3
 * cbtools-blocks: forward backward
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

volatile int stage = 0;
volatile int moved = 0;
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline, noclone)) void forward(void)
{
   stage = 1;                     // cb: write stage [e1]
   pthread_mutex_lock(&a);        // cb: lock a
   pthread_mutex_lock(&b);        // cb: lock b
   int m = moved;                 // cb: read moved
   moved = m + 1;                 // cb: write moved
   pthread_mutex_unlock(&b);      // cb: unlock b
   pthread_mutex_unlock(&a);      // cb: unlock a
   stage = 2;                     // cb: write stage [e2]
}

__attribute__((noinline, noclone)) void backward(void)
{
   pthread_mutex_lock(&b);        // cb: lock b
   stage = 3;                     // cb: write stage [f]
   pthread_mutex_lock(&a);        // cb: lock a
   int m = moved;                 // cb: read moved
   moved = m + 1;                 // cb: write moved
   pthread_mutex_unlock(&a);      // cb: unlock a
   pthread_mutex_unlock(&b);      // cb: unlock b
}

void *forward_thread(void *arg)
{
   (void)arg;
   forward();
   return NULL;
}

void *backward_thread(void *arg)
{
   (void)arg;
   usleep(20000);
   backward();
   return NULL;
}

int main(void)
{
   pthread_t f, g;
   pthread_create(&f, NULL, forward_thread, NULL);
   pthread_create(&g, NULL, backward_thread, NULL);
   pthread_join(f, NULL);
   pthread_join(g, NULL);
   if (moved != 2) {
      fprintf(stderr, "deadlock: moved %d, expected 2\n", moved);
      return 1;
   }
   return 0;
}
