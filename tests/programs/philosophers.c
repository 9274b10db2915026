/* philosophers.c: five philosophers, each taking the fork on its left and
 * then the one on its right: a cycle of five locks.
 *
 * No two philosophers take two forks in opposite orders, so no pair of
 * threads inverts; the five together do.  Natively each sits down 5 ms
 * after the previous one and is done long before: the program never
 * hangs.  A DLK schedule of the five (each holding its left fork, then all
 * released) deadlocks them.  A cycle of five threads is longer than the
 * four cbpredict once searched.
 *
 * cbtools-expect: deadlock
 * cbtools-threads: 6
 * cbtools-blocks: dine
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define N 5

pthread_mutex_t forks[N] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                            PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                            PTHREAD_MUTEX_INITIALIZER};
int meals[N];

void *dine(void *arg)
{
   int i = (int)(long)arg;
   usleep(5000 * i);
   pthread_mutex_lock(&forks[i]);            // cb: lock forks
   pthread_mutex_lock(&forks[(i + 1) % N]);  // cb: lock forks
   meals[i]++;
   pthread_mutex_unlock(&forks[(i + 1) % N]); // cb: unlock forks
   pthread_mutex_unlock(&forks[i]);          // cb: unlock forks
   return NULL;
}

int main(void)
{
   pthread_t t[N];
   for (long i = 0; i < N; i++)
      pthread_create(&t[i], NULL, dine, (void *)i);
   int eaten = 0;
   for (int i = 0; i < N; i++) {
      pthread_join(t[i], NULL);
      eaten += meals[i];
   }
   printf("%d meals\n", eaten);
   return eaten == N ? 0 : 1;
}
