/* tally.c: a job counter bumped without its lock on a rare path, for
 * tests/t/69-replay-hunt.t.  Four workers take jobs from a shared index
 * (under qlock) and count each done job under slock, except the slow
 * ones, whose `stats.done++` comes after the lock is dropped (-DFIXED:
 * inside it).  Built -O2 the increment is one instruction, `addq $1`; an
 * update lost fails with "tally: N done, want 20000". */
#include <pthread.h>
#include <stdio.h>
#define NJOBS 20000
#define NWORKERS 4
struct job { int cost; long result; };
static struct job jobs[NJOBS];
static int next_job;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t slock = PTHREAD_MUTEX_INITIALIZER;
static struct { long done, slow; } stats;

static void *worker(void *arg)
{
   (void)arg;
   for (;;) {
      pthread_mutex_lock(&qlock);
      int j = next_job < NJOBS ? next_job++ : -1;
      pthread_mutex_unlock(&qlock);
      if (j < 0)
         return NULL;
      long h = jobs[j].cost;
      for (int i = 0; i < jobs[j].cost; i++)
         h = h * 31 + i;
      jobs[j].result = h;
      pthread_mutex_lock(&slock);
      if (jobs[j].cost > 250) {
         stats.slow++;
#ifdef FIXED
         stats.done++;
#endif
         pthread_mutex_unlock(&slock);
#ifndef FIXED
         stats.done++; /* after the unlock */
#endif
      } else {
         stats.done++;
         pthread_mutex_unlock(&slock);
      }
   }
}

int main(void)
{
   pthread_t t[NWORKERS];
   for (int i = 0; i < NJOBS; i++)
      jobs[i].cost = (i * 7919) % 256;
   for (int i = 0; i < NWORKERS; i++)
      pthread_create(&t[i], NULL, worker, NULL);
   for (int i = 0; i < NWORKERS; i++)
      pthread_join(t[i], NULL);
   if (stats.done != NJOBS) {
      fprintf(stderr, "tally: %ld done, want %d\n", stats.done, NJOBS);
      return 1;
   }
   printf("tally: %d done, %ld slow\n", NJOBS, stats.slow);
   return 0;
}
