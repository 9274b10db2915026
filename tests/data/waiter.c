/* waiter.c: a lost wake-up behind a timed wait, for tests/t/44-timed-wait.t
 * and tests/t/68-cbtest-attribution.t.  main looks at `ready` without the
 * mutex, then waits up to 400 ms for the producer's signal; when the
 * producer sets the flag and signals in between, the wake-up is lost and
 * main fails with "waiter: the wake-up was lost". */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, payload;
static void *producer(void *arg)
{
   (void)arg;
   int v = 0;
   for (int i = 1; i <= 100; i++)
      v += i;
   pthread_mutex_lock(&mu);
   payload = v;
   ready = 1;
   pthread_cond_signal(&cv);
   pthread_mutex_unlock(&mu);
   return NULL;
}
static int wait_ready(int ms)
{
   struct timespec dl;
   int rc = 0;
   clock_gettime(CLOCK_REALTIME, &dl);
   dl.tv_nsec += ms * 1000000L;
   if (dl.tv_nsec >= 1000000000L) {
      dl.tv_sec++;
      dl.tv_nsec -= 1000000000L;
   }
   if (!ready) {
      pthread_mutex_lock(&mu);
      rc = pthread_cond_timedwait(&cv, &mu, &dl);
      pthread_mutex_unlock(&mu);
   }
   return rc;
}
int main(void)
{
   pthread_t p;
   pthread_create(&p, NULL, producer, NULL);
   int rc = wait_ready(400);
   pthread_join(p, NULL);
   if (rc == ETIMEDOUT) {
      fprintf(stderr, "waiter: the wake-up was lost (ready %d)\n", ready);
      return 1;
   }
   if (!ready || payload != 5050) {
      fprintf(stderr, "waiter: woke without the payload\n");
      return 1;
   }
   return 0;
}
