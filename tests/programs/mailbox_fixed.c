/* mailbox_fixed.c: mailbox.c with the letter read and the box freed in one
 * critical section.  Correct.
 *
 * The printer reads the job and marks the box empty while holding the
 * lock, so main can post the next job only after the printer has the
 * current one: the printer prints 1, 2, 3 in every run.
 *
 * cbtools-expect: correct
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
      int job = 0;
      for (;;) {                             /* wait for mail */
         pthread_mutex_lock(&box_lock);      // cb: lock box_lock
         int got = 0;
         if (full) {                         // cb: read full
            job = slot;                      // cb: read slot
            full = 0;                        // cb: write full
            got = 1;
         }
         pthread_mutex_unlock(&box_lock);    // cb: unlock box_lock
         if (got)
            break;
         usleep(1000);
      }
      if (job == NO_MORE_JOBS)
         break;
      if (job != expect) {
         fprintf(stderr, "mailbox_fixed: printed job %d, expected job %d\n",
                 job, expect);
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
      slot = job;                            // cb: write slot
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
