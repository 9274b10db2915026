/* A port table: each server finds a free port in one critical section and
 * binds it in the next, counting the binds, then serves and unbinds it.
 * Two servers can find the same free port and both bind it: the second
 * unbind finds another owner.  The bind counter sits in the same section
 * as the claim, so forcing one server's bind before the other's also
 * splits a find from its bind: the report must name the owner (the check
 * and its act), not the counter.
 * -DFIXED: find and bind in one section. */
#include <pthread.h>
#include <stdio.h>

#define PORTS 2
#define SERVERS 3
#define ROUNDS 40

struct port {
   int owner; /* 0: free */
   long binds;
   long served;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t port_freed = PTHREAD_COND_INITIALIZER;
static struct port ports[PORTS];
static int stolen;

static int free_port(void)
{
   for (int i = 0; i < PORTS; i++)
      if (ports[i].owner == 0)
         return i;
   return -1;
}

static int bind_port(int me)
{
   int p;
   pthread_mutex_lock(&table_lock);
   while ((p = free_port()) < 0)
      pthread_cond_wait(&port_freed, &table_lock);
#ifndef FIXED
   pthread_mutex_unlock(&table_lock);
   pthread_mutex_lock(&table_lock);
#endif
   ports[p].owner = me;
   ports[p].binds++;
   pthread_mutex_unlock(&table_lock);
   return p;
}

static void unbind_port(int p, int me)
{
   pthread_mutex_lock(&table_lock);
   if (ports[p].owner != me)
      stolen++;
   else
      ports[p].owner = 0;
   pthread_cond_broadcast(&port_freed);
   pthread_mutex_unlock(&table_lock);
}

static void *server(void *arg)
{
   int me = (int)(long)arg;
   for (int r = 0; r < ROUNDS; r++) {
      int p = bind_port(me);
      pthread_mutex_lock(&table_lock);
      ports[p].served++;
      pthread_mutex_unlock(&table_lock);
      unbind_port(p, me);
   }
   return NULL;
}

int main(void)
{
   pthread_t t[SERVERS];
   for (long i = 0; i < SERVERS; i++)
      pthread_create(&t[i], NULL, server, (void *)(i + 1));
   for (int i = 0; i < SERVERS; i++)
      pthread_join(t[i], NULL);
   if (stolen) {
      fprintf(stderr, "ports: %d ports bound twice\n", stolen);
      return 1;
   }
   printf("ports: %ld + %ld served\n", ports[0].served, ports[1].served);
   return 0;
}
