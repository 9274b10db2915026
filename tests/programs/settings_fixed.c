/* settings_fixed.c: settings.c with the settings filled in before they are
 * published, and the flag read and set with acquire/release atomics, as
 * double-checked locking must be written.
 *
 * cbtools-expect: correct
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
   if (!__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) {
      pthread_mutex_lock(&load_lock);
      if (!loaded) {
         struct settings *s = calloc(1, sizeof *s);
         s->port = 8080;                     // cb: write -
         s->verbose = 1;
         current = s;
         __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
      }
      pthread_mutex_unlock(&load_lock);
   }
   return current;
}

static void *worker(void *arg)
{
   int *port = arg;
   struct settings *s = get_settings();
   *port = s ? s->port : -1;                 // cb: read -
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
