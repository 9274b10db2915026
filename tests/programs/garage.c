/* garage.c: a parking garage whose cars look, then park, through static
 * helpers that an -O2 build inlines.
 *
 * The garage has one free space and two cars that each park for a moment
 * and leave.  A car asks spaces_free() whether there is room, then calls
 * park(), then leave(); each helper takes the garage lock for itself, so
 * the look and the parking are two critical sections.  Built -O2 like
 * shipped code: the helpers are static, so they are inlined into car() and
 * no call marks them.  If the other car parks between a car's look and its
 * parking, the second car drives into a full garage (park() aborts).
 *
 * Natively the second car arrives long after the first has left.  Forcing
 * the other car's park (f) between a car's look (e1) and its own park (e2)
 * fills the garage twice every time.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: bug RWR|RWW free_spaces
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

static int spaces_free(void)
{
   pthread_mutex_lock(&garage_lock);
   int n = free_spaces;                      // cb: read free_spaces [e1]
   pthread_mutex_unlock(&garage_lock);
   return n;
}

static void park(void)
{
   pthread_mutex_lock(&garage_lock);
   if (free_spaces == 0) {                   // cb: read free_spaces [e2]
      fprintf(stderr, "garage: a car parked in a full garage\n");
      abort();
   }
   free_spaces--;                            // cb: write free_spaces [e2 f]
   pthread_mutex_unlock(&garage_lock);
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
   if (spaces_free() > 0) {
      park();
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
      fprintf(stderr, "garage: %d free spaces at closing time, expected %d\n",
              free_spaces, SPACES);
      return 1;
   }
   return 0;
}
