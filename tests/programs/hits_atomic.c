/* hits_atomic.c: the page-hit counter of hits.c, bumped with an atomic add:
 * the correct twin, built -O2.
 *
 * `__atomic_fetch_add` compiles to `lock addq $1,hits(%rip)`, one locked
 * instruction whose load and store no other core can come between.  The
 * tool must not cut it in two the way it cuts the plain `addq` of hits.c:
 * no forced run may lose an update.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: correct
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
   __atomic_fetch_add(&hits, 1, __ATOMIC_RELAXED); // cb: write hits
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
