/* rwcache_fixed.c: rwcache.c with the lookups, which count themselves in
 * the cache's statistics, under the write lock: a lookup writes, so it is
 * a writer.  Two lookups never overlap, and no forced run may lose a hit.
 *
 * cbtools-expect: correct
 * cbtools-cflags: -O2
 * cbtools-threads: 3
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define CLIENTS 2
#define LOOKUPS 4

struct entry {
   const char *key;
   int value;
};

static pthread_rwlock_t cache_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct entry cache[] = {
   { "timeout_ms", 250 }, { "retries", 3 }, { "port", 8080 },
};
#define NENTRIES (sizeof cache / sizeof cache[0])
static struct { long hits; const struct entry *last_used; } cache_stats;

/* Counts a hit on e, and remembers e as the last entry used. */
static void touch(const struct entry *e)
{
   cache_stats.hits++;                  // cb: read cache_stats.hits; write cache_stats.hits
   cache_stats.last_used = e;
}

static int lookup(const char *key, int fallback)
{
   int v = fallback;
   pthread_rwlock_wrlock(&cache_lock);  // cb: lock cache_lock
   for (size_t i = 0; i < NENTRIES; i++)
      if (strcmp(cache[i].key, key) == 0) {
         v = cache[i].value;
         touch(&cache[i]);
         break;
      }
   pthread_rwlock_unlock(&cache_lock);  // cb: unlock cache_lock
   return v;
}

static void *client(void *arg)
{
   long total = 0;
   for (int i = 0; i < LOOKUPS; i++)
      total += lookup("timeout_ms", 100);
   return total == LOOKUPS * 250 ? NULL : arg;
}

int main(void)
{
   pthread_t t[CLIENTS];
   void *bad = NULL;
   for (long i = 0; i < CLIENTS; i++)
      pthread_create(&t[i], NULL, client, (void *)(i + 1));
   for (int i = 0; i < CLIENTS; i++) {
      void *r;
      pthread_join(t[i], &r);
      if (r) bad = r;
   }
   long hits = cache_stats.hits;
   if (bad || hits != CLIENTS * LOOKUPS) {
      fprintf(stderr, "rwcache: %ld hits counted for %d lookups\n", hits, CLIENTS * LOOKUPS);
      return 1;
   }
   printf("rwcache: %ld lookups\n", hits);
   return 0;
}
