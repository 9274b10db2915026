/* rwcache.c: a settings cache whose lookups count themselves under the
 * read lock.
 *
 * The cache's entries are guarded by a pthread_rwlock: lookups take it to
 * read, a reload would take it to write.  A lookup also counts its hit and
 * remembers the entry it found (the cache's statistics), and since "it is
 * only bookkeeping" that went inside the read-locked section already
 * there.  Two readers hold the lock at once: both read the count, both
 * write it back plus one, and a hit is lost (main's check of the hits
 * against the lookups made fails, exit 1).  At -O2 the count is one
 * instruction, `addq $1,cache_stats(%rip)`, which replay splits between
 * its load and its store (vgtool/cb_split.c).
 *
 * Natively each lookup's section is short and the clients rarely overlap.
 * Forcing one client's update of the count (f) between the other's read
 * (e1) and write (e2) of it, both inside their read locks, loses a hit
 * every time (so does an order violation that moves one client's read of
 * the count before the other's write with the other stopped between its
 * read and its write; one that moves a whole section does not).  While
 * cbpredict took two read holds of an rwlock to exclude each other it
 * predicted neither, only whole sections moved.  Built -O2, as it would
 * ship.
 *
 * cbtools-expect: bug RWW cache_stats.hits
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
   cache_stats.hits++;                  // cb: read cache_stats.hits [e1]; write cache_stats.hits [e2 f]
   cache_stats.last_used = e;
}

static int lookup(const char *key, int fallback)
{
   int v = fallback;
   pthread_rwlock_rdlock(&cache_lock);  // cb: lock cache_lock
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
