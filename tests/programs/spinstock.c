/* spinstock.c: a ticket office whose hand-made spin lock is used twice
 * where it should be used once, built -O2.
 *
 * The office keeps its stock behind a spin lock of its own, an
 * atomic_flag taken with test-and-set (one `xchg` instruction) and
 * released with a plain store, as code written without pthreads often
 * does.  Each seller thread, in its start routine, checks under the lock
 * that a ticket is left, lets go, and takes the lock again to sell it.
 * Between the two critical sections the other seller may sell the last
 * ticket, and the office sells one it does not have: main finds the stock
 * below zero.
 *
 * The tool does not know the lock, but cbpredict finds it in the trace (a
 * word taken by an atomic exchange from 0 and released by its holder's
 * store of 0, trace/spinlocks.c) and takes it for the lock it is: the
 * race is on `stock`, between the sections, not inside them on the lock
 * word.  In the recorded run the first seller sells before the second
 * looks; forcing the second seller's check (f) before the first seller's
 * sale (e1 = e2) oversells every time.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: bug ORD|RWW stock
 * cbtools-threads: 3
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_flag office = ATOMIC_FLAG_INIT;
static int stock = 1;
static int sold;

static void office_lock(void)
{
   while (atomic_flag_test_and_set_explicit(&office, memory_order_acquire))
      ;
}

static void office_unlock(void)
{
   atomic_flag_clear_explicit(&office, memory_order_release);
}

static void *seller(void *arg)
{
   (void)arg;
   office_lock();
   int left = stock > 0;                     // cb: read stock [f e1]
   office_unlock();
   if (left) {
      office_lock();
      stock--;                               // cb: write stock [e1 e2 f]
      sold++;
      office_unlock();
   }
   return NULL;
}

int main(void)
{
   pthread_t t[2];
   for (int i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, seller, NULL);
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   if (stock < 0) {
      fprintf(stderr, "spinstock: oversold: stock %d, %d sold\n", stock, sold);
      return 1;
   }
   return 0;
}
