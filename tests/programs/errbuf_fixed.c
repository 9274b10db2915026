/* errbuf_fixed.c: errbuf.c whose workers hold the library's error lock
 * from the failing call until they have copied the message out: no other
 * message can be formatted in between.
 *
 * cbtools-cflags: -O2
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-exit: 0
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char last_error[64];
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_error(const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(last_error, sizeof last_error, fmt, ap); // cb: write last_error
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
   pthread_mutex_lock(&error_lock);
   int failed = open_device(unit) < 0;
   if (failed)
      strcpy(msg, last_error);                              // cb: read last_error
   pthread_mutex_unlock(&error_lock);
   if (failed) {
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
