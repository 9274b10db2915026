/* glib_flags.c: a cache entry and a list guarded by GLib's bit locks.
 * Correct.
 *
 * The entry keeps a lock bit among its flag bits: each of two workers
 * counts its hits and bytes under g_bit_lock on that bit, so the two
 * counters always move together.  The list head is a pointer whose lowest
 * bit is its lock (g_pointer_bit_lock), under which each worker counts a
 * push.  Main checks every count.
 *
 * cbtools-pkg: glib-2.0
 * cbtools-expect: correct
 * cbtools-threads: 3
 * cbtools-blocks: worker
 * cbtools-exit: 0
 */
#include <glib.h>
#include <stdio.h>

#define ENTRY_LOCK_BIT 3
#define HITS 2

static struct { volatile gint flags; int hits; int bytes; } entry;
static gpointer head;                         /* bit 0: the list's lock */
static int pushes;

static gpointer worker(gpointer unused)
{
   (void)unused;
   for (int i = 0; i < HITS; i++) {
      g_bit_lock(&entry.flags, ENTRY_LOCK_BIT);   // cb: lock entry.flags
      entry.hits++;                               // cb: write entry.hits
      entry.bytes += 100;                         // cb: write entry.bytes
      g_bit_unlock(&entry.flags, ENTRY_LOCK_BIT); // cb: unlock entry.flags
   }
   g_pointer_bit_lock(&head, 0);                  // cb: lock head
   pushes++;                                      // cb: write pushes
   g_pointer_bit_unlock(&head, 0);                // cb: unlock head
   return NULL;
}

int main(void)
{
   GThread *a = g_thread_new("worker-a", worker, NULL);
   GThread *b = g_thread_new("worker-b", worker, NULL);
   g_thread_join(a);
   g_thread_join(b);
   if (entry.hits != 2 * HITS || entry.bytes != 100 * entry.hits ||
       pushes != 2) {
      fprintf(stderr, "glib_flags: %d hits, %d bytes, %d pushes\n",
              entry.hits, entry.bytes, pushes);
      return 1;
   }
   return 0;
}
