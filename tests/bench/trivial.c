/* trivial.c: a program that does nothing, for `make bench`
 * (scripts/bench-cbtest.sh): its forced run is all Valgrind starting and
 * ending, the fixed cost every forced run pays before the client's main.
 *
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later.
 */
#include <pthread.h>

static void *nothing(void *arg)
{
   return arg;
}

int main(void)
{
   /* One thread, as the programs under test have: libpthread's start-up
    * and the tool's thread bookkeeping are part of the cost. */
   pthread_t t;
   if (pthread_create(&t, NULL, nothing, NULL) != 0)
      return 1;
   pthread_join(t, NULL);
   return 0;
}
