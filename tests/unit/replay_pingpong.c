/* replay_pingpong: the replay benchmark's program (scripts/bench-replay.sh).
 * Main (T1) and one thread (T2) each increment their own counter N times.
 * The counters are volatile, so each increment is a load and a store in two
 * instructions: two counted events, each a point where a plan can switch.
 * Counted events: T1 create (0), then 2N on c1, then join; T2 2N on c2.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 25000

volatile long c1, c2;

static void *other(void *arg)
{
   (void)arg;
   for (int i = 0; i < N; i++)
      c2 = c2 + 1;
   return NULL;
}

int main(void)
{
   pthread_t t;
   pthread_create(&t, NULL, other, NULL);
   for (int i = 0; i < N; i++)
      c1 = c1 + 1;
   pthread_join(t, NULL);
   return c1 == N && c2 == N ? 0 : 1;
}
