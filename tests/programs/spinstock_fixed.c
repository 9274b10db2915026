/* spinstock_fixed.c: spinstock.c with the check and the sale in one
 * critical section of its hand-made spin lock, built -O2.
 *
 * Nothing can come between the check and the sale, so no schedule may
 * fail; and the lock word itself is a lock, not a shared variable, so no
 * violation is predicted on it.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: correct
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
   if (stock > 0) {
      stock--;
      sold++;
   }
   office_unlock();
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
