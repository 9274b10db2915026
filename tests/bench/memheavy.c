/* memheavy.c: a memory-heavy multithreaded program for `make bench`.
 *
 * Four threads walk a shared heap table with a cheap pseudo-random index,
 * reading one slot and writing another on every step (two recorded events a
 * step, with a little register work between, as real code has), and every 4096 steps fold a private sum into a shared total under a
 * mutex.  The threads update disjoint quarters of the table, so the total
 * it prints is the same on every run.
 *
 * Usage: memheavy [STEPS_PER_THREAD]   (default 10,000,000)
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define TABLE (1u << 16)  /* slots, a quarter per thread */
#define ROUNDS 16         /* hash rounds per step */

static unsigned *table;
static unsigned long total;
static long steps = 10000000;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;

static void *walker(void *arg)
{
   unsigned id = (unsigned)(long)arg;
   unsigned base = id * (TABLE / NTHREADS);
   unsigned x = 12345u + id;
   unsigned long sum = 0;
   /* Local copies: at -O1 the globals would be reloaded on every step
    * (no strict aliasing), doubling the events without doing more work. */
   unsigned *tab = table;
   long n = steps;
   for (long i = 0; i < n; i++) {
      x = x * 1103515245u + 12345u;
      /* Some work in registers between the accesses, as real code has. */
      unsigned h = x;
      for (int r = 0; r < ROUNDS; r++)
         h = (h ^ (h >> 13)) * 0x5bd1e995u;
      sum += h >> 28;
      unsigned from = base + ((x >> 8) & (TABLE / NTHREADS - 1));
      unsigned to = base + ((x >> 20) & (TABLE / NTHREADS - 1));
      unsigned v = tab[from];
      tab[to] = v + 1;
      sum += v & 0xff;
      if ((i & 4095) == 4095) {
         pthread_mutex_lock(&total_lock);
         total += sum;
         pthread_mutex_unlock(&total_lock);
         sum = 0;
      }
   }
   pthread_mutex_lock(&total_lock);
   total += sum;
   pthread_mutex_unlock(&total_lock);
   return NULL;
}

int main(int argc, char **argv)
{
   if (argc > 1)
      steps = atol(argv[1]);
   table = calloc(TABLE, sizeof *table);
   if (!table)
      return 2;
   pthread_t t[NTHREADS];
   for (long i = 0; i < NTHREADS; i++)
      pthread_create(&t[i], NULL, walker, (void *)i);
   for (int i = 0; i < NTHREADS; i++)
      pthread_join(t[i], NULL);
   printf("memheavy: %d threads x %ld steps, total %lu\n", NTHREADS, steps,
          total);
   free(table);
   return 0;
}
