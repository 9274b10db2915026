/* futq.c: futures completed by a pool, for tests/t/69-replay-hunt.t.
 * Three workers take jobs from a bounded queue (mutex and two conditions)
 * and complete each job's future; a collector waits for the futures in
 * order.  A job whose first try failed has its retried value stored after
 * the future says it is done, outside its lock: a collector that reads it
 * first fails with "futq: N futures returned a wrong value" (-DFIXED: the
 * value is stored under the lock, before "done").  Which worker takes
 * which job differs in every run. */
#include <pthread.h>
#include <stdio.h>
#define NJOBS 1500
#define NWORKERS 3
#define QCAP 8
struct future {
   pthread_mutex_t lock;
   pthread_cond_t cv;
   int done;
   long value;
};
static struct future futs[NJOBS];
static struct {
   pthread_mutex_t lock;
   pthread_cond_t not_empty, not_full;
   int items[QCAP];
   int head, count, closed;
} q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
       {0}, 0, 0, 0};

static long compute(int k)
{
   long h = k;
   for (int i = 0; i < 40 + k % 50; i++)
      h = (h * 31 + i) % 1000003;
   return h;
}

static void *worker(void *arg)
{
   (void)arg;
   for (;;) {
      pthread_mutex_lock(&q.lock);
      while (q.count == 0 && !q.closed)
         pthread_cond_wait(&q.not_empty, &q.lock);
      if (q.count == 0) {
         pthread_mutex_unlock(&q.lock);
         return NULL;
      }
      int k = q.items[q.head];
      q.head = (q.head + 1) % QCAP;
      q.count--;
      pthread_cond_signal(&q.not_full);
      pthread_mutex_unlock(&q.lock);

      struct future *f = &futs[k];
      int failed = k % 97 == 13; /* the first try fails: retried */
      long v = compute(k);
      pthread_mutex_lock(&f->lock);
#ifdef FIXED
      f->value = v;
#else
      if (!failed)
         f->value = v;
#endif
      f->done = 1;
      pthread_cond_broadcast(&f->cv);
      pthread_mutex_unlock(&f->lock);
#ifndef FIXED
      if (failed)
         f->value = v; /* the retry's value, stored after "done" */
#endif
   }
}

static void *collector(void *arg)
{
   int *wrong = arg;
   for (int k = 0; k < NJOBS; k++) {
      struct future *f = &futs[k];
      long want = compute(k);
      pthread_mutex_lock(&f->lock);
      while (!f->done)
         pthread_cond_wait(&f->cv, &f->lock);
      long v = f->value;
      pthread_mutex_unlock(&f->lock);
      if (v != want)
         ++*wrong;
   }
   return NULL;
}

int main(void)
{
   pthread_t w[NWORKERS], c;
   int wrong = 0;
   for (int k = 0; k < NJOBS; k++) {
      pthread_mutex_init(&futs[k].lock, NULL);
      pthread_cond_init(&futs[k].cv, NULL);
   }
   for (int i = 0; i < NWORKERS; i++)
      pthread_create(&w[i], NULL, worker, NULL);
   pthread_create(&c, NULL, collector, &wrong);
   for (int k = 0; k < NJOBS; k++) {
      pthread_mutex_lock(&q.lock);
      while (q.count == QCAP)
         pthread_cond_wait(&q.not_full, &q.lock);
      q.items[(q.head + q.count) % QCAP] = k;
      q.count++;
      pthread_cond_signal(&q.not_empty);
      pthread_mutex_unlock(&q.lock);
   }
   pthread_mutex_lock(&q.lock);
   q.closed = 1;
   pthread_cond_broadcast(&q.not_empty);
   pthread_mutex_unlock(&q.lock);
   for (int i = 0; i < NWORKERS; i++)
      pthread_join(w[i], NULL);
   pthread_join(c, NULL);
   if (wrong) {
      fprintf(stderr, "futq: %d futures returned a wrong value\n", wrong);
      return 1;
   }
   return 0;
}
