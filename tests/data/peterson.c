/* peterson.c: two workers count 2,000 turns of a Peterson lock built on
 * C11 atomics (correct), for tests/t/47-replay-spin.t.  -DCHECK_THEN_SET
 * waits for the other's flag before raising its own (both may enter: a
 * lost update, "lost updates: N"); -DFLAGS_ONLY raises its flag and waits
 * with no turn (both may wait forever: a livelock). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int flag[2];
static atomic_int turn;
static long counter;

static void lock(int me)
{
   int other = 1 - me;
#if defined CHECK_THEN_SET
   while (atomic_load(&flag[other]))
      ;
   atomic_store(&flag[me], 1);
#elif defined FLAGS_ONLY
   atomic_store(&flag[me], 1);
   while (atomic_load(&flag[other]))
      ;
#else
   atomic_store(&flag[me], 1);
   atomic_store(&turn, other);
   while (atomic_load(&flag[other]) && atomic_load(&turn) == other)
      ;
#endif
}

static void unlock(int me)
{
   atomic_store(&flag[me], 0);
}

static void *worker(void *arg)
{
   int me = (int)(long)arg;
   for (int i = 0; i < 1000; i++) {
      lock(me);
      counter++;
      unlock(me);
   }
   return NULL;
}

int main(void)
{
   pthread_t a, b;
   pthread_create(&a, NULL, worker, (void *)0L);
   pthread_create(&b, NULL, worker, (void *)1L);
   pthread_join(a, NULL);
   pthread_join(b, NULL);
   if (counter != 2000) {
      printf("lost updates: %ld\n", counter);
      return 1;
   }
   puts("ok");
   return 0;
}
