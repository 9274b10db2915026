/* site_writers.c: the other writers an order violation must hold back.
 *
 * An order violation (orders.c) whose f reads moves f before T1's write
 * a, so that f reads what was there before a.  When more threads run the
 * same code, each writing the variable at a's site (SCTBench's reorder:
 * nine setters run `a = 1; b = -1;`, a checker reads a and b), moving f
 * before one of those writes changes nothing: it reads another's.  So
 * every other thread's last write at a's site that lies in its prefix and
 * does not happen before f stops that thread there too, until the tail has
 * run (synthesis.c lowers its prefix to the last cut before the write; it
 * raises it again if the tail needs what it stops).  Only a's code site
 * counts: writes of the variable from elsewhere (an initialiser, a reset)
 * are the program's own order, not the symmetric threads of the race.
 *
 * The variable's writes come from the reads-from index (readsfrom.c),
 * which keeps every shared variable's writes in trace order.
 * Copyright (C) 2026 cbtools developers.  GPL-2.0-or-later. */
#include "predict.h"

/* Whether c needs its site's writers held: an order violation whose f is
 * a read and whose a is a write. */
static int wants(const cb_trace *t, const cbp_candidate *c)
{
   return c->pattern == CBP_ORD && c->f < t->nevents && c->e1 < t->nevents &&
          t->events[c->f].kind == CB_EV_READ &&
          t->events[c->e1].kind == CB_EV_WRITE;
}

/* Each thread's latest write at a's site before f that lies in its
 * prefix decides for it: held when it does not happen before f; when it
 * does, so do its earlier ones (clocks only grow).  So the writes are
 * taken from f backwards, and the scan stops once every other thread is
 * decided (most often a few writes back, not the variable's whole
 * history before f, which grows with the trace). */
uint32_t cbp_site_writers(const cbp_rf *rf, const cb_trace *t,
                          const cbp_vclock *v, const cbp_candidate *c,
                          uint32_t nthreads, uint64_t *hold)
{
   for (uint32_t j = 0; j < nthreads; j++) hold[j] = UINT64_MAX;
   if (!rf || !c->prefix || !wants(t, c)) return 0;
   const uint64_t *idx;
   const uint32_t *tid;
   size_t n = cbp_rf_writes(rf, c->var, &idx, &tid);
   size_t lo = 0, hi = n; /* the writes before f: idx[0 .. lo) */
   while (lo < hi) {
      size_t m = lo + (hi - lo) / 2;
      if (idx[m] < c->f) lo = m + 1; else hi = m;
   }
   /* While scanning, a decided thread that is not held says DECIDED in
    * hold (no array beside it: this runs for every order candidate). */
   const uint64_t DECIDED = UINT64_MAX - 1;
   uint32_t loc = t->events[c->e1].loc, held = 0, open = nthreads;
   for (uint32_t j = 1; j <= nthreads; j++)
      if (j == c->t1 || j == c->t2) { hold[j - 1] = DECIDED; open--; }
   for (size_t k = lo; k-- > 0 && open;) {
      uint32_t j = tid[k];
      if (j == 0 || j > nthreads || hold[j - 1] != UINT64_MAX ||
          t->events[idx[k]].loc != loc)
         continue;
      uint64_t count = cbp_rf_count_at(rf, j, idx[k]);
      if (count >= c->prefix[j - 1]) continue; /* not in its prefix */
      open--;
      if (count < cbp_vc_get(v, c->seg_f, j)) { /* happens before f */
         hold[j - 1] = DECIDED;
         continue;
      }
      held++;
      hold[j - 1] = count;
   }
   for (uint32_t j = 0; j < nthreads; j++)
      if (hold[j] == DECIDED) hold[j] = UINT64_MAX;
   return held;
}
