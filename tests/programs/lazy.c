/* lazy.c: a database handle opened on first use, and opened twice.
 *
 * Two request threads each call get_db(), which connects to the database
 * the first time it is called and hands out the same handle afterwards.
 * The check for "not connected yet" and the store of the new handle are
 * not atomic: a second thread that looks before the first has stored its
 * handle connects again, and the database sees two sessions from this
 * process where it allows one (main's check of sessions_opened fails).
 *
 * In the recorded run the first thread connects and the second finds the
 * handle already there (it takes the already-initialised branch).  Forcing
 * the second thread's look (f) before the first thread's store (e1 = e2:
 * it ran first in the recorded run) connects twice every time.
 *
 * cbtools-expect: bug ORD db
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

static struct db *connect_db(void)
{
   /* ... the handshake with the server ... */
   the_db.session = ++sessions_opened;
   return &the_db;
}

static struct db *get_db(void)
{
   if (db == NULL)                           // cb: read db [f]
      db = connect_db();                     // cb: write db [e1 e2]
   return db;
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
      fprintf(stderr, "lazy: %d sessions opened, %d queries, expected 1 and 2\n",
              sessions_opened, the_db.queries);
      return 1;
   }
   return 0;
}
