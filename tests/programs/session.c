/* session.c: a worker that reads its session after telling main it has it.
 *
 * main hands a login session (on the heap) to a new worker thread and waits
 * until the worker says it has started (it looks at a flag once a
 * millisecond); then main destroys the session: it wipes it (the key is a
 * secret) and frees it.  The worker says "started" first and reads the
 * session after: the handshake orders the start, not the worker's use of
 * the session, so main can free it under the worker's feet (the worker's
 * magic-number check sees the wiped memory and fails).
 *
 * Natively main looks at the flag once a millisecond, and the worker reads
 * the session a few nanoseconds after setting it.
 * Forcing main's free (f) before the worker's read (e1 = e2: it ran first
 * in the recorded run) fails every time.
 *
 * cbtools-expect: bug ORD -
 * cbtools-threads: 2
 * cbtools-blocks: worker
 * cbtools-exit: 0
 */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SESSION_MAGIC 0x5e55104u

struct session {
   unsigned magic;
   int user;
   char key[16];
};

static int started;
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

static void destroy_session(struct session *s)
{
   explicit_bzero(s, sizeof *s);
   free(s);                                  // cb: free - [f]
}

static void *worker(void *arg)
{
   struct session *s = arg;
   pthread_mutex_lock(&start_lock);          // cb: lock start_lock
   started = 1;                              // cb: write started
   pthread_mutex_unlock(&start_lock);        // cb: unlock start_lock

   if (s->magic != SESSION_MAGIC) {          // cb: read - [e1 e2]
      fprintf(stderr, "session: the session was destroyed under the worker\n");
      return (void *)1;
   }
   return (void *)(long)(s->user != 1000);   // cb: read - [e1 e2]
}

int main(void)
{
   pthread_t t;
   void *bad;
   struct session *s = malloc(sizeof *s);
   if (s == NULL)
      return 2;
   s->magic = SESSION_MAGIC;                 // cb: write -
   s->user = 1000;
   memcpy(s->key, "0123456789abcdef", sizeof s->key);
   pthread_create(&t, NULL, worker, s);

   for (;;) {                                /* wait for the worker */
      pthread_mutex_lock(&start_lock);
      int up = started;                      // cb: read started
      pthread_mutex_unlock(&start_lock);
      if (up)
         break;
      usleep(1000);
   }
   destroy_session(s);                       /* the worker has it now */

   pthread_join(t, &bad);
   return bad != NULL;
}
