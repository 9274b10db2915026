/* session_fixed.c: session.c with the worker copying what it needs before
 * it says it has started.  Correct.
 *
 * The worker checks the session and copies the user while main still waits
 * for the handshake; after "started" it never touches the session again,
 * so main's free always comes after the worker's last read.
 *
 * cbtools-expect: correct
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
   free(s);                                  // cb: free -
}

static void *worker(void *arg)
{
   struct session *s = arg;
   int valid = s->magic == SESSION_MAGIC;    // cb: read -
   int user = s->user;                       // cb: read -

   pthread_mutex_lock(&start_lock);          // cb: lock start_lock
   started = 1;                              // cb: write started
   pthread_mutex_unlock(&start_lock);        // cb: unlock start_lock

   if (!valid) {
      fprintf(stderr, "session_fixed: the session was destroyed under the worker\n");
      return (void *)1;
   }
   return (void *)(long)(user != 1000);
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
   destroy_session(s);                       /* the worker is done with it */

   pthread_join(t, &bad);
   return bad != NULL;
}
