/* Tellers that each move money from their own account to the next
 * teller's, locking the source, pausing for the audit log, then locking
 * the destination: with RING tellers (2 by default) the locks are taken
 * around a ring, and with the pause every teller holds its own account
 * when it asks for the next: a deadlock in practically every run.
 * -DFIXED: the lower account first.  -DRING=3: three tellers, a cycle of
 * three. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#ifndef RING
#define RING 2
#endif

struct account {
   pthread_mutex_t lock;
   long balance;
};

static struct account accounts[RING];

static void *teller(void *arg)
{
   int from = (int)(long)arg, to = (from + 1) % RING;
   struct account *first = &accounts[from], *second = &accounts[to];
#ifdef FIXED
   if (to < from) {
      first = &accounts[to];
      second = &accounts[from];
   }
#endif
   pthread_mutex_lock(&first->lock);
   usleep(2000); /* the audit log */
   pthread_mutex_lock(&second->lock);
   accounts[from].balance -= 10;
   accounts[to].balance += 10;
   pthread_mutex_unlock(&second->lock);
   pthread_mutex_unlock(&first->lock);
   return NULL;
}

int main(void)
{
   pthread_t t[RING];
   long total = 0;
   for (int i = 0; i < RING; i++) {
      pthread_mutex_init(&accounts[i].lock, NULL);
      accounts[i].balance = 100;
   }
   for (long i = 0; i < RING; i++)
      pthread_create(&t[i], NULL, teller, (void *)i);
   for (int i = 0; i < RING; i++)
      pthread_join(t[i], NULL);
   for (int i = 0; i < RING; i++)
      total += accounts[i].balance;
   printf("pausedlock: total %ld\n", total);
   return total == 100 * RING ? 0 : 1;
}
