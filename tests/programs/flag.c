/* flag.c: an apparent RWR that data makes impossible.  Correct.
 *
 * The producer writes `data`, then sets `ready` under the mutex and signals.
 * The consumer waits for `ready` under the mutex, then reads `data` twice.
 * Locksets alone see an RWR on data (the two reads hold no lock, nor does
 * the write), but the write happens before `ready` is set and the reads
 * after it was seen set, so it can never fall between them.  The consumer
 * sleeps first, so in the recorded run it finds `ready` already set and
 * never waits: no signal/wait edge orders the threads, only the value of
 * `ready` does (cbpredict --z3 should drop the schedule; without --z3 its
 * replay cannot be followed).
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: publish inspect producer consumer
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

volatile int data = 0;
int ready = 0;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t set = PTHREAD_COND_INITIALIZER;

__attribute__((noinline, noclone)) void publish(void)
{
   data = 42;                     // cb: write data [f]
   pthread_mutex_lock(&lock);     // cb: lock lock
   ready = 1;                     // cb: write ready
   pthread_cond_signal(&set);     // cb: signal set
   pthread_mutex_unlock(&lock);   // cb: unlock lock
}

/* Returns 1 when the two reads disagree or miss the data. */
__attribute__((noinline, noclone)) int inspect(void)
{
   pthread_mutex_lock(&lock);     // cb: lock lock
   while (!ready)                 // cb: read ready
      pthread_cond_wait(&set, &lock);
   pthread_mutex_unlock(&lock);   // cb: unlock lock
   int first = data;              // cb: read data [e1]
   int second = data;             // cb: read data [e2]
   return first != second || first != 42;
}

void *producer(void *arg)
{
   (void)arg;
   publish();
   return NULL;
}

void *consumer(void *arg)
{
   (void)arg;
   usleep(20000);
   return (void *)(long)inspect();
}

int main(void)
{
   pthread_t p, c;
   void *bad;
   pthread_create(&p, NULL, producer, NULL);
   pthread_create(&c, NULL, consumer, NULL);
   pthread_join(p, NULL);
   pthread_join(c, &bad);
   if (bad) {
      fprintf(stderr, "flag: the consumer saw the data change\n");
      return 1;
   }
   return 0;
}
