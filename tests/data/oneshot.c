/* oneshot.c: a one-shot result that waiters take on a lock-free fast
 * path once it is ready, else sleep for it on a condition, for
 * tests/t/49-half-done.t.
 * complete() publishes `ready` before `result`, both under the lock: a
 * waiter whose fast path sees `ready` while the completer is between the
 * two stores takes a result not yet there ("oneshot: got 0").  The waiters
 * look before main has its result (main computes first), so the recorded
 * run always takes the slow path.  -DFIXED stores the result first. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct oneshot {
   pthread_mutex_t lock;
   pthread_cond_t done;
   int ready;
   long result;
};

static struct oneshot job = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

static void complete(struct oneshot *o, long r)
{
   pthread_mutex_lock(&o->lock);
#ifdef FIXED
   o->result = r;
   __atomic_store_n(&o->ready, 1, __ATOMIC_RELEASE);
#else
   __atomic_store_n(&o->ready, 1, __ATOMIC_RELEASE);
   o->result = r;
#endif
   pthread_cond_broadcast(&o->done);
   pthread_mutex_unlock(&o->lock);
}

static long await(struct oneshot *o)
{
   if (__atomic_load_n(&o->ready, __ATOMIC_ACQUIRE))
      return o->result;
   pthread_mutex_lock(&o->lock);
   while (!o->ready)
      pthread_cond_wait(&o->done, &o->lock);
   long r = o->result;
   pthread_mutex_unlock(&o->lock);
   return r;
}

static void *waiter(void *arg)
{
   long r = await(&job);
   if (r == 0) {
      fprintf(stderr, "oneshot: waiter %ld got 0\n", (long)arg);
      exit(1);
   }
   return NULL;
}

int main(void)
{
   pthread_t t[2];
   for (long i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, waiter, (void *)i);
   long h = 1;
   for (int i = 0; i < 3000000; i++)
      h = (h * 31 + i) % 1000003;
   complete(&job, h + 1);
   for (int i = 0; i < 2; i++)
      pthread_join(t[i], NULL);
   printf("oneshot: %ld\n", job.result);
   return 0;
}
