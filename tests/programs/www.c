/* www.c: a WWW atomicity violation, a lost cancellation.
 *
 * WWW (PENELOPE section 3.1): inside one block thread T writes x twice, and
 * another thread writes x between the writes; T's second write silently
 * overwrites it.  run_job() marks the job started, sets its state to RUNNING,
 * then to DONE.  cancel() sets the state of a started job to CANCELLED and
 * tells its caller that it did.  A cancel between RUNNING and DONE is
 * acknowledged and then lost: the job ends DONE although the canceller was
 * told it was cancelled.
 *
 * Natively the canceller sleeps a little before cancelling, by which time the
 * job has long finished, so the program passes.  Forcing the cancel's write
 * (f) between the two writes of the state (e1, e2) loses it (exit 1).  The
 * sleep also makes the recorded run see the job started, so the cancel's
 * write is in the trace.
 *
 * cbtools-expect: bug WWW state
 * cbtools-threads: 3
 * cbtools-blocks: run_job cancel worker canceller
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { IDLE, RUNNING, DONE, CANCELLED };

volatile int started = 0;
volatile int state = IDLE;

/* The block that should be atomic. */
__attribute__((noinline, noclone)) void run_job(void)
{
   started = 1;                 // cb: write started
   state = RUNNING;             // cb: write state [e1]
   state = DONE;                // cb: write state [e2]
}

/* Returns 1 when the job was cancelled. */
__attribute__((noinline, noclone)) int cancel(void)
{
   if (!started)                // cb: read started
      return 0;
   state = CANCELLED;           // cb: write state [f]
   return 1;
}

void *worker(void *arg)
{
   (void)arg;
   run_job();
   return NULL;
}

void *canceller(void *arg)
{
   (void)arg;
   usleep(20000);
   return (void *)(long)cancel();
}

int main(void)
{
   pthread_t w, c;
   void *cancelled;
   pthread_create(&w, NULL, worker, NULL);
   pthread_create(&c, NULL, canceller, NULL);
   pthread_join(w, NULL);
   pthread_join(c, &cancelled);
   if (cancelled && state != CANCELLED) {
      fprintf(stderr, "www: the cancel was acknowledged, then lost\n");
      return 1;
   }
   return 0;
}
