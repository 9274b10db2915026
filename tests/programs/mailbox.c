/* mailbox.c: a one-slot mailbox whose reader frees the slot before it has
 * read the letter.
 *
 * main posts three print jobs, in order, then "no more jobs", through a
 * mailbox of one slot; the printer takes them out.  Both look at the box
 * every millisecond.  The printer, when it finds the box full, marks it
 * empty at once so that main can go on, and reads the job in a second
 * critical section.  Between the two, main can post the next job over the
 * one not yet read: the printer then prints job 2 as its first, one
 * iteration ahead of main, and job 1 is lost (its check of the order
 * fails; it still reads on to "no more jobs", so the run always ends).
 *
 * Natively the printer reads the job a few nanoseconds after freeing the
 * box, and main looks at the box once a millisecond.  Forcing main's store
 * of the next job (f) before the printer's read of the slot (e1 = e2: it
 * ran first in the recorded run) fails every time.
 *
 * cbtools-expect: bug ORD slot
 * cbtools-threads: 2
 * cbtools-blocks: printer
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define JOBS 3
#define NO_MORE_JOBS 0                       /* main's last post */

static int slot;                             /* the job in the box */
static int full;
static pthread_mutex_t box_lock = PTHREAD_MUTEX_INITIALIZER;

static void *printer(void *arg)
{
   (void)arg;
   int expect = 1, bad = 0;
   for (;;) {
      for (;;) {                             /* wait for mail */
         pthread_mutex_lock(&box_lock);      // cb: lock box_lock
         int got = 0;
         if (full) {                         // cb: read full
            full = 0;                        // cb: write full
            got = 1;
         }
         pthread_mutex_unlock(&box_lock);    // cb: unlock box_lock
         if (got)
            break;
         usleep(1000);
      }
      pthread_mutex_lock(&box_lock);
      int job = slot;                        // cb: read slot [e1 e2]
      pthread_mutex_unlock(&box_lock);
      if (job == NO_MORE_JOBS)
         break;
      if (job != expect) {
         fprintf(stderr, "mailbox: printed job %d, expected job %d\n", job,
                 expect);
         bad = 1;
      }
      expect = job + 1;
   }
   return (void *)(long)(bad || expect != JOBS + 1);
}

/* Returns 1 when the job went in, 0 when the box is still full. */
static int try_post(int job)
{
   pthread_mutex_lock(&box_lock);
   int room = 0;
   if (!full) {                              // cb: read full
      slot = job;                            // cb: write slot [f]
      full = 1;                              // cb: write full
      room = 1;
   }
   pthread_mutex_unlock(&box_lock);
   return room;
}

int main(void)
{
   pthread_t t;
   void *bad;
   pthread_create(&t, NULL, printer, NULL);
   for (int job = 1; job <= JOBS + 1; job++)
      while (!try_post(job <= JOBS ? job : NO_MORE_JOBS))
         usleep(1000);
   pthread_join(t, &bad);
   return bad != NULL;
}
