/* markup.c: an RWW inside a block the user marked with CB_ATOMIC_BEGIN/END.
 *
 * visit() does some private work and then updates the shared hit count in a
 * marked region; the marked region, not the whole function, is the block
 * that should be atomic.  As in rww.c, another visit between the read (e1)
 * and the write (e2) loses a hit and the check fails (exit 1).  Natively the
 * window is one instruction and the program almost always passes.
 *
 * cbtools-expect: bug RWW hits
 * cbtools-threads: 3
 * cbtools-blocks: visit visitor
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

#include "cbtools.h"

volatile int hits = 0;

__attribute__((noinline, noclone)) int visit(int page)
{
   int work = 0;
   for (int i = 0; i < page * 8; i++)
      work += i ^ page;
   CB_ATOMIC_BEGIN();             // cb: atomic-begin
   int seen = hits;               // cb: read hits [e1]
   hits = seen + 1;               // cb: write hits [e2 f]
   CB_ATOMIC_END();               // cb: atomic-end
   return work;
}

void *visitor(void *arg)
{
   return (void *)(long)visit((int)(long)arg);
}

int main(void)
{
   pthread_t t1, t2;
   pthread_create(&t1, NULL, visitor, (void *)1L);
   pthread_create(&t2, NULL, visitor, (void *)2L);
   pthread_join(t1, NULL);
   pthread_join(t2, NULL);
   if (hits != 2) {
      fprintf(stderr, "markup: a hit was lost: %d, expected 2\n", hits);
      return 1;
   }
   return 0;
}
