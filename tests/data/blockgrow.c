/* blockgrow.c: a table's block and its count of used slots, each kept
 * under the table's lock but read in two critical sections, for
 * tests/t/68-cbtest-attribution.t.  append() replaces a full block with a
 * bigger one, then counts the new value; a reader that takes the block
 * before an append and the count after it sees more values than its block
 * holds: "Assertion `used <= b->n' failed" (with -DSAY_ON_STDOUT it says so
 * on stdout, with two indented lines of details, and exits 1).  -DFIXED reads both in one critical section. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct block {
   size_t n;
   int v[];
};

struct table {
   pthread_mutex_t lock;
   struct block *blk;
   size_t used;
};

static struct table tab = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

static struct block *block_new(size_t n)
{
   struct block *b = calloc(1, sizeof *b + n * sizeof b->v[0]);
   if (!b)
      abort();
   b->n = n;
   return b;
}

/* Only the main thread appends: the block it reads stays the current one. */
static void append(struct table *t, int x)
{
   pthread_mutex_lock(&t->lock);
   size_t used = t->used;
   struct block *b = t->blk;
   pthread_mutex_unlock(&t->lock);
   if (used == b->n) {
      struct block *nb = block_new(2 * b->n);
      memcpy(nb->v, b->v, used * sizeof nb->v[0]);
      pthread_mutex_lock(&t->lock);
      t->blk = nb; /* the old block is kept: readers may hold it */
      pthread_mutex_unlock(&t->lock);
      b = nb;
   }
   b->v[used] = x;
   pthread_mutex_lock(&t->lock);
   t->used = used + 1;
   pthread_mutex_unlock(&t->lock);
}

static void *reader(void *arg)
{
   long sum = 0;
   (void)arg;
   for (int round = 0; round < 100; round++) {
      pthread_mutex_lock(&tab.lock);
      struct block *b = tab.blk;
#ifndef FIXED
      pthread_mutex_unlock(&tab.lock);
      pthread_mutex_lock(&tab.lock);
#endif
      size_t used = tab.used;
#ifdef SAY_ON_STDOUT
      if (used > b->n) {
         printf("blockgrow: %zu values in a block of %zu\n", used, b->n);
         printf("  reader round %d\n  block %p\n", round, (void *)b); /* details */
         exit(1);
      }
#else
      assert(used <= b->n);
#endif
      for (size_t i = 0; i < used; i++)
         sum += b->v[i];
      pthread_mutex_unlock(&tab.lock);
   }
   return (void *)sum;
}

int main(void)
{
   pthread_t t;
   tab.blk = block_new(2);
   pthread_create(&t, NULL, reader, NULL);
   for (int i = 0; i < 40; i++) {
      for (volatile int w = 0; w < 20000; w++)
         ;
      append(&tab, i);
   }
   pthread_join(t, NULL);
   printf("blockgrow: %zu values\n", tab.used);
   return 0;
}
