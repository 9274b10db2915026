/* glib_once.c: a configuration and a worker pool made on first use, once,
 * with GLib's two once idioms.  Correct.
 *
 * Two request threads each call get_config() and get_pool().  The
 * configuration is loaded under g_once_init_enter / g_once_init_leave,
 * the pool made by g_once.  Either lets one caller run the
 * initialisation; a caller that comes while it runs waits for it, and
 * one that comes later finds it done (the macros test that inline, and
 * then call nothing).  Either way a caller sees the initialised fields,
 * and each initialisation runs once (main checks both).
 *
 * cbtools-pkg: glib-2.0
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: get_config make_pool request
 * cbtools-exit: 0
 */
#include <glib.h>
#include <stdio.h>

struct config { int port; int workers; };
struct pool { int size; };

static struct config the_config;
static struct pool the_pool;
static int loads, pools_made;

static __attribute__((noinline)) struct config *get_config(void)
{
   static gsize loaded;
   if (g_once_init_enter(&loaded)) {
      loads++;                                // cb: write loads
      the_config.port = 8080;                 // cb: write the_config.port
      the_config.workers = 4;
      g_once_init_leave(&loaded, 1);
   }
   return &the_config;
}

static gpointer make_pool(gpointer size)
{
   pools_made++;                              // cb: write pools_made
   the_pool.size = GPOINTER_TO_INT(size);     // cb: write the_pool.size
   return &the_pool;
}

static struct pool *get_pool(void)
{
   static GOnce made = G_ONCE_INIT;
   return g_once(&made, make_pool, GINT_TO_POINTER(4));
}

static gpointer request(gpointer unused)
{
   (void)unused;
   struct config *c = get_config();
   struct pool *p = get_pool();
   if (c->port != 8080 || c->workers != p->size) { // cb: read the_config.port; read the_pool.size
      fprintf(stderr, "glib_once: a request saw port %d, %d workers, a pool"
              " of %d\n", c->port, c->workers, p->size);
      return GINT_TO_POINTER(1);
   }
   return NULL;
}

int main(void)
{
   GThread *a = g_thread_new("request-a", request, NULL);
   GThread *b = g_thread_new("request-b", request, NULL);
   gboolean bad = g_thread_join(a) != NULL;
   bad |= g_thread_join(b) != NULL;
   if (loads != 1 || pools_made != 1) {
      fprintf(stderr, "glib_once: the configuration was loaded %d times, the"
              " pool made %d times\n", loads, pools_made);
      return 1;
   }
   return bad;
}
