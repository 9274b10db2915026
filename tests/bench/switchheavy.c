/* switchheavy.c: a thread-switch-heavy program for `make bench`
 * (scripts/bench-record.sh).
 *
 * Four threads hand a token round a ring: the holder increments a shared
 * counter and passes the token to the next thread, half the hand-offs
 * through a condition variable (the token's owner number under a mutex)
 * and half through per-thread semaphores.  Every hand-off blocks one
 * thread and wakes another, so the program is all thread switches and
 * synchronisation calls.  It prints the counter, always the hand-offs made.
 *
 * Usage: switchheavy [HANDOFFS]   (default 40,000)
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static int owner;                 /* whose turn, condition-variable half */
static sem_t go[NTHREADS];        /* semaphore half */
static unsigned long counter;
static long rounds;               /* ring rounds per half */

static void *runner(void *arg)
{
   int me = (int)(long)arg, next = (me + 1) % NTHREADS;
   for (long r = 0; r < rounds; r++) {
      pthread_mutex_lock(&lock);
      while (owner != me)
         pthread_cond_wait(&turn_changed, &lock);
      counter++;
      owner = next;
      pthread_cond_broadcast(&turn_changed);
      pthread_mutex_unlock(&lock);
   }
   for (long r = 0; r < rounds; r++) {
      while (sem_wait(&go[me]) != 0)
         ;
      counter++;
      sem_post(&go[next]);
   }
   return NULL;
}

int main(int argc, char **argv)
{
   long total = argc > 1 ? atol(argv[1]) : 40000;
   pthread_t th[NTHREADS];
   rounds = total / (2 * NTHREADS);
   for (int i = 0; i < NTHREADS; i++)
      sem_init(&go[i], 0, i == 0);
   for (int i = 0; i < NTHREADS; i++)
      if (pthread_create(&th[i], NULL, runner, (void *)(long)i) != 0)
         return 2;
   for (int i = 0; i < NTHREADS; i++)
      pthread_join(th[i], NULL);
   printf("%lu\n", counter);
   return counter == (unsigned long)rounds * 2 * NTHREADS ? 0 : 1;
}
