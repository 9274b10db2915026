/* settings.c: settings loaded on first use by double-checked locking, with
 * the "loaded" flag set before the settings are filled in.
 *
 * Two worker threads call get_settings().  The first to come takes the
 * lock, allocates the settings, marks them loaded and then fills in the
 * port.  A second worker that checks the flag in between (without the
 * lock: that is the point of double-checked locking) takes the half-built
 * settings and reads port 0 (main's check of what the workers saw fails).
 *
 * Natively the second worker comes long after the first has filled them
 * in.  Forcing its read of the port (f) before the first worker's write of
 * it (e1 = e2), with the first stopped just there, holding the lock, shows
 * port 0 every time.  Built -O2, as it would ship.
 *
 * cbtools-expect: bug ORD -
 * cbtools-cflags: -O2
 * cbtools-threads: 3
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct settings {
   int port;
   int verbose;
};

static struct settings *current;
static int loaded;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static struct settings *get_settings(void)
{
   if (!loaded) {
      pthread_mutex_lock(&load_lock);
      if (!loaded) {
         current = calloc(1, sizeof *current);
         loaded = 1;
         current->port = 8080;               // cb: write - [e1 e2]
         current->verbose = 1;
      }
      pthread_mutex_unlock(&load_lock);
   }
   return current;
}

static void *worker(void *arg)
{
   int *port = arg;
   struct settings *s = get_settings();
   *port = s ? s->port : -1;                 // cb: read - [f]
   return NULL;
}

int main(void)
{
   pthread_t t[2];
   int port[2];
   for (int i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, worker, &port[i]);
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   if (port[0] != 8080 || port[1] != 8080) {
      fprintf(stderr, "settings: the workers saw ports %d and %d, expected 8080\n",
              port[0], port[1]);
      return 1;
   }
   free(current);
   return 0;
}
