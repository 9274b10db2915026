/* lightswitch.c: a lock taken under a gate lock, the gate released, then
 * asked for again while the first is still held: a deadlock.
 *
 * Readers and writers take turns at a shelf.  The first of a kind to come
 * in takes the shelf (lock b) for its kind, the last to leave gives it
 * back; the counts of both kinds are kept under one lock, a.  So a visitor
 * holds b between its two critical sections of a, and needs a again to
 * leave.  A writer that takes a while the reader sits at the shelf, and
 * then waits for b, keeps the reader from ever leaving.  Natively the
 * writer comes 20 ms later, when the reader is long gone.  The DLK
 * schedule has the reader run on from taking b until it has released a
 * (the gate: the writer needs it first), then the writer through its lock
 * of a: released, both block.
 *
 * cbtools-expect: deadlock
 * cbtools-threads: 3
 * cbtools-cflags: -O2
 * cbtools-blocks: reader writer
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER; /* the counts */
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER; /* the shelf, for one kind */
int readers, writers;
int shelf = 1;
int seen;

void *reader(void *arg)
{
   (void)arg;
   pthread_mutex_lock(&a);          // cb: lock a
   if (++readers == 1)
      pthread_mutex_lock(&b);       // cb: lock b
   pthread_mutex_unlock(&a);        // cb: unlock a
   seen = shelf;
   pthread_mutex_lock(&a);          // cb: lock a
   if (--readers == 0)
      pthread_mutex_unlock(&b);     // cb: unlock b
   pthread_mutex_unlock(&a);        // cb: unlock a
   return NULL;
}

void *writer(void *arg)
{
   (void)arg;
   usleep(20000);
   pthread_mutex_lock(&a);          // cb: lock a
   if (++writers == 1)
      pthread_mutex_lock(&b);       // cb: lock b
   pthread_mutex_unlock(&a);        // cb: unlock a
   shelf++;
   pthread_mutex_lock(&a);          // cb: lock a
   if (--writers == 0)
      pthread_mutex_unlock(&b);     // cb: unlock b
   pthread_mutex_unlock(&a);        // cb: unlock a
   return NULL;
}

int main(void)
{
   pthread_t r, w;
   pthread_create(&r, NULL, reader, NULL);
   pthread_create(&w, NULL, writer, NULL);
   pthread_join(r, NULL);
   pthread_join(w, NULL);
   printf("shelf %d, seen %d\n", shelf, seen);
   return 0;
}
