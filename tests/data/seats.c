/* seats.c: a seat-reservation service; three booking agents serve a
 * stream of requests, seat state in C11 atomics so that agents need no
 * lock.  Bug: an agent checks a seat with atomic_load and then takes it
 * with atomic_store, so two agents can sell one seat; main's check at the
 * end (bookings reported against seats taken) fails.  -DFIXED takes the
 * seat with a compare-and-swap.  Written for blind trial 17; built by
 * tests/t/68-cbtest-left-path.t.  GPL-2.0-or-later. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_SEATS     48
#define N_AGENTS    3
#define N_REQUESTS  160   /* per agent */

struct seat {
    atomic_int taken;       /* 0 = free, 1 = sold */
    int        holder;      /* agent that sold it (informational) */
    int        price;
};

struct agent {
    pthread_t tid;
    int       id;
    unsigned  rng;
    int       sold;         /* bookings this agent believes it made */
    long      revenue;
};

static struct seat seats[N_SEATS];

static inline unsigned next_rand(unsigned *s)
{
    /* xorshift32: cheap and good enough for picking seats */
    unsigned x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

static inline int seat_price(int seat)
{
    /* front rows are more expensive */
    int row = seat / 8;
    return 120 - row * 10;
}

/* Try to sell `seat` on behalf of agent `a`.  Returns 1 when sold. */
static inline int try_book(struct seat *s, int agent_id)
{
#ifdef FIXED
    int expected = 0;
    if (!atomic_compare_exchange_strong(&s->taken, &expected, 1))
        return 0;
#else
    if (atomic_load(&s->taken))
        return 0;               /* someone was faster */
    /* the seat is free: mark it sold */
    atomic_store(&s->taken, 1);
#endif
    s->holder = agent_id;
    return 1;
}

static void *agent_main(void *arg)
{
    struct agent *a = arg;

    for (int i = 0; i < N_REQUESTS; i++) {
        int want = (int)(next_rand(&a->rng) % N_SEATS);

        /* a customer asks for a seat; maybe they take a neighbour if
         * the one they want is gone */
        if (try_book(&seats[want], a->id)) {
            a->sold++;
            a->revenue += seat_price(want);
            continue;
        }
        int alt = (want + 1) % N_SEATS;
        if (try_book(&seats[alt], a->id)) {
            a->sold++;
            a->revenue += seat_price(alt);
        }
    }
    return NULL;
}

int main(void)
{
    struct agent agents[N_AGENTS];

    for (int i = 0; i < N_SEATS; i++) {
        atomic_init(&seats[i].taken, 0);
        seats[i].holder = -1;
        seats[i].price = seat_price(i);
    }

    memset(agents, 0, sizeof agents);
    for (int i = 0; i < N_AGENTS; i++) {
        agents[i].id = i;
        agents[i].rng = 2463534242u + 7919u * (unsigned)i;
        if (pthread_create(&agents[i].tid, NULL, agent_main, &agents[i])) {
            perror("pthread_create");
            return 2;
        }
    }
    for (int i = 0; i < N_AGENTS; i++)
        pthread_join(agents[i].tid, NULL);

    int sold = 0, taken = 0;
    long revenue = 0, expected_revenue = 0;
    for (int i = 0; i < N_AGENTS; i++) {
        sold += agents[i].sold;
        revenue += agents[i].revenue;
    }
    for (int i = 0; i < N_SEATS; i++) {
        if (atomic_load(&seats[i].taken)) {
            taken++;
            expected_revenue += seats[i].price;
        }
    }

    printf("seats: %d sold by agents, %d seats taken, revenue %ld\n",
           sold, taken, revenue);
    if (sold != taken || revenue != expected_revenue) {
        fprintf(stderr, "seats: double booking: agents sold %d tickets "
                "for %d seats (revenue %ld, expected %ld)\n",
                sold, taken, revenue, expected_revenue);
        return 1;
    }
    return 0;
}
