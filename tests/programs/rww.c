/* rww.c: an RWW atomicity violation, the lost update.
 *
 * RWW (PENELOPE section 3.1): inside one block thread T reads x, another
 * thread writes x, then T writes x.  deposit() reads the balance and writes
 * back the balance plus the amount; a deposit of the other teller between the
 * read and the write is overwritten and lost.
 *
 * Natively each teller deposits once and the window is one instruction wide
 * (a volatile load, then a store of the sum), so the program almost always
 * passes.  Forcing teller 2's whole deposit between teller 1's read (e1) and
 * write (e2) loses one deposit, and the check in main fails (exit 1).
 *
 * cbtools-expect: bug RWW balance
 * cbtools-threads: 3
 * cbtools-blocks: deposit teller
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

volatile int balance = 100;

/* The block that should be atomic.  The read and the write are two separate
 * instructions: `balance += amount` at -O1 may become one addl, which no
 * schedule can split. */
__attribute__((noinline, noclone)) void deposit(int amount)
{
   int seen = balance;          // cb: read balance [e1]
   balance = seen + amount;     // cb: write balance [e2 f]
}

void *teller(void *arg)
{
   deposit((int)(long)arg);
   return NULL;
}

int main(void)
{
   pthread_t t1, t2;
   pthread_create(&t1, NULL, teller, (void *)10L);
   pthread_create(&t2, NULL, teller, (void *)20L);
   pthread_join(t1, NULL);
   pthread_join(t2, NULL);
   if (balance != 130) {
      fprintf(stderr, "rww: a deposit was lost: balance %d, expected 130\n",
              balance);
      return 1;
   }
   return 0;
}
