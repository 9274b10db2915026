/* cachepub_fixed.c: cachepub.c's correct twin, built -O2: the workers
 * publish the cache's size and base under one lock, and the reporter reads
 * both under it, so it sees both stores of a worker or neither.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: correct
 * cbtools-threads: 7
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NWORKERS 5

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static char arena[4096];
static size_t cache_size;
static char *cache_base;

static void *worker(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&cache_lock);
   cache_size = sizeof arena;
   cache_base = arena;
   pthread_mutex_unlock(&cache_lock);
   return NULL;
}

static void *reporter(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&cache_lock);
   size_t size = cache_size;
   char *base = cache_base;
   pthread_mutex_unlock(&cache_lock);
   if (size != 0 && base == NULL) {
      fprintf(stderr, "reporter: the cache has %zu bytes and no memory\n",
              size);
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
