/* jobs_fixed.c: jobs.c with the condition re-checked in a `while` loop
 * after every wake-up, as a condition wait must be.
 *
 * cbtools-expect: correct
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
   while (jobs == 0)                         // cb: read jobs
      pthread_cond_wait(&job_ready, &lock);
   if (jobs == 0)
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
      jobs++;                                // cb: write jobs
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
