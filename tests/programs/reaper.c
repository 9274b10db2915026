/* reaper.c: a connection pool keeps idle connections on a stack under its
 * lock.  A reaper thread closes one when more than one is idle, deciding
 * on the count read without the lock; close_idle() then pops without
 * checking again.  A handler checks out two connections per request.
 * Built -O2, the work in the start routines.
 *
 * Only the reaper's last check can go wrong: it reads 2, the handler takes
 * both, and the pop runs below the bottom.  Its first check reads 4 (the
 * handler leaves 2), its second 3 (1 left): forced between them, the
 * handler's take breaks nothing.  cbpredict keeps one candidate per sites
 * and threads, the first, and beside it the latest instance of its
 * check-and-act when that read another value (predict/cut_decide.c,
 * make_later).
 *
 * cbtools-cflags: -O2
 * cbtools-expect: bug RWR|RWW pool.nidle
 * cbtools-threads: 3
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NCONN 4

struct conn { int fd; int uses; };

static struct {
   pthread_mutex_t lock;
   int nidle;
   struct conn *idle[NCONN];
   int closed;
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void spin(int n)
{
   volatile unsigned w = 0;
   for (int k = 0; k < n; k++)
      w += k;
}

static void close_idle(void)
{
   pthread_mutex_lock(&pool.lock);
   struct conn *c = pool.idle[--pool.nidle]; // cb: read pool.nidle [e2]
   pool.closed++;
   pthread_mutex_unlock(&pool.lock);
   if (!c || c->fd < 0) {
      fprintf(stderr, "reaper: closed a connection that was not there\n");
      exit(1);
   }
   c->fd = -1;
}

static void *reaper(void *arg)
{
   (void)arg;
   for (int round = 0; round < 3; round++) {
      spin(20000);
      if (pool.nidle > 1) // cb: read pool.nidle [e1]
         close_idle();
   }
   return NULL;
}

static void *handler(void *arg)
{
   (void)arg;
   spin(5000);
   struct conn *got[2] = {NULL, NULL};
   int n = 0;
   pthread_mutex_lock(&pool.lock);
   while (n < 2 && pool.nidle > 0)
      got[n++] = pool.idle[--pool.nidle]; // cb: write pool.nidle [f]
   pthread_mutex_unlock(&pool.lock);
   for (int i = 0; i < n; i++)
      got[i]->uses++;
   spin(20000);
   pthread_mutex_lock(&pool.lock);
   for (int i = 0; i < n; i++)
      pool.idle[pool.nidle++] = got[i];
   pthread_mutex_unlock(&pool.lock);
   return NULL;
}

int main(void)
{
   for (int i = 0; i < NCONN; i++) {
      pool.idle[i] = calloc(1, sizeof *pool.idle[i]);
      pool.idle[i]->fd = 10 + i;
   }
   pool.nidle = NCONN;
   pthread_t h, r;
   pthread_create(&h, NULL, handler, NULL);
   pthread_create(&r, NULL, reaper, NULL);
   pthread_join(h, NULL);
   pthread_join(r, NULL);
   printf("reaper: %d idle, %d closed\n", pool.nidle, pool.closed);
   return 0;
}
