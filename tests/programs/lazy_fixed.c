/* lazy_fixed.c: lazy.c with the handle opened under pthread_once.  Correct.
 *
 * get_db() connects through pthread_once, which runs connect_db() exactly
 * once and makes every caller wait until it has returned, so the database
 * sees one session whatever the order of the requests.
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: request
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

struct db {
   pthread_mutex_t lock;
   int session;
   int queries;
};

static struct db the_db = { .lock = PTHREAD_MUTEX_INITIALIZER };
static struct db *db;                        /* NULL until connected */
static int sessions_opened;
static pthread_once_t connected = PTHREAD_ONCE_INIT;

static void connect_db(void)
{
   /* ... the handshake with the server ... */
   the_db.session = ++sessions_opened;
   db = &the_db;                             // cb: write db
}

static struct db *get_db(void)
{
   pthread_once(&connected, connect_db);
   return db;                                // cb: read db
}

static void *request(void *arg)
{
   (void)arg;
   struct db *d = get_db();
   pthread_mutex_lock(&d->lock);
   d->queries++;                             /* ... run the query ... */
   pthread_mutex_unlock(&d->lock);
   return NULL;
}

int main(void)
{
   pthread_t t1, t2;
   pthread_create(&t1, NULL, request, NULL);
   pthread_create(&t2, NULL, request, NULL);
   pthread_join(t1, NULL);
   pthread_join(t2, NULL);
   if (sessions_opened != 1 || the_db.queries != 2) {
      fprintf(stderr, "lazy_fixed: %d sessions opened, %d queries, expected 1 and 2\n",
              sessions_opened, the_db.queries);
      return 1;
   }
   return 0;
}
