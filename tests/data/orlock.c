/* orlock: a spin lock built on fetch-or (`while (atomic_fetch_or(&l, 1) &
 * 1)`, which gcc makes `lock bts`: its result is tested) and released by
 * `atomic_fetch_and(&l, 0)`, guarding a stock checked and taken in one
 * critical section: correct.  The lock must still be found as the
 * program's own lock (trace/spinlocks.c) although its instructions are
 * fetch-and-ops, not exchanges.  Built by tests/t/49-bitmap-alloc.t.
 * GPL-2.0-or-later. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_uint lk;
static int stock = 1000, sold;

static void take(void)
{
    while (atomic_fetch_or(&lk, 1) & 1)
        while (atomic_load_explicit(&lk, memory_order_relaxed))
            ;
}

static void give(void)
{
    atomic_fetch_and(&lk, 0);
}

static void *seller(void *arg)
{
    (void)arg;
    for (int i = 0; i < 300; i++) {
        take();
        if (stock > 0) {
            stock--;
            sold++;
        }
        give();
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, seller, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    if (stock + sold != 1000) {
        fprintf(stderr, "orlock: %d sold, %d left\n", sold, stock);
        return 1;
    }
    printf("orlock: %d sold\n", sold);
    return 0;
}
