/* handoff.c: a log whose writers hand their lines to whichever writer holds
 * the log, instead of waiting for it.
 *
 * A writer takes the log with pthread_mutex_trylock, writes its line, then
 * writes out the lines other writers left in the queue, and lets the log
 * go.  A writer that finds the log busy queues its line (under the queue's
 * own lock) and goes on, trusting the holder to write it.  But the holder
 * looks at the queue only before it unlocks: a line queued after that look
 * is never written, and main's count of written lines comes up short.
 *
 * Natively each writer is done long before the other starts, so no trylock
 * ever fails: the hand-off path is not in the recorded run at all, and no
 * reordering of what is there loses a line.  Holding the first writer just
 * before its last unlock while the other writer runs loses one every time
 * (cbtest --explore).  handoff_fixed.c is the same log written correctly.
 *
 * cbtools-expect: explore explore log_lock
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
static int queue[WRITERS * LINES];     /* the lines left, for the holder */
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

static __attribute__((noinline)) void log_line(int line)
{
   if (pthread_mutex_trylock(&log_lock) != 0) {
      leave(line);                      /* busy: the holder writes it */
      return;
   }
   written++;                           // cb: write written
   drain();
   pthread_mutex_unlock(&log_lock);     // cb: unlock log_lock [d1]
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
