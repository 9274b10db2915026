/* lockheavy.c: a lock-heavy program for `make bench` (scripts/bench-record.sh).
 *
 * Eight threads take one mutex, 200,000 acquisitions in all, and increment
 * a shared counter under it: nearly every instruction the program runs is
 * in pthread_mutex_lock/unlock, and the threads contend, so Valgrind hands
 * its big lock from thread to thread all the time.  What recording costs
 * here is per synchronisation call and per thread switch, not per memory
 * access.  It prints the counter, which is always THREADS * ITERS.
 *
 * Usage: lockheavy [ACQUISITIONS_IN_ALL]   (default 200,000)
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long counter;
static long per_thread;

static void *worker(void *arg)
{
   (void)arg;
   for (long i = 0; i < per_thread; i++) {
      pthread_mutex_lock(&lock);
      counter++;
      pthread_mutex_unlock(&lock);
   }
   return NULL;
}

int main(int argc, char **argv)
{
   long total = argc > 1 ? atol(argv[1]) : 200000;
   pthread_t th[NTHREADS];
   per_thread = total / NTHREADS;
   for (int i = 0; i < NTHREADS; i++)
      if (pthread_create(&th[i], NULL, worker, NULL) != 0)
         return 2;
   for (int i = 0; i < NTHREADS; i++)
      pthread_join(th[i], NULL);
   printf("%lu\n", counter);
   return counter == (unsigned long)per_thread * NTHREADS ? 0 : 1;
}
