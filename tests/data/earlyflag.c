/* earlyflag: a loader announces its configuration before it has filled it
 * in.  The worker waits, as it should, on the condition for `loaded`; the
 * loader sets `loaded` and signals under the mutex, then does the slow
 * part (the lookup) and fills `cfg` after the unlock.  The worker copies
 * `cfg` out as soon as it wakes: in practically every run, natively and
 * under Valgrind, it gets zeros.  Nothing of one thread alone shows the
 * cause (each thread's accesses are in order); the order between the two
 * threads does: the worker's copy came before the loader's fill.
 * -DFIXED fills cfg before announcing it: the correct twin.
 * (tests/t/70-cbtest-cures.t) */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct config {
   int port;
   int workers;
   char host[24];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int loaded;
static struct config cfg;

static void fill(struct config *c)
{
   usleep(3000); /* the lookup */
   c->port = 8080;
   c->workers = 4;
   strcpy(c->host, "localhost");
}

static void *loader(void *arg)
{
   (void)arg;
#ifdef FIXED
   fill(&cfg);
#endif
   pthread_mutex_lock(&lock);
   loaded = 1;
   pthread_cond_broadcast(&changed);
   pthread_mutex_unlock(&lock);
#ifndef FIXED
   fill(&cfg);
#endif
   return NULL;
}

static void *worker(void *arg)
{
   struct config mine;
   pthread_mutex_lock(&lock);
   while (!loaded)
      pthread_cond_wait(&changed, &lock);
   pthread_mutex_unlock(&lock);
   mine = cfg;
   if (mine.port == 0 || mine.host[0] == '\0') {
      fprintf(stderr, "earlyflag: worker started with no configuration "
                      "(port %d, host '%s')\n", mine.port, mine.host);
      *(int *)arg = 1;
      return NULL;
   }
   printf("serving %s:%d with %d workers\n", mine.host, mine.port, mine.workers);
   return NULL;
}

int main(void)
{
   pthread_t w, l;
   int bad = 0;
   pthread_create(&w, NULL, worker, &bad);
   pthread_create(&l, NULL, loader, NULL);
   pthread_join(l, NULL);
   pthread_join(w, NULL);
   return bad;
}
