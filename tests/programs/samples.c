/* samples.c: a sampler thread appends readings to a growing array under
 * its lock, realloc doubling it when full; a monitor thread peeks at the
 * newest reading without the lock, built -O2.
 *
 * The monitor takes the count and the array pointer, then reads the last
 * reading.  realloc moves a small block when it first grows and then
 * mostly grows it in place, so only a peek that takes the pointer before
 * the first move and reads after it reads freed memory (glibc's free list
 * overwrites it).  In the recorded run the monitor peeks after the
 * sampler has finished: the order violation forced at the latest write of
 * `readings.items` finds nothing, the one at the write that freed the old
 * block (predict/orders.c, swap_meet) does.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: bug ORD|RWR readings.items
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
      readings.items = realloc(readings.items, readings.cap * sizeof *readings.items); // cb: write readings.items [e1 e2]
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
      size_t n = readings.count;
      if (n > 0 && readings.items[n - 1] != (int)n * 10) // cb: read readings.items [f]
         (*wrong)++;
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
