/* condvar.c: a condition-variable hand-off.  Correct.
 *
 * The consumer waits under the mutex until the producer has stored the item
 * and set `ready`; the producer signals after both writes.  The consumer
 * rechecks `ready` in a loop, so no schedule can make it read the item early.
 * The producer sleeps first, so the consumer really waits (the trace shows
 * unlock, wait, lock in the consumer).
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: produce consume producer consumer
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int item = 0;
int ready = 0;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t filled = PTHREAD_COND_INITIALIZER;

__attribute__((noinline, noclone)) void produce(int value)
{
   pthread_mutex_lock(&lock);     // cb: lock lock
   item = value;                  // cb: write item
   ready = 1;                     // cb: write ready
   pthread_cond_signal(&filled);  // cb: signal filled
   pthread_mutex_unlock(&lock);   // cb: unlock lock
}

__attribute__((noinline, noclone)) int consume(void)
{
   pthread_mutex_lock(&lock);     // cb: lock lock
   while (!ready)                 // cb: read ready
      pthread_cond_wait(&filled, &lock); // cb: wait filled
   int value = item;              // cb: read item
   pthread_mutex_unlock(&lock);   // cb: unlock lock
   return value;
}

void *producer(void *arg)
{
   (void)arg;
   usleep(20000);
   produce(42);
   return NULL;
}

void *consumer(void *arg)
{
   (void)arg;
   return (void *)(long)consume();
}

int main(void)
{
   pthread_t p, c;
   void *got;
   pthread_create(&c, NULL, consumer, NULL);
   pthread_create(&p, NULL, producer, NULL);
   pthread_join(c, &got);
   pthread_join(p, NULL);
   if ((long)got != 42) {
      fprintf(stderr, "condvar: consumed %ld, expected 42\n", (long)got);
      return 1;
   }
   return 0;
}
