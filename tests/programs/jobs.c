/* jobs.c: two consumers that wait for a job with `if`, not `while`, around
 * the condition wait.
 *
 * Two consumers each take one job from a counter under a mutex; when there
 * is none they wait on a condition variable, once.  A producer adds two
 * jobs, signalling after each.  A consumer woken by the first signal must
 * take the lock again before it returns from the wait; if the other
 * consumer comes in first and finds the job, the woken one wakes to an
 * empty queue and takes a job that is not there (main's check fails).
 *
 * Natively both consumers are waiting before the producer starts.
 * Forcing one consumer's check (e1 = e2) after the producer's first add
 * (f), with the other still waiting, lets it steal the job every time.
 * On a loaded machine the recorded run may have the second consumer check
 * after that add (it takes the job while the first, signalled, has not yet
 * woken): then the steal is forced the other way, the woken consumer's
 * second check (f) before the producer's second add (e1 = e2).  The
 * markers allow either.
 *
 * cbtools-expect: bug ORD jobs
 * cbtools-threads: 4
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_ready = PTHREAD_COND_INITIALIZER;
static int jobs, missing;

static void *consumer(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&lock);
   if (jobs == 0)                            // cb: read jobs [e1 e2]
      pthread_cond_wait(&job_ready, &lock);
   if (jobs == 0)                            // cb: read jobs [f]
      missing++;
   else
      jobs--;
   pthread_mutex_unlock(&lock);
   return NULL;
}

static void *producer(void *arg)
{
   (void)arg;
   for (int i = 0; i < 2; i++) {
      pthread_mutex_lock(&lock);
      jobs++;                                // cb: write jobs [f e1 e2]
      pthread_cond_signal(&job_ready);
      pthread_mutex_unlock(&lock);
   }
   return NULL;
}

int main(void)
{
   pthread_t c[2], p;
   for (int i = 0; i < 2; i++)
      pthread_create(&c[i], NULL, consumer, NULL);
   pthread_create(&p, NULL, producer, NULL);
   for (int i = 0; i < 2; i++)
      pthread_join(c[i], NULL);
   pthread_join(p, NULL);
   if (missing) {
      fprintf(stderr, "jobs: a consumer woke to an empty queue\n");
      return 1;
   }
   return 0;
}
