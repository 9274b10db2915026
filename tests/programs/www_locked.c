/* www_locked.c: www.c with the job and the cancel under one mutex.  Correct:
 * a cancel comes either before the job starts (and is refused) or after it
 * is done (and sticks).
 *
 * cbtools-expect: correct
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
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline, noclone)) void run_job(void)
{
   pthread_mutex_lock(&lock);   // cb: lock lock
   started = 1;                 // cb: write started
   state = RUNNING;             // cb: write state
   state = DONE;                // cb: write state
   pthread_mutex_unlock(&lock); // cb: unlock lock
}

__attribute__((noinline, noclone)) int cancel(void)
{
   int done = 0;
   pthread_mutex_lock(&lock);   // cb: lock lock
   if (started) {               // cb: read started
      state = CANCELLED;        // cb: write state
      done = 1;
   }
   pthread_mutex_unlock(&lock); // cb: unlock lock
   return done;
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
   usleep(200000); /* the worker has run by then, on a loaded machine too:
                      the check records the cancel's write (line 34) */
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
      fprintf(stderr, "www_locked: the cancel was lost\n");
      return 1;
   }
   return 0;
}
