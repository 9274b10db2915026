/* crash.c: a program that crashes mid-run with a segfault.
 *
 * The first worker runs to its end and is joined; the second counts under
 * the lock and then writes through a null pointer while main is still
 * waiting for it.  `cbtrace record` must pass the signal through (exit 139)
 * and leave a readable trace of everything before the crash, down to the
 * faulting write (to address 0x0).
 *
 * cbtools-expect: crash SIGSEGV
 * cbtools-threads: 3
 * cbtools-joins: 1
 * cbtools-blocks: count
 * cbtools-exit: 139
 */
#include <pthread.h>
#include <stdio.h>

volatile int counter = 0;
int *volatile target = NULL;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline, noclone)) void count(void)
{
   pthread_mutex_lock(&lock);     // cb: lock lock
   int c = counter;               // cb: read counter
   counter = c + 1;               // cb: write counter
   pthread_mutex_unlock(&lock);   // cb: unlock lock
}

void *counting(void *arg)
{
   (void)arg;
   for (int i = 0; i < 3; i++)
      count();
   return NULL;
}

void *crashing(void *arg)
{
   (void)arg;
   for (int i = 0; i < 3; i++)
      count();
   *target = counter;             // cb: read target; write 0x0
   return NULL;
}

int main(void)
{
   pthread_t t1, t2;
   pthread_create(&t1, NULL, counting, NULL);
   pthread_join(t1, NULL);
   pthread_create(&t2, NULL, crashing, NULL);
   pthread_join(t2, NULL);
   printf("crash: not reached\n");
   return 0;
}
