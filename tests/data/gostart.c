/* A pool of workers that each build a lookup table of their own, then
 * wait for main's word to start on the shared input.  main fills the
 * input and broadcasts the start at once, with no flag to check: a worker
 * still building its table begins its wait after the broadcast and waits
 * for ever (a lost wake-up, in practically every run).  -DFIXED: a
 * `started` flag set under the mutex, waited for in a loop.
 * -DNO_BROADCAST: main never says start (a deadlock with no signal at all,
 * nothing to reorder). */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define N 2048

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
#ifdef FIXED
static int started;
#endif
static int input[N];
static long results[WORKERS];

static void *worker(void *arg)
{
   long id = (long)arg, sum = 0;
   unsigned char square[256];
   unsigned h = (unsigned)id;
   for (int i = 0; i < 256; i++)
      square[i] = (unsigned char)(i * i);
   for (int round = 0; round < 3000; round++) /* the table, slowly */
      for (int i = 0; i < 256; i++) {
         h = h * 31 + square[i];
         square[i] ^= (unsigned char)(h >> 24);
      }
   pthread_mutex_lock(&lock);
#ifdef FIXED
   while (!started)
#endif
      pthread_cond_wait(&go, &lock);
   pthread_mutex_unlock(&lock);
   for (int i = (int)id; i < N; i += WORKERS)
      sum += square[input[i] & 0xff];
   results[id] = sum;
   return NULL;
}

int main(void)
{
   pthread_t t[WORKERS];
   for (long i = 0; i < WORKERS; i++)
      pthread_create(&t[i], NULL, worker, (void *)i);
   for (int i = 0; i < N; i++)
      input[i] = i * 7;
   pthread_mutex_lock(&lock);
#ifdef FIXED
   started = 1;
#endif
#ifndef NO_BROADCAST
   pthread_cond_broadcast(&go);
#endif
   pthread_mutex_unlock(&lock);
   long total = 0;
   for (int i = 0; i < WORKERS; i++) {
      pthread_join(t[i], NULL);
      total += results[i];
   }
   printf("gostart: total %ld\n", total);
   return 0;
}
