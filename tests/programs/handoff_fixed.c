/* handoff_fixed.c: handoff.c's log written correctly.  Correct.
 *
 * A writer that finds the log busy queues its line, then tries the log
 * once more; the holder, after it unlocks, looks at the queue again and
 * takes the log back while lines wait.  A queued line is then always
 * written: either its writer's second try gets the log, or the log had a
 * holder at that moment, whose look after unlocking comes later than the
 * line (and if that holder cannot take the log back, whoever took it
 * drains after the line was queued).
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: log_line writer
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

#define WRITERS 2
#define LINES 2 /* per writer */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static int queue[WRITERS * LINES];
static int queued;                      /* lines waiting in queue[] */
static int written;                     /* lines the log holds */

/* Writes out every queued line; the caller holds the log. */
static __attribute__((noinline)) void drain(void)
{
   pthread_mutex_lock(&queue_lock);
   if (queued > 0) {                    // cb: read queued
      written += queued;
      queued = 0;
   }
   pthread_mutex_unlock(&queue_lock);
}

static __attribute__((noinline)) void leave(int line)
{
   pthread_mutex_lock(&queue_lock);
   queue[queued++] = line;
   pthread_mutex_unlock(&queue_lock);
}

static __attribute__((noinline)) int waiting(void)
{
   pthread_mutex_lock(&queue_lock);
   int n = queued;                      // cb: read queued
   pthread_mutex_unlock(&queue_lock);
   return n;
}

static __attribute__((noinline)) void log_line(int line)
{
   if (pthread_mutex_trylock(&log_lock) == 0) {
      written++;                        // cb: write written
   } else {
      leave(line);                      /* busy: queued, then one more try */
      if (pthread_mutex_trylock(&log_lock) != 0)
         return;                        /* the holder will look again */
   }
   for (;;) {
      drain();
      pthread_mutex_unlock(&log_lock);  // cb: unlock log_lock
      if (!waiting() || pthread_mutex_trylock(&log_lock) != 0)
         break;
   }
}

static void *writer(void *arg)
{
   int id = (int)(long)arg;
   for (int k = 0; k < LINES; k++)
      log_line(id * LINES + k);
   return NULL;
}

int main(void)
{
   pthread_t t[WRITERS];
   for (long i = 0; i < WRITERS; i++)
      pthread_create(&t[i], NULL, writer, (void *)i);
   for (int i = 0; i < WRITERS; i++)
      pthread_join(t[i], NULL);
   if (written != WRITERS * LINES) {
      fprintf(stderr, "handoff: %d of %d lines written\n", written,
              WRITERS * LINES);
      return 1;
   }
   return 0;
}
