/* sharedreq: a listener fills one request structure per connection and
 * hands each handler its address, the way the examples in many tutorials
 * pass `&i`: the handlers copy it out only once they start (after a
 * short setup), by when the listener has refilled it for the next
 * connection.  Each port should be served once; in practically every run
 * some are served twice and others never.  One handler's copy forced
 * before the refill that overtook it cures nothing (the others still copy
 * late); every handler's, each before the refill after its own creation,
 * does (tests/t/70-cbtest-cures.t).  -DFIXED gives each handler its own
 * copy: the correct twin. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NCONN 4

struct request {
   int port;
   int fd;
};

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int served[NCONN];

static void *handler(void *arg)
{
   usleep(2000); /* TLS setup */
   struct request req = *(struct request *)arg;
   pthread_mutex_lock(&log_lock);
   if (req.port >= 8000 && req.port < 8000 + NCONN)
      served[req.port - 8000]++;
   pthread_mutex_unlock(&log_lock);
   return NULL;
}

int main(void)
{
   pthread_t th[NCONN];
#ifdef FIXED
   struct request reqs[NCONN];
#else
   struct request req;
#endif
   for (int c = 0; c < NCONN; c++) {
#ifdef FIXED
      struct request *r = &reqs[c];
#else
      struct request *r = &req;
#endif
      r->port = 8000 + c;
      r->fd = 10 + c;
      pthread_create(&th[c], NULL, handler, r);
   }
   for (int c = 0; c < NCONN; c++)
      pthread_join(th[c], NULL);
   int bad = 0;
   for (int c = 0; c < NCONN; c++)
      if (served[c] != 1) {
         fprintf(stderr, "sharedreq: port %d served %d times\n", 8000 + c, served[c]);
         bad = 1;
      }
   return bad;
}
