/* gmtime_stamp.c: two threads turn their own timestamps into dates with
 * gmtime(), which returns one static struct tm inside the C library,
 * filled anew by every call (localtime shares it).
 *
 * Each logger calls gmtime() on its own time, then reads the year and the
 * day from the struct it got back.  When the other thread's gmtime runs
 * between the call and the reads, they see the other thread's date.  The
 * tool records each call as a write of "localtime/gmtime's static struct
 * tm (libc)" followed by the caller's read of it, at the call's line
 * (vgtool/cb_preload_libc.c); forcing the other logger's call (f) between
 * one logger's write (e1) and its read (e2) is a WWR that fails the check
 * (exit 1).
 *
 * cbtools-expect: bug WWR localtime/gmtime's static struct tm (libc)
 * cbtools-threads: 3
 * cbtools-blocks: logger
 * cbtools-exit: 0
 * cbtools-cflags: -O2
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct stamp { time_t when; int year, mday; };
static struct stamp epoch = {0, 1970, 1}, billion = {1000000000, 2001, 9};

static void *logger(void *arg)
{
   const struct stamp *s = arg;
   struct tm copy = *gmtime(&s->when);   // cb: write localtime/gmtime's [e1 f]; read localtime/gmtime's [e2]
   if (copy.tm_year + 1900 != s->year || copy.tm_mday != s->mday) {
      fprintf(stderr, "gmtime_stamp: %ld read as %d-%02d, not %d-%02d\n",
              (long)s->when, copy.tm_year + 1900, copy.tm_mday, s->year, s->mday);
      exit(1);
   }
   return NULL;
}

int main(void)
{
   pthread_t ta, tb;
   pthread_create(&ta, NULL, logger, &epoch);
   pthread_create(&tb, NULL, logger, &billion);
   pthread_join(ta, NULL);
   pthread_join(tb, NULL);
   printf("gmtime_stamp: ok\n");
   return 0;
}
