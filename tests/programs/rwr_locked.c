/* rwr_locked.c: rwr.c with the quote and the charge under one mutex.
 * Correct: the price cannot change between them.
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: checkout raise_price customer manager
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

volatile int price = 10;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline, noclone)) int checkout(void)
{
   pthread_mutex_lock(&lock);   // cb: lock lock
   int quoted = price;          // cb: read price
   int charged = price;         // cb: read price
   pthread_mutex_unlock(&lock); // cb: unlock lock
   return charged != quoted;
}

__attribute__((noinline, noclone)) void raise_price(void)
{
   pthread_mutex_lock(&lock);   // cb: lock lock
   price = 12;                  // cb: write price
   pthread_mutex_unlock(&lock); // cb: unlock lock
}

void *customer(void *arg)
{
   (void)arg;
   return (void *)(long)checkout();
}

void *manager(void *arg)
{
   (void)arg;
   raise_price();
   return NULL;
}

int main(void)
{
   pthread_t c, m;
   void *overcharged;
   pthread_create(&c, NULL, customer, NULL);
   pthread_create(&m, NULL, manager, NULL);
   pthread_join(c, &overcharged);
   pthread_join(m, NULL);
   if (overcharged) {
      fprintf(stderr, "rwr_locked: charged a price never quoted\n");
      return 1;
   }
   return 0;
}
