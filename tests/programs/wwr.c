/* wwr.c: a WWR atomicity violation, a thread's own write overwritten before
 * it reads it back.
 *
 * WWR (PENELOPE section 3.1): inside one block thread T writes x, another
 * thread writes x, then T reads x and expects its own value.  claim() makes
 * the caller the owner and then checks that it still is; the other worker's
 * claim in between takes ownership away and the check fails.
 *
 * Natively the write and the read are adjacent instructions, so the program
 * almost always passes.  Forcing worker 2's write (f) between worker 1's
 * write (e1) and read (e2) makes worker 1 lose its claim (exit 1).
 *
 * cbtools-expect: bug WWR owner
 * cbtools-threads: 3
 * cbtools-blocks: claim worker
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

volatile int owner = 0;

/* The block that should be atomic: returns 1 when the claim was lost. */
__attribute__((noinline, noclone)) int claim(int me)
{
   owner = me;                  // cb: write owner [e1 f]
   return owner != me;          // cb: read owner [e2]
}

void *worker(void *arg)
{
   return (void *)(long)claim((int)(long)arg);
}

int main(void)
{
   pthread_t t1, t2;
   void *lost1, *lost2;
   pthread_create(&t1, NULL, worker, (void *)1L);
   pthread_create(&t2, NULL, worker, (void *)2L);
   pthread_join(t1, &lost1);
   pthread_join(t2, &lost2);
   if (lost1 || lost2) {
      fprintf(stderr, "wwr: a worker lost its claim before reading it back\n");
      return 1;
   }
   return 0;
}
