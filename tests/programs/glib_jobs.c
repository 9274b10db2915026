/* glib_jobs.c: a producer hands jobs to a consumer through one slot
 * guarded by a GMutex, with two GConds.  Correct.
 *
 * The producer waits on not_full until the slot is empty, fills it and
 * signals not_empty; the consumer waits on not_empty until the slot is
 * full, empties it and signals not_full.  Each check of the slot is made
 * under the mutex and in a loop around the wait, so every job is taken
 * exactly once, in order, whatever the schedule (main checks the sum).
 *
 * cbtools-pkg: glib-2.0
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: produce consume
 * cbtools-exit: 0
 */
#include <glib.h>
#include <stdio.h>

#define JOBS 3

static GMutex slot_lock;
static GCond not_full, not_empty;
static gboolean slot_full;
static int slot;
static int done_sum;

static gpointer produce(gpointer unused)
{
   (void)unused;
   for (int job = 1; job <= JOBS; job++) {
      g_mutex_lock(&slot_lock);               // cb: lock slot_lock
      while (slot_full)
         g_cond_wait(&not_full, &slot_lock);
      slot = job;                             // cb: write slot
      slot_full = TRUE;
      g_cond_signal(&not_empty);              // cb: signal not_empty
      g_mutex_unlock(&slot_lock);             // cb: unlock slot_lock
   }
   return NULL;
}

static gpointer consume(gpointer unused)
{
   (void)unused;
   for (int n = 0; n < JOBS; n++) {
      g_mutex_lock(&slot_lock);
      while (!slot_full)
         g_cond_wait(&not_empty, &slot_lock); // cb: wait not_empty
      done_sum += slot;                       // cb: read slot
      slot_full = FALSE;
      g_cond_signal(&not_full);
      g_mutex_unlock(&slot_lock);
   }
   return NULL;
}

int main(void)
{
   GThread *consumer = g_thread_new("consumer", consume, NULL);
   GThread *producer = g_thread_new("producer", produce, NULL);
   g_thread_join(producer);
   g_thread_join(consumer);
   if (done_sum != JOBS * (JOBS + 1) / 2) {
      fprintf(stderr, "glib_jobs: the jobs add up to %d, expected %d\n",
              done_sum, JOBS * (JOBS + 1) / 2);
      return 1;
   }
   return 0;
}
