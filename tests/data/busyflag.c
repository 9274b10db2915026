/* busyflag.c: a stats cache that whichever worker finds due refreshes;
 * an atomic busy flag is meant to keep a second refresher out while the
 * first one fetches.  Bug: the flag is checked with atomic_load and then
 * set with atomic_store (gcc -O2 and -O0 make the store an `xchg` whose
 * old value nobody reads), so two workers can both find it clear and
 * refresh at once.  -DFIXED claims it with a compare-and-swap.  Built by
 * tests/t/49-busy-flag.t.  GPL-2.0-or-later. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define WORKERS 4
#define ROUNDS 2000

static atomic_int refreshing;
static long cache_sum;
static int refreshers_inside, max_inside;
static long hits[WORKERS];

static void refresh(int me)
{
#ifdef FIXED
    int idle = 0;
    if (!atomic_compare_exchange_strong(&refreshing, &idle, 1))
        return;
#else
    if (atomic_load(&refreshing))
        return;
    atomic_store(&refreshing, 1);
#endif
    int in = ++refreshers_inside;
    if (in > max_inside)
        max_inside = in;
    long s = 0;
    for (int i = 0; i < 200; i++)
        s += i * (me + 1);
    usleep(300);                 /* the fetch from the backing store */
    cache_sum = s;
    refreshers_inside--;
    atomic_store(&refreshing, 0);
}

static void *worker(void *arg)
{
    int me = (int)(long)arg;
    unsigned seed = 17u * (unsigned)(me + 3);
    for (int r = 0; r < ROUNDS; r++) {
        hits[me]++;
        if (rand_r(&seed) % 97 == 0)
            refresh(me);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[WORKERS];
    for (long i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    if (max_inside > 1) {
        fprintf(stderr, "busyflag: %d refreshers at once\n", max_inside);
        return 1;
    }
    printf("busyflag: ok, cache %ld\n", cache_sum);
    return 0;
}
