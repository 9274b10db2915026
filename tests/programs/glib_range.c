/* glib_range.c: a reader that sees a half-updated range through a GRWLock.
 *
 * A thermostat keeps its comfort range, always 10 degrees wide, in a
 * struct guarded by a GRWLock.  The tuner moves the range from [0, 10] to
 * [20, 30] under the writer lock, both ends in one critical section.  The
 * display reads the low end under a reader lock, lets go, and reads the
 * high end under another reader lock: the pair it reads may mix the old
 * range and the new one, and then it shows a range 30 degrees wide (its
 * check fails, exit 1).
 *
 * Natively the display runs after the tuner is done.  Forcing the
 * display's read of the low end (f) before the tuner's write of it (e1 =
 * e2: it ran first in the recorded run) makes it read the old low end and
 * then, once the tuner has let go, the new high end, every time.  The
 * display waits a moment before it looks, so that the recorded run has the
 * tuner first even on a loaded machine (the marker allows either order).
 *
 * cbtools-pkg: glib-2.0
 * cbtools-expect: bug ORD -
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
   range.low = 20;                            // cb: write range.low [e1 e2 f]
   range.high = 30;                           // cb: write range.high [e1 e2 f]
   g_rw_lock_writer_unlock(&range_lock);      // cb: unlock range_lock
   return NULL;
}

static gpointer show(gpointer unused)
{
   (void)unused;
   g_usleep(200000); /* the display refreshes a moment later */
   g_rw_lock_reader_lock(&range_lock);        // cb: lock range_lock
   int low = range.low;                       // cb: read range.low [e1 e2 f]
   g_rw_lock_reader_unlock(&range_lock);      // cb: unlock range_lock
   g_rw_lock_reader_lock(&range_lock);
   int high = range.high;                     // cb: read range.high [e1 e2 f]
   g_rw_lock_reader_unlock(&range_lock);
   if (high - low != 10) {
      fprintf(stderr, "glib_range: the display shows [%d, %d]\n", low, high);
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
