/* handback.c: main and a worker hand a token back and forth through an
 * atomic word, each spinning until it is its turn (acquire loads, release
 * stores: correct C11).  The worker adds one to the round's slot, and main
 * checks the slot once the token is back.  -DEARLY_HANDBACK: the worker
 * hands the token back before it stores its update, and main may see the
 * slot unchanged.  Under Valgrind a spinner spins its whole time slice at
 * each wait (test 47-replay-spin's other half). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef ROUNDS
#define ROUNDS 100
#endif

static atomic_int turn; /* 1: the worker's, 0: main's */
static long slot[ROUNDS];

static void *worker(void *arg)
{
   (void)arg;
   for (int i = 0; i < ROUNDS; i++) {
      while (atomic_load_explicit(&turn, memory_order_acquire) != 1)
         ;
      long v = slot[i] + 1;
#ifdef EARLY_HANDBACK
      atomic_store_explicit(&turn, 0, memory_order_release);
      slot[i] = v;
#else
      slot[i] = v;
      atomic_store_explicit(&turn, 0, memory_order_release);
#endif
   }
   return NULL;
}

int main(void)
{
   pthread_t t;
   if (pthread_create(&t, NULL, worker, NULL) != 0)
      return 2;
   for (int i = 0; i < ROUNDS; i++) {
      slot[i] = 10 * i;
      atomic_store_explicit(&turn, 1, memory_order_release);
      while (atomic_load_explicit(&turn, memory_order_acquire) != 0)
         ;
      if (slot[i] != 10 * i + 1) {
         fprintf(stderr, "handback: round %d saw %ld\n", i, slot[i]);
         abort();
      }
   }
   pthread_join(t, NULL);
   puts("handback: all rounds done");
   return 0;
}
