/* samples_fixed.c: samples.c with a monitor that peeks under the
 * sampler's lock: the pointer it takes is never freed before it reads.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

struct readings {
   int *items;
   size_t count, cap;
};

static struct readings readings;
static pthread_mutex_t readings_lock = PTHREAD_MUTEX_INITIALIZER;

static void add_reading(int v)
{
   pthread_mutex_lock(&readings_lock);
   if (readings.count == readings.cap) {
      readings.cap *= 2;
      readings.items = realloc(readings.items, readings.cap * sizeof *readings.items); // cb: write readings.items
      if (!readings.items)
         abort();
   }
   readings.items[readings.count] = v;
   readings.count++;
   pthread_mutex_unlock(&readings_lock);
}

static void *sampler(void *arg)
{
   (void)arg;
   for (int i = 1; i <= 32; i++)
      add_reading(i * 10);
   return NULL;
}

static void *monitor(void *arg)
{
   int *wrong = arg;
   for (int k = 0; k < 3; k++) {
      pthread_mutex_lock(&readings_lock);
      size_t n = readings.count;
      if (n > 0 && readings.items[n - 1] != (int)n * 10) // cb: read readings.items
         (*wrong)++;
      pthread_mutex_unlock(&readings_lock);
      sched_yield();
   }
   return NULL;
}

int main(void)
{
   readings.cap = 4;
   readings.items = malloc(readings.cap * sizeof *readings.items);
   if (!readings.items)
      return 2;
   int wrong = 0;
   pthread_t s, m;
   pthread_create(&s, NULL, sampler, NULL);
   pthread_create(&m, NULL, monitor, &wrong);
   pthread_join(s, NULL);
   pthread_join(m, NULL);
   if (wrong) {
      fprintf(stderr, "monitor: %d peeks saw a reading that was not the newest\n", wrong);
      return 1;
   }
   printf("%zu readings\n", readings.count);
   free(readings.items);
   return 0;
}
