/* rwr.c: an RWR atomicity violation, an inconsistent pair of reads.
 *
 * RWR (PENELOPE section 3.1): inside one block thread T reads x twice and
 * expects the same value, but another thread writes x between the reads.
 * checkout() quotes the price to the customer, then charges the price; a
 * price rise by the manager between the two reads charges a price that was
 * never quoted.
 *
 * Natively the two reads are adjacent instructions and the manager writes
 * once, so the program almost always passes.  Forcing the manager's write (f)
 * between the quote (e1) and the charge (e2) makes the check fail (exit 1).
 *
 * cbtools-expect: bug RWR price
 * cbtools-threads: 3
 * cbtools-blocks: checkout raise_price customer manager
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

volatile int price = 10;

/* The block that should be atomic: returns 1 when the charge differs from
 * the quote. */
__attribute__((noinline, noclone)) int checkout(void)
{
   int quoted = price;          // cb: read price [e1]
   int charged = price;         // cb: read price [e2]
   return charged != quoted;
}

__attribute__((noinline, noclone)) void raise_price(void)
{
   price = 12;                  // cb: write price [f]
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
      fprintf(stderr, "rwr: the customer was charged a price never quoted\n");
      return 1;
   }
   return 0;
}
