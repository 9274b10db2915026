/* wrw.c: a WRW atomicity violation, an intermediate state seen by another
 * thread.
 *
 * WRW (PENELOPE section 3.1): inside one block thread T writes x twice, and
 * another thread reads x between the writes, seeing a value that was only
 * meant to exist inside the block.  resize() marks the table empty while it
 * rebuilds it (capacity 0), then publishes the new capacity; a lookup in
 * between sees an empty table.
 *
 * Natively the two writes are adjacent instructions, so the lookup almost
 * never sees 0.  Forcing the lookup's read (f) between the two writes (e1,
 * e2) makes the check fail (exit 1).
 *
 * cbtools-expect: bug WRW capacity
 * cbtools-threads: 3
 * cbtools-blocks: resize lookup rebuilder reader
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

volatile int capacity = 4;

/* The block that should be atomic. */
__attribute__((noinline, noclone)) void resize(void)
{
   capacity = 0;                // cb: write capacity [e1]
   capacity = 8;                // cb: write capacity [e2]
}

/* Returns 1 when the table looked empty: it never is between resizes. */
__attribute__((noinline, noclone)) int lookup(void)
{
   int seen = capacity;         // cb: read capacity [f]
   return seen == 0;
}

void *rebuilder(void *arg)
{
   (void)arg;
   resize();
   return NULL;
}

void *reader(void *arg)
{
   (void)arg;
   return (void *)(long)lookup();
}

int main(void)
{
   pthread_t w, r;
   void *saw_empty;
   pthread_create(&w, NULL, rebuilder, NULL);
   pthread_create(&r, NULL, reader, NULL);
   pthread_join(w, NULL);
   pthread_join(r, &saw_empty);
   if (saw_empty) {
      fprintf(stderr, "wrw: a lookup saw the table half rebuilt\n");
      return 1;
   }
   return 0;
}
