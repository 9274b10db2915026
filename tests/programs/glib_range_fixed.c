/* glib_range_fixed.c: glib_range.c with both ends read under one reader
 * lock.  Correct.
 *
 * The display holds the reader lock across its two reads, so it sees the
 * range either before the tuner moved it or after, and always 10 degrees
 * wide.
 *
 * cbtools-pkg: glib-2.0
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: tune show
 * cbtools-exit: 0
 */
#include <glib.h>
#include <stdio.h>

static struct { int low, high; } range = { 0, 10 };
static GRWLock range_lock;

static gpointer tune(gpointer unused)
{
   (void)unused;
   g_rw_lock_writer_lock(&range_lock);        // cb: lock range_lock
   range.low = 20;                            // cb: write range.low
   range.high = 30;                           // cb: write range.high
   g_rw_lock_writer_unlock(&range_lock);      // cb: unlock range_lock
   return NULL;
}

static gpointer show(gpointer unused)
{
   (void)unused;
   g_rw_lock_reader_lock(&range_lock);        // cb: lock range_lock
   int low = range.low;                       // cb: read range.low
   int high = range.high;                     // cb: read range.high
   g_rw_lock_reader_unlock(&range_lock);      // cb: unlock range_lock
   if (high - low != 10) {
      fprintf(stderr, "glib_range_fixed: the display shows [%d, %d]\n", low,
              high);
      return GINT_TO_POINTER(1);
   }
   return NULL;
}

int main(void)
{
   GThread *tuner = g_thread_new("tuner", tune, NULL);
   GThread *display = g_thread_new("display", show, NULL);
   g_thread_join(tuner);
   return g_thread_join(display) != NULL;
}
