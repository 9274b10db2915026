/* hits.c: a page-hit counter that every handler thread bumps without a
 * lock, built -O2.
 *
 * Two handler threads each count the pages they served into one global,
 * `hits++`, straight in their start routine.  Built -O2 like shipped code,
 * the increment is one machine instruction, `addq $1,hits(%rip)`: a load
 * and a store with nothing between them in the program's text.  It is not
 * atomic all the same: on two cores both threads can load the old count
 * before either stores, and one update is lost.  main checks the total.
 *
 * Natively the second handler starts long after the first has finished, so
 * the total is always right.  Forcing the other handler's increment (f)
 * between a handler's load (e1) and its store (e2), inside the one
 * instruction, loses an update every time.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: bug RWW hits
 * cbtools-threads: 3
 * cbtools-blocks: handler
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

#define HANDLERS 2

static unsigned long hits;

static void *handler(void *arg)
{
   (void)arg;
   hits++;                                  // cb: read hits [e1]; write hits [e2 f]
   return NULL;
}

int main(void)
{
   pthread_t t[HANDLERS];
   for (int i = 0; i < HANDLERS; i++)
      pthread_create(&t[i], NULL, handler, NULL);
   for (int i = 0; i < HANDLERS; i++)
      pthread_join(t[i], NULL);
   printf("%lu hits\n", hits);
   if (hits != HANDLERS) {
      fprintf(stderr, "hits: counted %lu of %d hits\n", hits, HANDLERS);
      return 1;
   }
   return 0;
}
