/* errbuf.c: a library keeps its last error message in one static buffer,
 * formatted by vsnprintf in a variadic helper; two worker threads each
 * fail an operation and read "their" message back with strcpy, built -O2.
 *
 * Every access to the buffer happens inside the C library (vsnprintf
 * writes it, strcpy reads it), which the tool does not watch:
 * the calls are recorded at their callers' lines (vgtool/
 * cb_preload_strmem.c).  A second worker's message formatted between a
 * worker's own and its read of it is what that worker reports.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: bug WWR|RWW|WRW|ORD last_error[0]
 * cbtools-threads: 3
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char last_error[64];

static void set_error(const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(last_error, sizeof last_error, fmt, ap); // cb: write last_error [e1 f]
   va_end(ap);
}

static int open_device(int unit)
{
   set_error("unit %d: device busy", unit);
   return -1;
}

static void *worker(void *arg)
{
   int unit = (int)(long)arg;
   char msg[64], want[64];
   snprintf(want, sizeof want, "unit %d: device busy", unit);
   if (open_device(unit) < 0) {
      strcpy(msg, last_error);                              // cb: read last_error [e2]
      if (strcmp(msg, want) != 0) {
         fprintf(stderr, "worker %d: got \"%s\"\n", unit, msg);
         return (void *)1;
      }
   }
   return NULL;
}

int main(void)
{
   pthread_t t[2];
   for (long i = 0; i < 2; i++)
      pthread_create(&t[i], NULL, worker, (void *)(i + 1));
   int bad = 0;
   for (int i = 0; i < 2; i++) {
      void *r;
      pthread_join(t[i], &r);
      bad |= r != NULL;
   }
   if (bad)
      return 1;
   printf("errors read back\n");
   return 0;
}
