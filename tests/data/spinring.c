/* spinring.c: a trace ring shared by two producer threads and a polling
 * consumer, guarded by a pthread spin lock (the critical sections are a
 * few stores long).  Producers yield while the ring is full; the consumer
 * polls without sleeping until both producers are done, then drains what
 * is left.  Correct: every record arrives once.  With -DTAIL_OUTSIDE a
 * producer moves the tail after releasing the lock, so two producers can
 * fill the same slot and a record is lost.  Built by
 * tests/t/47-replay-spin.t.  GPL-2.0-or-later. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#define SLOTS 8
#define RECORDS 40

static pthread_spinlock_t ring_lock;
static int ring[SLOTS];
static int head, tail, used;
static atomic_int producing = 2;

static int push(int rec)
{
    pthread_spin_lock(&ring_lock);
    if (used == SLOTS) {
        pthread_spin_unlock(&ring_lock);
        return 0;
    }
    ring[tail] = rec;
#ifdef TAIL_OUTSIDE
    used++;
    pthread_spin_unlock(&ring_lock);
    tail = (tail + 1) % SLOTS;
#else
    tail = (tail + 1) % SLOTS;
    used++;
    pthread_spin_unlock(&ring_lock);
#endif
    return 1;
}

static int pop(int *rec)
{
    int got = 0;
    pthread_spin_lock(&ring_lock);
    if (used > 0) {
        *rec = ring[head];
        head = (head + 1) % SLOTS;
        used--;
        got = 1;
    }
    pthread_spin_unlock(&ring_lock);
    return got;
}

static void *producer(void *arg)
{
    int first = (int)(long)arg;
    for (int i = 0; i < RECORDS; i++) {
        unsigned h = (unsigned)(first + i);
        for (int k = 0; k < 300; k++)     /* format the record */
            h = h * 33 + (unsigned)k;
        while (!push(first + i + (h == 7)))
            sched_yield();
    }
    atomic_fetch_sub(&producing, 1);
    return NULL;
}

static void *consumer(void *arg)
{
    long *total = arg;
    int rec;
    for (;;) {
        if (pop(&rec)) {
            *total += rec;
            continue;
        }
        if (atomic_load(&producing) == 0) {
            while (pop(&rec))
                *total += rec;
            return NULL;
        }
    }
}

int main(void)
{
    pthread_t c, p1, p2;
    long total = 0, expect = 0;
    pthread_spin_init(&ring_lock, PTHREAD_PROCESS_PRIVATE);
    pthread_create(&c, NULL, consumer, &total);
    pthread_create(&p1, NULL, producer, (void *)0L);
    pthread_create(&p2, NULL, producer, (void *)1000L);
    pthread_join(p1, NULL);
    pthread_join(p2, NULL);
    pthread_join(c, NULL);
    for (int i = 0; i < RECORDS; i++)
        expect += i + 1000 + i;
    if (total != expect) {
        fprintf(stderr, "spinring: records add up to %ld, expected %ld\n",
                total, expect);
        return 1;
    }
    printf("spinring: %d records\n", 2 * RECORDS);
    return 0;
}
