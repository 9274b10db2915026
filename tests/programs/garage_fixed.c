/* garage_fixed.c: garage.c with the look and the parking in one critical
 * section (built -O2 too).  Correct.
 *
 * try_park() looks for a free space and takes it while holding the garage
 * lock; a car that finds the garage full drives on.  No schedule can park
 * a car in a full garage.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: car
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SPACES 1
#define CARS 2

static int free_spaces = SPACES;
static pthread_mutex_t garage_lock = PTHREAD_MUTEX_INITIALIZER;

/* Returns 1 when the car got a space. */
static int try_park(void)
{
   pthread_mutex_lock(&garage_lock);
   int parked = free_spaces > 0;             // cb: read free_spaces
   if (parked)
      free_spaces--;                         // cb: write free_spaces
   pthread_mutex_unlock(&garage_lock);
   return parked;
}

static void leave(void)
{
   pthread_mutex_lock(&garage_lock);
   free_spaces++;                            // cb: write free_spaces
   pthread_mutex_unlock(&garage_lock);
}

static void *car(void *arg)
{
   (void)arg;
   if (try_park()) {
      /* ... the driver goes shopping ... */
      leave();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[CARS];
   for (int i = 0; i < CARS; i++)
      pthread_create(&t[i], NULL, car, NULL);
   for (int i = 0; i < CARS; i++)
      pthread_join(t[i], NULL);
   if (free_spaces != SPACES) {
      fprintf(stderr, "garage_fixed: %d free spaces at closing time, expected %d\n",
              free_spaces, SPACES);
      return 1;
   }
   return 0;
}
