/* pool_fixed.c: pool.c with the check and the take in one critical
 * section.  Correct.
 *
 * A client looks for an idle connection and takes it while holding the pool
 * lock, so no other client can take it in between; a client that finds the
 * pool empty goes away.  No schedule can make the pool negative.
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: client
 * cbtools-exit: 0
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define POOL_SIZE 1
#define CLIENTS 2

static int idle_conns = POOL_SIZE;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

static void *client(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&pool_lock);           // cb: lock pool_lock
   int have = idle_conns > 0;                // cb: read idle_conns
   if (have) {
      idle_conns--;                          // cb: write idle_conns
      assert(idle_conns >= 0);
   }
   pthread_mutex_unlock(&pool_lock);         // cb: unlock pool_lock
   if (!have)
      return NULL;                           /* busy: try again later */

   /* ... run the query on the connection ... */

   pthread_mutex_lock(&pool_lock);
   idle_conns++;                             // cb: write idle_conns
   pthread_mutex_unlock(&pool_lock);
   return NULL;
}

int main(void)
{
   pthread_t t[CLIENTS];
   for (int i = 0; i < CLIENTS; i++)
      pthread_create(&t[i], NULL, client, NULL);
   for (int i = 0; i < CLIENTS; i++)
      pthread_join(t[i], NULL);
   if (idle_conns != POOL_SIZE) {
      fprintf(stderr, "pool_fixed: %d idle connections at the end, expected %d\n",
              idle_conns, POOL_SIZE);
      return 1;
   }
   return 0;
}
