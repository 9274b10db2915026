/* bitalloc: a lock-free allocator of 64 buffer slots kept as a bitmap
 * (trial 12's program).  alloc() finds the first clear bit in a snapshot
 * of the map and sets it with an atomic fetch-or (`lock or`), but never
 * looks at what the fetch-or returned: when another thread set the same
 * bit since the snapshot, both believe they own the slot.  -DFIXED: the
 * fetch-or's result is tested and alloc() tries again when the bit was
 * taken (gcc makes that a compare-and-swap loop).
 * Built by tests/t/49-bitmap-alloc.t.  GPL-2.0-or-later. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 3
#define ROUNDS 2000

static _Atomic unsigned long slot_map;
static struct { int owner; unsigned data; } slots[64];
static atomic_long messages;

static int slot_alloc(void)
{
    for (;;) {
        unsigned long map = atomic_load(&slot_map);
        if (map == ~0UL)
            continue;                          /* all busy: try again */
        int b = __builtin_ctzl(~map);
#ifdef FIXED
        if (!(atomic_fetch_or(&slot_map, 1UL << b) & (1UL << b)))
            return b;                          /* the bit was ours to set */
#else
        atomic_fetch_or(&slot_map, 1UL << b);
        return b;
#endif
    }
}

static void slot_free(int b)
{
    atomic_fetch_and(&slot_map, ~(1UL << b));
}

static void *user(void *arg)
{
    int me = (int)(long)arg + 1;
    unsigned h = (unsigned)me;
    for (int r = 0; r < ROUNDS; r++) {
        for (int k = 0; k < 400; k++)          /* prepare the message */
            h = (h ^ (h >> 13)) * 2654435761u + 1;
        int b = slot_alloc();
        slots[b].owner = me;
        slots[b].data = h;
        atomic_fetch_add(&messages, 1);        /* send it */
        if (slots[b].owner != me || slots[b].data != h) {
            fprintf(stderr, "bitalloc: slot %d was handed to thread %d and "
                    "thread %d at once\n", b, me, slots[b].owner);
            exit(1);
        }
        slots[b].owner = 0;
        slot_free(b);
    }
    return (void *)(long)h;
}

int main(void)
{
    pthread_t t[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, user, (void *)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    printf("bitalloc: %ld messages, no slot shared\n", atomic_load(&messages));
    return 0;
}
