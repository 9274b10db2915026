/* reaper_fixed.c: reaper.c with close_idle() checking the count again
 * under the lock: the reaper's unlocked read is only a hint.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: correct
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
   if (pool.nidle <= 1) {
      pthread_mutex_unlock(&pool.lock);
      return;
   }
   struct conn *c = pool.idle[--pool.nidle];
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
      if (pool.nidle > 1)
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
      got[n++] = pool.idle[--pool.nidle];
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
