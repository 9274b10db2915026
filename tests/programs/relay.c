/* relay.c: a value relayed down a line of worker threads that main never
 * waits for, built -O2.
 *
 * main starts two relays and a verifier and returns, as a program whose
 * workers are fire-and-forget does.  The first relay copies the input into
 * the first stage, the second copies the first stage into the second, and
 * the verifier, once both say they are done, checks that the value came
 * through.  Each step is under the line's lock, but nothing orders the
 * relays: when the second copies before the first has written, the value
 * lost on the way is 0, and the verifier aborts.
 *
 * Natively, and in a run where the exit is not held, main's return ends
 * the process before the workers have done much: the verifier never gets
 * to look, and the recorded run hardly sees the relays.  The tool holds
 * exit() until the other threads have ended or block (cb_preload_misc.c):
 * the recorded run sees all three, and forcing the second relay's read
 * (f) before the first relay's write (e1 = e2) makes the verifier abort
 * every time.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: bug ORD stage1
 * cbtools-threads: 4
 * cbtools-joins: 0
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t line = PTHREAD_MUTEX_INITIALIZER;
static int input = 7;
static int stage1, stage2;
static int relayed1, relayed2;

static void *relay_first(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&line);
   stage1 = input;                           // cb: write stage1 [e1 e2]
   relayed1 = 1;
   pthread_mutex_unlock(&line);
   return NULL;
}

static void *relay_second(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&line);
   stage2 = stage1;                          // cb: read stage1 [f]
   relayed2 = 1;
   pthread_mutex_unlock(&line);
   return NULL;
}

static void *verifier(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&line);
   if (relayed1 && relayed2 && stage2 != input) {
      fprintf(stderr, "relay: %d arrived, %d was sent\n", stage2, input);
      abort();
   }
   pthread_mutex_unlock(&line);
   return NULL;
}

int main(void)
{
   pthread_t t;
   pthread_create(&t, NULL, relay_first, NULL);
   pthread_detach(t);
   pthread_create(&t, NULL, relay_second, NULL);
   pthread_detach(t);
   pthread_create(&t, NULL, verifier, NULL);
   pthread_detach(t);
   return 0;
}
