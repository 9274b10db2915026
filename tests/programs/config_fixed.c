/* config_fixed.c: config.c with the configuration loaded before the socket
 * is opened.  Correct.
 *
 * main stores the settings, then sets `listening` under the lock; the
 * server reads the settings only after it has seen `listening` set under
 * the same lock, so the store comes before the load in every run.
 *
 * cbtools-expect: correct
 * cbtools-threads: 2
 * cbtools-blocks: server
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static int cfg_timeout;                      /* seconds; 0 until loaded */
static int cfg_max_clients;
static int listening;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

static void *server(void *arg)
{
   (void)arg;
   for (;;) {
      pthread_mutex_lock(&state_lock);       // cb: lock state_lock
      int up = listening;                    // cb: read listening
      pthread_mutex_unlock(&state_lock);     // cb: unlock state_lock
      if (up)
         break;
      sched_yield();
   }

   /* The first connection: it gets the configured timeout. */
   if (cfg_timeout <= 0) {                   // cb: read cfg_timeout
      fprintf(stderr, "config_fixed: a connection with no timeout\n");
      return (void *)1;
   }
   return NULL;
}

static void load_config(void)
{
   cfg_timeout = 30;                         // cb: write cfg_timeout
   cfg_max_clients = 64;
}

int main(void)
{
   pthread_t t;
   void *bad;
   pthread_create(&t, NULL, server, NULL);
   load_config();

   pthread_mutex_lock(&state_lock);          /* the socket is open */
   listening = 1;                            // cb: write listening
   pthread_mutex_unlock(&state_lock);

   pthread_join(t, &bad);
   return bad != NULL;
}
