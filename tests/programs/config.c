/* config.c: a server thread that reads its settings before main has
 * loaded them.
 *
 * main starts the server thread, opens the listening socket (it sets
 * `listening`), then reads the configuration file.  The server waits until
 * the socket is open, takes its first connection and reads the timeout from
 * the configuration.  The flag says the socket is open, not that the
 * configuration is loaded: a server that sees the flag before main has
 * stored the timeout serves with no timeout, and refuses.
 *
 * Natively the new thread needs tens of microseconds to start, and by then
 * main has set the flag and stored the timeout, a few nanoseconds apart.
 * Forcing the server's read of the timeout (f) before main's write (e1 =
 * e2: it ran first in the recorded run) fails every time.
 *
 * cbtools-expect: bug ORD cfg_timeout
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
   if (cfg_timeout <= 0) {                   // cb: read cfg_timeout [f]
      fprintf(stderr, "config: a connection with no timeout\n");
      return (void *)1;
   }
   return NULL;
}

static void load_config(void)
{
   cfg_timeout = 30;                         // cb: write cfg_timeout [e1 e2]
   cfg_max_clients = 64;
}

int main(void)
{
   pthread_t t;
   void *bad;
   pthread_create(&t, NULL, server, NULL);

   pthread_mutex_lock(&state_lock);          /* the socket is open */
   listening = 1;                            // cb: write listening
   pthread_mutex_unlock(&state_lock);

   load_config();
   pthread_join(t, &bad);
   return bad != NULL;
}
