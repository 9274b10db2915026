/* wrw_locked.c: wrw.c with resize and lookup under one mutex.  Correct:
 * nobody sees the table while it is rebuilt.
 *
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: resize lookup rebuilder reader
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>

volatile int capacity = 4;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline, noclone)) void resize(void)
{
   pthread_mutex_lock(&lock);   // cb: lock lock
   capacity = 0;                // cb: write capacity
   capacity = 8;                // cb: write capacity
   pthread_mutex_unlock(&lock); // cb: unlock lock
}

__attribute__((noinline, noclone)) int lookup(void)
{
   pthread_mutex_lock(&lock);   // cb: lock lock
   int seen = capacity;         // cb: read capacity
   pthread_mutex_unlock(&lock); // cb: unlock lock
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
      fprintf(stderr, "wrw_locked: a lookup saw the table half rebuilt\n");
      return 1;
   }
   return 0;
}
