/* pool.c: a connection pool whose clients check, then take, in two steps.
 *
 * The pool has one idle connection and two clients that each borrow it for
 * a moment.  A client looks under the lock whether a connection is idle,
 * lets the lock go, and takes the connection under the lock again; when it
 * is done it gives the connection back.  All of it is written straight in
 * the thread's start routine, as most thread code is.  The check and the
 * take are two critical sections: if the other client takes the last
 * connection between them, this one takes a connection that is not there
 * and the idle count goes below zero (the assert fails, the run aborts).
 *
 * Natively the second client starts long after the first has given its
 * connection back, so the window between check and take is almost never
 * hit.  Forcing the other client's take (f) between a client's check (e1)
 * and its own take (e2) makes the pool negative every time.
 *
 * cbtools-expect: bug RWR|RWW idle_conns
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
   int have = idle_conns > 0;                // cb: read idle_conns [e1]
   pthread_mutex_unlock(&pool_lock);         // cb: unlock pool_lock
   if (!have)
      return NULL;                           /* busy: try again later */

   pthread_mutex_lock(&pool_lock);
   idle_conns--;                             // cb: read idle_conns; write idle_conns [e2 f]
   assert(idle_conns >= 0);
   pthread_mutex_unlock(&pool_lock);

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
      fprintf(stderr, "pool: %d idle connections at the end, expected %d\n",
              idle_conns, POOL_SIZE);
      return 1;
   }
   return 0;
}
