/* cachepub.c: worker threads that each publish the same shared cache, a
 * size and a base pointer, without a lock, built -O2.
 *
 * Every worker stores the same two values, so publishing is idempotent and
 * nobody bothered with a lock.  A reporter thread, started after them,
 * checks that a cache with a size also has its memory.  It can see the
 * size of one worker's publication before any worker's base: then it
 * aborts.  Holding back a single worker between its two stores shows
 * nothing, as the others have stored the base already: the order
 * violation must hold back every worker that stores the base at that line
 * (predict/site_writers.c), with the reporter's read of the base (f) moved
 * before them all.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: bug ORD cache_base
 * cbtools-threads: 7
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NWORKERS 5

static char arena[4096];
static size_t cache_size;
static char *cache_base;

static void *worker(void *arg)
{
   (void)arg;
   cache_size = sizeof arena;                // cb: write cache_size
   cache_base = arena;                       // cb: write cache_base [e1 e2]
   return NULL;
}

static void *reporter(void *arg)
{
   (void)arg;
   if (cache_size != 0 && cache_base == NULL) { // cb: read cache_size; read cache_base [f]
      fprintf(stderr, "reporter: the cache has %zu bytes and no memory\n",
              cache_size);
      abort();
   }
   return NULL;
}

int main(void)
{
   pthread_t w[NWORKERS], r;
   for (int i = 0; i < NWORKERS; i++)
      pthread_create(&w[i], NULL, worker, NULL);
   pthread_create(&r, NULL, reporter, NULL);
   for (int i = 0; i < NWORKERS; i++)
      pthread_join(w[i], NULL);
   pthread_join(r, NULL);
   printf("cache: %zu bytes\n", cache_size);
   return 0;
}
